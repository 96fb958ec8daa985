"""The client's surface offline: receipts, the guard's answer at once, the decision boundary."""

from __future__ import annotations

import hashlib
import os
import socket

import pytest

import floorline
from floorline import Floorline, evaluate_pass


def offline(**kwargs) -> Floorline:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    return Floorline(url, fetch_policies=False, flush_interval=3600, on_error=lambda e: None, flush_on_exit=False, **kwargs)


def test_url_and_key_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("FLOORLINE_URL", "http://floorline.internal:3000")
    monkeypatch.setenv("FLOORLINE_API_KEY", "fl_abc_secret")
    fl = Floorline(fetch_policies=False)
    assert (fl.transport.base, fl.transport.api_key) == ("http://floorline.internal:3000", "fl_abc_secret")
    assert Floorline("http://x:1/", "given").transport.api_key == "given"


def test_record_pass_computes_the_receipt_and_runs_the_guard():
    fl = offline()
    chain = fl.chain("c1", "json-class", policy={"min_size_bytes": 10, "min_semantic_density": 0.2, "max_pass_number": 5, "format": "json", "required_fields": ["items.id"]})
    source = '{"items": [{"id": 1, "name": "alpha"}, {"id": 2, "name": "beta"}]}'
    first = chain.record_pass(source, '{"items": [{"id": 1}, {"id": 2}]}', semantic_density_score=0.8)
    second = chain.record_pass(first.output, '{"items": [{"name": "x"}]}', semantic_density_score=0.8)
    r = second.receipt
    assert r["input_content_hash"] == first.receipt["current_content_hash"] == hashlib.sha256(b'{"items": [{"id": 1}, {"id": 2}]}').hexdigest()
    assert (r["chain_id"], r["pass_id"], r["pass_number"], r["content_class"]) == ("c1", "c1.p2", 2, "json-class")
    assert r["current_size_bytes"] == len('{"items": [{"name": "x"}]}'.encode())
    assert (r["is_parseable"], r["schema_valid"]) == (True, False)
    assert second.verdict == "FLOOR_BREACH_DETECTED" and second.directive == "HALT: Pass c1.p2 schema invalid."
    assert (r["verdict"], r["manifest_digest"]) == (second.verdict, second.manifest_digest)
    assert evaluate_pass(r, chain.policy).manifest_digest == second.manifest_digest
    assert fl.stats["queued"] == 2


def test_unparseable_json_and_utf8_sizes():
    fl = offline()
    chain = fl.chain("c2", policy={"min_size_bytes": 1, "min_semantic_density": 0, "max_pass_number": 9, "format": "json"})
    chain.record_pass("{}", "{}", semantic_density_score=1)
    r = chain.record_pass("{}", '{"é": NaN}', semantic_density_score=1).receipt
    assert r["is_parseable"] is False and r["current_size_bytes"] == 11


def test_without_a_policy_the_servers_conservative_default_applies():
    chain = offline().chain("c3")
    assert (chain.policy.min_size_bytes, chain.policy.min_semantic_density, chain.policy.max_pass_number) == (256, 0.5, 4)


def shrink(text: str) -> str:
    return text[: len(text) * 3 // 4]


LONG = "Release 7.1.0 of the billing service on 2026-10-27: 14 tests failed in ledger.py. " * 12


def test_compress_until_floor_halts_where_the_next_pass_would_collapse():
    result = offline().chain("walk").compress_until_floor(LONG, lambda s: s[: len(s) // 2], semantic_density_score=0.9)
    last = result.passes[-1]
    assert result.reason == "breach" and result.strategy == "halt"
    # The breaching output is under the floor: the content to use is the pass before it.
    assert last.directive.endswith("next pass will collapse.") and result.content == result.passes[-2].output
    assert result.boundary == {"chain_id": "walk", "pass_number": last.pass_number, "strategy": "halt", "reason": last.directive}
    assert all(p.proceed for p in result.passes[:-1])


def test_compress_until_floor_restores_the_previous_output_of_an_unparseable_pass():
    policy = {"min_size_bytes": 1, "min_semantic_density": 0, "max_pass_number": 10, "format": "json"}
    steps = iter(['{"a": 1, "b": 2}', '{"a": 1}', '{"a"'])
    result = offline().chain("restore", policy=policy).compress_until_floor('{"a": 1, "b": 2, "c": 3}', lambda _: next(steps), semantic_density_score=0.9)
    assert (result.strategy, result.content) == ("restore", '{"a": 1}')
    assert result.boundary["restore_pass_id"] == "restore.p2" and result.boundary["pass_number"] == 3


def test_past_the_last_pass_compression_halts_on_the_previous_output():
    result = offline().chain("long").compress_until_floor(LONG, shrink, semantic_density_score=0.9)
    assert result.passes[-1].directive == "HALT: Pass 5 > 4, use previous."
    assert (result.strategy, result.content) == ("halt", result.passes[-2].output)
    assert "restore_pass_id" not in result.boundary


def test_the_caller_decides_at_the_breach():
    seen = []

    def accept(breach):
        seen.append(breach)
        return "accept_loss"

    result = offline().chain("loss").compress_until_floor(LONG, shrink, on_breach=accept, semantic_density_score=0.9)
    assert result.strategy == "accept_loss" and result.content == result.passes[-1].output
    assert result.boundary["relaxed_policy"] == {"min_size_bytes": 256, "min_semantic_density": 0.5, "max_pass_number": 4}
    assert seen[0].pass_result is result.passes[-1] and seen[0].previous_output == result.passes[-2].output
    restored = offline().chain("r").compress_until_floor(LONG, shrink, on_breach="restore", semantic_density_score=0.9)
    assert restored.content == restored.passes[-2].output
    with pytest.raises(ValueError):
        offline().chain("bad").compress_until_floor(LONG, shrink, on_breach="shrug", semantic_density_score=0.9)


def test_compress_until_floor_stops_when_the_compressor_converges():
    result = offline().chain("same").compress_until_floor(LONG, lambda s: s[:900] if len(s) > 900 else s, semantic_density_score=0.9)
    assert (result.reason, len(result.passes), result.boundary) == ("converged", 1, None)


def test_cache_originals_stores_the_input_and_marks_the_output():
    fl = offline(cache_originals=True)
    result = fl.chain("ccr").record_pass(LONG, LONG[:200], semantic_density_score=0.9, original_items=12, compressed_items=2)
    key = hashlib.sha256(LONG.encode()).hexdigest()[:24]
    assert result.output == f"{LONG[:200]}\n[12 items compressed to 2. Retrieve more: hash={key}]"
    assert result.receipt["current_content_hash"] == hashlib.sha256(result.output.encode()).hexdigest()
    assert result.original_key == key and "metadata" not in result.receipt
    assert fl.stats["queued"] == 2


def test_distill_fails_closed_like_the_reference():
    fl = offline()
    with pytest.raises(floorline.MissingVerificationReceipt) as caught:
        fl.distill([{"node_id": "n1", "node_type": "VERIFIED_CONCLUSION", "content": "x", "verification_receipt": "  "}])
    assert caught.value.node_id == "n1" and fl.stats["queued"] == 0


def test_the_package_ships_its_type_information():
    assert os.path.exists(os.path.join(os.path.dirname(floorline.__file__), "py.typed"))
