"""The trace compressor: the reference's binding conclusions and residual digest, byte for byte."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

NODE_TYPES = ("EXPLORATORY_CHATTER", "VERIFIED_CONCLUSION", "FALSIFIED_PATH")


class MissingVerificationReceipt(ValueError):
    """A VERIFIED_CONCLUSION without a receipt: the reference fails closed, and so does the API."""

    code = "missing_verification_receipt"

    def __init__(self, node_id: str) -> None:
        super().__init__(f"Node {node_id!r} lacks a verification receipt; cannot promote to a binding axiom.")
        self.node_id = node_id


@dataclass(frozen=True)
class BindingConclusion:
    axiom: str
    proof_receipt: str
    invalidated_paths: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"axiom": self.axiom, "proof_receipt": self.proof_receipt, "invalidated_paths": list(self.invalidated_paths)}


@dataclass(frozen=True)
class CompressedResidual:
    conclusions: tuple[BindingConclusion, ...]
    eviction_boundary_index: int
    residual_digest: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "conclusions": [c.to_dict() for c in self.conclusions],
            "eviction_boundary_index": self.eviction_boundary_index,
            "residual_digest": self.residual_digest,
        }


def _get(node: Any, name: str, default: Any = None) -> Any:
    if isinstance(node, Mapping):
        return node.get(name, default)
    return getattr(node, name, default)


def _node_type(node: Any) -> str:
    kind = _get(node, "node_type")
    # The reference's TraceNodeType is an Enum: its member's name is the wire's string.
    name = kind if isinstance(kind, str) else getattr(kind, "name", None)
    if name not in NODE_TYPES:
        raise ValueError(f"node_type must be one of {', '.join(NODE_TYPES)}")
    return name


def _text(node: Any, name: str) -> str:
    value = _get(node, name)
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string")
    return value


def node_dict(node: Any) -> dict[str, Any]:
    """A node on the wire: mappings and the reference's dataclasses alike."""
    receipt = _get(node, "verification_receipt")
    if receipt is not None and not isinstance(receipt, str):
        raise ValueError("verification_receipt must be a string or None")
    return {
        "node_id": _text(node, "node_id"),
        "node_type": _node_type(node),
        "content": _text(node, "content"),
        "verification_receipt": receipt,
    }


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def compress_trace(nodes: Iterable[Any]) -> CompressedResidual:
    """Distils a finished trace into binding axioms and falsified paths; raises
    MissingVerificationReceipt for a conclusion that has nothing proving it."""
    items = [node_dict(n) for n in nodes]
    axioms: list[tuple[str, str]] = []
    invalidations: set[str] = set()
    for node in items:
        kind, receipt = node["node_type"], node["verification_receipt"]
        if kind == "VERIFIED_CONCLUSION":
            if not receipt or not receipt.strip():
                raise MissingVerificationReceipt(node["node_id"])
            axioms.append((node["content"].strip(), receipt.strip()))
        elif kind == "FALSIFIED_PATH" and receipt:
            invalidations.add(f"{node['content'].strip()} -> {receipt.strip()}")

    boundary = len(items)
    if not axioms and not invalidations:
        return CompressedResidual((), boundary, _sha256("EMPTY"))
    paths = tuple(sorted(invalidations))
    conclusions = tuple(BindingConclusion(axiom, proof, paths) for axiom, proof in axioms)
    payload = {"axioms": [a for a, _ in axioms], "invalidations": list(paths)}
    digest = _sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")))
    return CompressedResidual(conclusions, boundary, digest)
