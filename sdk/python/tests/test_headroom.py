"""Floorline as Headroom's CCR store and pipeline observer, called as Headroom calls them,
through the stand-in of its protocol classes in tests/standin (Headroom cannot be installed
here), against the built app."""

from __future__ import annotations

import hashlib
import json
import logging
import socket
import subprocess
import sys
from dataclasses import asdict

import pytest
from conftest import REPO, SDK

sys.path.insert(0, str(SDK / "tests" / "standin"))

from headroom.cache.backends import CompressionStoreBackend  # noqa: E402
from headroom.cache.compression_store import CompressionEntry, CompressionStore  # noqa: E402
from headroom.pipeline import PipelineExtensionManager, PipelineStage  # noqa: E402

from floorline import Floorline  # noqa: E402
from floorline.headroom import FloorlineCCRBackend, FloorlineExtension, create_ccr_backend  # noqa: E402

ISSUES = json.dumps([{"id": i, "title": f"Issue {i}: timeout in worker-{i % 7}", "comments": i * 3} for i in range(60)])
SUMMARY = json.dumps([{"id": i, "title": f"Issue {i}"} for i in range(5)])


class DictBackend:
    """Headroom's in-memory backend, as the reference for what a round trip must give back."""

    def __init__(self):
        self.d = {}

    def get(self, k):
        return self.d.get(k)

    def set(self, k, e):
        self.d[k] = e

    def delete(self, k):
        return self.d.pop(k, None) is not None

    def exists(self, k):
        return k in self.d

    def clear(self):
        self.d.clear()

    def count(self):
        return len(self.d)

    def keys(self):
        return list(self.d)

    def items(self):
        return list(self.d.items())

    def get_stats(self):
        return {"entry_count": len(self.d), "backend_type": "memory"}


def store_both(kwargs, tenant="t-roundtrip", server=None):
    ours = CompressionStore(backend=create_ccr_backend(url=server.base, tenant_prefix=tenant))
    reference = CompressionStore(backend=DictBackend())
    return ours, reference, ours.store(**kwargs), reference.store(**kwargs)


FULL = dict(
    original=ISSUES, compressed=SUMMARY, original_tokens=1500, compressed_tokens=120, original_item_count=60,
    compressed_item_count=5, tool_name="github_search", tool_call_id="toolu_01", query_context="most comments",
    tool_signature_hash="sig-abc", compression_strategy="smart_crusher", ttl=900,
)


def test_the_backend_meets_headrooms_protocol(server):
    assert isinstance(create_ccr_backend(url=server.base, tenant_prefix=""), CompressionStoreBackend)


def test_an_entry_round_trips_as_headrooms_own_store_keeps_it(server):
    ours, reference, key, ref_key = store_both(FULL, server=server)
    assert key == ref_key == hashlib.sha256(ISSUES.encode()).hexdigest()[:24]
    got, want = ours.retrieve(key, query="most comments"), reference.retrieve(key, query="most comments")
    assert isinstance(got, CompressionEntry)
    got_fields, want_fields = asdict(got), asdict(want)
    for moving in ("created_at", "last_accessed"):
        assert abs(got_fields.pop(moving) - want_fields.pop(moving)) < 5
    assert got_fields == want_fields
    assert got.retrieval_count == 1 and ours.retrieve(key).retrieval_count == 2


def test_another_worker_reads_what_the_store_keeps(server):
    CompressionStore(backend=create_ccr_backend(url=server.base, tenant_prefix="t-workers")).store(**{**FULL, "original": ISSUES + " "})
    key = hashlib.sha256((ISSUES + " ").encode()).hexdigest()[:24]
    other = create_ccr_backend(url=server.base, tenant_prefix="t-workers")
    entry = other.get(key)
    assert (entry.hash, entry.original_content, entry.compressed_content) == (key, ISSUES + " ", SUMMARY)
    assert (entry.original_tokens, entry.compressed_tokens, entry.original_item_count, entry.compressed_item_count) == (1500, 120, 60, 5)
    assert (entry.tool_name, entry.ttl) == ("github_search", 900)
    assert entry.retrieval_count >= 1 and not entry.is_expired()
    assert other.exists(key) and key in other.keys() and other.count() == 1
    assert [k for k, e in other.items()] == [key] and other.get_stats()["entry_count"] == 1


def blake3_24(text: str) -> str:
    script = "import {blake3} from '@noble/hashes/blake3.js'; process.stdout.write(Buffer.from(blake3(Buffer.from(process.argv[1], 'utf8'))).toString('hex').slice(0, 24))"
    return subprocess.run(["node", "--input-type=module", "-e", script, text], cwd=REPO, capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("kind", ["sha256-12", "md5-24", "blake3-24"])
def test_keys_stay_as_headroom_makes_them(server, kind):
    original = f"{kind}: " + ISSUES
    key = {
        "sha256-12": hashlib.sha256(original.encode()).hexdigest()[:12],
        "md5-24": hashlib.md5(original.encode()).hexdigest()[:24],
        "blake3-24": blake3_24(original) if kind == "blake3-24" else "",
    }[kind]
    CompressionStore(backend=create_ccr_backend(url=server.base, tenant_prefix=f"t-{kind}")).store(original, SUMMARY, explicit_hash=key)
    other = create_ccr_backend(url=server.base, tenant_prefix=f"t-{kind}")
    entry = other.get(key)
    assert entry is not None and entry.hash == key and entry.original_content == original
    assert other.keys() == [key]
    status, body = server.post("/v1/retrieve", {"hash": key})
    assert status == 200 and body["original_content"] == original


def test_tenants_do_not_see_each_others_entries(server):
    a = CompressionStore(backend=create_ccr_backend(url=server.base, tenant_prefix="tenant-a"))
    key = a.store("only tenant a has this " * 20, "a")
    b = create_ccr_backend(url=server.base, tenant_prefix="tenant-b")
    assert b.get(key) is None and not b.exists(key) and b.count() == 0 and b.keys() == []
    assert create_ccr_backend(url=server.base, tenant_prefix="tenant-a").exists(key)


def test_a_store_counts_no_miss_and_a_retrieval_counts_one_hit(server):
    before = server.get("/api/v1/originals/stats")
    store = CompressionStore(backend=create_ccr_backend(url=server.base, tenant_prefix="t-counts"))
    key = store.store("counted once " * 50, "c")
    mid = server.get("/api/v1/originals/stats")
    store.retrieve(key)
    after = server.get("/api/v1/originals/stats")
    totals = lambda s: (s["totals"]["misses"]["total"], s["totals"]["retrieved"])  # noqa: E731
    assert totals(mid) == totals(before)
    assert totals(after) == (totals(before)[0], totals(before)[1] + 1)


def test_an_outage_is_a_miss_and_a_logged_set_never_an_exception(caplog):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    backend = FloorlineCCRBackend(url=url, tenant_prefix="down")
    store = CompressionStore(backend=backend)
    with caplog.at_level(logging.WARNING, logger="floorline.headroom"):
        key = store.store("lost while the store is down " * 10, "x")
    assert "unreachable" in caplog.text
    assert store.retrieve(key) is None and backend.get(key) is None and not backend.exists(key)
    assert (backend.count(), backend.keys(), backend.items()) == (0, [], [])
    assert backend.get_stats()["connection_status"].startswith("unreachable")


def test_each_input_compressed_event_becomes_a_pass(server):
    fl = Floorline(server.base, flush_interval=0.05)
    extension = FloorlineExtension(client=fl)
    manager = PipelineExtensionManager(extensions=[extension], discover=False)
    original = [{"role": "user", "content": "find the failing test"}, {"role": "tool", "content": ISSUES}]
    compressed = [{"role": "user", "content": "find the failing test"}, {"role": "tool", "content": SUMMARY}]
    manager.emit(PipelineStage.INPUT_RECEIVED, operation="proxy.request", request_id="req-1", messages=original)
    event = manager.emit(
        PipelineStage.INPUT_COMPRESSED, operation="proxy.request", request_id="req-1", provider="anthropic", model="claude",
        messages=compressed,
        metadata={"tokens_before": 1500, "tokens_after": 140, "transforms_applied": ["smart_crusher"], "original_messages": original},
    )
    manager.emit(PipelineStage.INPUT_COMPRESSED, operation="compress", messages=compressed, metadata={"session_id": "s-9", "tokens_before": 10, "tokens_after": 9})
    manager.emit(PipelineStage.INPUT_COMPRESSED, operation="compress", messages=compressed, metadata={"session_id": "s-9", "tokens_before": 9, "tokens_after": 8})
    assert manager.failures == [] and event.messages is compressed
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


def test_a_broken_floorline_never_reaches_headrooms_request():
    class Exploding:
        def chain(self, *a, **k):
            raise RuntimeError("boom")

    extension = FloorlineExtension(client=Exploding())
    manager = PipelineExtensionManager(extensions=[extension], discover=False)
    manager.emit(PipelineStage.INPUT_COMPRESSED, operation="compress", messages=[{"role": "user", "content": "x"}], metadata={})
    manager.emit(PipelineStage.INPUT_COMPRESSED, operation="compress", messages=[object()], metadata={"original_messages": object()})
    extension._pending.join()
    assert manager.failures == []
