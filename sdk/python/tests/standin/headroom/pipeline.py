# Stand-in (see headroom/__init__.py): the canonical pipeline's stages, its event, the
# extension protocol, and the manager that discovers extensions from the
# `headroom.pipeline_extension` entry points (classes instantiated with no arguments, load and
# init failures logged and skipped) and dispatches each event, logging and skipping an
# extension that raises, taking a returned PipelineEvent as the new event.
# What Headroom passes at `input_compressed`: operation "proxy.request" (the proxy, with
# request_id, provider, model, and metadata tokens_before, tokens_after, transforms_applied
# and original_messages), "sdk.request" (its client: the same without original_messages) or
# "compress" (compress(): no request_id, no provider); never headers.
from __future__ import annotations

import importlib.metadata
import logging
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "headroom.pipeline_extension"


class PipelineStage(str, Enum):
    SETUP = "setup"
    PRE_START = "pre_start"
    POST_START = "post_start"
    INPUT_RECEIVED = "input_received"
    INPUT_CACHED = "input_cached"
    INPUT_ROUTED = "input_routed"
    INPUT_COMPRESSED = "input_compressed"
    INPUT_REMEMBERED = "input_remembered"
    PRE_SEND = "pre_send"
    POST_SEND = "post_send"
    RESPONSE_RECEIVED = "response_received"


CANONICAL_PIPELINE_STAGES: tuple[PipelineStage, ...] = tuple(PipelineStage)


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


class PipelineExtension(Protocol):
    def on_pipeline_event(self, event: PipelineEvent) -> PipelineEvent | None: ...


def discover_pipeline_extensions() -> list[Any]:
    found: list[Any] = []
    try:
        entries = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception as exc:  # noqa: BLE001
        log.debug("pipeline extensions: entry-point enumeration failed: %s", exc)
        return found
    for entry in entries:
        try:
            extension = entry.load()
        except Exception as exc:  # noqa: BLE001
            log.warning("pipeline extension %r failed to load: %s", entry.name, exc)
            continue
        if isinstance(extension, type):
            try:
                extension = extension()
            except Exception as exc:  # noqa: BLE001
                log.warning("pipeline extension %r failed to initialize: %s", entry.name, exc)
                continue
        found.append(extension)
    return found


def summarize_routing_markers(transforms_applied: list[str]) -> list[str]:
    return [item for item in transforms_applied if item.startswith("router:")]


class PipelineExtensionManager:
    def __init__(self, *, hooks: Any = None, extensions: list[Any] | None = None, discover: bool = True) -> None:
        resolved: list[Any] = []
        if hooks is not None and callable(getattr(hooks, "on_pipeline_event", None)):
            resolved.append(hooks)
        if extensions:
            resolved.extend(extensions)
        if discover:
            resolved.extend(discover_pipeline_extensions())
        self._extensions = resolved

    @property
    def enabled(self) -> bool:
        return bool(self._extensions)

    def emit(self, stage: PipelineStage, *, operation: str, request_id: str = "", provider: str = "", model: str = "",
             messages: list[dict[str, Any]] | None = None, tools: list[dict[str, Any]] | None = None,
             headers: dict[str, str] | None = None, response: Any = None,
             metadata: dict[str, Any] | None = None) -> PipelineEvent:
        event = PipelineEvent(stage=stage, operation=operation, request_id=request_id, provider=provider, model=model,
                              messages=messages, tools=tools, headers=headers, response=response,
                              metadata=metadata or {})
        for extension in self._extensions:
            handler = getattr(extension, "on_pipeline_event", None)
            if not callable(handler):
                continue
            try:
                updated = handler(event)
            except Exception as exc:  # noqa: BLE001
                log.warning("pipeline extension %r failed during %s: %s", type(extension).__name__, stage.value, exc)
                continue
            if isinstance(updated, PipelineEvent):
                event = updated
        return event
