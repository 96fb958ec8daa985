"""The agent's side of Floorline: `Floorline(url, api_key)` and the chains it records."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import urllib.parse
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import content as content_checks
from .delivery import Delivery, ErrorHandler
from .guard import Manifest, evaluate_pass, sha256_hex
from .http import Transport
from ._measure import measure
from .results import Breach, BreachPolicy, FloorResult, PassResult, Policy, Retrieval, default_policy, default_strategy
from .traces import CompressedResidual, compress_trace, node_dict

log = logging.getLogger("floorline")

DEFAULT_URL = "http://127.0.0.1:3000"
#: Headroom's markers carry the first 24 hex of the SHA-256; so do ours.
MARKER_KEY_LENGTH = 24
STRATEGIES = ("halt", "restore", "accept_loss")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Chain:
    """One compression chain: its passes are numbered from 1 in the order they are recorded."""

    def __init__(self, client: Floorline, chain_id: str, content_class: str, policy: Policy | None, metadata: Mapping[str, Any] | None) -> None:
        if not isinstance(chain_id, str) or not 1 <= len(chain_id) <= 256:
            raise ValueError("chain_id must be a string of 1 to 256 characters")
        self.client = client
        self.chain_id = chain_id
        self.content_class = content_class
        self._given_policy = policy
        self._metadata = dict(metadata or {})
        self._lock = threading.Lock()
        self._next = 1
        self.source: str | None = None
        self.passes: list[PassResult] = []

    @property
    def policy(self) -> Policy:
        """The floor the guard judges by: given, or the server's (waited for at the first decision)."""
        return self._given_policy or self.client.cached_policy(self.content_class, wait=self.client.policy_wait)

    def record_pass(
        self,
        input: str | None,
        output: str,
        *,
        semantic_density_score: float | None = None,
        metadata: Mapping[str, Any] | None = None,
        original_items: int | None = None,
        compressed_items: int | None = None,
    ) -> PassResult:
        """Receipts one pass (`input` compressed to `output`), runs the guard locally and queues
        the receipt. Returns at once: nothing here waits on the network. `input` may be None
        when the compressor's input is not at hand (the receipt then names no input hash)."""
        if (input is not None and not isinstance(input, str)) or not isinstance(output, str):
            raise TypeError("input and output must be str")
        policy = self.policy
        with self._lock:
            number = self._next
            self._next += 1
            if self.source is None and input is not None:
                self.source = input
        pass_id = f"p{number}"
        if self.client.cache_originals and input is not None:
            key = self.client._cache_original(input, output, self.chain_id, pass_id, original_items, compressed_items)
            if policy.format not in ("json", "base64"):
                # A marker inside JSON or base64 would make the content unparseable; those classes
                # carry the key in the receipt's metadata only.
                output = f"{output}\n{_marker(key, original_items, compressed_items)}"
            metadata = {**(metadata or {}), "ccr_hash": key}
        measured: dict[str, Any] | None = None
        if semantic_density_score is None:
            measured = measure(output, source=self.source, format=policy.format, required_fields=policy.required_fields)
            parseable, schema_valid = bool(measured["parseable"]), measured["schema_valid"] is not False
            density = float(measured["semantic_density_score"])
        else:
            parseable, schema_valid = content_checks.check(output, policy.format, policy.required_fields, policy.decoded_format)
            density = semantic_density_score
        receipt: dict[str, Any] = {
            "chain_id": self.chain_id,
            "pass_id": pass_id,
            "pass_number": number,
            "current_content_hash": sha256_hex(output),
            "current_size_bytes": len(output.encode("utf-8")),
            "is_parseable": parseable,
            "schema_valid": schema_valid,
            "semantic_density_score": density,
            "content_class": self.content_class,
            "created_at": _now(),
        }
        if input is not None:
            receipt["input_content_hash"] = sha256_hex(input)
        manifest = evaluate_pass(receipt, policy)
        receipt["verdict"] = manifest.verdict
        receipt["manifest_digest"] = manifest.manifest_digest
        extra = {**self._metadata, **(metadata or {})}
        if extra:
            receipt["metadata"] = extra
        if self.client.send_content:
            receipt["content"] = output
            if number == 1 and input is not None:
                receipt["input_content"] = input
        self.client._delivery.enqueue("passes", receipt)
        result = PassResult(manifest.verdict, manifest.directive, manifest.manifest_digest, receipt, measured, output)
        self.passes.append(result)
        return result

    def record_boundary(self, pass_number: int, strategy: str, reason: str, *, restore_pass_id: str | None = None, relaxed_policy: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Queues a compression-boundary receipt: where the chain stopped and what it did instead."""
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}")
        if strategy == "restore" and not restore_pass_id:
            raise ValueError("a restore boundary names the pass it restores (restore_pass_id)")
        boundary: dict[str, Any] = {"chain_id": self.chain_id, "pass_number": pass_number, "strategy": strategy, "reason": reason}
        if restore_pass_id:
            boundary["restore_pass_id"] = restore_pass_id
        if relaxed_policy is not None:
            boundary["relaxed_policy"] = dict(relaxed_policy)
        self.client._delivery.enqueue("boundaries", boundary)
        return boundary

    def compress_until_floor(self, content: str, compress: Callable[[str], str], *, on_breach: BreachPolicy = None, max_passes: int | None = None, **record: Any) -> FloorResult:
        """The decision boundary of the seeds: compress pass after pass while the guard says
        proceed; at the first breach halt (keep that pass), restore (the previous pass's output)
        or accept the loss (keep it, the floor deliberately relaxed), as `on_breach` says
        ("halt" | "restore" | "accept_loss", or a callable given the Breach) or else as the
        guard's directive says. The boundary receipt is queued; the content to use is returned."""
        current = content
        done: list[PassResult] = []
        while max_passes is None or len(done) < max_passes:
            output = compress(current)
            if not isinstance(output, str):
                raise TypeError("compress must return str")
            if output == current:
                return FloorResult(current, "converged", None, "the compressor made no further progress", tuple(done))
            result = self.record_pass(current, output, **record)
            done.append(result)
            if not result.proceed:
                return self._settle(result, current, on_breach, tuple(done))
            current = result.output
        return FloorResult(current, "max_passes", None, f"stopped after {len(done)} passes, as the caller asked", tuple(done))

    def _settle(self, result: PassResult, previous: str, on_breach: BreachPolicy, done: tuple[PassResult, ...]) -> FloorResult:
        policy = self.policy
        manifest = Manifest(result.verdict, result.directive, result.manifest_digest)
        strategy = on_breach(Breach(result, previous, policy)) if callable(on_breach) else on_breach
        strategy = strategy or default_strategy(manifest)
        if strategy not in STRATEGIES:
            raise ValueError(f"on_breach must give one of {', '.join(STRATEGIES)}, not {strategy!r}")
        restore_id = done[-2].pass_id if strategy == "restore" and len(done) > 1 else None
        if strategy == "restore" and restore_id is None:
            # The first pass of this call breached: the content it was given is what to restore,
            # and that is the chain's previous pass only when the chain ran before.
            restore_id = self.passes[-2].pass_id if len(self.passes) > 1 else None
        if strategy == "restore" and restore_id is None:
            strategy = "halt"
        boundary = self.record_boundary(
            result.pass_number,
            strategy,
            result.directive,
            restore_pass_id=restore_id,
            relaxed_policy=policy.floor() if strategy == "accept_loss" else None,
        )
        content = previous if strategy == "restore" else result.output
        return FloorResult(content, "breach", strategy, result.directive, done, boundary)


def _marker(key: str, original_items: int | None, compressed_items: int | None) -> str:
    if original_items is not None and compressed_items is not None:
        return f"[{original_items} items compressed to {compressed_items}. Retrieve more: hash={key}]"
    return f"[Content compressed. Retrieve more: hash={key}]"


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
        timeout: float = 10.0,
        backoff_max: float = 30.0,
        exit_timeout: float = 5.0,
    ) -> None:
        self.url = url or os.environ.get("FLOORLINE_URL") or DEFAULT_URL
        self.transport = Transport(self.url, api_key if api_key is not None else os.environ.get("FLOORLINE_API_KEY") or None, timeout)
        self.cache_originals = cache_originals
        self.send_content = send_content
        self.fetch_policies = fetch_policies
        # The first decision for a class waits this long for the server's policy, so a loop that
        # starts at once judges by the server's floor, not the built-in default.
        self.policy_wait = policy_wait
        self._delivery = Delivery(self.transport, max_queue=max_queue, max_batch=max_batch, linger=flush_interval, backoff_max=backoff_max, on_error=on_error, exit_timeout=exit_timeout)
        self._policies: dict[str, Policy] = {}
        self._given: dict[str, Policy] = {}
        for name, given in (policies or {}).items():
            floor = given if isinstance(given, Policy) else Policy.from_wire({"version": None, **dict(given)}, name)
            self._given[name] = floor
        self._policy_lock = threading.Lock()
        self._fetched: dict[str, threading.Event] = {}

    # -- policies ---------------------------------------------------------------------------

    def cached_policy(self, content_class: str, wait: float = 0.0) -> Policy:
        """The class's policy as known now: given, read from the server, or the server's
        conservative default until it has been read. With `wait`, a read in progress (started
        here when none is) is given up to that many seconds first."""
        if content_class in self._given:
            return self._given[content_class]
        with self._policy_lock:
            known = self._policies.get(content_class)
        if known is None:
            fetched = self._prefetch(content_class)
            if fetched is not None and wait > 0 and fetched.wait(wait):
                with self._policy_lock:
                    known = self._policies.get(content_class)
        return known or default_policy(content_class)

    def load_policy(self, content_class: str = "default") -> Policy:
        """Reads the class's policy from the server now (waits on the network); the default
        floor when the server cannot be reached."""
        if content_class in self._given:
            return self._given[content_class]
        answer = self.transport.request("GET", f"/api/v1/policies/{urllib.parse.quote(content_class, safe='')}")
        if answer.ok and isinstance(answer.body, dict):
            try:
                policy = Policy.from_wire(answer.body, content_class)
            except (ValueError, TypeError) as error:
                log.warning("floorline: the server's policy for %s is unreadable: %s", content_class, error)
                return default_policy(content_class)
            with self._policy_lock:
                self._policies[content_class] = policy
            return policy
        log.info("floorline: policy for %s not read (%s); using the default floor", content_class, answer.error_message())
        return default_policy(content_class)

    def _prefetch(self, content_class: str) -> threading.Event | None:
        """Starts reading the class's policy once; the event is set when that read has ended."""
        if not self.fetch_policies:
            return None
        with self._policy_lock:
            fetched = self._fetched.get(content_class)
            if fetched is not None:
                return fetched
            fetched = self._fetched[content_class] = threading.Event()

        def fetch() -> None:
            try:
                self.load_policy(content_class)
            except Exception:  # noqa: BLE001 - a background read must never surface
                log.exception("floorline: reading the policy failed")
            finally:
                fetched.set()

        threading.Thread(target=fetch, name="floorline-policy", daemon=True).start()
        return fetched

    # -- the surface ------------------------------------------------------------------------

    def chain(self, chain_id: str, content_class: str = "default", *, policy: Any = None, metadata: Mapping[str, Any] | None = None) -> Chain:
        given = None
        if policy is not None:
            given = policy if isinstance(policy, Policy) else Policy.from_wire({"version": None, **dict(policy)}, content_class)
        else:
            self.cached_policy(content_class)
        return Chain(self, chain_id, content_class, given, metadata)

    def distill(self, nodes: Iterable[Any], *, trace_id: str | None = None, chain_id: str | None = None, keep_nodes: bool = False) -> CompressedResidual:
        """Runs the trace compressor locally (raising MissingVerificationReceipt as the reference
        fails closed) and queues the trace."""
        wire = [node_dict(n) for n in nodes]
        residual = compress_trace(wire)
        if trace_id is None:
            # Stable across resends and reruns: the same nodes are the same trace.
            trace_id = "t-" + hashlib.sha256(json.dumps(wire, sort_keys=True).encode("utf-8")).hexdigest()[:32]
        body: dict[str, Any] = {"trace_id": trace_id, "nodes": wire, "residual_digest": residual.residual_digest, "keep_nodes": keep_nodes}
        if chain_id is not None:
            body["chain_id"] = chain_id
        self._delivery.enqueue("traces", body)
        return residual

    def retrieve(self, hash: str) -> Retrieval:
        """An original back from the store (waits on the network); a miss is an answer, not an error."""
        answer = self.transport.request("POST", "/api/v1/retrieve", {"hash": hash})
        body = answer.body if isinstance(answer.body, dict) else {}
        if answer.ok:
            return Retrieval(True, str(body.get("hash", hash)), body.get("original"), answer.status, body=body)
        error = body.get("error") if isinstance(body.get("error"), dict) else {}
        code = "unavailable" if answer.status == 0 else error.get("code")
        return Retrieval(False, hash, None, answer.status, code, error.get("message") or answer.error_message(), body)

    def _cache_original(self, original: str, compressed: str, chain_id: str, pass_id: str, original_items: int | None, compressed_items: int | None) -> str:
        key = sha256_hex(original)[:MARKER_KEY_LENGTH]
        body: dict[str, Any] = {"original": original, "compressed": compressed, "hash": key, "chain_id": chain_id, "pass_id": pass_id}
        if original_items is not None and compressed_items is not None:
            body["original_items"] = original_items
            body["compressed_items"] = compressed_items
        self._delivery.enqueue("originals", body)
        return key

    def send(self, kind: str, payload: Mapping[str, Any]) -> None:
        """Queues a body of your own for one of the delivery endpoints ("passes", "boundaries",
        "traces", "originals"), with the same batching and retries."""
        self._delivery.enqueue(kind, dict(payload))

    @property
    def stats(self) -> dict[str, int]:
        """Delivery counters: sent, retried, dropped (the queue was full), failed, queued."""
        return self._delivery.stats()

    def flush(self, timeout: float | None = None) -> bool:
        return self._delivery.flush(timeout)

    def close(self, timeout: float | None = 10.0) -> bool:
        return self._delivery.close(timeout)

    def __enter__(self) -> Floorline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__: Sequence[str] = ("Floorline", "Chain", "Policy", "PassResult", "FloorResult", "Breach", "Retrieval", "default_policy", "default_strategy")
