"""One compression chain as the agent lives it: each pass guarded and recorded at once, and the
seeds' decision boundary (proceed while safe; at a breach halt, restore or accept loss).
The Python twin of sdk/typescript/src/chain.ts."""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, Union

from ._args import kind_of, optional_count, optional_density, optional_mapping, require_id, require_str, require_strategy
from ._measure import MAX_ORIGINALS, measure
from .canaries import MAX_CANARIES, Canary, CanaryCheck, check_canaries, plant_canaries
from .guard import evaluate_pass, sha256_hex
from .ids import MARKER_KEY_LENGTH, format_marker, pass_id_for, with_marker
from .results import Breach, BreachPolicy, FloorResult, PassResult, Policy, default_strategy

if TYPE_CHECKING:
    from .client import Floorline

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
