"""Measured density, `floorline-facts/4`: the Python port of lib/measure (docs/measurement.md),
line by line, held to the TypeScript by a cross-language test on every field.

Longer than most modules on purpose: it ports lib/measure/index.ts with base64.ts, read.ts, source.ts and
efficiency.ts, and is read side by side with them; one file keeps that comparison in one place."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from typing import Any, Callable, Mapping, Sequence, Union

from .chars import ascii_lower, from16, to16, utf8_length
from .json_doc import JsonDoc, add_json_facts, analyse_json, field_holds, index_json, json_specificity, json_units, opens_like_json, parse_json
from .bindings import SourceRecords, misbound
from .order import SourcePairs, order_evidence, order_factor
from .text import Fact, FactIndex, FactSet, TextDoc, add_text_facts, analyse_text, find_markers, index_text, language_of, phrasing_of, states, text_specificity

METHOD = "floorline-facts/4"
MEASURE_FORMATS = ("text", "json", "base64", "any")
MAX_LOST_EXAMPLES = 20
MAX_ORIGINALS = 32
RECOVERABLE_CREDIT = 0.5
# Words (since floorline-facts/4, index.ts wordsCount): the words a source needs before its
# phrasing is asked of a content, and the share of its phrased share a content needs.
PHRASING_MIN_WORDS = 12
PHRASING_NEED = 0.5
REPEAT_COST = 1.5
# Salience (since floorline-facts/4, facts.ts): when a source reports errors or warnings, the facts
# of those entries weigh at least this share of its coverage, and a pass must keep this share of
# what their tokens state before its coverage counts in full.
SALIENT_SHARE = 0.5
SALIENT_NEED = 0.5

Originals = Union[Callable[[str], Union[str, None]], Mapping[str, str]]


# --- base64 (base64.ts) ---


def _sextet(c: int) -> int:
    if 65 <= c <= 90:
        return c - 65
    if 97 <= c <= 122:
        return c - 71
    if 48 <= c <= 57:
        return c + 4
    if c == 43:
        return 62
    if c == 47:
        return 63
    return -1


def _decode_base64(s: str) -> bytes | None:
    if len(s) % 4 != 0:
        return None
    pad = 2 if s.endswith("==") else 1 if s.endswith("=") else 0
    size = (len(s) // 4) * 3 - pad
    out = bytearray()
    for i in range(0, len(s), 4):
        last = i + 4 == len(s)
        a = _sextet(ord(s[i]))
        b = _sextet(ord(s[i + 1]))
        c = 0 if last and pad == 2 else _sextet(ord(s[i + 2]))
        d = 0 if last and pad >= 1 else _sextet(ord(s[i + 3]))
        if a < 0 or b < 0 or c < 0 or d < 0:
            return None
        n = (a << 18) | (b << 12) | (c << 6) | d
        out.append((n >> 16) & 255)
        if len(out) < size:
            out.append((n >> 8) & 255)
        if len(out) < size:
            out.append(n & 255)
    return bytes(out)


def _decode_utf8(data: bytes) -> str | None:
    # Python's strict decoder refuses exactly what the TypeScript one writes out: overlong
    # forms, surrogates, anything above U+10FFFF, truncated sequences.
    try:
        return to16(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None


def _looks_like_base64(s: str) -> bool:
    if len(s) < 16 or len(s) % 4 != 0:
        return False
    hex_only = True
    n = len(s)
    for i in range(n):
        c = ord(s[i])
        if _sextet(c) < 0 and not (c == 61 and i >= n - 2):
            return False
        if not (48 <= c <= 57 or 97 <= c <= 102 or 65 <= c <= 70):
            hex_only = False
    return not hex_only


def _unwrap_base64(s: str) -> str:
    """Base64 as `base64(1)` and MIME write it: lines of one width, a multiple of 4, the last one
    no longer, each ended by a line break (LF or CRLF; the last break may be missing), is the one
    run its lines make; any other text is returned as it is (base64.ts unwrapBase64, since
    floorline-facts/4)."""
    if "\n" not in s:
        return s
    lines = s.split("\n")
    if lines[-1] == "":
        lines.pop()
    width = 0
    for n in range(len(lines)):
        line = lines[n]
        if line.endswith("\r"):
            line = line[:-1]
        lines[n] = line
        if n == 0:
            width = len(line)
        last = n == len(lines) - 1
        if len(line) == 0 or (len(line) > width if last else len(line) != width):
            return s
        for ch in line:
            c = ord(ch)
            if _sextet(c) < 0 and c != 61:
                return s
    if len(lines) == 0 or (len(lines) > 1 and width % 4 != 0):
        return s
    return "".join(lines)


_MAX_LAYERS = 3


def _looks_encoded(s: str) -> bool:
    """Base64 of bytes rather than a word or a key (index.ts looksEncoded)."""
    if len(s) >= 64 or s.endswith("="):
        return True
    upper = lower = digit = False
    for ch in s:
        c = ord(ch)
        if c == 43 or c == 47:
            return True
        if 65 <= c <= 90:
            upper = True
        elif 97 <= c <= 122:
            lower = True
        elif 48 <= c <= 57:
            digit = True
    return upper and lower and digit


def _is_printable(text: str) -> bool:
    for ch in text:
        c = ord(ch)
        if (c < 32 and c not in (9, 10, 13)) or c == 127:
            return False
    return True


def _base64_text(s: str) -> str | None:
    """The text strict base64 decodes to, read through up to three layers (base64.ts base64Text)."""
    data = _decode_base64(s)
    text = _decode_utf8(data) if data is not None else None
    layer = 1
    while text is not None and layer < _MAX_LAYERS and _looks_like_base64(text):
        inner = _decode_base64(text)
        decoded = _decode_utf8(inner) if inner is not None else None
        if decoded is None or not _is_printable(decoded):
            break
        text = decoded
        layer += 1
    return text


# --- reading (index.ts) ---


class _Doc:
    __slots__ = ("kind", "text", "json")

    def __init__(self, kind: str, text: TextDoc | None = None, json: JsonDoc | None = None) -> None:
        self.kind = kind
        self.text = text
        self.json = json


def _read_doc(text: str, json_only: bool) -> tuple[_Doc, bool]:
    if json_only or opens_like_json(text):
        ok, value = parse_json(text)
        if ok:
            return _Doc("json", json=analyse_json(value)), True
    return _Doc("text", text=analyse_text(text)), False


def _decode(content: str, format: str) -> tuple[str, bool, _Doc | None, str]:
    """(format, parseable, doc, the decoded text markers are looked for in)."""
    run = content if format in ("text", "json") else _unwrap_base64(content)
    if format == "base64" or (format == "any" and _looks_like_base64(run)):
        text = _base64_text(run)
        if format == "base64" or (text is not None and _is_printable(text)):
            if text is None:
                return "base64", False, None, ""
            return "base64", True, _read_doc(text, False)[0], text
        if _looks_encoded(run):
            return "base64", False, None, ""
    if format == "json":
        doc, parsed = _read_doc(content, True)
        return "json", parsed, doc if parsed else None, content
    doc, _ = _read_doc(content, False)
    return ("json" if doc.kind == "json" and format == "any" else "text"), True, doc, content


def _source_text(source: str, format: str) -> str:
    run = source if format in ("text", "json") else _unwrap_base64(source)
    if format == "base64" or (format == "any" and _looks_like_base64(run)):
        text = _base64_text(run)
        if text is not None and _is_printable(text):
            return text
    return source


def _index_of(doc: _Doc) -> FactIndex:
    index = FactIndex(doc.kind == "json")
    if doc.kind == "json":
        index_json(doc.json, index)
    else:
        index_text(doc.text, index)
    return index


def _lookup(originals: Originals | None, h: str) -> str | None:
    if not originals:
        return None
    found = originals(from16(h)) if callable(originals) else originals.get(from16(h))
    return to16(found) if isinstance(found, str) else None


def _clamp01(x: float) -> float:
    return 0 if x < 0 else min(x, 1)


def _specificity(doc: _Doc) -> float:
    return json_specificity(doc.json) if doc.kind == "json" else text_specificity(doc.text)


class _Source:
    """What measuring against a source needs of it, whatever the content (index.ts
    SourceAnalysis): its document, its facts, the keys they need, and how often it states each
    JSON unit (and JSON value), sentence and run of tokens. The same for every pass of a chain:
    made once per source (see _source)."""

    __slots__ = ("doc", "facts", "keys", "units", "values", "sentences", "runs", "_pairs", "_records", "language", "phrasing")

    def __init__(self, doc: _Doc, facts: tuple[Fact, ...]) -> None:
        self.doc = doc
        self.facts = facts
        keys: set[str] = set()
        for fact in facts:
            keys.update(fact.need)
        self.keys = frozenset(keys)
        self.units: dict[str, int] = {}
        self.values: dict[str, int] = {}
        self.sentences: dict[str, int] = {}
        self.runs: dict[tuple[str, ...], int] = {}
        self._pairs: SourcePairs | None = None
        self._records: SourceRecords | None = None
        # For text: its language and its (words, phrased) (since /4); else 0 and None.
        self.language = language_of(doc.text) if doc.kind == "text" else 0
        self.phrasing: tuple[int, int, int, int] | None = phrasing_of(doc.text) if doc.kind == "text" else None
        if doc.kind == "json":
            for ident, value, _ in json_units(doc.json):
                self.units[ident] = self.units.get(ident, 0) + 1
                self.values[value] = self.values.get(value, 0) + 1
        else:
            for seg in doc.text.segments:
                self.sentences[seg.norm] = self.sentences.get(seg.norm, 0) + 1
            for line in doc.text.lines:
                for key in _run_keys(line):
                    self.runs[key] = self.runs.get(key, 0) + 1

    @property
    def pairs(self) -> SourcePairs:
        """A text source's neighbouring tokens (order.py), found when first asked for. Two
        threads may both build them; either answer is the same."""
        if self._pairs is None:
            self._pairs = SourcePairs(self.doc.text)
        return self._pairs

    @property
    def records(self) -> SourceRecords:
        """A text source's records (bindings.py, since /4), found when first asked for."""
        if self._records is None:
            self._records = SourceRecords(self.doc.text)
        return self._records


def _efficiency(doc: _Doc, source: _Source | None, filler: bool, by_value: bool = False, wrong: frozenset[int] | set[int] = frozenset()) -> float:
    """`filler`: judge sentences that state no key of the source's facts (with a source that has
    some). `by_value` (no schema): a JSON leaf at a path the source does not have is a repeat when
    its value is stated more often than the source states that value (efficiency.ts jsonEfficiency)."""
    if doc.kind == "json":
        if source is None:
            return 1
        allowed = source.units
        allowed_values = source.values
        seen: dict[str, int] = {}
        seen_values: dict[str, int] = {}
        total = 0
        padding: float = 0
        for ident, value, size in json_units(doc.json):
            total += size
            limit = allowed.get(ident, 0)
            if by_value and limit == 0:
                count = seen_values.get(value, 0) + 1
                seen_values[value] = count
                if count > max(allowed_values.get(value, 0), 1):
                    padding += size * REPEAT_COST
                continue
            count = seen.get(ident, 0) + 1
            seen[ident] = count
            if count > max(limit, 1):
                padding += size * REPEAT_COST
        return 1 if total == 0 else _clamp01(1 - padding / total)
    text_source = source is not None and source.doc.kind == "text"
    in_source = source.sentences if source is not None and text_source else {}
    source_keys = source.keys if source is not None and filler else None
    marks = _repeated_runs(doc.text, source.runs if source is not None and text_source else {})
    seen = {}
    total = 0
    wasted: float = 0
    flat = 0
    for seg in doc.text.segments:
        total += seg.bytes
        count = seen.get(seg.norm, 0) + 1
        seen[seg.norm] = count
        from_source = in_source.get(seg.norm, 0)
        first = flat
        flat += len(seg.tokens)
        if count > max(from_source, 1):
            wasted += seg.bytes * REPEAT_COST
            continue
        repeated = 0
        for k, t in enumerate(seg.tokens):
            if marks[first + k]:
                repeated += utf8_length(t.text) + 1
        waste: float = repeated * REPEAT_COST
        if source_keys is not None and from_source == 0:
            hits = False
            for t in seg.tokens:
                if t.kind == "hash":
                    hits = True
                for key in t.index:
                    if key in source_keys:
                        hits = True
                if hits:
                    break
            if not hits:
                waste = max(waste, seg.bytes)
        # A stretch that binds a fact to the wrong record states nothing true of the source (since /4).
        if wrong:
            waste = max(waste, sum(utf8_length(t.text) + 1 for t in seg.tokens if id(t) in wrong))
        wasted += waste
    return 0 if total == 0 else _clamp01(1 - wasted / total)


_RUN = 4


def _run_keys(line: list) -> list[tuple[str, ...]]:
    norms = [ascii_lower(t.text) for t in line]
    return [tuple(norms[j : j + _RUN]) for j in range(len(line) - _RUN + 1)]


def _repeated_runs(doc: TextDoc, in_source: dict[tuple[str, ...], int]) -> list[bool]:
    """Per token of the content (in order): in a run of _RUN tokens it states more often than the source (index.ts repeatedRuns)."""
    seen: dict[tuple[str, ...], int] = {}
    marks: list[bool] = []
    for line in doc.lines:
        line_marks = [False] * len(line)
        for j, key in enumerate(_run_keys(line)):
            count = seen.get(key, 0) + 1
            seen[key] = count
            if count > max(in_source.get(key, 0), 1):
                for k in range(j, j + _RUN):
                    line_marks[k] = True
        marks.extend(line_marks)
    return marks


def round_score(x: float) -> float:
    if not x > 0:
        return 0
    if x >= 1:
        return 1
    return math.floor(x * 10000 + 0.5) / 10000


# Analyses of the sources measured last, by (source, format), oldest used first; at most this
# many characters of sources (as index.ts keeps them), so a few large sources cannot hold
# hundreds of megabytes. A lock, since an agent may record passes from several threads.
_SOURCE_CACHE_CHARS = 8 * 1024 * 1024
_sources: OrderedDict[tuple[str, str], _Source] = OrderedDict()
_sources_chars = 0
_sources_lock = threading.Lock()


def _source(source: str, format: str) -> _Source:
    """The source's analysis. A chain measures every pass against the same source, and reading
    it is most of the cost; nothing downstream mutates it."""
    global _sources_chars
    key = (source, format)
    with _sources_lock:
        known = _sources.get(key)
        if known is not None:
            _sources.move_to_end(key)
            return known
    source_doc = _read_doc(_source_text(to16(source), format), False)[0]
    fact_set = FactSet()
    if source_doc.kind == "json":
        add_json_facts(source_doc.json, fact_set)
    else:
        add_text_facts(source_doc.text, fact_set)
    analysis = _Source(source_doc, tuple(fact_set.facts))
    if len(source) <= _SOURCE_CACHE_CHARS:
        with _sources_lock:
            if key not in _sources:
                while _sources and _sources_chars + len(source) > _SOURCE_CACHE_CHARS:
                    (old, _), _ = _sources.popitem(last=False)
                    _sources_chars -= len(old)
                _sources[key] = analysis
                _sources_chars += len(source)
    return analysis


def measure_detailed(content: str, source: str | None = None, format: str = "any", required_fields: Sequence[str] = (), originals: Originals | None = None) -> dict[str, Any]:
    if not isinstance(content, str):
        raise TypeError("content must be str")
    if format not in MEASURE_FORMATS:
        raise ValueError(f"format must be one of {', '.join(MEASURE_FORMATS)}")
    content16 = to16(content)
    fmt, parseable, doc, text = _decode(content16, format)
    schema_valid: bool | None = None
    if required_fields:
        schema_valid = doc is not None and doc.kind == "json" and all(field_holds(doc.json.root, to16(f)) for f in required_fields)

    if source is None:
        if doc is None:
            return _answer(fmt, parseable, schema_valid, 0, {}, None, [], [])
        parts = {"specificity": _specificity(doc), "efficiency": _efficiency(doc, None, False)}
        return _answer(fmt, parseable, schema_valid, parts["specificity"] * parts["efficiency"], parts, None, [], [])

    analysis = _source(source, format)
    facts = analysis.facts

    index = _index_of(doc) if doc is not None else None
    consulted: list[tuple[str, FactIndex]] = []
    if doc is not None and originals:
        for h in find_markers(text, MAX_ORIGINALS):
            found = _lookup(originals, h)
            if found is not None:
                consulted.append((h, _index_of(_read_doc(found, False)[0])))

    # Without a schema to hold it to, JSON may change its shape and keep its values (since /4).
    by_value = not required_fields
    # What the source's words count for (index.ts wordsCount, since /4): across languages as much
    # as the other facts are kept; within one, as much as the content writes them in phrases.
    across = False
    word_credit: float = 1
    # Values: as much as the content ties its values to words, relative to the source.
    binding: float = 1
    if doc is not None and doc.kind == "text" and analysis.phrasing is not None:
        language = language_of(doc.text)
        across = analysis.language > 0 and language > 0 and language != analysis.language
        source_words, source_phrased, source_values, source_bound = analysis.phrasing
        own_words, own_phrased, own_values, own_bound = phrasing_of(doc.text)
        if source_values >= PHRASING_MIN_WORDS and source_bound > 0:
            share = 0 if own_values == 0 else own_bound / own_values
            binding = min(1, share / ((source_bound / source_values) * PHRASING_NEED))
        if across:
            if index is not None:
                value_total: float = 0
                value_kept: float = 0
                for fact in facts:
                    if fact.word:
                        continue
                    value_total += fact.weight
                    if states(index, fact, by_value):
                        value_kept += fact.weight
                word_credit = value_kept / value_total if value_total > 0 else 0
        elif source_words >= PHRASING_MIN_WORDS and source_phrased > 0:
            share = 0 if own_words == 0 else own_phrased / own_words
            word_credit = min(1, share / ((source_phrased / source_words) * PHRASING_NEED))
    # Facts a text content binds to the wrong record of a text source (bindings.py, since /4).
    wrong_keys: set[str] = set()
    wrong_tokens: set[int] = set()
    if doc is not None and doc.kind == "text" and analysis.doc.kind == "text":
        wrong_keys, wrong_tokens = misbound(doc.text, analysis.records)
    total: float = 0
    kept: float = 0
    # Of which the facts of error and warning entries, and of those the facts of their tokens (not
    # the whole lines): what the gate reads (since /4).
    salient_total: float = 0
    salient_kept: float = 0
    entry_total: float = 0
    entry_kept: float = 0
    counts = {"in_source": 0, "retained": 0, "recoverable": 0, "lost": 0}
    lost: list[Fact] = []
    recoverable: list[dict[str, str]] = []
    for fact in facts:
        salient = fact.salient
        entry = salient and fact.kind != "error_line"
        total += fact.weight
        if salient:
            salient_total += fact.weight
        if entry:
            entry_total += fact.weight
        if fact.specific:
            counts["in_source"] += 1
        stated = index is not None and states(index, fact, by_value) and not (len(fact.need) == 1 and fact.need[0] in wrong_keys)
        if stated or (fact.word and across):
            credit = fact.weight * word_credit if fact.word else fact.weight * binding if fact.value else fact.weight
            kept += credit
            if salient:
                salient_kept += credit
            if entry:
                entry_kept += credit
        if stated:
            if fact.specific:
                counts["retained"] += 1
            continue
        # Across languages a word was credited above, stated or not: no original adds to it.
        origin = None if fact.word and across else next((h for h, idx in consulted if states(idx, fact, by_value)), None)
        if origin is not None:
            kept += fact.weight * RECOVERABLE_CREDIT
            if salient:
                salient_kept += fact.weight * RECOVERABLE_CREDIT
            if entry:
                entry_kept += fact.weight * RECOVERABLE_CREDIT
            if fact.specific:
                counts["recoverable"] += 1
                if len(recoverable) < MAX_LOST_EXAMPLES:
                    recoverable.append({"fact": from16(fact.display), "hash": from16(origin)})
            continue
        if fact.specific:
            counts["lost"] += 1
            lost.append(fact)

    density: float = 0
    parts: dict[str, float] = {}
    if doc is not None:
        if total == 0:
            # A source that states nothing specific leaves nothing to lose: the content is judged on its own.
            parts = {"specificity": _specificity(doc), "efficiency": _efficiency(doc, None, False)}
            density = parts["specificity"] * parts["efficiency"]
        else:
            # Across languages no sentence is the source's: repeats are judged, not filler.
            parts = {"coverage": kept / total, "efficiency": _efficiency(doc, analysis, not across, by_value, wrong_tokens)}
            if 0 < salient_total < total:
                # Error and warning entries weigh at least SALIENT_SHARE of the coverage, the rest
                # the rest; a pass keeping under SALIENT_NEED of what their tokens state keeps that
                # much less of it.
                rest = (kept - salient_kept) / (total - salient_total)
                salience = entry_kept / entry_total if entry_total > 0 else salient_kept / salient_total
                gate = min(1, salience / SALIENT_NEED)
                share = max(SALIENT_SHARE, salient_total / total)
                parts["coverage"] = (share * (salient_kept / salient_total) + (1 - share) * rest) * gate
                parts["salience"] = salience
            # What the source's words counted for, when not in full or across languages.
            if word_credit < 1 or across:
                parts["words"] = word_credit
            if binding < 1:
                parts["values"] = binding
            if doc.kind == "text" and analysis.doc.kind == "text" and not across:
                # A text that keeps the source's words but not their order states none of it.
                order = order_factor(*order_evidence(doc.text, analysis.pairs))
                if order < 1:
                    parts["coverage"] *= order
                    parts["order"] = order
            density = parts["coverage"] * parts["efficiency"]
    # Heaviest first, then in the source's order (sorted() is stable, as Array.sort is).
    examples = [from16(f.display) for f in sorted(lost, key=lambda f: -f.weight)[:MAX_LOST_EXAMPLES]]
    return _answer(fmt, parseable, schema_valid, density, parts, counts, examples, recoverable)


def _answer(fmt: str, parseable: bool, schema_valid: bool | None, density: float, parts: dict[str, float], facts: dict[str, int] | None, lost: list[str], recoverable: list[dict[str, str]]) -> dict[str, Any]:
    """The answer in the contract's field order (index.ts answer). `components` (since
    floorline-facts/4): what the score is made of, each part rounded as the score is; the score
    is their product before rounding. With a source, `salience` when it reports errors or
    warnings and `order` when a text content's order costs it, after coverage and efficiency.
    Empty when the content cannot be read."""
    return {
        "format": fmt,
        "parseable": parseable,
        "schema_valid": schema_valid,
        "semantic_density_score": round_score(density),
        "components": {name: round_score(x) for name, x in parts.items()},
        "facts": facts,
        "lost_examples": lost,
        "method": METHOD,
        "recoverable_examples": recoverable,
    }


def measure(content: str, source: str | None = None, format: str = "any", required_fields: Sequence[str] = (), originals: Originals | None = None) -> dict[str, Any]:
    """The answer of `POST /api/v1/measure`, field for field."""
    answer = measure_detailed(content, source, format, required_fields, originals)
    del answer["recoverable_examples"]
    return answer
