"""The agent's side of Floorline: `Floorline(url, api_key)` and the chains it records."""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping, Sequence

from ._args import kind_of, optional_count, optional_mapping, require_id, require_str
from .chain import Chain
from .delivery import Delivery, ErrorHandler
from .exit import unwatch_exit, watch_exit
from .guard import sha256_hex
from .http import Transport
from .ids import trace_id_for
from .policies import Policies, as_given
from .report import DeliveryReport, ReceiptsLost, default_on_error, loss_line, warn
from .results import Breach, FloorResult, PassResult, Policy, Retrieval, default_policy, default_strategy
from .traces import CompressedResidual, compress_trace, node_dict

log = logging.getLogger("floorline")

DEFAULT_URL = "http://127.0.0.1:3000"
#: Chains remembered per client: an agent that runs for days opens chains without end.
MAX_CHAINS = 10_000


class Floorline:
    """A client for one Floorline server. Cheap to keep for the life of the process; use it as
    a context manager, or call close(), so what is queued is delivered."""

    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        *,
        cache_originals: bool = False,
        send_content: bool = False,
        policies: Mapping[str, Any] | None = None,
        fetch_policies: bool = True,
        policy_wait: float = 2.0,
        on_error: ErrorHandler | None = None,
        max_queue: int = 10_000,
        max_batch: int = 500,
        flush_interval: float = 1.0,
        timeout: float = 30.0,
        backoff_initial: float = 0.5,
        backoff_max: float = 5.0,
        exit_timeout: float = 5.0,
        flush_on_exit: bool = True,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        if url is not None:
            require_str("Floorline", "url", url)
        if on_error is not None and not callable(on_error):
            raise TypeError(f"Floorline: on_error must be callable, not {kind_of(on_error)}")
        optional_mapping("Floorline", "policies", policies)
        self.url = (url or os.environ.get("FLOORLINE_URL") or DEFAULT_URL).rstrip("/")
        self.transport = Transport(self.url, api_key if api_key is not None else os.environ.get("FLOORLINE_API_KEY") or None, timeout)
        self.cache_originals = cache_originals
        self.send_content = send_content
        self.exit_timeout = exit_timeout
        self._clock = clock or (lambda: datetime.now(timezone.utc))
        # The first decision for a class waits this long for the server's policy, so a loop that
        # starts at once judges by the server's floor, not the built-in default.
        self._policies = Policies(self.transport, policies, fetch_policies, policy_wait)
        self._uses_default_on_error = on_error is None
        self._delivery = Delivery(
            self.transport,
            on_error=on_error or default_on_error(self.url),
            on_result=self._notice_result,
            max_queue=max_queue,
            max_batch=max_batch,
            linger=flush_interval,
            backoff_initial=backoff_initial,
            backoff_max=backoff_max,
        )
        self._chains: OrderedDict[str, Chain] = OrderedDict()
        self._chains_lock = threading.Lock()
        self._closed: DeliveryReport | None = None
        # Re-entrant: SIGTERM may arrive while the main thread is inside close().
        self._close_lock = threading.RLock()
        if flush_on_exit:
            watch_exit(self)

    @property
    def policy_wait(self) -> float:
        return self._policies.wait

    # -- policies ---------------------------------------------------------------------------

    def cached_policy(self, content_class: str) -> Policy:
        """The class's policy as known now: given, read from the server, or the built-in default."""
        return self._policies.now(content_class)

    def load_policy(self, content_class: str = "default") -> Policy:
        """Reads the class's policy from the server now (waits on the network); the given one
        for a class given in code, the default floor when the server cannot be reached."""
        if self._policies.is_given(content_class):
            return self._policies.now(content_class)
        return self._policies.load(content_class) or default_policy(content_class)

    def _notice_result(self, kind: str, result: dict[str, Any]) -> None:
        """The server says which policy version judged each receipt: a new one means read it again."""
        version, chain_id = result.get("policy_version"), result.get("chain_id")
        if kind != "passes" or not isinstance(version, int) or not isinstance(chain_id, str):
            return
        with self._chains_lock:
            chain = self._chains.get(chain_id)
        if chain is not None and not chain.has_own_policy:
            self._policies.notice_version(chain.content_class, version)

    # -- the surface ------------------------------------------------------------------------

    def chain(self, chain_id: str, content_class: str | None = None, *, policy: Any = None, metadata: Mapping[str, Any] | None = None, resume_after: int = 0, source: str | None = None) -> Chain:
        """The chain with this id: the same object each time, so its passes go on being numbered;
        asking for it again with another content class is an error. Starts its class's policy read.
        `resume_after` is the number of passes a chain resumed after a restart already has;
        `source` what it started from (its first input), to measure against."""
        require_id("chain", "chain_id", chain_id)
        if content_class is not None:
            require_id("chain", "content_class", content_class)
        optional_mapping("chain", "metadata", metadata)
        optional_count("chain", "resume_after", resume_after)
        if source is not None:
            require_str("chain", "source", source)
        with self._chains_lock:
            known = self._chains.get(chain_id)
            if known is not None:
                if content_class is not None and content_class != known.content_class:
                    raise ValueError(f"chain: {chain_id!r} is already a chain of class {known.content_class!r}, not {content_class!r}")
                return known
            cls = content_class or "default"
            given = None if policy is None else as_given(policy, cls)
            chain = self._chains[chain_id] = Chain(self, chain_id, cls, given, metadata, resume_after, source)
            while len(self._chains) > MAX_CHAINS:
                self._chains.popitem(last=False)
        if given is None:
            self._policies.start(cls, again=True)
        return chain

    def distill(self, nodes: Iterable[Any], *, trace_id: str | None = None, chain_id: str | None = None, keep_nodes: bool = False, parent_trace_id: str | None = None) -> CompressedResidual:
        """Runs the trace compressor locally (raising MissingVerificationReceipt as the reference
        fails closed) and queues the trace."""
        if isinstance(nodes, (str, bytes, Mapping)) or not isinstance(nodes, Iterable):
            raise TypeError(f"distill: nodes must be a list, not {kind_of(nodes)}")
        wire = [node_dict(n) for n in nodes]
        residual = compress_trace(wire)
        trace_id = trace_id_for(wire) if trace_id is None else require_id("distill", "trace_id", trace_id)
        body: dict[str, Any] = {"trace_id": trace_id, "nodes": wire, "residual_digest": residual.residual_digest}
        if chain_id is not None:
            body["chain_id"] = chain_id
        if parent_trace_id is not None:
            # The predecessor this trace continues: the server compares the two (docs/lineage.md).
            body["parent_trace_id"] = require_id("distill", "parent_trace_id", parent_trace_id)
            if body["parent_trace_id"] == trace_id:
                raise ValueError("distill: parent_trace_id cannot be the trace's own id")
        if keep_nodes:
            body["keep_nodes"] = True
        self._delivery.enqueue("traces", body)
        return residual

    def retrieve(self, hash: str) -> Retrieval:
        """An original back: from this client's queue while it is not yet delivered, else from the
        server's store (waits on the network). A miss is an answer, not an error."""
        require_str("retrieve", "hash", hash)
        key = hash.strip().lower().removeprefix("hash=")
        if 12 <= len(key) <= 64 and all(c in "0123456789abcdef" for c in key):
            pending = self._delivery.pending_original(key, sha256_hex)
            if pending is not None:
                digest, original = pending
                return Retrieval(True, digest, original, 200, body={"hash": digest, "original": original}, pending=True)
        answer = self.transport.request("POST", "/api/v1/retrieve", {"hash": hash})
        body = answer.body if isinstance(answer.body, dict) else {}
        if answer.ok:
            return Retrieval(True, str(body.get("hash", hash)), body.get("original"), answer.status, body=body)
        error = body.get("error") if isinstance(body.get("error"), dict) else {}
        code = "network_error" if answer.status == 0 else error.get("code")
        return Retrieval(False, hash, None, answer.status, code, error.get("message") or answer.error_message(), body)

    def _cache_original(self, original: str, compressed: str, key: str, chain_id: str, pass_id: str, original_items: int | None, compressed_items: int | None) -> None:
        body: dict[str, Any] = {"original": original, "compressed": compressed, "hash": key, "chain_id": chain_id, "pass_id": pass_id}
        if original_items is not None and compressed_items is not None:
            body["original_items"] = original_items
            body["compressed_items"] = compressed_items
        self._delivery.enqueue("originals", body)

    def send(self, kind: str, payload: Mapping[str, Any]) -> None:
        """Queues a body of your own for one of the delivery endpoints ("passes", "boundaries",
        "traces", "originals"), with the same batching and retries."""
        self._delivery.enqueue(kind, dict(payload))

    @property
    def stats(self) -> dict[str, int]:
        """Delivery counters: delivered (also as sent), retried, dropped (the queue was full),
        refused, undelivered, failed (refused + undelivered), queued."""
        return self._delivery.stats()

    def flush(self, timeout: float | None = None) -> bool:
        """Waits until everything queued got an answer (through outages, unless `timeout`)."""
        return self._delivery.flush(timeout)

    def close(self, timeout: float | None = None, *, raise_on_loss: bool = False) -> DeliveryReport:
        """Delivers while the server takes batches, until none has been taken for `timeout` seconds
        (default `exit_timeout`), then stops: what is left is undelivered and goes to on_error.
        Answers what became of everything recorded (true when nothing was lost); with
        `raise_on_loss`, raises ReceiptsLost instead on any loss."""
        with self._close_lock:
            if self._closed is None:
                unwatch_exit(self)
                report = self._delivery.close(self.exit_timeout if timeout is None else timeout)
                if not report.ok and self._uses_default_on_error:
                    warn(loss_line(report, self.url, self._delivery.last_problem))
                self._closed = report
            report = self._closed
        if raise_on_loss and not report.ok:
            raise ReceiptsLost(report, self.url)
        return report

    def _close_at_exit(self) -> None:
        self.close()

    def __enter__(self) -> Floorline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__: Sequence[str] = ("Floorline", "Chain", "Policy", "PassResult", "FloorResult", "Breach", "Retrieval", "default_policy", "default_strategy")
