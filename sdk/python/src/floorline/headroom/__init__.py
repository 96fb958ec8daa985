"""Floorline for Headroom: its CCR store (`headroom.ccr_backend` = floorline) and a pipeline
observer (`headroom.pipeline_extension` = floorline). Nothing here imports Headroom until
Headroom calls in."""

from .extension import FloorlineExtension
from .store import FloorlineCCRBackend, create_ccr_backend

__all__ = ["FloorlineCCRBackend", "FloorlineExtension", "create_ccr_backend"]
