"""Delivery against the built app over real HTTP: a server stopped and restarted mid-stream
loses nothing and stores nothing twice; a refused item is reported and the rest delivered."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

from conftest import LENIENT

from floorline import Floorline


def test_a_restart_mid_stream_loses_nothing_and_stores_nothing_twice(server):
    errors = []
    fl = Floorline(server.base, on_error=errors.append, flush_interval=0.05, backoff_max=1.0)
    assert fl.load_policy("lenient").max_pass_number == LENIENT["max_pass_number"]
    chains = [fl.chain(f"restart-{i}", "lenient") for i in range(3)]
    per_chain = 300
    stopped = threading.Event()

    texts = {chain.chain_id: f"{chain.chain_id}: " + "abcdefghij" * 40 for chain in chains}

    def agent():
        for n in range(per_chain):
            for chain in chains:
                text = texts[chain.chain_id]
                texts[chain.chain_id] = chain.record_pass(text, text[:-1], semantic_density_score=0.9).output
            if n == per_chain // 3:
                stopped.wait(60)
            time.sleep(0.002)

    worker = threading.Thread(target=agent)
    worker.start()
    while fl.stats["sent"] == 0:
        time.sleep(0.05)
    server.stop()
    stopped.set()
    time.sleep(1.5)  # the agent keeps recording while nothing listens
    assert fl.stats["sent"] < 3 * per_chain
    server.start()
    worker.join()
    assert fl.flush(120)
    stats = fl.stats
    fl.close()
    assert errors == []
    assert stats["retried"] > 0, "the outage was never seen"
    assert (stats["sent"], stats["failed"], stats["dropped"], stats["queued"]) == (3 * per_chain, 0, 0, 0)
    for chain in chains:
        stored = server.get(f"/api/v1/chains/{chain.chain_id}")
        numbers = [p["pass_number"] for p in stored["passes"]]
        assert numbers == list(range(1, per_chain + 1))
        assert [p["manifest_digest"] for p in stored["passes"]] == [r.manifest_digest for r in chain.passes]
        assert not any(p["client_mismatch"] for p in stored["passes"])
        assert stored["integrity"] == []


def test_a_422_item_is_reported_and_the_rest_of_its_batch_delivered(server):
    errors = []
    with Floorline(server.base, policies={"lenient": LENIENT}, on_error=errors.append, flush_interval=0.5) as fl:
        chain = fl.chain("refused-one", "lenient")
        for n in range(1, 8):
            # Metadata is limited to 16 KiB: the fourth receipt breaks that rule.
            meta = {"note": "y" * (20_000 if n == 4 else 10)}
            chain.record_pass(f"in {n}" * 30, f"out {n}" * 20, semantic_density_score=0.9, metadata=meta)
        assert fl.flush(30)
        stats = fl.stats
    assert (stats["sent"], stats["failed"], stats["retried"]) == (6, 1, 0)
    assert len(errors) == 1 and errors[0].status == 422 and errors[0].kind == "passes"
    assert [item["pass_number"] for item in errors[0].items] == [4]
    stored = server.get("/api/v1/chains/refused-one")
    assert [p["pass_number"] for p in stored["passes"]] == [1, 2, 3, 5, 6, 7]


def test_boundaries_traces_and_originals_reach_the_server(server):
    with Floorline(server.base, cache_originals=True, flush_interval=0.05) as fl:
        chain = fl.chain("floor-walk")
        text = "Build 4.2.0 of api-gateway failed: ECONNRESET at 10.0.0.7:5432 after 3 retries. " * 12
        result = chain.compress_until_floor(text, lambda s: s[: len(s) * 2 // 3], semantic_density_score=0.9)
        residual = fl.distill(
            [
                {"node_id": "a", "node_type": "FALSIFIED_PATH", "content": "port 80", "verification_receipt": "ECONNREFUSED"},
                {"node_id": "b", "node_type": "VERIFIED_CONCLUSION", "content": "use 5432", "verification_receipt": "psql exit 0"},
            ],
            trace_id="floor-walk-trace",
            chain_id="floor-walk",
        )
        # Two minutes: beside CI's other stages this server answered a batch in 4 to 10 s.
        assert fl.flush(120)
        assert fl.stats["failed"] == 0
        first = chain.passes[0].original_key
        got = fl.retrieve(first)
    assert result.reason == "breach" and result.boundary is not None
    stored = server.get("/api/v1/chains/floor-walk")
    assert [(b["pass_number"], b["strategy"]) for b in stored["boundaries"]] == [(result.boundary["pass_number"], result.strategy)]
    assert got.found and got.original == text
    trace = server.get("/api/v1/traces/floor-walk-trace")
    assert trace["residual_digest"] == residual.residual_digest
    assert [c["axiom"] for c in trace["conclusions"]] == ["use 5432"]


def test_what_is_queued_at_exit_is_delivered(server):
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(server.data_dir.parents[0])!r})
        from floorline import Floorline
        fl = Floorline({server.base!r}, flush_interval=30)
        chain = fl.chain("at-exit")
        for n in range(5):
            chain.record_pass("a" * 400, "b" * 300, semantic_density_score=0.9)
        # no flush, no close: the interpreter's exit delivers them
        """
    )
    from conftest import SDK

    subprocess.run([sys.executable, "-c", script], check=True, timeout=60, env={"PYTHONPATH": str(SDK / "src")})
    assert [p["pass_number"] for p in server.get("/api/v1/chains/at-exit")["passes"]] == [1, 2, 3, 4, 5]


def test_a_successor_names_its_parent_and_the_server_finds_the_wall(server):
    with Floorline(server.base, flush_interval=0.05) as fl:
        fl.distill(
            [{"node_id": "a", "node_type": "FALSIFIED_PATH", "content": "Raise the pool size", "verification_receipt": "pool=64 still 504"}],
            trace_id="py-lineage-parent",
        )
        assert fl.flush(30)
        fl.distill(
            [{"node_id": "s1", "node_type": "EXPLORATORY_CHATTER", "content": "raise the pool size"}],
            trace_id="py-lineage-child",
            parent_trace_id="py-lineage-parent",
        )
        assert fl.flush(30)
        assert fl.stats["failed"] == 0
    child = server.get("/api/v1/traces/py-lineage-child")
    assert child["parent_trace_id"] == "py-lineage-parent"
    assert [(f["kind"], f["ancestor_trace_id"], f["ancestor_receipt"]) for f in child["findings"]] == [
        ("wall_reexplored", "py-lineage-parent", "pool=64 still 504")
    ]
