"""What the agent's calls answer: a class's policy, a recorded pass, a breach and what was done
about it, a retrieval. Plain data, so that the client's module holds only behaviour."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Union

from .guard import CONSERVATIVE_DEFAULT_POLICY, Manifest, policy_from

@dataclass(frozen=True)
class Policy:
    """The floor of a content class, with how its content is parsed."""

    min_size_bytes: int
    min_semantic_density: float
    max_pass_number: int
    content_class: str = "default"
    format: str = "any"
    decoded_format: str | None = None
    required_fields: tuple[str, ...] = ()
    #: 0 for the built-in default, the server's version otherwise, None when given by the caller.
    version: int | None = 0

    @classmethod
    def from_wire(cls, body: Mapping[str, Any], content_class: str) -> Policy:
        floor = policy_from(body)
        return cls(
            floor.min_size_bytes,
            floor.min_semantic_density,
            floor.max_pass_number,
            content_class,
            str(body.get("format") or "any"),
            body.get("decoded_format"),
            tuple(body.get("required_fields") or ()),
            body.get("version") if isinstance(body.get("version"), int) else None,
        )

    def floor(self) -> dict[str, Any]:
        return {
            "min_size_bytes": self.min_size_bytes,
            "min_semantic_density": self.min_semantic_density,
            "max_pass_number": self.max_pass_number,
        }


def default_policy(content_class: str = "default") -> Policy:
    d = CONSERVATIVE_DEFAULT_POLICY
    return Policy(d.min_size_bytes, d.min_semantic_density, d.max_pass_number, content_class)


@dataclass(frozen=True)
class PassResult:
    """What the guard said about one pass, and the receipt queued for it."""

    verdict: str
    directive: str
    manifest_digest: str
    receipt: dict[str, Any]
    #: The measurement of the output (the answer of POST /api/v1/measure); its density is the
    #: receipt's unless the caller claimed one.
    measured: dict[str, Any]
    #: The output to carry forward: the compressor's, plus the CCR marker with cache_originals.
    output: str
    #: With cache_originals, the key the input was cached under (the marker's); else None.
    original_key: str | None = None
    #: Which of the chain's planted canaries survive in the output (None before any is planted).
    canary_check: Any = None

    @property
    def proceed(self) -> bool:
        return self.verdict in ("NO_RECURSIVE_COMPRESSION", "SAFE_TO_COMPRESS")

    @property
    def pass_id(self) -> str:
        return str(self.receipt["pass_id"])

    @property
    def pass_number(self) -> int:
        return int(self.receipt["pass_number"])


@dataclass(frozen=True)
class Breach:
    """The pass at which further compression would collapse, given to an `on_breach` callable."""

    pass_result: PassResult
    previous_output: str
    policy: Policy


BreachPolicy = Union[str, Callable[[Breach], str], None]


@dataclass(frozen=True)
class FloorResult:
    """What `compress_until_floor` settled on: the content to use and why."""

    content: str
    #: "breach" (the guard stopped it), "converged" (the compressor made no progress),
    #: or "max_passes" (the caller's limit).
    reason: str
    strategy: str | None
    directive: str
    passes: tuple[PassResult, ...]
    boundary: dict[str, Any] | None = None


@dataclass(frozen=True)
class Retrieval:
    """An original from the store, or the miss the server answered (never an exception)."""

    found: bool
    hash: str
    original: str | None = None
    status: int = 200
    #: The server's error code on a miss (`unknown_hash`, `evicted`, `expired`,
    #: `ambiguous_hash`), or `network_error` when Floorline could not be reached.
    code: str | None = None
    message: str | None = None
    body: dict[str, Any] = field(default_factory=dict)
    #: True when the original came from this client's own queue, not yet answered for by the server.
    pending: bool = False


def default_strategy(manifest: Manifest | PassResult | str) -> str:
    """The strategy when the agent picks none, as the guard's directives say: a floor breach (the
    output unparseable or schema-invalid) restores the previous pass's output and names it;
    COLLAPSE_IMMINENT (past the last pass, too small, too sparse) halts on it."""
    verdict = manifest if isinstance(manifest, str) else manifest.verdict
    return "restore" if verdict == "FLOOR_BREACH_DETECTED" else "halt"
