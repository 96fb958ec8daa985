"""The examples of docs/from-python.md run as written, against the built app."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import REPO, SDK

PAGE = (REPO / "docs" / "from-python.md").read_text("utf-8")
EXAMPLES = re.findall(r"```python\n(.*?)```", PAGE, re.S)


def test_the_page_has_its_two_examples_of_about_fifteen_lines():
    assert len(EXAMPLES) == 2
    assert all(len(example.strip().splitlines()) <= 16 for example in EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES, ids=["record_pass", "compress_until_floor"])
def test_an_example_runs_and_its_receipts_arrive(server, example):
    env = {**os.environ, "PYTHONPATH": str(SDK / "src"), "FLOORLINE_URL": server.base}
    # The example as written, its client given a minute at exit rather than 5 s: beside CI's other
    # stages this server answered a batch in 4 to 10 s, and the client rightly gave up on a halt
    # boundary it had not yet delivered.
    patient = "import functools, floorline\nfloorline.Floorline.__init__ = functools.partialmethod(floorline.Floorline.__init__, exit_timeout=60)\n"
    done = subprocess.run([sys.executable, "-c", patient + example], capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr
    # Each run opens a chain of its own (a fixed id would collide with the last run's receipts):
    # the example prints it first, or its first pass id.
    first = done.stdout.split()[0]
    chain_id = first.rsplit(".p", 1)[0] if re.fullmatch(r".+\.p\d+", first) else first
    stored = server.get(f"/api/v1/chains/{chain_id}")
    # compress_until_floor says how many passes it made: with the server's floor (when its policy
    # arrives within policy_wait) or the built-in one (CI once read it later, and made one pass).
    made = re.search(r"bytes after (\d+) passes", done.stdout)
    if "compress_until_floor" in example:
        assert made, done.stdout
        assert len(stored["passes"]) == int(made.group(1)) >= 1
    else:
        assert len(stored["passes"]) >= 2
    assert "SAFE_TO_COMPRESS" in done.stdout or "breach" in done.stdout
    # Where the guard said halt, the example says what it did: the chain is guarded, not left
    # with a floor no boundary answered.
    if "HALT" in done.stdout:
        assert [b["strategy"] for b in stored["boundaries"]] == ["halt"]
    # Nothing refused, nothing left undelivered: the client would have said so on stderr.
    assert "floorline:" not in done.stderr, done.stderr
