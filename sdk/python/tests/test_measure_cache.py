"""A chain measures every pass against one source: the Python port analyses a source once and
keeps the analysis (a bounded number of characters of sources), without changing an answer."""

from __future__ import annotations

from floorline import _measure
from floorline._measure import measure_detailed


def _log(n: int) -> str:
    return "\n".join(f"2026-11-30T10:00:{i % 60:02d}Z INFO api request id=r{n}-{i} status=200 ms={i * 7 % 300}" for i in range(40))


def test_a_source_is_analysed_once_and_kept():
    _measure._sources.clear()
    _measure._sources_chars = 0
    source = _log(0)
    answers = [measure_detailed(_log(n), source, "text") for n in (1, 2, 3)]
    assert len(_measure._sources) == 1
    kept = _measure._source(source, "text")
    # The same text built anew is the same source.
    assert _measure._source("".join(list(source)), "text") is kept
    # Kept or not, the answer is the same.
    _measure._sources.clear()
    _measure._sources_chars = 0
    assert measure_detailed(_log(3), source, "text") == answers[2]


def test_the_kept_sources_stay_within_their_budget(monkeypatch):
    monkeypatch.setattr(_measure, "_SOURCE_CACHE_CHARS", 10_000)
    _measure._sources.clear()
    _measure._sources_chars = 0
    for n in range(10):
        measure_detailed("request id=r1", _log(n), "text")
    assert 0 < len(_measure._sources) < 10
    assert _measure._sources_chars == sum(len(s) for s, _ in _measure._sources)
    assert _measure._sources_chars <= 10_000
