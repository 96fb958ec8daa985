"""The Python canaries against the TypeScript ones (tests/canaries-ts.ts): the same seed plants
the same facts at the same places in JSON, logs and text, and the survival checks agree, over
hand-picked shapes and seeded generated ones."""

from __future__ import annotations

import json
import random
import subprocess
from datetime import datetime, timezone

import pytest
from conftest import REPO, SDK

from floorline import Floorline
from floorline.canaries import check_canaries, plant_canaries

TSX = REPO / "node_modules" / ".bin" / "tsx"

PREFIXES = [
    "2026-11-30T10:00:{s:02d}Z INFO ",
    "2026-11-30 10:00:{s:02d},118 [error] ",
    "[2026-11-30 10:00:{s:02d}] WARN: ",
    "10:00:{s:02d}.120 level=debug ",
    "Error ",
    "<notice> ",
    "",
]
WORDS = "checkout failed payment gateway timeout on db-3 retry queued shard lease Zoë 日本語 🚀 status=200 ms=53 /v1/export".split(" ")


def json_doc(rng: random.Random) -> str:
    def value(depth: int):
        roll = rng.random()
        if depth < 2 and roll < 0.25:
            return {rng.choice(WORDS): value(depth + 1) for _ in range(rng.randint(0, 4))}
        if depth < 2 and roll < 0.4:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        return rng.choice([1, 2.5, "x", " ".join(rng.sample(WORDS, 3)), None, True, 'quote " and \\ slash'])

    top: object
    if rng.random() < 0.6:
        top = {f"k{i}": value(1) for i in range(rng.randint(0, 5))}
    else:
        top = [{"id": i, "v": value(1)} if rng.random() < 0.8 else value(2) for i in range(rng.randint(1, 5))]
    style = rng.choice(["compact", "spaced", "pretty", "crlf"])
    if style == "compact":
        return json.dumps(top, ensure_ascii=False, separators=(",", ":"))
    if style == "spaced":
        return json.dumps(top, ensure_ascii=False)
    text = json.dumps(top, ensure_ascii=False, indent=rng.choice([2, 4, "\t"]))
    return text.replace("\n", "\r\n") if style == "crlf" else text + rng.choice(["", "\n"])


def log_doc(rng: random.Random) -> str:
    prefix = rng.choice(PREFIXES)
    lines = [prefix.format(s=i) + " ".join(rng.sample(WORDS, 4)) for i in range(rng.randint(1, 8))]
    if rng.random() < 0.3:
        lines.insert(rng.randint(0, len(lines)), "    at Object.<anonymous> (/srv/app.js:12:5)")
    return rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["", "\n"])


def text_doc(rng: random.Random) -> str:
    sentences = [" ".join(rng.sample(WORDS, rng.randint(1, 6))).capitalize() + rng.choice([".", "!", "", "?"]) for _ in range(rng.randint(0, 6))]
    return rng.choice([" ", "\n", "\n\n"]).join(sentences) + rng.choice(["", "\n", " "])


def cases() -> list[dict]:
    rng = random.Random(44)
    made: list[dict] = [
        {"content": "", "count": 4, "seed": "chain-1"},
        {"content": "{}", "count": 3, "seed": "chain-1"},
        {"content": "[1, 2, 3]", "count": 2, "seed": "chain-1"},
        {"content": "not json", "count": 1, "seed": "s", "format": "json"},
        {"content": "x", "count": 0, "seed": "s"},
        {"content": "x", "count": 17, "seed": "s"},
        {"content": "The ledger is 385245.", "count": 4, "seed": "chain-1"},
        {"content": "One. Two. Three.", "count": 16, "seed": "chain-1", "start": 7},
    ]
    for i in range(400):
        doc = [json_doc, log_doc, text_doc][i % 3](rng)
        made.append({"content": doc, "count": rng.randint(1, 16), "seed": f"chain-{rng.randint(0, 10**6)}", "start": rng.randint(0, 20), "check": doc[: rng.randint(0, len(doc))]})
    return made


def python(case: dict) -> dict:
    try:
        planted = plant_canaries(case["content"], case["count"], case["seed"], case.get("start", 0), case.get("format"))
    except (ValueError, TypeError) as error:
        return {"error": "RangeError" if isinstance(error, ValueError) else "TypeError"}
    check = check_canaries(planted.content, planted.canaries)
    other = check_canaries(case.get("check", ""), planted.canaries)
    return {
        "content": planted.content,
        "canaries": [c.wire() for c in planted.canaries],
        "format": planted.format,
        "check": {"surviving": check.surviving, "lost": check.lost, "checked_text_bytes": check.checked_text_bytes},
        "check_other": {"surviving": other.surviving, "lost": other.lost, "checked_text_bytes": other.checked_text_bytes},
    }


CHAIN = {
    "id": "chain-canaries-7",
    "content": "2026-11-30T10:00:07Z INFO checkout started for order 5521\n2026-11-30T10:00:09Z WARN gateway slow ms=900\n2026-11-30T10:00:12Z ERROR payment failed: ECONNRESET\n",
    "count": 4,
    "outputs": [],
    "instead": "",
}


def chain_case() -> dict:
    planted = plant_canaries(CHAIN["content"], 4, CHAIN["id"]).content
    lines = planted.splitlines(keepends=True)
    # Pass 1 keeps every line but the first two; pass 2 keeps the error lines; the agent's next
    # output (checked in place of pass 3's opaque one) quotes one canary.
    kept = [line for line in lines if "ERROR" in line]
    first = next(c for c in plant_canaries(CHAIN["content"], 4, CHAIN["id"]).canaries if c.kind == "number")
    return {**CHAIN, "outputs": ["".join(lines[2:]), "".join(kept), "opaque"], "instead": f"resuming with offset {first.text}"}


def chain_py(case: dict) -> tuple[list[dict], list[dict]]:
    fl = Floorline("http://127.0.0.1:9", fetch_policies=False, flush_on_exit=False, flush_interval=3600, on_error=lambda e: None, policies={"notes": {"min_size_bytes": 1, "min_semantic_density": 0.01, "max_pass_number": 100}}, clock=lambda: datetime(2026, 3, 1, tzinfo=timezone.utc))
    chain = fl.chain(case["id"], "notes")
    current = chain.plant_canaries(case["content"], count=case["count"])
    receipts = []
    for i, output in enumerate(case["outputs"]):
        last = i == len(case["outputs"]) - 1
        result = chain.record_pass(current, output, semantic_density_score=0.9, canary_check=chain.check_canaries(case["instead"]) if last else None)
        current = result.output
        receipts.append(result.receipt)
    return [c.wire() for c in chain.canaries], receipts


def test_the_two_sdks_plant_and_check_alike() -> None:
    if not TSX.exists():
        pytest.skip("tsx is not installed (run npm ci at the repo root)")
    given = cases()
    chain = chain_case()
    done = subprocess.run([str(TSX), str(SDK / "tests" / "canaries-ts.ts")], input=json.dumps({"cases": given, "chain": chain}), capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    ts = json.loads(done.stdout)
    formats = set()
    for case, want in zip(given, ts["answers"]):
        assert python(case) == want, case
        formats.add(want.get("format"))
    assert formats >= {"json", "log", "text"}
    planted, receipts = chain_py(chain)
    assert (planted, receipts) == (ts["planted"], ts["receipts"])
    # Planted on pass 1's receipt; each pass reports what its output kept; the last sends the
    # check of the agent's next output in place of its opaque one's.
    assert [len(r.get("canaries", [])) for r in receipts] == [4, 0, 0]
    surviving = [r["canary_check"]["surviving"] for r in receipts]
    for output, ids in zip(chain["outputs"][:2], surviving):
        assert ids == [c["id"] for c in planted if c["text"] in output]
    error = next(c["id"] for c in planted if c["kind"] == "error")
    assert surviving[1] == [error] and len(surviving[0]) > 1
    assert surviving[2] == [planted[0]["id"]] and receipts[2]["canary_check"]["checked_text_bytes"] == len(chain["instead"])
