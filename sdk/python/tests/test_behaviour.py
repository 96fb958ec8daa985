"""The behaviours docs/sdk-behaviour.md promises, shared with the TypeScript SDK (its
test/behaviour.test.ts holds it to the same): which policy wins, the strategy at each verdict,
pass ids, markers, measured density with cached originals, and a TypeError that names the
argument."""

from __future__ import annotations

import hashlib
import json
import re
import time

import pytest
from fake_server import FakeServer

from floorline import Floorline, measure

LOOSE = {"min_size_bytes": 10, "min_semantic_density": 0.2, "max_pass_number": 6}
SERVED = {"content_class": "p", "version": 3, "min_size_bytes": 10, "min_semantic_density": 0.35, "max_pass_number": 8}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.fixture
def serving():
    """A server that answers the policy read with the policy given (404 without one) and takes every POST."""
    servers = []

    def make(policy):
        def script(i, path, body):
            if path.startswith("/api/v1/policies/"):
                return (200, {}, policy) if policy else (404, {}, {"error": {"code": "not_found", "message": "none"}})
            if path == "/api/v1/passes":
                return 201, {}, {"results": [{"chain_id": r["chain_id"], "pass_id": r["pass_id"], "policy_version": 0} for r in body["receipts"]]}
            return 201, {}, {}

        servers.append(FakeServer(script))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def offline(**kwargs) -> Floorline:
    kwargs.setdefault("policies", {"default": LOOSE})
    return Floorline("http://127.0.0.1:9", fetch_policies=False, flush_on_exit=False, on_error=lambda e: None, **kwargs)


# -- which policy wins ------------------------------------------------------------------------


def test_a_policy_given_in_code_wins_over_the_servers(serving):
    server = serving(SERVED)
    with Floorline(server.base, policies={"p": {**LOOSE, "min_semantic_density": 0.6}}, flush_interval=0.05) as fl:
        chain = fl.chain("given-1", "p")
        assert (chain.policy.min_semantic_density, chain.policy.max_pass_number) == (0.6, 6)
        chain.record_pass("a " * 100, "b " * 90, semantic_density_score=0.9)
        # 0.5 passes the server's 0.35 but not the 0.6 given in code.
        assert chain.record_pass("b " * 90, "c " * 80, semantic_density_score=0.5).verdict == "COLLAPSE_IMMINENT"
        given = fl.chain("given-2", "p", policy={**LOOSE, "max_pass_number": 2})
        assert given.policy.max_pass_number == 2


def test_the_servers_policy_wins_over_the_built_in_default(serving):
    server = serving(SERVED)
    with Floorline(server.base, flush_interval=0.05) as fl:
        policy = fl.chain("served-1", "p").policy
        assert (policy.version, policy.min_semantic_density) == (3, 0.35)
    with Floorline(serving(None).base, flush_interval=0.05) as fl:
        policy = fl.chain("default-1", "p").policy
        assert (policy.version, policy.min_size_bytes, policy.min_semantic_density, policy.max_pass_number) == (0, 256, 0.5, 4)


def test_the_policy_is_read_again_when_a_receipt_names_another_version():
    versions = iter([3, 4, 4, 4])

    def script(i, path, body):
        if path.startswith("/api/v1/policies/"):
            return 200, {}, {**SERVED, "version": next(versions), "min_size_bytes": 20}
        return 201, {}, {"results": [{"chain_id": r["chain_id"], "pass_id": r["pass_id"], "policy_version": 4} for r in body["receipts"]]}

    server = FakeServer(script)
    try:
        with Floorline(server.base, flush_interval=0.01) as fl:
            chain = fl.chain("refetch", "p")
            assert chain.policy.version == 3
            chain.record_pass("a " * 50, "b " * 25, semantic_density_score=0.9)
            assert fl.flush(5)
            deadline = time.monotonic() + 5
            while chain.policy.version != 4 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert chain.policy.version == 4
    finally:
        server.close()


# -- the default strategy at each verdict -----------------------------------------------------


def steps(outputs):
    it = iter(outputs)
    return lambda _text: next(it)


def text(n: int) -> str:
    return "w " * n


def test_collapse_imminent_halts_on_the_previous_output_whichever_gate_said_it():
    fl = offline(policies={"a": {**LOOSE, "max_pass_number": 3}})
    past = fl.chain("imminent-1", "a").compress_until_floor(text(500), steps([text(400), text(300), text(200), text(100)]), semantic_density_score=0.9)
    assert (past.strategy, past.content, past.directive) == ("halt", text(200), "HALT: Pass 4 > 3, use previous.")
    # The density claimed falls under the floor at the third pass.
    densities = iter([0.9, 0.9, 0.1])
    outputs = iter([text(400), text(300), text(200)])
    sparse = fl.chain("imminent-2", "a").compress_until_floor(text(500), lambda _: (next(outputs), next(densities)))
    assert (sparse.strategy, sparse.content, sparse.directive) == ("halt", text(300), "HALT: Density 0.10 < 0.20.")
    assert "restore_pass_id" not in sparse.boundary


def test_a_halt_at_the_size_floor_keeps_the_previous_output():
    fl = offline(policies={"a": {**LOOSE, "min_size_bytes": 100}})
    result = fl.chain("small", "a").compress_until_floor("z " * 800, lambda s: s[: len(s) // 2], semantic_density_score=0.9)
    assert result.directive == "HALT: Size 50 < 100, next pass will collapse."
    assert (result.strategy, result.content) == ("halt", result.passes[-2].output)


def test_floor_breach_restores_the_previous_output_naming_its_pass():
    fl = offline(policies={"j": {**LOOSE, "min_size_bytes": 1, "format": "json", "required_fields": ["a"]}})
    result = fl.chain("breach-1", "j").compress_until_floor('{"a":1,"b":2,"c":3}', steps(['{"a":1,"b":2}', '{"a":1}', '{"a"']), semantic_density_score=0.9)
    assert (result.strategy, result.content) == ("restore", '{"a":1}')
    assert (result.boundary["pass_number"], result.boundary["restore_pass_id"]) == (3, "breach-1.p2")


def test_after_a_restore_the_next_breach_names_the_restored_pass():
    fl = offline(policies={"j": {**LOOSE, "min_size_bytes": 1, "format": "json"}})
    chain = fl.chain("breach-2", "j")
    first = chain.compress_until_floor('{"a":1,"b":2,"c":3}', steps(['{"a":1,"b":2}', '{"a":1}', "{"]), semantic_density_score=0.9)
    assert first.boundary["restore_pass_id"] == "breach-2.p2"
    again = chain.compress_until_floor(first.content, lambda _: "[", semantic_density_score=0.9)
    assert (again.boundary["pass_number"], again.strategy, again.boundary["restore_pass_id"]) == (4, "restore", "breach-2.p2")


# -- pass ids ---------------------------------------------------------------------------------


def test_pass_ids_are_the_chain_id_and_the_pass_number():
    fl = offline()
    assert fl.chain("ids-1").record_pass("a b c", "a b", semantic_density_score=0.9).pass_id == "ids-1.p1"
    long = "c" * 254
    result = fl.chain(long).record_pass("a b c", "a b", semantic_density_score=0.9)
    # The chain's hash stands in for a chain id too long to carry in a 256-character pass id.
    assert result.pass_id == f"{sha(long)[:24]}.p1" and result.receipt["chain_id"] == long


def test_the_same_chain_id_is_the_same_chain():
    fl = offline()
    fl.chain("again").record_pass("a b c", "a b", semantic_density_score=0.9)
    assert fl.chain("again").record_pass("a b", "a", semantic_density_score=0.9).pass_id == "again.p2"
    with pytest.raises(ValueError):
        fl.chain("again", "other")


def test_context_tools_are_sent_when_given_and_refused_as_the_server_would():
    chain = offline().chain("tools-1")
    tools = ["read_file", "mcp__floorline__floorline_retrieve"]
    sent = chain.record_pass("a b c d", "a b", semantic_density_score=0.9, context_tools=tools)
    assert sent.receipt["context_tools"] == tools
    assert "context_tools" not in chain.record_pass("a b", "a", semantic_density_score=0.9).receipt
    with pytest.raises(ValueError, match="context_tools"):
        chain.record_pass("a", "b", context_tools=["x" * 129])
    with pytest.raises(TypeError, match="context_tools"):
        chain.record_pass("a", "b", context_tools="bash")


# -- markers and what they make recoverable ---------------------------------------------------


def marker(original: str) -> str:
    return f"[Content compressed. Retrieve more: hash={sha(original)[:24]}]"


def test_markers_go_into_json_as_it_was_written():
    fl = offline(cache_originals=True)
    source = '{"a": 1.50, "b": [1, 2]}'
    assert fl.chain("m-1").record_pass(source, '{ "a": 1.50 }\n', semantic_density_score=0.9).output == f'{{ "a": 1.50 ,"_ccr":"{marker(source)}"}}\n'
    assert fl.chain("m-2").record_pass(source, "[1.0, 2]", semantic_density_score=0.9).output == f'[1.0, 2,"{marker(source)}"]'
    assert fl.chain("m-3").record_pass(source, "{}", semantic_density_score=0.9).output == f'{{"_ccr":"{marker(source)}"}}'
    assert fl.chain("m-4").record_pass(source, "a: 1.5", semantic_density_score=0.9).output == f"a: 1.5\n{marker(source)}"
    json_class = offline(cache_originals=True, policies={"j": {**LOOSE, "format": "json"}})
    result = json_class.chain("m-5", "j").record_pass(source, '{"a": 1.50}', semantic_density_score=0.9)
    assert json.loads(result.output)["_ccr"] == marker(source) and result.receipt["is_parseable"]
    # The key is in the marker and the cached original, not in the receipt's metadata.
    assert "metadata" not in result.receipt


def test_measured_density_counts_facts_recoverable_through_the_clients_own_markers():
    fl = offline(cache_originals=True)
    source = "Build 4182 failed at 14:02 on host db-7: disk /var/lib/pg full (98%). Retry with --force."
    result = fl.chain("recover").record_pass(source, "Build 4182 failed.")
    key = sha(source)[:24]
    assert result.measured == measure(result.output, source=source, originals={key: source})
    assert result.measured["facts"]["recoverable"] > 0
    assert result.receipt["semantic_density_score"] == result.measured["semantic_density_score"]


def test_a_claimed_density_still_measures_and_an_unparseable_output_is_not_schema_valid():
    fl = offline(policies={"j": {**LOOSE, "format": "json"}})
    chain = fl.chain("schema-1", "j")
    first = chain.record_pass("{}", "{}", semantic_density_score=0.9)
    assert first.measured is not None and first.receipt["semantic_density_score"] == 0.9
    r = chain.record_pass("{}", "{", semantic_density_score=0.9).receipt
    assert (r["is_parseable"], r["schema_valid"]) == (False, False)


def test_the_chains_metadata_goes_under_each_passs_own():
    fl = offline()
    chain = fl.chain("meta-1", metadata={"run": "r1", "step": "chain"})
    assert chain.record_pass("a b c", "a b", semantic_density_score=0.9, metadata={"step": "pass"}).receipt["metadata"] == {"run": "r1", "step": "pass"}


# -- wrong arguments --------------------------------------------------------------------------


def error_of(call) -> str:
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the test reads whichever it is
        return f"{type(error).__name__}: {error}"
    return "no error"


def test_a_wrong_type_gets_a_type_error_naming_the_argument():
    fl = offline()
    chain = fl.chain("args")
    assert error_of(lambda: chain.record_pass("in", 42)) == "TypeError: record_pass: output must be a str, not int"
    assert error_of(lambda: chain.record_pass({}, "out")) == "TypeError: record_pass: input must be a str or None, not dict"
    assert error_of(lambda: chain.record_pass("in", "out", semantic_density_score="0.9")) == "TypeError: record_pass: semantic_density_score must be a number, not str"
    assert error_of(lambda: chain.record_pass("in", "out", metadata=[])) == "TypeError: record_pass: metadata must be a mapping, not list"
    assert error_of(lambda: fl.chain(7)) == "TypeError: chain: chain_id must be a str, not int"
    assert error_of(lambda: fl.distill("nodes")) == "TypeError: distill: nodes must be a list, not str"


def test_a_value_out_of_range_gets_a_value_error():
    fl = offline()
    chain = fl.chain("args-2")
    assert error_of(lambda: chain.record_pass("in", "out", semantic_density_score=1.5)) == "ValueError: record_pass: semantic_density_score must be from 0 to 1, not 1.5"
    assert error_of(lambda: fl.chain("")) == "ValueError: chain: chain_id must be 1 to 256 characters, not 0"
    assert error_of(lambda: chain.record_boundary(1, "shrug", "x")) == 'ValueError: record_boundary: strategy must be "halt", "restore" or "accept_loss", not "shrug"'


# -- distilled traces -------------------------------------------------------------------------


def test_a_trace_is_named_by_its_nodes_as_the_typescript_sdk_names_it(serving):
    server = serving(None)
    nodes = [{"node_id": "n1", "node_type": "VERIFIED_CONCLUSION", "content": "it holds", "verification_receipt": "r1"}]
    with Floorline(server.base, fetch_policies=False) as fl:
        fl.distill(nodes)
    sent = server.requests[-1][2]
    canonical = '[{"content": "it holds", "node_id": "n1", "node_type": "VERIFIED_CONCLUSION", "verification_receipt": "r1"}]'
    assert sent["trace_id"] == f"trace-{sha(canonical)[:24]}"
    assert re.fullmatch(r"trace-[0-9a-f]{24}", sent["trace_id"])


def test_a_trace_names_its_parent_checked_like_a_trace_id(serving):
    server = serving(None)
    nodes = [{"node_id": "n1", "node_type": "EXPLORATORY_CHATTER", "content": "again"}]
    with Floorline(server.base, fetch_policies=False) as fl:
        fl.distill(nodes, trace_id="child", parent_trace_id="parent")
        assert error_of(lambda: fl.distill(nodes, parent_trace_id="")) == "ValueError: distill: parent_trace_id must be 1 to 256 characters, not 0"
        assert error_of(lambda: fl.distill(nodes, parent_trace_id=7)) == "TypeError: distill: parent_trace_id must be a str, not int"
        assert error_of(lambda: fl.distill(nodes, trace_id="same", parent_trace_id="same")) == "ValueError: distill: parent_trace_id cannot be the trace's own id"
    sent = [body for _, path, body in server.requests if path == "/api/v1/traces"]
    assert [(b["trace_id"], b.get("parent_trace_id")) for b in sent] == [("child", "parent")]
