"""Floorline as Headroom's CCR store and pipeline observer, called as Headroom calls them,
against the built app: through the stand-in of Headroom's protocol classes in tests/standin
(Headroom cannot be installed where CI runs), or through Headroom itself when
FLOORLINE_HEADROOM_PATH names a folder holding its `headroom` package."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import subprocess
import sys
import time
from dataclasses import asdict
from datetime import datetime

import pytest
from conftest import REPO, SDK

sys.path.insert(0, os.environ.get("FLOORLINE_HEADROOM_PATH") or str(SDK / "tests" / "standin"))

from headroom.cache.backends import CompressionStoreBackend, InMemoryBackend  # noqa: E402
from headroom.cache.compression_store import CompressionEntry, CompressionStore  # noqa: E402
from headroom.pipeline import PipelineExtensionManager, PipelineStage  # noqa: E402

from floorline import Floorline  # noqa: E402
from floorline.headroom import FloorlineCCRBackend, FloorlineExtension, create_ccr_backend  # noqa: E402
from floorline.headroom.store import metadata_of  # noqa: E402

ISSUES = json.dumps([{"id": i, "title": f"Issue {i}: timeout in worker-{i % 7}", "comments": i * 3} for i in range(60)])
SUMMARY = json.dumps([{"id": i, "title": f"Issue {i}"} for i in range(5)])

FULL = dict(
    original=ISSUES, compressed=SUMMARY, original_tokens=1500, compressed_tokens=120, original_item_count=60,
    compressed_item_count=5, tool_name="github_search", tool_call_id="toolu_01", query_context="most comments",
    tool_signature_hash="sig-abc", compression_strategy="smart_crusher", ttl=900,
)


def backend(server, tenant: str) -> FloorlineCCRBackend:
    # Headroom's own calls keep the 3 s default; these tests check what is stored and counted,
    # not latency, and a loaded CI machine has taken longer than 3 s to answer.
    return create_ccr_backend(url=server.base, tenant_prefix=tenant, timeout=30.0)


def totals(server) -> tuple[int, int]:
    t = server.get("/api/v1/originals/stats")["totals"]
    return t["retrieved"], t["misses"]["total"]


def test_the_backend_meets_headrooms_protocol(server):
    assert isinstance(backend(server, ""), CompressionStoreBackend)


def test_an_entry_round_trips_exactly_as_headrooms_own_store_keeps_it(server):
    ours = CompressionStore(backend=backend(server, "t-roundtrip"))
    reference = CompressionStore(backend=InMemoryBackend())
    # Each store stamps its own moment, ours after a round trip to the server (over 6 s on a
    # loaded CI machine): each moment must fall within the calls that made it, in seconds.
    stored_from = time.time()
    key, ref_key = ours.store(**FULL), reference.store(**FULL)
    stored_to = time.time()
    assert key == ref_key == hashlib.sha256(ISSUES.encode()).hexdigest()[:24]
    got, want = asdict(ours._backend.get(key)), asdict(reference._backend.get(key))
    for entry in (got, want):
        assert stored_from - 1 <= entry.pop("created_at") <= stored_to + 1
    assert got == want
    for query in ("most comments", "worker-3"):
        got, want = ours.retrieve(key, query=query), reference.retrieve(key, query=query)
        read_to = time.time()
        assert isinstance(got, CompressionEntry)
        got_fields, want_fields = asdict(got), asdict(want)
        for fields in (got_fields, want_fields):
            assert stored_from - 1 <= fields.pop("created_at") <= stored_to + 1
            assert stored_from - 1 <= fields.pop("last_accessed") <= read_to + 1
        assert got_fields == want_fields
    assert ours.retrieve(key).retrieval_count == 3
    assert ours.get_metadata(key)["query_context"] == "most comments"


def test_every_field_survives_the_store_exactly(server):
    entry = CompressionEntry(
        hash="ab" * 12, original_content="naïve ☕ 𝄞 " + ISSUES, compressed_content="", original_tokens=0,
        compressed_tokens=7, original_item_count=0, compressed_item_count=0, tool_name=None, tool_call_id=None,
        query_context=None, created_at=1_700_000_000.123456, ttl=10**9, tool_signature_hash=None,
        compression_strategy="x", retrieval_count=4, search_queries=["a", "b"], last_accessed=1_700_000_001.5,
    )
    key = hashlib.md5(entry.original_content.encode()).hexdigest()[:24]
    entry.hash = key
    ours = backend(server, "t-exact")
    ours.set(key, entry)
    assert asdict(backend(server, "t-exact").get(key)) == asdict(entry)


def test_an_entry_another_client_stored_in_headrooms_tenant_reads_as_live(server):
    text = "stored through the API " * 30
    status, stored = server.post("/api/v1/originals", {"original": text, "tenant": "headroom:t-foreign", "tool_name": "t"})
    assert status == 201
    time.sleep(0.2)
    store = CompressionStore(backend=backend(server, "t-foreign"))
    key = hashlib.sha256(text.encode()).hexdigest()[:24]
    entry = store.retrieve(key)
    assert entry is not None and entry.original_content == text and entry.tool_name == "t"
    # The store's own time, and no expiry: the store keeps it without a TTL.
    assert entry.created_at == datetime.fromisoformat(stored["created_at"].replace("Z", "+00:00")).timestamp()
    assert entry.ttl >= 100 * 365 * 24 * 3600 and not entry.is_expired()
    assert store._backend.keys() == [key]


def test_another_worker_reads_what_the_store_keeps(server):
    first = CompressionStore(backend=backend(server, "t-workers"))
    key = first.store(**{**FULL, "original": ISSUES + " "})
    first.retrieve(key, query="q1")
    other = CompressionStore(backend=backend(server, "t-workers"))
    entry = other.retrieve(key, query="q2")
    assert (entry.hash, entry.original_content, entry.compressed_content) == (key, ISSUES + " ", SUMMARY)
    assert (entry.original_tokens, entry.compressed_tokens, entry.original_item_count, entry.compressed_item_count) == (1500, 120, 60, 5)
    assert (entry.tool_name, entry.ttl, entry.tool_call_id, entry.compression_strategy) == ("github_search", 900, "toolu_01", "smart_crusher")
    assert (entry.retrieval_count, entry.search_queries) == (2, ["q1", "q2"])
    b = other._backend
    assert b.exists(key) and b.keys() == [key] and b.count() == 1
    assert [k for k, _ in b.items()] == [key] and b.get_stats()["entry_count"] == 1
    assert other.get_stats()["total_retrievals"] == 2


def blake3_24(text: str) -> str:
    script = "import {blake3} from '@noble/hashes/blake3.js'; process.stdout.write(Buffer.from(blake3(Buffer.from(process.argv[1], 'utf8'))).toString('hex').slice(0, 24))"
    return subprocess.run(["node", "--input-type=module", "-e", script, text], cwd=REPO, capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("kind", ["sha256-12", "md5-24", "blake3-24"])
def test_keys_stay_as_headroom_makes_them(server, kind):
    original = f"{kind}: " + ISSUES
    key = {
        "sha256-12": lambda: hashlib.sha256(original.encode()).hexdigest()[:12],
        "md5-24": lambda: hashlib.md5(original.encode()).hexdigest()[:24],
        "blake3-24": lambda: blake3_24(original),
    }[kind]()
    CompressionStore(backend=backend(server, f"t-{kind}")).store(original, SUMMARY, explicit_hash=key)
    other = backend(server, f"t-{kind}")
    entry = other.get(key)
    assert entry is not None and entry.hash == key and entry.original_content == original
    assert other.keys() == [key] and other.exists(key)
    assert other.delete(key) and not other.exists(key) and other.get(key) is None


def test_tenants_do_not_see_or_clear_each_others_entries(server):
    text = "the same tool output in two tenants " * 20
    a = CompressionStore(backend=backend(server, "tenant-a"))
    key = a.store(text, "a")
    b = CompressionStore(backend=backend(server, "tenant-b"))
    assert b.retrieve(key) is None and not b._backend.exists(key) and b._backend.count() == 0
    assert b.store(text, "b") == key and b.retrieve(key).compressed_content == "b"
    # An agent's own original of the same text, in the default tenant.
    assert server.post("/api/v1/originals", {"original": text})[0] == 201
    b.clear()
    assert b._backend.count() == 0 and b.retrieve(key) is None
    assert a.retrieve(key).compressed_content == "a"
    status, body = server.post("/api/v1/retrieve", {"hash": key})
    assert status == 200 and body["original"] == text


def test_only_headrooms_retrievals_count_never_its_other_reads(server):
    store = CompressionStore(backend=backend(server, "t-counts"))
    before = totals(server)
    key = store.store("counted once " * 50, "c")
    store.store("counted once " * 50, "c")  # collision check on an existing key
    assert store.exists(key) and store.get_metadata(key) and store.get_entry_status(key)["status"] == "available"
    store.get_stats()
    assert totals(server) == before
    store.retrieve(key)  # its read, write-back and feedback read-back
    assert totals(server) == (before[0] + 1, before[1])
    [item] = server.get("/api/v1/originals?tenant=headroom:t-counts")["items"]
    assert item["retrieval_count"] == 1 and item["metadata"]["retrieval_count"] == 1


def test_headrooms_deletes_reach_the_store(server):
    store = CompressionStore(max_entries=2, backend=backend(server, "t-evict"))
    keys = [store.store(f"entry {i} " * 40, f"c{i}") for i in range(3)]
    # Headroom evicts its oldest entry at capacity, through the backend.
    assert sorted(store._backend.keys()) == sorted(keys[1:])
    assert store.retrieve(keys[0]) is None
    gone = server.post("/api/v1/retrieve", {"hash": keys[0], "tenant": "headroom:t-evict"})
    assert gone[0] == 410 and "Deleted by a client" in gone[1]["error"]["message"]


def test_an_entry_past_its_ttl_is_a_miss(server):
    # A TTL of 12 s, not 1 or 4: on a busy machine (CI's parallel stages) storing and reading
    # back took more than a second, once 6.3 s.
    store = CompressionStore(backend=backend(server, "t-ttl"))
    stored_at = time.monotonic()
    key = store.store("short-lived " * 30, "s", ttl=12)
    assert store.retrieve(key) is not None, f"missed {time.monotonic() - stored_at:.1f} s after storing"
    time.sleep(max(0.0, stored_at + 13.2 - time.monotonic()))
    assert store.retrieve(key) is None and not store._backend.exists(key)


def test_metadata_fits_the_servers_budget_whatever_headroom_holds(server):
    entry = CompressionEntry("cd" * 12, "x", "y", 0, 0, 0, 0, None, "t", "q" * 20_000, time.time(),
                             search_queries=["é" * 900 for _ in range(10)])
    meta = metadata_of(entry.hash, entry)
    assert len(json.dumps(meta, ensure_ascii=False).encode()) <= 15 * 1024
    assert meta["search_queries"] == entry.search_queries[-len(meta["search_queries"]):]
    text = "big metadata " * 40
    key = CompressionStore(backend=backend(server, "t-meta")).store(text, "c", query_context="q" * 20_000)
    assert backend(server, "t-meta").get(key).query_context == "q" * 4096


def test_an_outage_is_a_miss_and_a_logged_set_never_an_exception(caplog):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    b = FloorlineCCRBackend(url=url, tenant_prefix="down")
    store = CompressionStore(backend=b)
    with caplog.at_level(logging.WARNING, logger="floorline.headroom"):
        started = time.monotonic()
        key = store.store("lost while the store is down " * 10, "x")
        assert store.retrieve(key) is None and store.get_stats()["entry_count"] == 0
        # One failed connection, then a pause: Headroom's calls do not wait on the outage.
        assert time.monotonic() - started < 2.0
    assert "unreachable" in caplog.text
    assert (b.get(key), b.exists(key), b.delete(key), b.count(), b.keys(), b.items()) == (None, False, False, 0, [], [])
    b.clear()
    assert b.get_stats()["connection_status"].startswith("unreachable")


def extension_failures(caplog):
    """What Headroom's manager logged and skipped: an extension that raised (it keeps no other record)."""
    return [r.getMessage() for r in caplog.records if r.name == "headroom.pipeline" and "failed during" in r.getMessage()]


def test_each_input_compressed_event_becomes_a_pass(server, caplog):
    fl = Floorline(server.base, flush_interval=0.05)
    extension = FloorlineExtension(client=fl)
    manager = PipelineExtensionManager(extensions=[extension], discover=False)
    original = [{"role": "user", "content": "find the failing test"}, {"role": "tool", "content": ISSUES}]
    compressed = [{"role": "user", "content": "find the failing test"}, {"role": "tool", "content": SUMMARY}]
    # As Headroom's proxy emits them for one request.
    manager.emit(PipelineStage.INPUT_RECEIVED, operation="proxy.request", request_id="req-1", messages=original)
    event = manager.emit(
        PipelineStage.INPUT_COMPRESSED, operation="proxy.request", request_id="req-1", provider="anthropic", model="claude",
        messages=compressed,
        metadata={"tokens_before": 1500, "tokens_after": 140, "transforms_applied": ["smart_crusher"], "original_messages": original},
    )
    manager.emit(PipelineStage.PRE_SEND, operation="proxy.request", request_id="req-1", messages=compressed)
    # As its compress() emits them: no request id; a session id only where a caller adds one.
    manager.emit(PipelineStage.INPUT_COMPRESSED, operation="compress", messages=compressed, metadata={"session_id": "s-9", "tokens_before": 10, "tokens_after": 9, "transforms_applied": []})
    manager.emit(PipelineStage.INPUT_COMPRESSED, operation="compress", messages=compressed, metadata={"session_id": "s-9", "tokens_before": 9, "tokens_after": 8, "transforms_applied": []})
    assert extension_failures(caplog) == [] and event.messages is compressed and event.metadata["original_messages"] is original
    assert extension.flush(30)
    fl.close()
    chain = server.get("/api/v1/chains/headroom-req-1")
    [receipt] = chain["passes"]
    out = json.dumps(compressed, ensure_ascii=False, sort_keys=True)
    assert receipt["current_size_bytes"] == len(out.encode())
    assert receipt["input_content_hash"] == hashlib.sha256(json.dumps(original, ensure_ascii=False, sort_keys=True).encode()).hexdigest()
    meta = receipt["metadata"]
    assert (meta["tokens_before"], meta["tokens_after"], meta["transforms_applied"], meta["provider"]) == (1500, 140, ["smart_crusher"], "anthropic")
    assert [p["pass_number"] for p in server.get("/api/v1/chains/headroom-session-s-9")["passes"]] == [1, 2]


def test_the_observer_never_blocks_headrooms_request(server, caplog):
    # Floorline unreachable: every receipt waits in the background, none in Headroom's call.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    fl = Floorline(url, flush_interval=0.05, on_error=lambda error: None)
    manager = PipelineExtensionManager(extensions=[FloorlineExtension(client=fl)], discover=False)
    messages = [{"role": "tool", "content": ISSUES}]
    started = time.monotonic()
    for i in range(200):
        manager.emit(PipelineStage.INPUT_COMPRESSED, operation="proxy.request", request_id=f"r{i}", messages=messages,
                     metadata={"tokens_before": 100, "tokens_after": 50, "transforms_applied": [], "original_messages": messages})
    assert (time.monotonic() - started) / 200 < 0.01 and extension_failures(caplog) == []
    fl.close(timeout=0)


def test_a_broken_floorline_never_reaches_headrooms_request(caplog):
    class Exploding:
        def chain(self, *a, **k):
            raise RuntimeError("boom")

    extension = FloorlineExtension(client=Exploding())
    manager = PipelineExtensionManager(extensions=[extension], discover=False)
    manager.emit(PipelineStage.INPUT_COMPRESSED, operation="compress", messages=[{"role": "user", "content": "x"}], metadata={})
    manager.emit(PipelineStage.INPUT_COMPRESSED, operation="compress", messages=[object()], metadata={"original_messages": object()})
    extension._pending.join()
    assert extension_failures(caplog) == []


def test_deletes_refused_for_want_of_admin_are_said_once_and_never_raised(caplog):
    from fake_server import FakeServer

    refused = {"error": {"code": "insufficient_scope", "message": "This needs a key with the admin scope."}}
    server = FakeServer(lambda i, path, body: (403, {}, refused))
    try:
        b = FloorlineCCRBackend(url=server.base, tenant_prefix="scoped", timeout=30.0)
        with caplog.at_level(logging.INFO, logger="floorline.headroom"):
            assert [b.delete("ab" * 12) for _ in range(3)] == [False, False, False]
            b.clear()
        said = [r for r in caplog.records if "deletes refused" in r.getMessage()]
        assert len(said) == 1 and "admin" in said[0].getMessage()
        assert "set FLOORLINE_API_KEY" not in caplog.text
    finally:
        server.close()


def test_the_timeout_comes_from_the_argument_then_floorline_ccr_timeout_then_3_s(monkeypatch, caplog):
    monkeypatch.setenv("FLOORLINE_CCR_TIMEOUT", "12.5")
    assert FloorlineCCRBackend(url="http://127.0.0.1:9")._http.timeout == 12.5
    assert FloorlineCCRBackend(url="http://127.0.0.1:9", timeout=1.0)._http.timeout == 1.0
    for wrong in ("abc", "0", "-4", "nan", "1e9"):
        monkeypatch.setenv("FLOORLINE_CCR_TIMEOUT", wrong)
        assert FloorlineCCRBackend(url="http://127.0.0.1:9")._http.timeout == 3.0
    assert "FLOORLINE_CCR_TIMEOUT='1e9' is not a number of seconds" in caplog.text
    monkeypatch.delenv("FLOORLINE_CCR_TIMEOUT")
    assert FloorlineCCRBackend(url="http://127.0.0.1:9")._http.timeout == 3.0
