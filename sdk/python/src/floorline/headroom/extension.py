"""Floorline as a Headroom pipeline extension: each `input_compressed` event is a pass.

Headroom calls `on_pipeline_event` inside its request; this only serialises the messages and
hands them to a worker thread, which receipts the pass and queues it for delivery. Nothing
here raises into Headroom or waits on the network."""

from __future__ import annotations

import json
import logging
import queue
import threading
import uuid
from typing import Any, Mapping

log = logging.getLogger("floorline.headroom")

STAGE = "input_compressed"
#: Where a session id may ride, in the event's metadata or headers; else the request's own id.
SESSION_KEYS = ("session_id", "conversation_id", "thread_id")
SESSION_HEADERS = ("x-headroom-session-id", "x-session-id", "x-conversation-id")
#: Events waiting for the worker; past this the newest is dropped (the agent must not wait).
MAX_PENDING = 10_000


def _messages_text(messages: Any) -> str | None:
    if messages is None:
        return None
    return json.dumps(messages, ensure_ascii=False, sort_keys=True, default=str)


def chain_id_of(event: Any) -> str:
    metadata = getattr(event, "metadata", None) or {}
    for key in SESSION_KEYS:
        value = metadata.get(key) if isinstance(metadata, Mapping) else None
        if isinstance(value, str) and value:
            return f"headroom-session-{value}"[:256]
    headers = {str(k).lower(): v for k, v in (getattr(event, "headers", None) or {}).items()}
    for name in SESSION_HEADERS:
        if headers.get(name):
            return f"headroom-session-{headers[name]}"[:256]
    request_id = getattr(event, "request_id", "") or uuid.uuid4().hex
    return f"headroom-{request_id}"[:256]


class FloorlineExtension:
    """The `headroom.pipeline_extension` entry point; Headroom makes one with no arguments.
    Floorline is found from FLOORLINE_URL and FLOORLINE_API_KEY; the content class is
    FLOORLINE_CONTENT_CLASS (default `headroom`)."""

    def __init__(self, client: Any = None, content_class: str | None = None) -> None:
        import os

        from ..client import Floorline

        self.client = client if client is not None else Floorline()
        self.content_class = content_class or os.environ.get("FLOORLINE_CONTENT_CLASS") or "headroom"
        self._chains: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._pending: queue.Queue[tuple[str, str | None, str, dict[str, Any]] | None] = queue.Queue(MAX_PENDING)
        self.dropped = 0
        self._worker = threading.Thread(target=self._run, name="floorline-headroom", daemon=True)
        self._worker.start()

    def on_pipeline_event(self, event: Any) -> None:
        try:
            stage = getattr(event, "stage", None)
            if getattr(stage, "value", stage) != STAGE:
                return None
            metadata = dict(getattr(event, "metadata", None) or {})
            output = _messages_text(getattr(event, "messages", None))
            if output is None:
                return None
            # original_messages is a read-only reference Headroom's proxy adds for recorders.
            original = _messages_text(metadata.get("original_messages"))
            facts: dict[str, Any] = {
                "source": "headroom",
                "operation": getattr(event, "operation", ""),
                "request_id": getattr(event, "request_id", ""),
                "provider": getattr(event, "provider", ""),
                "model": getattr(event, "model", ""),
                "tokens_before": metadata.get("tokens_before"),
                "tokens_after": metadata.get("tokens_after"),
                "transforms_applied": list(metadata.get("transforms_applied") or []),
            }
            self._pending.put_nowait((chain_id_of(event), original, output, facts))
        except queue.Full:
            self.dropped += 1
        except Exception:  # noqa: BLE001 - Headroom's request goes on whatever happens here
            log.exception("floorline: recording a Headroom event failed")
        # None: the event goes on unchanged.
        return None

    def _run(self) -> None:
        while True:
            item = self._pending.get()
            if item is None:
                return
            try:
                self._record(*item)
            except Exception:  # noqa: BLE001
                log.exception("floorline: receipting a Headroom pass failed")
            finally:
                self._pending.task_done()

    def _record(self, chain_id: str, original: str | None, output: str, facts: dict[str, Any]) -> None:
        with self._lock:
            chain = self._chains.get(chain_id)
            if chain is None:
                chain = self.client.chain(chain_id, self.content_class)
                self._chains[chain_id] = chain
                if len(self._chains) > MAX_PENDING:
                    self._chains.pop(next(iter(self._chains)))
        metadata = {k: v for k, v in facts.items() if v not in (None, "", [])}
        chain.record_pass(original, output, metadata=metadata)

    def flush(self, timeout: float | None = None) -> bool:
        """Receipts what is pending, then delivers it (for tests and shutdown)."""
        self._pending.join()
        return bool(self.client.flush(timeout))
