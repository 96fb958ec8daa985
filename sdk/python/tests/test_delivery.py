"""The delivery rules that need a server misbehaving on cue: 429 and 503 with Retry-After,
other 4xx never resent, the bounded queue, and a client that never raises into the agent."""

from __future__ import annotations

import socket
import time

import pytest

from floorline import Floorline

OK = (200, {}, {"results": []})


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"



@pytest.mark.parametrize("status", [429, 503])
def test_busy_answers_are_retried_after_the_wait_the_server_asks(fake, status):
    server = fake(lambda i, path, body: (status, {"Retry-After": "1"}, {"error": {"code": "busy", "message": "busy"}}) if i < 2 else OK)
    errors = []
    # Nothing is sent before the flush: the three receipts go in one batch however busy the
    # machine (at 10 ms, and once at 0.5 s, the sender took the first one alone).
    with Floorline(server.base, fetch_policies=False, on_error=errors.append, flush_interval=60) as fl:
        chain = fl.chain("busy")
        for _ in range(3):
            chain.record_pass("a" * 300, "b" * 280, semantic_density_score=0.9)
        assert fl.flush(20)
        stats = fl.stats
    assert errors == []
    assert (stats["sent"], stats["retried"], stats["failed"]) == (3, 6, 0)
    times = [t for t, _, _ in server.requests]
    assert len(times) == 3 and times[1] - times[0] >= 1 and times[2] - times[1] >= 1
    # A resend is the same body: the natural keys make it idempotent on the server.
    assert server.requests[0][2] == server.requests[1][2] == server.requests[2][2]


@pytest.mark.parametrize("status", [400, 401, 403, 409, 413, 415, 422])
def test_other_client_errors_are_reported_never_resent(fake, status):
    server = fake(lambda i, path, body: (status, {}, {"error": {"code": "nope", "message": "refused"}}))
    errors = []
    with Floorline(server.base, fetch_policies=False, on_error=errors.append, flush_interval=0.01) as fl:
        fl.chain("refused").record_pass("a" * 300, "b" * 280, semantic_density_score=0.9)
        assert fl.flush(10)
        stats = fl.stats
    assert len(server.requests) == 1
    assert (stats["sent"], stats["retried"], stats["failed"]) == (0, 0, 1)
    assert [(e.status, e.code, e.message, len(e.items)) for e in errors] == [(status, "nope", "refused", 1)]


def test_a_422_naming_items_resends_only_the_valid_ones(fake):
    def script(i, path, body):
        if i == 0:
            issues = [{"path": "receipts.1.metadata", "message": "too big"}, {"path": "receipts.3.pass_id", "message": "bad"}]
            return 422, {}, {"error": {"code": "invalid_input", "message": "no", "issues": issues}}
        return OK

    server = fake(script)
    errors = []
    with Floorline(server.base, fetch_policies=False, on_error=errors.append, flush_interval=0.5) as fl:
        chain = fl.chain("partial")
        for _ in range(5):
            chain.record_pass("a" * 300, "b" * 280, semantic_density_score=0.9)
        assert fl.flush(10)
        stats = fl.stats
    assert [[r["pass_number"] for r in body["receipts"]] for _, _, body in server.requests] == [[1, 2, 3, 4, 5], [1, 3, 5]]
    assert [r["pass_number"] for r in errors[0].items] == [2, 4]
    assert (stats["sent"], stats["failed"], stats["retried"]) == (3, 2, 0)


def test_the_queue_is_bounded_dropping_the_oldest(fake):
    errors = []
    fl = Floorline(closed_port_url(), fetch_policies=False, on_error=errors.append, max_queue=10, flush_interval=60)
    chain = fl.chain("bounded")
    for _ in range(25):
        chain.record_pass("a" * 300, "b" * 280, semantic_density_score=0.9)
    stats = fl.stats
    assert (stats["dropped"], stats["queued"]) == (15, 10)
    assert not fl.close(timeout=0.5)
    assert (fl.stats["failed"], fl.stats["undelivered"]) == (10, 10)
    assert [r["pass_number"] for e in errors for r in e.items] == list(range(16, 26))


def test_batches_hold_at_most_500_receipts(fake):
    server = fake(lambda i, path, body: OK)
    # No timed send while the passes are recorded, however long that takes on a busy machine
    # (at 5 s, CI once sent the first 328 alone): flush() alone sends them, 500 at most a batch.
    with Floorline(server.base, fetch_policies=False, flush_interval=600) as fl:
        chain = fl.chain("big")
        for _ in range(1200):
            chain.record_pass("a" * 300, "b" * 280, semantic_density_score=0.9)
        assert fl.flush(20)
    assert [len(body["receipts"]) for _, _, body in server.requests] == [500, 500, 200]


def test_an_unreachable_server_never_raises_into_the_agent():
    fl = Floorline(closed_port_url(), on_error=lambda e: 1 / 0, flush_interval=0.01, backoff_max=0.05)
    result = fl.chain("down").record_pass("a" * 300, "b" * 280, semantic_density_score=0.9)
    assert result.verdict == "NO_RECURSIVE_COMPRESSION"
    assert fl.retrieve("abcdefabcdef").code == "network_error"
    assert fl.load_policy("x").version == 0
    fl.close(timeout=0.3)
    assert fl.stats["failed"] == 1


def test_the_first_decision_waits_for_the_servers_policy(fake):
    served = {"content_class": "summary", "version": 3, "min_size_bytes": 10, "min_semantic_density": 0.35, "max_pass_number": 8}

    def script(i, path, body):
        if path.startswith("/api/v1/policies/"):
            time.sleep(0.3)  # an answer that comes after the agent's first pass is recorded
            return 200, {}, served
        return OK

    server = fake(script)
    with Floorline(server.base, flush_interval=0.05) as fl:
        # 0.4 is under the built-in default's 0.5 but over the server's 0.35.
        chain = fl.chain("waits", "summary")
        chain.record_pass("a" * 300, "b" * 290, semantic_density_score=0.9)
        assert chain.record_pass("b" * 290, "c" * 280, semantic_density_score=0.4).verdict == "SAFE_TO_COMPRESS"
        assert chain.policy.version == 3
    with Floorline(server.base, flush_interval=0.05, policy_wait=0) as fl:
        # Not waiting: the default floor until the answer arrives.
        chain = fl.chain("does-not-wait", "summary")
        chain.record_pass("a" * 300, "b" * 290, semantic_density_score=0.9)
        assert not chain.record_pass("b" * 290, "c" * 280, semantic_density_score=0.4).proceed
