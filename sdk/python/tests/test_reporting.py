"""Nothing lost quietly: refusals are reported with their reasons, counted, and answered by
close(); an original still in the queue is found by retrieve(); a server that cannot be
reached is named, with what it did not get; SIGTERM delivers what is queued."""

from __future__ import annotations

import logging
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest
from conftest import SDK

from floorline import Floorline, ReceiptsLost

LOOSE = {"min_size_bytes": 1, "min_semantic_density": 0.1, "max_pass_number": 1000}


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def conflict(index: int):
    issues = [{"path": f"receipts.{index}", "message": "a receipt with this chain_id and pass_id was already stored"}]
    return 409, {}, {"error": {"code": "idempotency_conflict", "message": f"Receipt {index} reuses its chain_id and pass_id with a different body.", "issues": issues}}


def stored(body):
    if isinstance(body, dict) and "receipts" in body:
        return 201, {}, {"results": [{"chain_id": r["chain_id"], "pass_id": r["pass_id"], "policy_version": 0} for r in body["receipts"]]}
    return 201, {}, {}



def client(url: str, **kwargs) -> Floorline:
    kwargs.setdefault("policies", {"default": LOOSE})
    kwargs.setdefault("flush_interval", 60)
    return Floorline(url, backoff_initial=0.02, backoff_max=0.08, flush_on_exit=False, **kwargs)


def record(fl: Floorline, chain_id: str, count: int) -> None:
    chain = fl.chain(chain_id)
    for i in range(count):
        chain.record_pass(f"in {i}" * 50, f"out {i}" * 40, semantic_density_score=0.9)


def test_refusals_are_logged_with_their_reasons_each_time_naming_the_server(fake, caplog):
    answers = {0: conflict(0), 2: conflict(1)}
    server = fake(lambda i, path, body: answers.get(i) or stored(body))
    fl = client(server.base, max_batch=2)
    with caplog.at_level(logging.WARNING, logger="floorline"):
        record(fl, "r-1", 4)
        assert fl.flush(10)
        fl.close()
    refusals = [r.getMessage() for r in caplog.records if " refused 1 pass receipt " in r.getMessage()]
    assert len(refusals) == 2
    for line in refusals:
        assert server.base in line and "409 idempotency_conflict" in line and "already stored" in line


def test_a_409_naming_one_receipt_refuses_that_one_and_delivers_the_rest(fake):
    server = fake(lambda i, path, body: conflict(1) if i == 0 else stored(body))
    refused = []
    fl = client(server.base, on_error=lambda e: refused.extend(item["pass_id"] for item in e.items))
    record(fl, "r-2", 3)
    assert fl.flush(10)
    fl.close()
    assert refused == ["r-2.p2"]
    assert [r["pass_id"] for r in server.requests[1][2]["receipts"]] == ["r-2.p1", "r-2.p3"]


def test_close_answers_delivered_refused_dropped_and_undelivered(fake):
    server = fake(lambda i, path, body: conflict(0) if i == 0 else stored(body))
    fl = client(server.base, on_error=lambda e: None, max_queue=4, flush_interval=60)
    record(fl, "r-3", 6)
    report = fl.close()
    assert (report.delivered, report.refused, report.dropped, report.undelivered, report.ok) == (3, 1, 2, 0, False)
    assert not report
    stats = fl.stats
    assert {k: stats[k] for k in ("delivered", "sent", "refused", "dropped", "undelivered", "failed")} == {
        "delivered": 3, "sent": 3, "refused": 1, "dropped": 2, "undelivered": 0, "failed": 1}


def test_close_raises_on_loss_when_asked(fake):
    server = fake(lambda i, path, body: conflict(0) if i == 0 else stored(body))
    fl = client(server.base, on_error=lambda e: None, flush_interval=60)
    record(fl, "r-4", 2)
    with pytest.raises(ReceiptsLost) as raised:
        fl.close(raise_on_loss=True)
    report = raised.value.report
    assert (report.delivered, report.refused, report.dropped, report.undelivered) == (1, 1, 0, 0)
    clean = client(server.base)
    record(clean, "r-5", 2)
    assert clean.close(raise_on_loss=True).ok


def test_a_500_is_refused_not_retried(fake):
    server = fake(lambda i, path, body: (500, {}, {"error": {"code": "internal_error", "message": "a bug"}}) if i == 0 else stored(body))
    fl = client(server.base, on_error=lambda e: None)
    record(fl, "r-6", 2)
    assert fl.flush(10)
    fl.close()
    assert len(server.requests) == 1 and (fl.stats["refused"], fl.stats["retried"]) == (2, 0)


def test_an_unreachable_server_is_named_at_close_with_what_it_did_not_get(caplog):
    url = closed_port_url()
    fl = client(url)
    with caplog.at_level(logging.WARNING, logger="floorline"):
        record(fl, "u-1", 3)
        started = time.monotonic()
        report = fl.close(0.3)
        assert time.monotonic() - started < 2
    assert (report.delivered, report.undelivered, report.ok) == (0, 3, False)
    messages = [r.getMessage() for r in caplog.records]
    assert any(f"cannot reach {url}" in m for m in messages)
    assert url in messages[-1] and "3 undelivered" in messages[-1]


def test_close_waits_while_the_server_takes_batches_however_long_the_queue_takes(fake):
    def slow(i, path, body):
        time.sleep(0.5)
        return stored(body)

    server = fake(slow)
    fl = client(server.base, max_batch=1)
    record(fl, "slow-1", 6)
    # Six answers of 500 ms each, 3 s in all: longer than the wait, which counts only time
    # without an answer. (A wait of 0.4 s with 150 ms answers was flaky on a busy machine.)
    started = time.monotonic()
    report = fl.close(2.0)
    assert (report.delivered, report.undelivered) == (6, 0)
    assert time.monotonic() - started > 2.0


UNREACHABLE = """
import sys, time
sys.path.insert(0, {src!r})
from floorline import Floorline
began = time.monotonic()
with Floorline({url!r}{extra}) as fl:
    chain = fl.chain("exit-2")
    for n in range(3):
        chain.record_pass("in %d" % n, "out %d" % n, semantic_density_score=0.9)
print("agent-took=%f" % (time.monotonic() - began), file=sys.stderr)
"""


def run_agent(url: str, extra: str = "") -> tuple[subprocess.CompletedProcess[str], float]:
    """Runs the agent; the time is the agent's own, from its client's start to its close
    (starting Python and importing the SDK took seconds on a loaded CI machine)."""
    script = UNREACHABLE.format(src=str(SDK / "src"), url=url, extra=extra)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    took = re.search(r"agent-took=([0-9.]+)", done.stderr)
    assert took, done.stderr
    return done, float(took.group(1))


def test_at_exit_an_unreachable_server_holds_the_process_for_exit_timeout_5_s_by_default():
    url = closed_port_url()
    short, took_short = run_agent(url, ", exit_timeout=0.6")
    assert short.returncode == 0, short.stderr
    assert took_short < 3, short.stderr
    assert f"cannot reach {url}" in short.stderr
    assert f"0 of 3 items delivered to {url}" in short.stderr and "3 undelivered" in short.stderr
    default, took_default = run_agent(closed_port_url())
    assert 4.5 <= took_default < 12, default.stderr


def test_retrieve_finds_an_original_still_in_the_queue(fake):
    def slow(i, path, body):
        if path == "/api/v1/originals":
            time.sleep(0.5)  # still on its way when retrieve() asks
        return stored(body)

    server = fake(slow)
    fl = client(server.base, cache_originals=True, flush_interval=60)
    source = "the original, cached as the pass is recorded " * 10
    result = fl.chain("q-1").record_pass(source, "the original", semantic_density_score=0.9)
    key = result.output.rsplit("hash=", 1)[1].rstrip("]")
    found = fl.retrieve(key)
    assert (found.found, found.original, found.pending) == (True, source, True)
    assert found.hash.startswith(key) and len(found.hash) == 64
    assert not [r for r in server.requests if r[1] == "/api/v1/retrieve"]
    fl.close()


def test_sigterm_delivers_what_is_queued_then_ends_by_the_signal(fake):
    server = fake(lambda i, path, body: stored(body))
    script = textwrap.dedent(
        f"""
        import sys, time
        sys.path.insert(0, {str(SDK / "src")!r})
        from floorline import Floorline
        fl = Floorline({server.base!r}, fetch_policies=False, flush_interval=60)
        chain = fl.chain("sigterm")
        for n in range(5):
            chain.record_pass("a" * 400, "b" * 300, semantic_density_score=0.9)
        print("READY", flush=True)
        time.sleep(60)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": ""})
    assert child.stdout is not None and child.stdout.readline().strip() == "READY"
    child.send_signal(signal.SIGTERM)
    assert child.wait(30) == -signal.SIGTERM
    assert [r["pass_number"] for _, path, body in server.requests if path == "/api/v1/passes" for r in body["receipts"]] == [1, 2, 3, 4, 5]
