"""Measured density: the port of the server's lib/measure (docs/measurement.md)."""

from __future__ import annotations

from typing import Any, Sequence


def measure(content: str, source: str | None = None, format: str = "any", required_fields: Sequence[str] = ()) -> dict[str, Any]:
    raise NotImplementedError("the measurement is ported once lib/measure lands; pass semantic_density_score")
