"""The guard and the trace compressor against the repo's golden cases from the reference."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum, auto

import pytest
from conftest import FIXTURES

from floorline import MissingVerificationReceipt, compress_trace, evaluate_pass

GUARD = json.loads((FIXTURES / "guard-public.json").read_text("utf-8"))
TRACE = json.loads((FIXTURES / "trace-public.json").read_text("utf-8"))


@pytest.mark.parametrize("case", GUARD, ids=lambda c: c["pass"]["pass_id"])
def test_guard_matches_the_reference(case):
    assert evaluate_pass(case["pass"], case["policy"]).to_dict() == case["expect"]


@pytest.mark.parametrize("case", TRACE, ids=[f"trace{i}" for i in range(len(TRACE))])
def test_trace_compressor_matches_the_reference(case):
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises(MissingVerificationReceipt) as caught:
            compress_trace(case["nodes"])
        assert caught.value.node_id == expect["node_id"]
        assert str(caught.value) == expect["message"]
    else:
        assert compress_trace(case["nodes"]).to_dict() == expect


def test_the_vectors_cover_every_gate():
    verdicts = {c["expect"]["verdict"] for c in GUARD}
    assert verdicts == {"NO_RECURSIVE_COMPRESSION", "SAFE_TO_COMPRESS", "FLOOR_BREACH_DETECTED", "COLLAPSE_IMMINENT"}
    assert any("error" in c["expect"] for c in TRACE) and any(c["expect"].get("conclusions") for c in TRACE)


# The reference's own dataclasses (the seeds' Python) are accepted as they are, so an agent
# written against the seeds can pass its objects straight in.
@dataclass(frozen=True)
class CompressionPass:
    pass_id: str
    pass_number: int
    current_content_hash: str
    current_size_bytes: int
    is_parseable: bool
    schema_valid: bool
    semantic_density_score: float


@dataclass(frozen=True)
class CompressionPolicy:
    min_size_bytes: int
    min_semantic_density: float
    max_pass_number: int


class TraceNodeType(Enum):
    EXPLORATORY_CHATTER = auto()
    VERIFIED_CONCLUSION = auto()
    FALSIFIED_PATH = auto()


@dataclass(frozen=True)
class ReasoningNode:
    node_id: str
    node_type: TraceNodeType
    content: str
    verification_receipt: str | None = None


def test_reference_dataclasses_are_accepted():
    case = next(c for c in GUARD if c["expect"]["verdict"] == "SAFE_TO_COMPRESS")
    got = evaluate_pass(CompressionPass(**case["pass"]), CompressionPolicy(**case["policy"]))
    assert got.to_dict() == case["expect"]
    trace = next(c for c in TRACE if c["expect"].get("conclusions"))
    nodes = [ReasoningNode(n["node_id"], TraceNodeType[n["node_type"]], n["content"], n["verification_receipt"]) for n in trace["nodes"]]
    assert compress_trace(nodes).to_dict() == trace["expect"]


@pytest.mark.parametrize(
    "field,value",
    [("pass_number", -1), ("pass_number", 1.0), ("pass_number", True), ("semantic_density_score", float("nan")), ("semantic_density_score", 1.5), ("is_parseable", 1), ("pass_id", "")],
)
def test_input_the_api_refuses_is_refused(field, value):
    case = dict(GUARD[0]["pass"], **{field: value})
    with pytest.raises(ValueError):
        evaluate_pass(case, GUARD[0]["policy"])
