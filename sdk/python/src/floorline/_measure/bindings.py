"""Bindings (since floorline-facts/4): a fact counts with the record it belongs to (the port of
lib/measure/bindings.ts; docs/measurement.md, "Density", bindings).

A line of a text source is a record, and lines with the same words (keywords written as words
of their own) in the same order are items of one list. A stretch of a text content (a line cut
after a sentence's end and after punctuation, as phrases are, but not at a comma with no space
after it: CSV) restates record R when R is the record that the most of its raw tokens (two or
more) state facts of, more than any other, one of them a fact of R alone, and every raw token
but one states a fact of R. That one is bound to the wrong record when it states a fact of
another item of R's list in the place of a fact of R the stretch does not state (one of the same
kind of token), or stands on a line of R's template at a place where R has a fact the stretch
does not state: it is not retained from that stretch, and the stretch's bytes are wasted."""

from __future__ import annotations

from .text import TextDoc, incidental_lines, is_value_shape
from .tokens import Token


#: A key at more than this many places of the lines of one template moves no value by place.
_MAX_PLACES = 4


class SourceRecords:
    """For each key a fact token (no keyword, no stop word) needs alone, the lines that state it,
    unless every line does; each line's kind and record keys; and the kind of token that first
    states each key."""

    __slots__ = ("lines", "pairs", "kinds", "kind_of", "token_kind", "keys_of", "template_of", "places", "placed")

    def __init__(self, doc: TextDoc) -> None:
        skip = incidental_lines(doc)
        counted = [row for row, tokens in enumerate(doc.lines) if tokens and not (skip is not None and skip[row])]
        # Each line's template (a word on one line alone read as that line's value: a CSV row's
        # codename), the key each token states alone, and where (line, place) each key stands.
        word_lines: dict[str, int] = {}
        for row in counted:
            for shape in {t.shape for t in doc.lines[row] if not is_value_shape(t.shape)}:
                word_lines[shape] = word_lines.get(shape, 0) + 1
        self.template_of: dict[int, tuple[str, ...]] = {}
        self.places: dict[int, list[str | None]] = {}
        # The places where each key stands on the lines of each template (bindings.ts `place`).
        self.placed: dict[tuple[str, tuple[str, ...]], set[int]] = {}
        for row in counted:
            tokens = doc.lines[row]
            self.template_of[row] = tuple(t.shape if is_value_shape(t.shape) or word_lines[t.shape] >= 2 else "#word" for t in tokens)
            places = [None if t.kind in ("keyword", "stop") or len(t.need) != 1 else t.need[0] for t in tokens]
            self.places[row] = places
            for k, key in enumerate(places):
                if key is not None:
                    self.placed.setdefault((key, self.template_of[row]), set()).add(k)
        self.lines: dict[str, list[int]] = {}
        self.pairs: set[tuple[str, int]] = set()
        self.kinds: dict[str, set[tuple[str, ...]]] = {}
        self.kind_of: dict[int, tuple[str, ...]] = {}
        self.token_kind: dict[str, str] = {}
        self.keys_of: dict[int, list[str]] = {}
        records = 0
        for row, tokens in enumerate(doc.lines):
            if not tokens or (skip is not None and skip[row]):
                continue
            records += 1
            # Its words of their own, not parts of a value ("tzdata:all", "1.3+dfsg-1").
            kind = tuple(t.need[0] for k, t in enumerate(tokens) if t.kind == "keyword" and t.need and not t.inner and not (k > 0 and tokens[k - 1].inner))
            self.kind_of[row] = kind
            for t in tokens:
                if t.kind in ("keyword", "stop") or len(t.need) != 1:
                    continue
                key = t.need[0]
                at = self.lines.setdefault(key, [])
                if not at or at[-1] != row:
                    at.append(row)
                    self.pairs.add((key, row))
                self.kinds.setdefault(key, set()).add(kind)
                self.token_kind.setdefault(key, t.kind)
        if records > 1:
            for key in [key for key, at in self.lines.items() if len(at) == records]:
                del self.lines[key]
        for key, at in self.lines.items():
            for row in at:
                self.keys_of.setdefault(row, []).append(key)


def misbound(doc: TextDoc, records: SourceRecords) -> tuple[set[str], set[int]]:
    """(the keys bound to the wrong record by every stretch that states them, the ids of the
    tokens of the stretches that bind one)."""
    bound: set[str] = set()
    wrong: set[str] = set()
    tokens: set[int] = set()
    lines = records.lines
    for line in doc.lines:
        stretches: list[list[Token]] = [[]]
        for t in line:
            stretches[-1].append(t)
            # A comma with no space after it separates a record's fields (CSV): the stretch goes on.
            if not t.inner and (t.ends or not (t.open or t.field)):
                stretches.append([])
        for stretch in stretches:
            raws: list[list[str]] = []
            seen: set[str] = set()
            stated: set[str] = set()
            keys: list[str] = []
            for t in stretch:
                keys.extend(key for key in t.index if key in lines)
                stated.update(keys)
                if t.inner:
                    continue
                if keys and keys[0] not in seen:
                    seen.add(keys[0])
                    raws.append(keys)
                keys = []
            at = _restated(raws, stated, records) if len(raws) >= 3 else -1
            for r, raw in enumerate(raws):
                (wrong if r == at else bound).update(raw)
            if at >= 0:
                tokens.update(id(t) for t in stretch)
    return wrong - bound, tokens


def _restated(raws: list[list[str]], stated: set[str], records: SourceRecords) -> int:
    """The raw token bound to the wrong record when the stretch restates one, else -1."""
    lines = records.lines
    pairs = records.pairs
    named: list[int] = []
    for raw in raws:
        for key in raw:
            at = lines[key]
            if len(at) == 1 and at[0] not in named:
                named.append(at[0])
    hits = {row: sum(1 for raw in raws if any((key, row) in pairs for key in raw)) for row in named}
    strong = [row for row in named if hits[row] >= 2]
    # The named record most of them state, more than any other.
    if len(strong) > 1:
        most = max(hits[row] for row in strong)
        strong = [row for row in strong if hits[row] == most]
    if len(strong) != 1:
        return -1
    record = strong[0]
    off = [r for r, raw in enumerate(raws) if not any((key, record) in pairs for key in raw)]
    if len(off) != 1:
        return -1
    kind = records.kind_of[record]
    own = [key for key in records.keys_of.get(record, []) if key not in stated]

    def replaces(key: str) -> bool:
        return any(records.token_kind[o] == records.token_kind[key] for o in own)

    template = records.template_of[record]
    mine = records.places[record]

    def in_place(key: str) -> bool:
        # It stands on a record of R's template where R has a key the stretch does not state (R's
        # own place holding `key` is no other item's); a key at more than _MAX_PLACES places of
        # one template's lines is no field of theirs.
        at = records.placed.get((key, template), set())
        if len(at) > _MAX_PLACES:
            return False
        return any((own := mine[k]) is not None and own != key and own not in stated for k in at)

    return off[0] if any((kind in records.kinds[key] and replaces(key)) or in_place(key) for key in raws[off[0]]) else -1
