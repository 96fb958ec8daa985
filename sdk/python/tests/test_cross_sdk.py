"""One scripted agent, run through the Python SDK and through the TypeScript SDK (tests/agent-ts.ts,
through tsx) against recording servers that answer alike: what each SDK sends (receipts,
boundaries, cached originals, the trace) and what it answers the agent (ids, hashes, sizes,
measured values, verdicts, strategies) must be the same, with cache_originals on and off."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import subprocess
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from conftest import REPO, SDK
from fake_server import FakeServer

from floorline import Floorline

TSX = REPO / "node_modules" / ".bin" / "tsx"
SERVED = {"content_class": "served", "version": 3, "min_size_bytes": 64, "min_semantic_density": 0.35, "max_pass_number": 8, "format": "text", "required_fields": [], "decoded_format": None}
DEFAULT = {"version": 0, "min_size_bytes": 256, "min_semantic_density": 0.5, "max_pass_number": 4, "format": "any", "required_fields": [], "decoded_format": None}


def incident(lines: int) -> str:
    return "\n".join(
        f"2026-11-30T10:{i:02d}:07Z checkout {9000 + i} on db-{i % 3} failed after {120 + i * 7} ms: ECONNRESET from 10.0.3.{17 + i}:5432"
        for i in range(lines)
    )


def orders(items: int, sku: bool = True, notes: bool = True) -> str:
    rows = []
    for i in range(items):
        row: dict[str, Any] = {"qty": i % 4 + 1, "price_eur": f"{12.5 + i * 1.25:.2f}"}
        if sku:
            row["sku"] = f"SKU-{4100 + i}"
        if notes:
            row["notes"] = f"Picked by Zoë on 2026-11-{10 + i % 9}; shelf {i * 3 + 11}"
        rows.append(row)
    # Written as a person would: spaces after separators, which a marker must not change.
    return json.dumps({"id": "order-5521", "status": "shipped", "items": rows}, ensure_ascii=False, separators=(", ", ": "))


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def script(cache_originals: bool, send_content: bool) -> dict[str, Any]:
    # 254 characters as the server counts them (UTF-16), 252 code points: its pass id is too long.
    long_id = "chain-🚀🚀" + "ł" * 244
    return {
        "clock": "2026-03-01T00:00:00.000Z",
        "cache_originals": cache_originals,
        "send_content": send_content,
        "policies": {
            "orders": {"min_size_bytes": 40, "min_semantic_density": 0.1, "max_pass_number": 10, "format": "json", "required_fields": ["id", "items.sku"]},
            "blob": {"min_size_bytes": 32, "min_semantic_density": 0.1, "max_pass_number": 10, "format": "base64", "decoded_format": "text"},
            "notes": {"min_size_bytes": 1, "min_semantic_density": 0.05, "max_pass_number": 100},
        },
        "chains": [
            # Recorded pass by pass, judged by the server's policy.
            {"id": "x-summary", "class": "served", "mode": "record", "source": incident(24), "metadata": {"run": "cross"},
             "passes": [{"output": incident(n)} for n in (16, 10, 6, 3)]},
            # JSON that loses a required field at its third pass: restored.
            {"id": "x-orders", "class": "orders", "mode": "until_floor", "source": orders(12),
             "passes": [{"output": orders(8)}, {"output": orders(8, notes=False)}, {"output": orders(8, sku=False, notes=False)}]},
            # Base64 decoding to text, then to garbage: the loss accepted.
            {"id": "x-blob", "class": "blob", "mode": "until_floor", "source": b64(incident(12)), "on_breach": "accept_loss",
             "passes": [{"output": b64(incident(8))}, {"output": b64(incident(5))}, {"output": "not base64 at all!"}]},
            # No policy anywhere: the built-in default halts it.
            {"id": "x-default", "class": "default", "mode": "until_floor", "source": incident(40),
             "passes": [{"output": incident(n), "density": 0.9} for n in (32, 26, 20, 15, 11, 8)]},
            # Claimed densities, a pass without its input, metadata, characters of every width.
            {"id": "x-notes", "class": "notes", "mode": "record", "source": "Zoë's notes: 🚀 launch at 09:14 UTC, 3 retries, v2.4.1",
             "passes": [{"output": "Zoë: 🚀 launch 09:14 UTC, v2.4.1", "density": 0.8}, {"output": "launch 09:14", "no_input": True, "metadata": {"k": [1, "ü"]}}, {"output": "launch"}]},
            # A chain id too long to carry a pass id of its own.
            {"id": long_id, "class": "notes", "mode": "record", "source": "a long chain's source text", "passes": [{"output": "a long chain"}]},
        ],
        "trace": [
            {"content": "port 80 is open", "node_id": "n1", "node_type": "FALSIFIED_PATH", "verification_receipt": "ECONNREFUSED"},
            {"verification_receipt": "psql exit 0", "node_type": "VERIFIED_CONCLUSION", "node_id": "n2", "content": "use 5432"},
        ],
    }


def recorder() -> FakeServer:
    """Answers as the app does: the policies above, a result per receipt, originals as stored."""
    stored: dict[str, str] = {}

    def answer(index: int, path: str, body: Any) -> tuple[int, dict[str, str], Any]:
        if path == "/api/v1/originals":
            stored[hashlib.sha256(body["original"].encode("utf-8")).hexdigest()] = body["original"]
        if path == "/api/v1/retrieve":
            found = [(h, o) for h, o in stored.items() if h.startswith(body["hash"])]
            if found:
                return 200, {}, {"hash": found[0][0], "original": found[0][1]}
        return reply(path, body)

    return FakeServer(answer)


def reply(path: str, body: Any) -> tuple[int, dict[str, str], Any]:
    if path.startswith("/api/v1/policies/"):
        name = path.rsplit("/", 1)[1]
        return 200, {}, SERVED if name == "served" else {**DEFAULT, "content_class": name}
    if path == "/api/v1/passes":
        version = lambda r: 3 if r["content_class"] == "served" else 0  # noqa: E731
        return 201, {}, {"results": [{"chain_id": r["chain_id"], "pass_id": r["pass_id"], "policy_version": version(r)} for r in body["receipts"]]}
    if path == "/api/v1/retrieve":
        return 404, {}, {"error": {"code": "unknown_hash", "message": "no original was ever stored under this key"}}
    return 201, {}, {}


def sent(server: FakeServer) -> dict[str, list[Any]]:
    """What reached the server, per endpoint, in order (batch boundaries left out: they depend on timing)."""
    out: dict[str, list[Any]] = {}
    for _, path, body in server.requests:
        # Reads: whether retrieve() asks the server depends on whether its original was sent yet.
        if path.startswith("/api/v1/policies/") or path == "/api/v1/retrieve":
            continue
        items = body.get("receipts") or body.get("boundaries") if isinstance(body, dict) and ("receipts" in body or "boundaries" in body) else [body]
        out.setdefault(path, []).extend(items)
    return out


def seen(r: Any) -> dict[str, Any]:
    return {"pass_id": r.pass_id, "verdict": r.verdict, "directive": r.directive, "manifest_digest": r.manifest_digest, "output": r.output,
            "density": r.receipt["semantic_density_score"], "measured": r.measured, "original_key": r.original_key}


def agent_py(url: str, spec: dict[str, Any]) -> dict[str, Any]:
    ticks = itertools.count(1)
    start = datetime.fromisoformat(spec["clock"].replace("Z", "+00:00"))
    fl = Floorline(url, cache_originals=spec["cache_originals"], send_content=spec["send_content"], policies=spec["policies"],
                   clock=lambda: start + timedelta(seconds=next(ticks)), flush_on_exit=False, flush_interval=0.05)
    chains = []
    for c in spec["chains"]:
        chain = fl.chain(c["id"], c["class"], metadata=c.get("metadata"))
        if c["mode"] == "record":
            text, passes = c["source"], []
            for p in c["passes"]:
                r = chain.record_pass(None if p.get("no_input") else text, p["output"], semantic_density_score=p.get("density"), metadata=p.get("metadata"))
                passes.append(seen(r))
                text = r.output
            chains.append({"id": c["id"], "passes": passes})
        else:
            steps = iter(c["passes"])

            def compress(_text: str, steps=steps) -> Any:
                p = next(steps)
                return p["output"] if p.get("density") is None else (p["output"], p["density"])

            done = chain.compress_until_floor(c["source"], compress, on_breach=c.get("on_breach"))
            chains.append({"id": c["id"], "passes": [seen(r) for r in done.passes], "content": done.content, "strategy": done.strategy, "boundary": done.boundary})
    residual = fl.distill(spec["trace"])
    first_key = next((p["original_key"] for c in chains for p in c["passes"] if p["original_key"]), None)
    retrieved = fl.retrieve(first_key) if first_key else None
    report = fl.close(20)
    return {
        "chains": chains,
        "trace": {"residual_digest": residual.residual_digest},
        "retrieved": retrieved and {"hash": retrieved.hash, "original": retrieved.original},
        "report": report.to_dict(),
    }


def agent_ts(url: str, spec: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run([str(TSX), str(SDK / "tests" / "agent-ts.ts")], input=json.dumps({"url": url, "script": spec}), capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("cache_originals", [False, True], ids=["originals-off", "originals-on"])
def test_the_same_agent_sends_the_same_receipts_from_either_sdk(cache_originals):
    if not TSX.exists():
        pytest.skip("tsx is not installed (run npm ci at the repo root)")
    spec = script(cache_originals, send_content=cache_originals)
    py_server, ts_server = recorder(), recorder()
    try:
        py = agent_py(py_server.base, spec)
        ts = agent_ts(ts_server.base, spec)
        py_sent, ts_sent = sent(py_server), sent(ts_server)
    finally:
        py_server.close()
        ts_server.close()

    # What each SDK sent, endpoint by endpoint, item by item.
    assert sorted(py_sent) == sorted(ts_sent)
    for path in py_sent:
        assert len(py_sent[path]) == len(ts_sent[path]), path
        for i, (a, b) in enumerate(zip(py_sent[path], ts_sent[path])):
            assert a == b, f"{path} item {i} differs:\npython     {json.dumps(a, ensure_ascii=False)[:1500]}\ntypescript {json.dumps(b, ensure_ascii=False)[:1500]}"

    # What each SDK answered the agent.
    ts_trace = ts.pop("trace")
    assert py.pop("trace")["residual_digest"] == ts_trace["residual_digest"]
    assert py_sent["/api/v1/traces"][0]["trace_id"] == ts_trace["trace_id"]
    for a, b in zip(py["chains"], ts["chains"]):
        assert a == b, f"chain {a['id'][:40]} differs:\npython     {json.dumps(a, ensure_ascii=False)[:3000]}\ntypescript {json.dumps(b, ensure_ascii=False)[:3000]}"
    assert py == ts

    # The script reaches what it is meant to: every verdict and strategy, markers, recoverable facts.
    receipts = py_sent["/api/v1/passes"]
    assert {r["verdict"] for r in receipts} == {"NO_RECURSIVE_COMPRESSION", "SAFE_TO_COMPRESS", "FLOOR_BREACH_DETECTED", "COLLAPSE_IMMINENT"}
    assert [c.get("strategy") for c in py["chains"]][1:4] == ["restore", "accept_loss", "halt"]
    assert py["report"] == {"delivered": len(receipts) + sum(len(v) for p, v in py_sent.items() if p != "/api/v1/passes"), "refused": 0, "dropped": 0, "undelivered": 0, "ok": True}
    if cache_originals:
        assert len(py_sent["/api/v1/originals"]) > 0 and py["retrieved"]["original"] == spec["chains"][0]["source"]
        assert any(p["measured"]["facts"] and p["measured"]["facts"]["recoverable"] > 0 for c in py["chains"] for p in c["passes"])
        assert any("_ccr" in p["output"] for p in py["chains"][1]["passes"])
    else:
        assert "/api/v1/originals" not in py_sent and py["retrieved"] is None
