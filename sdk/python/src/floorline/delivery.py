"""The delivery loop: a background thread that sends what the agent queued, in batches, and
retries what the server could not take yet. Modelled on OpenTelemetry's BatchSpanProcessor:
the agent's call only appends to a bounded queue; nothing here ever raises into it."""

from __future__ import annotations

import atexit
import logging
import random
import re
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from .http import Answer, Transport

log = logging.getLogger("floorline")

#: Kinds sent many to a request, with the body key of each endpoint's batch form.
BATCHED = {"passes": ("/api/v1/passes", "receipts"), "boundaries": ("/api/v1/boundaries", "boundaries")}
#: Kinds sent one to a request.
SINGLE = {"traces": "/api/v1/traces", "originals": "/api/v1/originals"}
_ISSUE_INDEX = re.compile(r"^(?:receipts|boundaries)\.(\d+)(?:\.|$)")


@dataclass
class DeliveryError:
    """What could not be delivered and why, handed to `on_error`."""

    kind: str
    status: int
    message: str
    items: list[dict[str, Any]]
    body: Any = None


@dataclass
class _Item:
    kind: str
    payload: dict[str, Any]
    queued_at: float = field(default_factory=time.monotonic)


ErrorHandler = Callable[[DeliveryError], None]


class Delivery:
    def __init__(
        self,
        transport: Transport,
        *,
        max_queue: int = 10_000,
        max_batch: int = 500,
        linger: float = 1.0,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        on_error: ErrorHandler | None = None,
        exit_timeout: float = 5.0,
    ) -> None:
        if max_queue < 1 or max_batch < 1:
            raise ValueError("max_queue and max_batch must be at least 1")
        self._transport = transport
        self._max_queue = max_queue
        self._max_batch = min(max_batch, 500)
        self._linger = linger
        self._backoff_base = backoff_base
        self._backoff_max = backoff_max
        self._on_error = on_error
        self._queue: deque[_Item] = deque()
        self._cond = threading.Condition()
        self._in_flight = 0
        self._flushing = 0
        self._closing = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.sent = 0
        self.retried = 0
        self.dropped = 0
        self.failed = 0
        ref = weakref.ref(self)
        self._exit_hook = lambda: (d := ref()) is not None and d.close(exit_timeout)
        atexit.register(self._exit_hook)

    # -- the agent's side -------------------------------------------------------------------

    def enqueue(self, kind: str, payload: dict[str, Any]) -> None:
        if kind not in BATCHED and kind not in SINGLE:
            raise ValueError(f"unknown kind {kind}")
        with self._cond:
            if self._closing:
                self._fail([_Item(kind, payload)], 0, "the client is closed")
                return
            if len(self._queue) >= self._max_queue:
                self._queue.popleft()
                self.dropped += 1
            self._queue.append(_Item(kind, payload))
            self._start()
            # The thread needs waking only to start a linger or to send a full batch; waking it
            # on every append costs the agent more than the rest of record_pass.
            size = len(self._queue)
            if size == 1 or size >= self._max_batch or kind in SINGLE:
                self._cond.notify_all()

    def stats(self) -> dict[str, int]:
        with self._cond:
            return {
                "sent": self.sent,
                "retried": self.retried,
                "dropped": self.dropped,
                "failed": self.failed,
                "queued": len(self._queue) + self._in_flight,
            }

    def flush(self, timeout: float | None = None) -> bool:
        """Sends everything queued now; True when all of it got an answer within `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._flushing += 1
            self._cond.notify_all()
            try:
                while self._queue or self._in_flight:
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        return False
                    self._cond.wait(remaining)
                return True
            finally:
                self._flushing -= 1

    def close(self, timeout: float | None = 10.0) -> bool:
        """Flushes, then stops the thread; what is still unsent after `timeout` is counted failed."""
        with self._cond:
            if self._closing and self._thread is None:
                return not self._queue
        delivered = self.flush(timeout)
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(1.0)
        with self._cond:
            self._thread = None
            left = list(self._queue)
            self._queue.clear()
            if left:
                self._fail(left, 0, "the client closed before these were delivered")
        atexit.unregister(self._exit_hook)
        return delivered

    # -- the thread's side ------------------------------------------------------------------

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="floorline-delivery", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            batch = self._next_batch()
            if batch is None:
                return
            try:
                self._deliver(batch)
            except Exception as error:  # noqa: BLE001 - the loop must outlive any one batch
                log.exception("floorline: delivery failed")
                with self._cond:
                    self._fail(batch, 0, f"{type(error).__name__}: {error}")
            finally:
                with self._cond:
                    self._in_flight = 0
                    self._cond.notify_all()

    def _next_batch(self) -> list[_Item] | None:
        with self._cond:
            while True:
                if self._closing or self._stop.is_set():
                    return None
                if self._queue:
                    first = self._queue[0]
                    full = len(self._queue) >= self._max_batch or first.kind in SINGLE
                    wait = first.queued_at + self._linger - time.monotonic()
                    if full or self._flushing or wait <= 0:
                        break
                    self._cond.wait(wait)
                else:
                    self._cond.wait()
            kind = self._queue[0].kind
            limit = self._max_batch if kind in BATCHED else 1
            batch: list[_Item] = []
            while self._queue and len(batch) < limit and self._queue[0].kind == kind:
                batch.append(self._queue.popleft())
            self._in_flight = len(batch)
            return batch

    def _send(self, batch: list[_Item]) -> Answer:
        kind = batch[0].kind
        if kind in BATCHED:
            path, key = BATCHED[kind]
            return self._transport.request("POST", path, {key: [item.payload for item in batch]})
        return self._transport.request("POST", SINGLE[kind], batch[0].payload)

    def _deliver(self, batch: list[_Item]) -> None:
        attempt = 0
        while batch:
            answer = self._send(batch)
            if answer.ok:
                with self._cond:
                    self.sent += len(batch)
                return
            if answer.retryable:
                attempt += 1
                with self._cond:
                    self.retried += len(batch)
                # Full jitter, so many clients coming back after an outage do not arrive together.
                delay = random.uniform(0, min(self._backoff_max, self._backoff_base * 2 ** min(attempt, 16)))
                asked = answer.retry_after()
                if asked is not None:
                    delay = max(delay, min(asked, self._backoff_max))
                if self._stop.wait(delay):
                    with self._cond:
                        self._fail(batch, answer.status, f"stopped while retrying: {answer.error_message()}")
                    return
                continue
            batch = self._refuse(batch, answer)

    def _refuse(self, batch: list[_Item], answer: Answer) -> list[_Item]:
        """A 4xx is never resent as it was. A batch is all-or-nothing, so when a 422 names the
        bad items by index, those fail and the rest go again at once."""
        bad = self._bad_indices(answer, len(batch))
        with self._cond:
            if bad and len(bad) < len(batch):
                self._fail([batch[i] for i in sorted(bad)], answer.status, answer.error_message(), answer.body)
                return [item for i, item in enumerate(batch) if i not in bad]
            self._fail(batch, answer.status, answer.error_message(), answer.body)
            return []

    @staticmethod
    def _bad_indices(answer: Answer, size: int) -> set[int]:
        if answer.status != 422 or size < 2 or not isinstance(answer.body, dict):
            return set()
        issues = (answer.body.get("error") or {}).get("issues") or []
        found: set[int] = set()
        for issue in issues:
            match = _ISSUE_INDEX.match(str(issue.get("path", ""))) if isinstance(issue, dict) else None
            if match is None:
                return set()
            found.add(int(match.group(1)))
        return {i for i in found if i < size}

    def _fail(self, items: list[_Item], status: int, message: str, body: Any = None) -> None:
        # Called with the lock held; the handler runs without it so that it may call back in.
        self.failed += len(items)
        handler = self._on_error
        error = DeliveryError(items[0].kind, status, message, [item.payload for item in items], body)
        if handler is None:
            log.warning("floorline: %d %s not delivered: %s", len(items), error.kind, message)
            return
        self._cond.release()
        try:
            handler(error)
        except Exception:  # noqa: BLE001 - a broken handler must not stop delivery
            log.exception("floorline: on_error raised")
        finally:
            self._cond.acquire()
