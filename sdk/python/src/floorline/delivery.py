"""The delivery loop: a background thread that sends what the agent queued, in batches, and
retries what the server could not take yet. Modelled on OpenTelemetry's BatchSpanProcessor:
the agent's call only appends to a bounded queue; nothing here ever raises into it."""

from __future__ import annotations

import logging
import random
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from .http import Answer, Transport
from .report import DeliveryError, DeliveryReport, full_line, reached_line, unreachable_line, warn

log = logging.getLogger("floorline")

__all__ = ["Delivery", "DeliveryError", "DeliveryReport", "ErrorHandler"]

#: Kinds sent many to a request, with the body key of each endpoint's batch form.
BATCHED = {"passes": ("/api/v1/passes", "receipts"), "boundaries": ("/api/v1/boundaries", "boundaries")}
#: Kinds sent one to a request.
SINGLE = {"traces": "/api/v1/traces", "originals": "/api/v1/originals"}
_ISSUE_INDEX = re.compile(r"^(?:receipts|boundaries)\.(\d+)(?:\.|$)")


@dataclass
class _Item:
    kind: str
    payload: dict[str, Any]
    queued_at: float = field(default_factory=time.monotonic)


ErrorHandler = Callable[[DeliveryError], None]
ResultHandler = Callable[[str, dict[str, Any]], None]


class Delivery:
    def __init__(
        self,
        transport: Transport,
        *,
        on_error: ErrorHandler,
        on_result: ResultHandler | None = None,
        max_queue: int = 10_000,
        max_batch: int = 500,
        linger: float = 1.0,
        backoff_initial: float = 0.5,
        backoff_max: float = 5.0,
    ) -> None:
        if max_queue < 1 or max_batch < 1:
            raise ValueError("max_queue and max_batch must be at least 1")
        self._transport = transport
        self._max_queue = max_queue
        self._max_batch = min(max_batch, 500)
        self._linger = linger
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self._on_error = on_error
        self._on_result = on_result
        self._queue: deque[_Item] = deque()
        self._cond = threading.Condition()
        #: The batch being sent: still the client's until the server has answered for it.
        self._in_flight: list[_Item] = []
        self._flushing = 0
        self._closing = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._dropping = False
        #: Why the server cannot be reached, while it cannot (a notice was logged once).
        self._unreachable: str | None = None
        #: The last reason the server could not be reached, for the line at close.
        self.last_problem: str | None = None
        #: Batches the server has answered for (stored or refused): what close() counts as progress.
        self._answered = 0
        self.delivered = 0
        self.retried = 0
        self.dropped = 0
        self.refused = 0
        self.undelivered = 0

    # -- the agent's side -------------------------------------------------------------------

    def enqueue(self, kind: str, payload: dict[str, Any]) -> None:
        if kind not in BATCHED and kind not in SINGLE:
            raise ValueError(f"unknown kind {kind}")
        with self._cond:
            if self._closing:
                self._fail([_Item(kind, payload)], "undelivered", DeliveryError(kind, 0, "the client is closed; nothing more is sent", [], code="closed"))
                return
            if len(self._queue) >= self._max_queue:
                self._queue.popleft()
                self.dropped += 1
                if not self._dropping:
                    warn(full_line(self._max_queue))
                self._dropping = True
            else:
                self._dropping = False
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
                "delivered": self.delivered,
                "sent": self.delivered,
                "retried": self.retried,
                "dropped": self.dropped,
                "refused": self.refused,
                "undelivered": self.undelivered,
                "failed": self.refused + self.undelivered,
                "queued": len(self._queue) + len(self._in_flight),
            }

    def report(self) -> DeliveryReport:
        with self._cond:
            return DeliveryReport(self.delivered, self.refused, self.dropped, self.undelivered)

    def pending_original(self, key: str, full_hash: Callable[[str], str]) -> tuple[str, str] | None:
        """A cached original not yet answered for by the server, by the key its marker carries
        (12 to 64 hex): its full hash and text."""
        with self._cond:
            candidates = [item.payload for item in (*self._in_flight, *self._queue) if item.kind == "originals"]
        for payload in candidates:
            original, short = payload.get("original"), str(payload.get("hash") or "")
            if not isinstance(original, str) or not (short.startswith(key) if len(key) <= len(short) else key.startswith(short)):
                continue
            digest = full_hash(original)
            if digest.startswith(key):
                return digest, original
        return None

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

    def flush_while_answered(self, idle: float | None) -> bool:
        """Like flush, while the server keeps answering: gives up once no batch has been answered
        (stored or refused) for `idle` seconds. A server that cannot be reached holds the caller
        `idle` seconds; a busy one that keeps taking batches is not cut off mid-queue."""
        while True:
            with self._cond:
                answered = self._answered
            if self.flush(idle):
                return True
            with self._cond:
                if self._answered == answered:
                    return False

    def close(self, idle: float | None) -> DeliveryReport:
        """Flushes while the server answers (giving up after `idle` seconds without an answer;
        None: until done), then stops: what is left (the batch in flight too) counts as
        undelivered and goes to on_error."""
        with self._cond:
            if self._closing:
                return DeliveryReport(self.delivered, self.refused, self.dropped, self.undelivered)
        self.flush_while_answered(idle)
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            # The thread ends at once unless a request is on the wire; that one is not waited for
            # (it counts as undelivered, and the daemon thread does not hold the process).
            thread.join(0.05)
        with self._cond:
            left = [*self._in_flight, *self._queue]
            self._in_flight = []
            self._queue.clear()
            if left:
                why = f"; last problem: {self.last_problem}" if self.last_problem else ""
                self._fail(left, "undelivered", DeliveryError(left[0].kind, 0, f"{len(left)} items were still undelivered when the client closed{why}", [], code="undelivered"))
            return DeliveryReport(self.delivered, self.refused, self.dropped, self.undelivered)

    # -- the thread's side ------------------------------------------------------------------

    def _start(self) -> None:
        if self._thread is None and not self._closing:
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
                    if self._in_flight:
                        self._fail(self._in_flight, "refused", DeliveryError(batch[0].kind, 0, f"{type(error).__name__}: {error}", [], code="client_error"))
            finally:
                with self._cond:
                    # Closing: what is still in flight is close()'s to count as undelivered.
                    if not self._closing:
                        self._in_flight = []
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
            self._in_flight = batch
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
            with self._cond:
                if self._in_flight is not batch:
                    return  # close() counted this batch undelivered and stopped waiting for it
            if answer.ok:
                with self._cond:
                    self.delivered += len(batch)
                    self._answered += 1
                    self._in_flight = []
                self._reached()
                self._pass_on_results(batch[0].kind, answer.body)
                return
            if answer.retryable:
                attempt += 1
                with self._cond:
                    self.retried += len(batch)
                if answer.status == 0:
                    self._cannot_reach(answer.problem, len(batch))
                if self._stop.wait(self._backoff(attempt, answer.retry_after())):
                    return  # closing: close() counts what is in flight
                continue
            self._reached()
            batch = self._refuse(batch, answer)

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        """Exponential, jittered over its upper half, never sooner than the server's Retry-After."""
        ceiling = min(self._backoff_max, self._backoff_initial * 2 ** min(attempt - 1, 30))
        jittered = ceiling / 2 + random.random() * (ceiling / 2)
        return jittered if retry_after is None else max(retry_after, jittered)

    def _cannot_reach(self, problem: str, in_flight: int) -> None:
        with self._cond:
            self.last_problem = problem
            if self._unreachable is not None:
                return
            self._unreachable = problem
            waiting = len(self._queue) + in_flight
        warn(unreachable_line(problem, waiting))

    def _reached(self) -> None:
        with self._cond:
            if self._unreachable is None:
                return
            self._unreachable = None
        warn(reached_line(self._transport.base))

    def _pass_on_results(self, kind: str, body: Any) -> None:
        if self._on_result is None or not isinstance(body, dict):
            return
        results = body.get("results") if kind in BATCHED else [body]
        for result in results if isinstance(results, list) else ():
            if isinstance(result, dict):
                try:
                    self._on_result(kind, result)
                except Exception:  # noqa: BLE001 - a result the client cannot read changes no delivery
                    log.exception("floorline: reading a result failed")

    def _refuse(self, batch: list[_Item], answer: Answer) -> list[_Item]:
        """A 4xx (or a 500) is never resent as it was. A batch is all-or-nothing, so when a 409
        or 422 names the bad items by index, those fail and the rest go again at once."""
        bad = self._bad_indices(answer, len(batch))
        error = answer.body.get("error") if isinstance(answer.body, dict) else None
        error = error if isinstance(error, dict) else {}
        issues = [i for i in error.get("issues") or [] if isinstance(i, dict)]
        code = str(error.get("code") or f"http_{answer.status}")
        message = str(error.get("message") or answer.error_message())
        refused = [batch[i] for i in sorted(bad)] if bad and len(bad) < len(batch) else batch
        rest = [item for i, item in enumerate(batch) if i not in bad] if refused is not batch else []
        with self._cond:
            self._answered += 1
            self._in_flight = rest
            self._fail(refused, "refused", DeliveryError(batch[0].kind, answer.status, message, [], answer.body, code, issues))
        return rest

    @staticmethod
    def _bad_indices(answer: Answer, size: int) -> set[int]:
        if answer.status not in (409, 422) or size < 2 or not isinstance(answer.body, dict):
            return set()
        issues = (answer.body.get("error") or {}).get("issues") or []
        found: set[int] = set()
        for issue in issues:
            match = _ISSUE_INDEX.match(str(issue.get("path", ""))) if isinstance(issue, dict) else None
            if match is None:
                return set()
            found.add(int(match.group(1)))
        return {i for i in found if i < size}

    def _fail(self, items: list[_Item], outcome: str, error: DeliveryError) -> None:
        # Called with the lock held; the handler runs without it so that it may call back in.
        if outcome == "refused":
            self.refused += len(items)
        else:
            self.undelivered += len(items)
        error.items = [item.payload for item in items]
        self._cond.release()
        try:
            self._on_error(error)
        except Exception:  # noqa: BLE001 - a broken handler must not stop delivery
            log.exception("floorline: on_error raised")
        finally:
            self._cond.acquire()
