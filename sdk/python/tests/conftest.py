from __future__ import annotations

import sys
from pathlib import Path

SDK = Path(__file__).resolve().parents[1]
REPO = SDK.parents[1]
FIXTURES = REPO / "test" / "fixtures"

# The tests exercise the checkout's source; test_install.py checks the installed package too.
sys.path.insert(0, str(SDK / "src"))


import pytest  # noqa: E402

LENIENT = {"min_size_bytes": 1, "min_semantic_density": 0.1, "max_pass_number": 100_000}


@pytest.fixture
def fake():
    """Recording fake servers (fake_server.py), each made from a script of answers, closed after the test."""
    from fake_server import FakeServer

    servers = []

    def make(script):
        servers.append(FakeServer(script))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The built app, started once for the session with a throw-away data folder."""
    from support import Server

    s = Server(tmp_path_factory.mktemp("floorline") / "data")
    s.start()
    # The server judges every receipt with its own policy, so the lenient floor lives there.
    assert s.post("/api/v1/policies/lenient", LENIENT, method="PUT")[0] in (200, 201)
    yield s
    s.stop()
