"""Facts, markers, logs and text (lib/measure/facts.ts, markers.ts, text.ts), ported line by
line. Longer than most modules on purpose: three TypeScript modules whose rules read the
same lines, ported into one file so the port is read against them in one place."""

from __future__ import annotations

from dataclasses import dataclass, field

from typing import Iterable

from .chars import DETAIL_LEVELS, ERROR_LEVELS, ERROR_OPENERS, GERMAN_WORDS, LANGUAGE_WORDS, LEVEL_WORDS, LOG_LEVELS, WARNING_LEVELS, ascii_lower, from16, js_trim, utf8_length
from .tokens import Token, classify, is_capital_word, tokenize_line

CONTEXT_WEIGHT = 0.2
ERROR_LINE_WEIGHT = 2


@dataclass(slots=True, eq=False)
class Fact:
    kind: str
    weight: float
    specific: bool
    display: str
    need: list[str]
    path_need: list[str] | None
    # A fact of an error or warning entry (facts.ts FactTable.salient, since floorline-facts/4).
    salient: bool = False
    # Stated by a word, a keyword or a name of letters only (facts.ts FactTable.word, since /4).
    word: bool = False
    # Stated by a value, no name (facts.ts FactTable.value, since /4).
    value: bool = False


@dataclass(slots=True, eq=False)
class FactIndex:
    json: bool
    keys: set[str] = field(default_factory=set)


class FactSet:
    def __init__(self) -> None:
        self.by_id: dict[str, Fact] = {}

    def add(self, fact: Fact) -> None:
        tag = "L" if fact.kind == "error_line" else "J" if fact.path_need else "T"
        ident = f"{tag}\u0001{chr(1).join(fact.path_need or fact.need)}"
        known = self.by_id.get(ident)
        if known is None:
            self.by_id[ident] = fact
            return
        # The same fact stated again: the larger weight; salient if any statement of it is.
        if fact.weight > known.weight:
            known.weight = fact.weight
        if fact.salient:
            known.salient = True

    @property
    def facts(self) -> list[Fact]:
        return list(self.by_id.values())


def states(index: FactIndex, fact: Fact, by_value: bool = False) -> bool:
    """Whether the index states the fact. A JSON fact in JSON content is stated at its path (or its
    last key) with its value; `by_value` (no field is required of the content) lets the value's
    own keys state it wherever they are, as in text (facts.ts FactTable.states, since /4)."""
    if index.json and fact.path_need:
        if any(key in index.keys for key in fact.path_need):
            return True
        if not by_value:
            return False
    if not fact.need:
        return False
    return all(key in index.keys for key in fact.need)


# --- markers ---

_MIN_HEX, _MAX_HEX = 12, 64


def _is_hex(c: int) -> bool:
    return 48 <= c <= 57 or 97 <= c <= 102 or 65 <= c <= 70


def _hex_run(s: str, start: int) -> str | None:
    i = start
    n = len(s)
    while i < n and i - start < _MAX_HEX + 1 and _is_hex(ord(s[i])):
        i += 1
    length = i - start
    if length < _MIN_HEX or length > _MAX_HEX:
        return None
    if i < n and _is_hex(ord(s[i])):
        return None
    return ascii_lower(s[start:i])


def find_markers(s: str, limit: int) -> list[str]:
    found: list[str] = []
    seen: set[str] = set()

    def take(h: str | None) -> None:
        if h and h not in seen and len(found) < limit:
            seen.add(h)
            found.append(h)

    at = s.find("hash=")
    while at >= 0 and len(found) < limit:
        take(_hex_run(s, at + 5))
        at = s.find("hash=", at + 5)
    at = s.find("<<ccr:")
    while at >= 0 and len(found) < limit:
        h = _hex_run(s, at + 6)
        if h and s.startswith(">>", at + 6 + len(h)):
            take(h)
        at = s.find("<<ccr:", at + 6)
    return found


# --- logs ---

_LEAD = 4


def _is_time_kind(t: Token) -> bool:
    return t.kind in ("datetime", "date", "time")


def _level_of(t: Token) -> str:
    lower = ascii_lower(t.text)
    if not t.key:
        return lower
    key = ascii_lower(t.key)
    return lower if key in ("level", "lvl", "severity") else ""


def _looks_like_log_line(tokens: list[Token]) -> bool:
    for i in range(min(_LEAD, len(tokens))):
        t = tokens[i]
        if _is_time_kind(t) or _level_of(t) in LOG_LEVELS:
            return True
    return False


def is_log_text(lines: list[list[Token]]) -> bool:
    non_empty = log_like = 0
    for tokens in lines:
        if not tokens:
            continue
        non_empty += 1
        if _looks_like_log_line(tokens):
            log_like += 1
    return non_empty >= 2 and log_like * 2 >= non_empty


def _opens_like_error(first: Token | None) -> bool:
    if first is None:
        return False
    lower = ascii_lower(first.text)
    # "TypeError", "IOException"; not a flag ("--exit-on-error", since floorline-facts/4).
    return lower in ERROR_OPENERS or (
        len(lower) > 5 and not lower.startswith("-") and (lower.endswith("error") or lower.endswith("exception"))
    )


def is_error_line(tokens: list[Token], logs: bool) -> bool:
    if _opens_like_error(tokens[0] if tokens else None):
        return True
    return logs and _line_level(tokens) == "error"


# How many leading tokens of a log line may come before a level written in capitals: a time, a
# zone, a process id and PostgreSQL's `user@database` (three tokens) come before `ERROR`.
_CAPITAL_LEVEL_LEAD = 10


def _line_level(tokens: list[Token]) -> str:
    """A log line's level, in lower case, or "": the first level word among its first _LEAD tokens
    (an error level as `level=error` too), or written in capitals among its first
    _CAPITAL_LEVEL_LEAD (text.ts levelOf, since floorline-facts/4)."""
    for k in range(min(_CAPITAL_LEVEL_LEAD, len(tokens))):
        t = tokens[k]
        if k < _LEAD and _level_of(t) in ERROR_LEVELS:
            return "error"
        lower = ascii_lower(t.text)
        if lower not in LEVEL_WORDS:
            continue
        # A level word is ASCII, so str.upper() is JavaScript's toUpperCase() here.
        if k < _LEAD or t.text == t.text.upper():
            return "error" if lower in ERROR_LEVELS else lower
    return ""


def error_line_need(tokens: list[Token]) -> list[str]:
    need: list[str] = []
    seen: set[str] = set()
    for t in tokens:
        if _is_time_kind(t):
            continue
        for key in t.need:
            if key not in seen:
                seen.add(key)
                need.append(key)
    return need


# --- text ---

_MAX_EXAMPLE_CHARS = 160


@dataclass(slots=True, eq=False)
class Segment:
    norm: str
    bytes: int
    tokens: list[Token]


@dataclass(slots=True, eq=False)
class TextDoc:
    lines: list[list[Token]]
    raw_lines: list[str]
    logs: bool
    segments: list[Segment]


def _segment_of(tokens: list[Token]) -> Segment:
    """A sentence: its tokens in lower case joined by spaces, and their bytes plus one each."""
    joined = " ".join(t.text for t in tokens)
    return Segment(ascii_lower(joined), utf8_length(joined) + 1, tokens)


_MIN_WORDS = 12
_CAPITAL_SHARE = 0.25
_GERMAN_SHARE = 0.15


def _read_capitals(lines: list[list[Token]]) -> None:
    """German capitalises its nouns: there a capital is no sign of a name (text.ts readCapitals)."""
    capitals = lower = german = 0
    for tokens in lines:
        for t in tokens:
            text_lower = ascii_lower(t.text)
            if t.key or t.shape != text_lower:
                continue
            if t.kind == "name":
                if is_capital_word(t.text):
                    capitals += 1
            elif t.kind in ("keyword", "stop"):
                if 97 <= ord(t.text[0]) <= 122:
                    lower += 1
                if text_lower in GERMAN_WORDS:
                    german += 1
    words = capitals + lower
    if words < _MIN_WORDS or capitals < words * _CAPITAL_SHARE or german < lower * _GERMAN_SHARE:
        return
    for tokens in lines:
        for k, t in enumerate(tokens):
            if t.kind == "name" and not t.key and t.shape == ascii_lower(t.text) and is_capital_word(t.text):
                read = classify(t.text, True, False)
                if read:
                    again = read[0]
                    again.ends = t.ends
                    again.open = t.open
                    again.field = t.field
                    again.inner = t.inner
                    again.aside = t.aside
                    tokens[k] = again


def _letters_only(text: str) -> bool:
    """Letters only, in any script (lexicon.ts LETTERS, /^\\p{L}+$/u)."""
    return (text if text.isascii() else from16(text)).isalpha()


def word_like(t: Token) -> bool:
    """A keyword or a name of letters only, no `key=` (token-info.ts wordLike, since /4)."""
    return not t.key and t.kind in ("name", "keyword") and _letters_only(t.text)


def _value_sign(t: Token) -> bool:
    """A value written in more than letters: a number in digits, a date, a path, an option."""
    return t.kind not in ("keyword", "stop") and not _letters_only(t.text)


def is_value(t: Token) -> bool:
    """A value a sentence must tie to a word or a name: a value sign that is no name (token-info.ts isValue)."""
    return _value_sign(t) and t.kind != "name"


def _languages(t: Token) -> int:
    """Bit i for each language of LANGUAGE_WORDS of which a plain word is a function word."""
    if t.kind not in ("keyword", "stop") or t.key:
        return 0
    lower = ascii_lower(t.text)
    if t.shape != lower:
        return 0
    bits = 0
    for i, words in enumerate(LANGUAGE_WORDS):
        if lower in words:
            bits |= 1 << i
    return bits


def language_of(doc: TextDoc) -> int:
    """1 + the index of the text's language in LANGUAGE_WORDS, or 0 (text.ts languageOf)."""
    hits = [0] * len(LANGUAGE_WORDS)
    words = 0
    for tokens in doc.lines:
        for t in tokens:
            languages = _languages(t)
            if languages or word_like(t):
                words += 1
            for i in range(len(hits)):
                if (languages >> i) & 1:
                    hits[i] += 1
    best = max(hits)
    at = hits.index(best)
    others_below = all(n < best for i, n in enumerate(hits) if i != at)
    return at + 1 if best >= 8 and best >= words * 0.1 and others_below else 0


def phrasing_of(doc: TextDoc) -> tuple[int, int, int, int]:
    """(words, phrased, values, bound): a text's words, function words aside, and those within two
    tokens of a function word or a value sign in their stretch of the line; its values, and those
    whose sentence holds a name, a keyword or a stop word (text.ts phrasingOf)."""
    words = phrased = values = bound = 0
    for tokens in doc.lines:
        sentences: list[list[Token]] = [[]]
        for t in tokens:
            sentences[-1].append(t)
            if t.ends:
                sentences.append([])
        for sentence in sentences:
            count = sum(1 for t in sentence if is_value(t))
            values += count
            if any(not is_value(t) and t.kind in ("name", "keyword", "stop") for t in sentence):
                bound += count
        stretches: list[list[Token]] = [[]]
        for t in tokens:
            stretches[-1].append(t)
            if not t.inner and (t.ends or not t.open):
                stretches.append([])
        for stretch in stretches:
            for k, t in enumerate(stretch):
                if not word_like(t) or _languages(t):
                    continue
                words += 1
                if any(_languages(n) or _value_sign(n) for n in stretch[max(0, k - 2) : k + 3]):
                    phrased += 1
    return words, phrased, values, bound


def analyse_text(text: str) -> TextDoc:
    raw_lines = text.split("\n")
    lines = [tokenize_line(line) for line in raw_lines]
    _read_capitals(lines)
    segments: list[Segment] = []
    for tokens in lines:
        current: list[Token] = []
        for t in tokens:
            current.append(t)
            if t.ends:
                segments.append(_segment_of(current))
                current = []
        if current:
            segments.append(_segment_of(current))
    return TextDoc(lines, raw_lines, is_log_text(lines), segments)


def is_value_shape(shape: str) -> bool:
    return shape[:1] == "#" or "=#" in shape


def _display(t: Token, nxt: Token | None) -> str:
    text = f"{t.key}={t.text}" if t.key else t.text
    if t.kind == "number" and not t.key and t.open and nxt is not None and nxt.kind == "keyword":
        return f"{text} {nxt.text}"
    return text


_DIFF_INCIDENTAL = (
    "diff --git ",
    "--- ",
    "+++ ",
    "index ",
    "new file mode ",
    "deleted file mode ",
    "old mode ",
    "new mode ",
    "similarity index ",
)


def _file_header(lines: list[str], row: int) -> bool:
    """`--- a/…` followed by `+++ b/…`: the next file's header, not a line removed and one added.
    Looked for within the text's own lines (text.ts fileHeader, since floorline-facts/4). As in
    the TypeScript, the `+++ ` half never decides: the `--- ` line before it was a header already
    and ended the hunk, so the `+++ ` line is read outside one."""
    line = lines[row]
    if line.startswith("--- "):
        return row + 1 < len(lines) and lines[row + 1].startswith("+++ ")
    return line.startswith("+++ ") and row > 0 and lines[row - 1].startswith("--- ")


def incidental_lines(doc: TextDoc) -> list[bool] | None:
    """In a unified diff (a text with a hunk, `@@ -a,b +c,d @@`), the lines a reader of the change
    does not need (since floorline-facts/4): the hunks' headers and unchanged context lines, and
    the diff's own notation around them (`diff --git a/… b/…`, `--- a/…` with the `+++ b/…` after
    it, `index` hashes, file modes). What changed (`+` and `-` lines within a hunk) and everything
    around the diff (a commit's message, its stat) stay facts. None when the text holds no hunk
    (text.ts incidentalLines). Reads each line as written (`raw_lines`, as the TypeScript reads
    the store's line text)."""
    lines = doc.raw_lines
    out: list[bool] | None = None
    in_hunk = False
    hunk = False
    for row, line in enumerate(lines):
        if line.startswith("@@ -"):
            in_hunk = True
            hunk = True
            incidental = True
        elif in_hunk and (line == "" or line[0] == " " or line[0] == "\\"):
            incidental = True
        elif in_hunk and (line[0] == "+" or line[0] == "-") and not _file_header(lines, row):
            incidental = False
        else:
            in_hunk = False
            incidental = line.startswith(_DIFF_INCIDENTAL)
        if not incidental:
            continue
        if out is None:
            out = [False] * len(lines)
        out[row] = True
    # Without a hunk, a line that opens with "index " is prose.
    return out if hunk else None


def _indent_of(line: str) -> int:
    """The blanks (spaces, tabs as eight) that open a line (text.ts indentOf)."""
    n = 0
    for ch in line:
        if ch == " ":
            n += 1
        elif ch == "\t":
            n += 8
        else:
            break
    return n


def salient_lines(doc: TextDoc) -> list[bool] | None:
    """The lines of error and warning entries (since floorline-facts/4): an error line, or in logs
    a line led by a warning level, with the lines that belong to it after it: indented more than
    the line that opened it and, in logs, those led by a detail level (DETAIL, HINT, STATEMENT).
    None when the text has no such entry (text.ts salientLines)."""
    logs = doc.logs
    out: list[bool] | None = None
    in_entry = False
    opener = 0
    for row, tokens in enumerate(doc.lines):
        if not tokens:
            in_entry = False
            continue
        indent = _indent_of(doc.raw_lines[row])
        opens = is_error_line(tokens, logs) or (logs and _line_level(tokens) in WARNING_LEVELS)
        if not opens and in_entry:
            in_entry = indent > opener or (logs and _line_level(tokens) in DETAIL_LEVELS)
        elif opens:
            in_entry = True
            opener = indent
        else:
            in_entry = False
        if not in_entry:
            continue
        if out is None:
            out = [False] * len(doc.lines)
        out[row] = True
    return out


def _log_stamps(doc: TextDoc) -> tuple[dict[int, int], dict[str, float]]:
    """A log's time column (text.ts logStamps): each line's first time among its first _LEAD
    tokens, by line, and the share of stamped lines whose stamp states the same keys."""
    at: dict[int, int] = {}
    lines: dict[str, int] = {}
    for row, tokens in enumerate(doc.lines):
        for slot, t in enumerate(tokens[:_LEAD]):
            if _is_time_kind(t):
                at[row] = slot
                need = chr(1).join(t.need)
                lines[need] = lines.get(need, 0) + 1
                break
    return at, {need: count / len(at) for need, count in lines.items()}


def add_text_facts(doc: TextDoc, into: FactSet, scale: float = 1) -> None:
    templates: dict[str, list[int]] = {}
    for i, tokens in enumerate(doc.lines):
        if not tokens:
            continue
        templates.setdefault(" ".join(t.shape for t in tokens), []).append(i)
    line_group: dict[int, tuple[int, dict[str, int]]] = {}
    for rows in templates.values():
        counts: dict[str, int] = {}
        if len(rows) > 1:
            for row in rows:
                for slot, t in enumerate(doc.lines[row]):
                    if not is_value_shape(t.shape):
                        continue
                    ident = f"{slot}\u0002{chr(1).join(t.need)}"
                    counts[ident] = counts.get(ident, 0) + 1
        group = (len(rows), counts)
        for row in rows:
            line_group[row] = group
    incidental = incidental_lines(doc)
    salient = salient_lines(doc)
    stamp_at, stamp_share = _log_stamps(doc) if doc.logs else ({}, {})
    for row, tokens in enumerate(doc.lines):
        group = line_group.get(row)
        if group is None or (incidental is not None and incidental[row]):
            continue
        size, counts = group
        in_entry = salient is not None and salient[row]
        for slot, t in enumerate(tokens):
            if not t.need:
                continue
            weight: float = CONTEXT_WEIGHT if t.kind == "keyword" else 1
            if size > 1 and is_value_shape(t.shape):
                weight = counts.get(f"{slot}\u0002{chr(1).join(t.need)}", 0) / size
            if stamp_at.get(row) == slot:
                weight = stamp_share[chr(1).join(t.need)]
            # A link's address (its text says what it is), a key: context (text.ts, since /4).
            if t.aside:
                weight = min(weight, CONTEXT_WEIGHT)
            into.add(Fact(t.kind, weight * scale, t.kind != "keyword", _display(t, tokens[slot + 1] if slot + 1 < len(tokens) else None), t.need, None, in_entry, word_like(t), is_value(t)))
        if is_error_line(tokens, doc.logs):
            line = js_trim(doc.raw_lines[row])
            shown = f"{line[:_MAX_EXAMPLE_CHARS]}..." if len(line) > _MAX_EXAMPLE_CHARS else line
            into.add(Fact("error_line", ERROR_LINE_WEIGHT * scale, True, shown, error_line_need(tokens), None, True))


def index_text(doc: TextDoc, index: FactIndex) -> None:
    keys = index.keys
    for tokens in doc.lines:
        for t in tokens:
            keys.update(t.index)


_TOKEN_SPECIFICITY = {"stop": 0, "keyword": 0.5}


def text_specificity(doc: TextDoc) -> float:
    tokens = 0
    total: float = 0
    for line in doc.lines:
        for t in line:
            tokens += 1
            total += _TOKEN_SPECIFICITY.get(t.kind, 1)
    return 0 if tokens == 0 else total / tokens


def token_specificity(tokens: Iterable[Token]) -> float:
    items = list(tokens)
    if not items:
        return 0
    total: float = 0
    for t in items:
        total += _TOKEN_SPECIFICITY.get(t.kind, 1)
    return total / len(items)
