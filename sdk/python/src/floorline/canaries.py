"""Canaries: synthetic facts written into content before a compactor runs, so what it kept can
be told from text read afterwards. The port of lib/canaries/canaries.ts, held to it character
for character by tests/test_canaries_cross.py (docs/canaries.md says when they are a fair probe)."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, NamedTuple, Sequence

CANARY_METHOD = "floorline-canaries/1"
CANARY_KINDS = ("number", "path", "hash", "error")
#: At most this many canaries per receipt (and per chain).
MAX_CANARIES = 16
PLANT_FORMATS = ("json", "log", "text")

NUMBER_KEYS = ("ledger_offset", "quota_remaining", "retry_budget_ms", "shard_count", "batch_window_ms", "queue_depth_peak", "cache_epoch", "lease_term")
PATH_KEYS = ("spool_file", "snapshot_path", "lock_file", "replay_log")
PATH_DIRS = ("var/lib/ledger", "srv/spool", "opt/replay", "var/cache/quota")
PATH_EXTS = ("db", "log", "bin", "json")
HASH_KEYS = ("checksum", "build_digest", "manifest_sha", "bundle_hash")
ERRORS = (("LEASE", "lease lost on shard"), ("QUOTA", "quota exhausted for tenant"), ("REPLAY", "replay stopped at segment"), ("SPOOL", "spool full on volume"))

_TIMESTAMP = (
    r"(?:\[?[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:[.,][0-9]+)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?\]?"
    r"|\[?[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?\]?)"
)
_LEVEL_WORDS = (
    "TRACE|DEBUG|INFO|NOTICE|WARNING|WARN|ERROR|FATAL|CRITICAL|trace|debug|info|notice|warning|warn|error|fatal|critical"
    "|Trace|Debug|Info|Notice|Warning|Warn|Error|Fatal|Critical"
)
_LEVEL = rf"(?:\[(?:{_LEVEL_WORDS})\]|<(?:{_LEVEL_WORDS})>|(?:{_LEVEL_WORDS}):?|level=[A-Za-z]+)"
#: A log line's prefix: a timestamp, a level, or both, each followed by blanks.
_PREFIX = re.compile(rf"({_TIMESTAMP}[ \t]+)?({_LEVEL}[ \t]+)?")
_BLANK = " \t\r\n"


class Canary(NamedTuple):
    """A canary as the wire carries it: `text` is its distinctive value, exactly as planted."""

    id: str
    kind: str
    text: str

    def wire(self) -> dict[str, str]:
        return {"id": self.id, "kind": self.kind, "text": self.text}


class Planted(NamedTuple):
    content: str
    canaries: list[Canary]
    format: str


class CanaryCheck(NamedTuple):
    #: Ids of the canaries whose text is present, in planting order.
    surviving: list[str]
    lost: list[str]
    checked_text_bytes: int

    def wire(self) -> dict[str, Any]:
        return {"surviving": list(self.surviving), "checked_text_bytes": self.checked_text_bytes}


class _Fact(NamedTuple):
    canary: Canary
    json: str
    log: str
    sentence: str
    place: int


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def detect_plant_format(content: str) -> str:
    """json when it parses as JSON; log when most of its non-empty lines start like log lines; else text."""
    trimmed = content.strip(_BLANK)
    if trimmed.startswith(("{", "[")):
        try:
            # As JavaScript's JSON.parse reads: no NaN or Infinity.
            json.loads(trimmed, parse_constant=_reject_constant)
            return "json"
        except (ValueError, RecursionError):
            pass
    lines = prefixed = 0
    for line in content.split("\n"):
        if line.strip(_BLANK) == "":
            continue
        lines += 1
        if _PREFIX.match(line).group(0) != "":  # type: ignore[union-attr]
            prefixed += 1
    return "log" if lines >= 2 and prefixed * 2 > lines else "text"


def _fact(seed: str, index: int, attempt: int) -> _Fact:
    h = hashlib.sha256(f"{CANARY_METHOD}\n{seed}\n{index}{'' if attempt == 0 else f'{chr(10)}{attempt}'}".encode("utf-8")).hexdigest()

    def n(a: int, b: int) -> int:
        return int(h[a:b], 16)

    kind = CANARY_KINDS[index % len(CANARY_KINDS)]
    cid = f"cn-{h[0:8]}"
    place = n(56, 64)
    if kind == "number":
        key = NUMBER_KEYS[n(8, 10) % len(NUMBER_KEYS)]
        value = str(100000 + n(10, 18) % 900000)
        return _Fact(Canary(cid, kind, value), f'"{key}": {value}', f"{key}={value}", f"The {key.replace('_', ' ')} is {value}.", place)
    if kind == "path":
        key = PATH_KEYS[n(8, 10) % len(PATH_KEYS)]
        folder = PATH_DIRS[n(18, 20) % len(PATH_DIRS)]
        ext = PATH_EXTS[n(20, 22) % len(PATH_EXTS)]
        path = f"/{folder}/{key.split('_')[0]}-{h[22:28]}.{ext}"
        return _Fact(Canary(cid, kind, path), f'"{key}": "{path}"', f"{key}={path}", f"The {key.replace('_', ' ')} is {path}.", place)
    if kind == "hash":
        key = HASH_KEYS[n(8, 10) % len(HASH_KEYS)]
        digest = h[28:44]
        return _Fact(Canary(cid, kind, digest), f'"{key}": "{digest}"', f"{key}={digest}", f"The {key.replace('_', ' ')} is {digest}.", place)
    word, message = ERRORS[n(8, 10) % len(ERRORS)]
    code = f"ERR_{word}_{1000 + n(44, 52) % 9000}"
    detail = f"{message} {1 + n(52, 56) % 64}"
    return _Fact(Canary(cid, kind, code), f'"last_error": "{code}: {detail}"', f"{code}: {detail}", f"The last error was {code}: {detail}.", place)


def _json_key(fact: _Fact) -> str:
    return fact.json[: fact.json.index(":")]


def _facts(content: str, fmt: str, seed: str, start: int, count: int) -> list[_Fact]:
    made: list[_Fact] = []
    taken: set[str] = set()
    for k in range(count):
        attempt = 0
        fact = _fact(seed, start + k, attempt)
        while (
            fact.canary.text in content
            or fact.canary.text in taken
            or fact.canary.id in taken
            # A key the object already has would make a duplicate member.
            or (fmt == "json" and _json_key(fact) in content)
        ):
            attempt += 1
            fact = _fact(seed, start + k, attempt)
        taken.add(fact.canary.text)
        taken.add(fact.canary.id)
        if fmt == "json":
            taken.add(_json_key(fact))
        made.append(fact)
    return made


def _assemble(content: str, pieces: list[tuple[int, str]]) -> str:
    ordered = sorted(((at, k, text) for k, (at, text) in enumerate(pieces)), key=lambda p: (p[0], p[1]))
    out: list[str] = []
    last = 0
    for at, _, text in ordered:
        out.append(content[last:at])
        out.append(text)
        last = at
    out.append(content[last:])
    return "".join(out)


def _json_targets(content: str) -> list[tuple[int, int]]:
    open_at = 0
    while open_at < len(content) and content[open_at] in _BLANK:
        open_at += 1
    close = len(content) - 1
    while close > open_at and content[close] in _BLANK:
        close -= 1
    if content[open_at : open_at + 1] == "{":
        return [(open_at, close)]
    targets: list[tuple[int, int]] = []
    depth = 0
    in_string = escaped = False
    start = -1
    for i in range(open_at, close + 1):
        c = content[i]
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            if depth == 1 and c == "{":
                start = i
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 1 and c == "}" and start >= 0:
                targets.append((start, i))
                start = -1
    return targets


def _plant_json(content: str, made: list[_Fact]) -> str:
    targets = _json_targets(content)
    if not targets:
        raise ValueError("plant_canaries: JSON whose top level is neither an object nor an array of objects has no field to carry a fact")
    spaced = ", " in content or ": " in content
    pieces: list[tuple[int, str]] = []
    filled: set[int] = set()
    for fact in made:
        open_at, close = targets[fact.place % len(targets)]
        indent_end = open_at + 1
        while indent_end < close and content[indent_end] in _BLANK:
            indent_end += 1
        indent = content[open_at + 1 : indent_end]
        last = close - 1
        while last > open_at and content[last] in _BLANK:
            last -= 1
        field = fact.json if spaced else fact.json.replace('": ', '":', 1)
        # A pretty-printed object gets the line break and indent of its first member.
        if "\n" in indent:
            separator = "," + ("\r\n" if "\r\n" in indent else "\n") + indent[indent.rindex("\n") + 1 :]
        else:
            separator = ", " if spaced else ","
        if last > open_at:
            pieces.append((last + 1, separator + field))
        elif open_at in filled:
            pieces.append((close, separator + field))
        else:
            pieces.append((close, field))
        filled.add(open_at)
    return _assemble(content, pieces)


def _level_as(level: str, name: str) -> str:
    """The neighbour's level in its own shape and case, naming the fact's level (error lines at error)."""
    if level.startswith("level="):
        return re.sub(r"^level=[A-Za-z]+", f"level={name}", level, count=1)

    def word(m: re.Match[str]) -> str:
        w = m.group(0)
        return name.upper() if w == w.upper() else name if w == w.lower() else name[0].upper() + name[1:]

    return re.sub(r"[A-Za-z]+", word, level, count=1)


def _plant_log(content: str, made: list[_Fact]) -> str:
    newline = "\r\n" if "\r\n" in content else "\n"
    lines = content.split("\n")
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    prefixes: list[tuple[str, str] | None] = []
    for line in lines:
        m = _PREFIX.match(line)
        prefixes.append((m.group(1) or "", m.group(2) or "") if m and m.group(0) != "" else None)
    first = next((p for p in prefixes if p is not None), ("", ""))
    places = [s for s in starts[1:] if s < len(content)] + [len(content)]
    pieces: list[tuple[int, str]] = []
    for fact in made:
        at = places[fact.place % len(places)]
        # The nearest line before the place that has a prefix; else the content's first that has one.
        j = len(starts) - 1
        while j > 0 and starts[j] >= at:
            j -= 1
        while j > 0 and prefixes[j] is None:
            j -= 1
        time, level = prefixes[j] or first
        line = time + _level_as(level, "error" if fact.canary.kind == "error" else "info") + fact.log
        if at < len(content) or content.endswith("\n") or content == "":
            pieces.append((at, line + newline))
        else:
            pieces.append((at, newline + line))
    return _assemble(content, pieces)


def _plant_text(content: str, made: list[_Fact]) -> str:
    # After a sentence that ends in a space, and at the start of a line after one that ends a sentence.
    places = [i + 1 for i in range(1, len(content) - 1) if content[i] in " \n" and content[i - 1] == "." and content[i + 1] not in " \n"]
    places.append(len(content))
    pieces: list[tuple[int, str]] = []
    at_end: list[str] = []
    for fact in made:
        at = places[fact.place % len(places)]
        if at < len(content):
            pieces.append((at, f"{fact.sentence} "))
        else:
            at_end.append(fact.sentence)
    if at_end:
        tail = " ".join(at_end)
        last = content.strip(_BLANK)[-1:]
        if content == "":
            text = tail
        elif content.endswith("\n"):
            text = f"{tail}\n"
        elif last in (".", "!", "?"):
            text = f" {tail}"
        else:
            text = f"\n{tail}"
        pieces.append((len(content), text))
    return _assemble(content, pieces)


def plant_canaries(content: str, count: int, seed: str, start: int = 0, format: str | None = None) -> Planted:
    """The content with `count` canaries written into it as its format carries facts: a member of
    a JSON object (the document still parses), a log line with its neighbour's timestamp and
    level, or a sentence of text. Canary `start + k` of a seed is always the same fact."""
    if not isinstance(content, str):
        raise TypeError(f"plant_canaries: content must be a str, not {type(content).__name__}")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_CANARIES:
        raise ValueError(f"plant_canaries: count must be a whole number from 1 to {MAX_CANARIES}, not {count!r}")
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise ValueError(f"plant_canaries: start must be a whole number of 0 or more, not {start!r}")
    if not isinstance(seed, str):
        raise TypeError(f"plant_canaries: seed must be a str, not {type(seed).__name__}")
    if format is not None and format not in PLANT_FORMATS:
        raise ValueError(f"plant_canaries: format must be one of {', '.join(PLANT_FORMATS)}, not {format!r}")
    fmt = format or detect_plant_format(content)
    if fmt == "json" and detect_plant_format(content) != "json":
        raise ValueError("plant_canaries: format json, but the content does not parse as JSON")
    made = _facts(content, fmt, seed, start, count)
    planted = _plant_json(content, made) if fmt == "json" else _plant_log(content, made) if fmt == "log" else _plant_text(content, made)
    return Planted(planted, [f.canary for f in made], fmt)


def check_canaries(text: str, canaries: Sequence[Canary]) -> CanaryCheck:
    """A canary survives in `text` when its distinctive value (its `text`) is present there, verbatim."""
    if not isinstance(text, str):
        raise TypeError(f"check_canaries: text must be a str, not {type(text).__name__}")
    surviving = [c.id for c in canaries if c.text in text]
    lost = [c.id for c in canaries if c.text not in text]
    return CanaryCheck(surviving, lost, len(text.encode("utf-8")))
