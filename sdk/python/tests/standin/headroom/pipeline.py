# Stand-in (see headroom/__init__.py): the pipeline lifecycle, its event and the extension
# manager that discovers extensions from the `headroom.pipeline_extension` entry points,
# instantiates classes with no arguments and isolates their failures.
from __future__ import annotations

import importlib.metadata
import logging
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

log = logging.getLogger(__name__)
ENTRY_POINT_GROUP = "headroom.pipeline_extension"


class PipelineStage(str, Enum):
    INPUT_RECEIVED = "input_received"
    INPUT_ROUTED = "input_routed"
    INPUT_COMPRESSED = "input_compressed"
    PRE_SEND = "pre_send"


@dataclass
class PipelineEvent:
    stage: PipelineStage
    operation: str
    request_id: str = ""
    provider: str = ""
    model: str = ""
    messages: list[dict[str, Any]] | None = None
    tools: list[dict[str, Any]] | None = None
    headers: dict[str, str] | None = None
    response: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)


def discover_pipeline_extensions() -> list[Any]:
    found = []
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        extension = entry.load()
        found.append(extension() if isinstance(extension, type) else extension)
    return found


class PipelineExtensionManager:
    def __init__(self, *, extensions: list[Any] | None = None, discover: bool = True) -> None:
        self._extensions = list(extensions or []) + (discover_pipeline_extensions() if discover else [])
        # Headroom logs an extension's exception and goes on; kept here so tests can see any.
        self.failures: list[Exception] = []

    def emit(self, stage: PipelineStage, *, operation: str, **fields: Any) -> PipelineEvent:
        event = PipelineEvent(stage=stage, operation=operation, **fields)
        for extension in self._extensions:
            try:
                updated = extension.on_pipeline_event(event)
            except Exception as exc:  # noqa: BLE001
                log.warning("pipeline extension failed: %s", exc)
                self.failures.append(exc)
                continue
            if isinstance(updated, PipelineEvent):
                event = updated
        return event
