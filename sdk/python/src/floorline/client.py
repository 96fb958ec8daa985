"""The agent's side of Floorline: `Floorline(url, api_key)` and the chains it records."""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping, Sequence, Union

from ._args import kind_of, optional_count, optional_density, optional_mapping, require_id, require_str, require_strategy
from ._measure import MAX_ORIGINALS, measure
from .canaries import MAX_CANARIES, Canary, CanaryCheck, check_canaries, plant_canaries
from .delivery import Delivery, ErrorHandler
from .exit import unwatch_exit, watch_exit
from .guard import evaluate_pass, sha256_hex
from .http import Transport
from .ids import MARKER_KEY_LENGTH, format_marker, pass_id_for, trace_id_for, with_marker
from .policies import Policies, as_given
from .report import DeliveryReport, ReceiptsLost, default_on_error, loss_line, warn
from .results import Breach, BreachPolicy, FloorResult, PassResult, Policy, Retrieval, default_policy, default_strategy
from .traces import CompressedResidual, compress_trace, node_dict

log = logging.getLogger("floorline")

DEFAULT_URL = "http://127.0.0.1:3000"
#: Chains remembered per client: an agent that runs for days opens chains without end.
MAX_CHAINS = 10_000

#: What a compressor gives compress_until_floor: the output, or the output and the density claimed for it.
Compressed = Union[str, "tuple[str, float]"]


def _tool_names(where: str, tools: Sequence[str] | None) -> list[str] | None:
    """A receipt's context_tools: at most 64 tool names of 1 to 128 characters (docs/markers.md)."""
    if tools is None:
        return None
    if isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence):
        raise TypeError(f"{where}: context_tools must be a sequence of tool names, not {kind_of(tools)}")
    names = list(tools)
    if len(names) > 64 or not all(isinstance(t, str) and 1 <= len(t) <= 128 for t in names):
        raise ValueError(f"{where}: context_tools must be at most 64 tool names of 1 to 128 characters")
    return names


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Chain:
    """One compression chain: its passes are numbered from 1 in the order they are recorded."""

    def __init__(self, client: Floorline, chain_id: str, content_class: str, policy: Policy | None, metadata: Mapping[str, Any] | None, resume_after: int = 0, source: str | None = None) -> None:
        self.client = client
        self.chain_id = chain_id
        self.content_class = content_class
        self._given_policy = policy
        self._metadata = dict(metadata or {})
        self._lock = threading.Lock()
        self._next = resume_after + 1
        self.source: str | None = source
        self.passes: list[PassResult] = []
        #: The chain's last pass (id, output, hash): a restore makes the restored pass the last.
        self._last: tuple[str, str, str] | None = None
        #: The inputs this chain cached, by the key its markers carry, for measuring what they make recoverable.
        self._originals: OrderedDict[str, str] = OrderedDict()
        self._canaries: list[Canary] = []
        #: Planted since the last receipt: the next receipt carries them.
        self._unsent: list[Canary] = []

    @property
    def policy(self) -> Policy:
        """The floor the guard judges by: given in code (for the chain or its class), else the
        server's (waited for at the class's first decision), else the built-in default."""
        return self._given_policy or self.client._policies.now(self.content_class)

    @property
    def has_own_policy(self) -> bool:
        return self._given_policy is not None

    @property
    def canaries(self) -> tuple[Canary, ...]:
        """The canaries planted in this chain, in planting order."""
        return tuple(self._canaries)

    def plant_canaries(self, content: str, count: int = 4, seed: str | None = None, format: str | None = None) -> str:
        """The content with synthetic facts written into it as its format carries facts (a JSON
        member, a log line shaped like its neighbours, a sentence): compress the returned content.
        The next receipt records them; every pass from then on reports which survive
        (docs/canaries.md). `seed` is the chain id by default, so a chain plants the same ones."""
        require_str("plant_canaries", "content", content)
        optional_count("plant_canaries", "count", count)
        if seed is not None:
            require_str("plant_canaries", "seed", seed)
        # A sentence in base64 would corrupt it; the decoded text is where facts go.
        if self.policy.format == "base64":
            raise ValueError("plant_canaries: this class's content is base64; plant into the decoded text and encode it again")
        with self._lock:
            if len(self._canaries) + count > MAX_CANARIES:
                raise ValueError(f"plant_canaries: a chain carries at most {MAX_CANARIES} canaries; {len(self._canaries)} are planted, {count} more asked")
            planted = plant_canaries(content, count, self.chain_id if seed is None else seed, len(self._canaries), format)
            self._canaries.extend(planted.canaries)
            self._unsent.extend(planted.canaries)
        return planted.content

    def check_canaries(self, text: str) -> CanaryCheck:
        """Which of this chain's planted canaries survive in `text`: present verbatim (their `text`)."""
        require_str("check_canaries", "text", text)
        with self._lock:
            planted = list(self._canaries)
        return check_canaries(text, planted)

    def _canary_fields(self, output: str, given: CanaryCheck | None) -> tuple[list[Canary], CanaryCheck | None]:
        with self._lock:
            if not self._canaries and given is None:
                return [], None
            unsent, self._unsent = self._unsent, []
            planted = list(self._canaries)
        return unsent, given if given is not None else check_canaries(output, planted)

    def record_pass(
        self,
        input: str | None,
        output: str,
        *,
        semantic_density_score: float | None = None,
        metadata: Mapping[str, Any] | None = None,
        pass_id: str | None = None,
        original_items: int | None = None,
        compressed_items: int | None = None,
        canary_check: CanaryCheck | None = None,
        context_tools: Sequence[str] | None = None,
    ) -> PassResult:
        """Receipts one pass (`input` compressed to `output`), runs the guard locally and queues
        the receipt. Returns at once: nothing here waits on the network. `input` may be None
        when the compressor's input is not at hand (the receipt then names no input hash).
        With canaries planted, the output is checked for them; `canary_check` (from
        check_canaries of other text, for a compactor whose output does not show what it kept)
        is sent in place of that check. `context_tools` names the tools the agent's context
        offered when the output was used: markers sent without a retrieve tool are a finding
        (docs/markers.md)."""
        if input is not None and not isinstance(input, str):
            raise TypeError(f"record_pass: input must be a str or None, not {kind_of(input)}")
        require_str("record_pass", "output", output)
        claimed = optional_density("record_pass", "semantic_density_score", semantic_density_score)
        given = optional_mapping("record_pass", "metadata", metadata)
        optional_count("record_pass", "original_items", original_items)
        optional_count("record_pass", "compressed_items", compressed_items)
        if pass_id is not None:
            require_id("record_pass", "pass_id", pass_id)
        if canary_check is not None and not isinstance(canary_check, CanaryCheck):
            raise TypeError(f"record_pass: canary_check must be what check_canaries returns, not {kind_of(canary_check)}")
        tools = _tool_names("record_pass", context_tools)
        policy = self.policy
        with self._lock:
            number = self._next
            self._next += 1
            if self.source is None and input is not None:
                self.source = input
            last = self._last
        pass_id = pass_id or pass_id_for(self.chain_id, number)
        input_hash = None if input is None else last[2] if last is not None and last[1] == input else sha256_hex(input)
        original_key = None
        if self.client.cache_originals and input is not None and input_hash is not None:
            original_key = input_hash[:MARKER_KEY_LENGTH]
            self.client._cache_original(input, output, original_key, self.chain_id, pass_id, original_items, compressed_items)
            # Base64 has no room for a marker: the original is cached, the output left as it is.
            if policy.format != "base64":
                output = with_marker(output, format_marker(original_key, original_items, compressed_items))
            with self._lock:
                self._originals[original_key] = input
                self._originals.move_to_end(original_key)
                # The measurement reads at most this many originals per content; older ones would only cost memory.
                while len(self._originals) > MAX_ORIGINALS:
                    self._originals.popitem(last=False)
                originals = dict(self._originals)
        else:
            originals = dict(self._originals)
        measured = measure(output, source=self.source, format=policy.format, required_fields=policy.required_fields, originals=originals)
        parseable = bool(measured["parseable"])
        # No required fields: the content is as schema-valid as it is parseable.
        schema_valid = parseable if measured["schema_valid"] is None else bool(measured["schema_valid"])
        density = float(measured["semantic_density_score"]) if claimed is None else claimed
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
            "created_at": _iso(self.client._clock()),
        }
        if input_hash is not None:
            receipt["input_content_hash"] = input_hash
        manifest = evaluate_pass(receipt, policy)
        receipt["verdict"] = manifest.verdict
        receipt["manifest_digest"] = manifest.manifest_digest
        extra = {**self._metadata, **(given or {})}
        if extra:
            receipt["metadata"] = extra
        if self.client.send_content:
            receipt["content"] = output
            if number == 1 and self.source is not None:
                receipt["input_content"] = self.source
        unsent, check = self._canary_fields(output, canary_check)
        if unsent:
            receipt["canaries"] = [c.wire() for c in unsent]
        if check is not None:
            receipt["canary_check"] = check.wire()
        if tools is not None:
            receipt["context_tools"] = tools
        with self._lock:
            self._last = (pass_id, output, receipt["current_content_hash"])
        self.client._delivery.enqueue("passes", receipt)
        result = PassResult(manifest.verdict, manifest.directive, manifest.manifest_digest, receipt, measured, output, original_key, check)
        self.passes.append(result)
        return result

    def record_boundary(self, pass_number: int, strategy: str, reason: str, *, restore_pass_id: str | None = None, relaxed_policy: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Queues a compression-boundary receipt: where the chain stopped and what it did instead."""
        optional_count("record_boundary", "pass_number", pass_number)
        require_strategy("record_boundary", "strategy", strategy)
        require_str("record_boundary", "reason", reason)
        if strategy == "restore" and restore_pass_id is None:
            raise ValueError("record_boundary: a restore names the pass it restores (restore_pass_id)")
        if restore_pass_id is not None:
            require_id("record_boundary", "restore_pass_id", restore_pass_id)
        optional_mapping("record_boundary", "relaxed_policy", relaxed_policy)
        boundary: dict[str, Any] = {"chain_id": self.chain_id, "pass_number": pass_number, "strategy": strategy, "reason": reason}
        if restore_pass_id:
            boundary["restore_pass_id"] = restore_pass_id
        if relaxed_policy is not None:
            boundary["relaxed_policy"] = dict(relaxed_policy)
        self.client._delivery.enqueue("boundaries", boundary)
        return boundary

    def compress_until_floor(self, content: str, compress: Callable[[str], Compressed], *, on_breach: BreachPolicy = None, max_passes: int | None = 100, **record: Any) -> FloorResult:
        """The decision boundary of the seeds: compress pass after pass while the guard says
        proceed. At the first breach, as `on_breach` says ("halt" | "restore" | "accept_loss", or a
        callable given the Breach) or else by the verdict (a floor breach restores, COLLAPSE_IMMINENT
        halts): halt and restore keep the previous pass's output (restore also names that pass, so
        the next pass must start from it), accept_loss keeps the breaching output with the floor
        recorded as deliberately relaxed. `compress` returns the output, or (output, density).
        The boundary receipt is queued; the content to use is returned."""
        require_str("compress_until_floor", "content", content)
        if not callable(compress):
            raise TypeError(f"compress_until_floor: compress must be callable, not {kind_of(compress)}")
        if on_breach is not None and not callable(on_breach):
            require_strategy("compress_until_floor", "on_breach", on_breach)
        optional_count("compress_until_floor", "max_passes", max_passes)
        if not self.has_own_policy:
            self.client._policies.ready(self.content_class)
        current = content
        done: list[PassResult] = []
        while max_passes is None or len(done) < max_passes:
            with self._lock:
                previous_id = self._last[0] if self._last is not None else None
            made = compress(current)
            output, density = (made, None) if isinstance(made, str) else _pair(made)
            if output == current:
                return FloorResult(current, "converged", None, "the compressor made no further progress", tuple(done))
            result = self.record_pass(current, output, **({**record, "semantic_density_score": density} if density is not None else record))
            done.append(result)
            if not result.proceed:
                return self._settle(result, current, previous_id, on_breach, tuple(done))
            current = result.output
        return FloorResult(current, "max_passes", None, f"stopped after {len(done)} passes, as the caller asked", tuple(done))

    def _settle(self, result: PassResult, previous: str, previous_id: str | None, on_breach: BreachPolicy, done: tuple[PassResult, ...]) -> FloorResult:
        policy = self.policy
        picked = on_breach(Breach(result, previous, policy)) if callable(on_breach) else on_breach
        strategy = default_strategy(result) if picked is None else require_strategy("compress_until_floor", "on_breach's answer", picked)
        # A restore names the pass it returns to; before any pass there is none to name.
        if strategy == "restore" and previous_id is None:
            strategy = "halt"
        boundary = self.record_boundary(
            result.pass_number,
            strategy,
            result.directive,
            restore_pass_id=previous_id if strategy == "restore" else None,
            relaxed_policy=policy.floor() if strategy == "accept_loss" else None,
        )
        if strategy == "restore" and previous_id is not None:
            # The next pass starts from the restored output: it is the chain's last pass now.
            with self._lock:
                self._last = (previous_id, previous, sha256_hex(previous))
        content = result.output if strategy == "accept_loss" else previous
        return FloorResult(content, "breach", strategy, result.directive, done, boundary)


def _pair(made: Any) -> tuple[str, float | None]:
    if isinstance(made, tuple) and len(made) == 2 and isinstance(made[0], str):
        return made[0], made[1]
    raise TypeError(f"compress_until_floor: compress must return a str or (str, density), not {kind_of(made)}")


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
