"""A chain's canaries in the Python SDK offline: the cap, base64 refused, and no canary fields
on a chain that planted none (test_canaries_cross.py holds them equal to the TypeScript SDK's)."""

from __future__ import annotations

import pytest

from floorline import Floorline

LOOSE = {"min_size_bytes": 1, "min_semantic_density": 0.01, "max_pass_number": 50}


def offline() -> Floorline:
    return Floorline("http://127.0.0.1:9", fetch_policies=False, flush_on_exit=False, flush_interval=3600, on_error=lambda e: None, policies={"notes": LOOSE, "blob": {**LOOSE, "format": "base64"}})


def test_a_chain_carries_at_most_sixteen_and_continues_its_seed():
    chain = offline().chain("c", "notes")
    chain.plant_canaries("One. Two.", count=10)
    with pytest.raises(ValueError, match="at most 16"):
        chain.plant_canaries("One. Two.", count=7)
    chain.plant_canaries("One. Two.", count=6)
    assert len({c.id for c in chain.canaries}) == 16


def test_base64_content_is_refused():
    with pytest.raises(ValueError, match="base64"):
        offline().chain("b", "blob").plant_canaries("aGVsbG8=")


def test_a_chain_without_canaries_sends_no_canary_fields():
    result = offline().chain("p", "notes").record_pass("some input text", "some text")
    assert "canaries" not in result.receipt and "canary_check" not in result.receipt
    assert result.canary_check is None
