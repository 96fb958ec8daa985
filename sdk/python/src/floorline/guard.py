"""The collapse guard: the reference's gates, directives and digests, byte for byte.

Python's own `json.dumps` defaults and float formatting are the reference's, so the digests
are built with them directly rather than re-implemented.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

VERDICTS = (
    "NO_RECURSIVE_COMPRESSION",
    "SAFE_TO_COMPRESS",
    "FLOOR_BREACH_DETECTED",
    "COLLAPSE_IMMINENT",
)
#: Verdicts after which the next pass may run.
PROCEED_VERDICTS = frozenset({"NO_RECURSIVE_COMPRESSION", "SAFE_TO_COMPRESS"})


@dataclass(frozen=True)
class CompressionPolicy:
    min_size_bytes: int
    min_semantic_density: float
    max_pass_number: int


#: The server's floor for a content class with no policy of its own (lib/guard/policy.ts,
#: CONSERVATIVE_DEFAULT_POLICY): used offline and until the class's policy has been read.
CONSERVATIVE_DEFAULT_POLICY = CompressionPolicy(min_size_bytes=256, min_semantic_density=0.5, max_pass_number=4)


@dataclass(frozen=True)
class Manifest:
    verdict: str
    directive: str
    manifest_digest: str

    @property
    def proceed(self) -> bool:
        return self.verdict in PROCEED_VERDICTS

    def to_dict(self) -> dict[str, str]:
        return {"verdict": self.verdict, "directive": self.directive, "manifest_digest": self.manifest_digest}


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _field(source: Any, name: str) -> Any:
    # dict first: the ABC check behind Mapping costs more than the rest of the guard.
    if isinstance(source, dict) or (not hasattr(source, name) and isinstance(source, Mapping)):
        if name not in source:
            raise ValueError(f"{name} is required")
        return source[name]
    return getattr(source, name)


def _integer(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 2**53 - 1:
        raise ValueError(f"{name} must be an integer from 0 to 2^53 - 1")
    return value


def _density(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number")
    if value < 0 or value > 1:
        raise ValueError(f"{name} must be between 0 and 1")
    return value


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false")
    return value


def policy_from(source: Any) -> CompressionPolicy:
    """A policy from a mapping (the wire's fields) or anything with those attributes."""
    if isinstance(source, CompressionPolicy):
        return source
    return CompressionPolicy(
        min_size_bytes=_integer(_field(source, "min_size_bytes"), "min_size_bytes"),
        min_semantic_density=_density(_field(source, "min_semantic_density"), "min_semantic_density"),
        max_pass_number=_integer(_field(source, "max_pass_number"), "max_pass_number"),
    )


def evaluate_pass(cp: Any, policy: Any) -> Manifest:
    """The pre-collapse check on one pass: a mapping with the wire's fields, or a dataclass
    such as the reference's `CompressionPass`. Raises ValueError on input the API would refuse."""
    pass_id = _field(cp, "pass_id")
    if not isinstance(pass_id, str) or not 1 <= len(pass_id) <= 256:
        raise ValueError("pass_id must be a string of 1 to 256 characters")
    number = _integer(_field(cp, "pass_number"), "pass_number")
    content_hash = _field(cp, "current_content_hash")
    if not isinstance(content_hash, str):
        raise ValueError("current_content_hash must be a string")
    size = _integer(_field(cp, "current_size_bytes"), "current_size_bytes")
    parseable = _flag(_field(cp, "is_parseable"), "is_parseable")
    schema_valid = _flag(_field(cp, "schema_valid"), "schema_valid")
    density = _density(_field(cp, "semantic_density_score"), "semantic_density_score")
    floor = policy_from(policy)

    if number <= 1:
        digest = sha256_hex(json.dumps({"pass": pass_id, "number": str(number)}, sort_keys=True))
        return Manifest("NO_RECURSIVE_COMPRESSION", f"PROCEED: Pass {pass_id} is first pass.", digest)
    if number > floor.max_pass_number:
        return Manifest(
            "COLLAPSE_IMMINENT",
            f"HALT: Pass {number} > {floor.max_pass_number}, use previous.",
            sha256_hex(f"MAX_PASS:{pass_id}"),
        )
    if not parseable:
        return Manifest(
            "FLOOR_BREACH_DETECTED",
            f"HALT: Pass {pass_id} unparseable, restore previous.",
            sha256_hex(f"UNPARSEABLE:{pass_id}"),
        )
    if not schema_valid:
        return Manifest("FLOOR_BREACH_DETECTED", f"HALT: Pass {pass_id} schema invalid.", sha256_hex(f"SCHEMA:{pass_id}"))
    if size < floor.min_size_bytes:
        return Manifest(
            "COLLAPSE_IMMINENT",
            f"HALT: Size {size} < {floor.min_size_bytes}, next pass will collapse.",
            sha256_hex(f"SMALL:{pass_id}"),
        )
    if density < floor.min_semantic_density:
        return Manifest(
            "COLLAPSE_IMMINENT",
            f"HALT: Density {density:.2f} < {floor.min_semantic_density:.2f}.",
            sha256_hex(f"LOW_DENSITY:{pass_id}"),
        )
    digest = sha256_hex(
        json.dumps(
            {
                "pass": pass_id,
                "number": str(number),
                "size": str(size),
                "density": f"{density:.3f}",
                "hash": content_hash,
            },
            sort_keys=True,
        )
    )
    return Manifest("SAFE_TO_COMPRESS", f"PROCEED: Pass {number} safe for further compression.", digest)
