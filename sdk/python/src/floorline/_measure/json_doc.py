"""JSON for the measurement (lib/measure/json.ts), ported line by line: a strict RFC 8259
parser that keeps numbers as written, the leaves with their key paths, and required fields."""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any

from .chars import ascii_lower, cc, js_trim, utf8_length
from .text import CONTEXT_WEIGHT, Fact, FactIndex, FactSet, TextDoc, add_text_facts, analyse_text, token_specificity
from .tokens import Token, classify


@dataclass(slots=True, eq=False)
class JNumber:
    num: str


class _JsonError(Exception):
    pass


def _is_ws(c: float) -> bool:
    return c == 32 or c == 9 or c == 10 or c == 13


def _is_digit(c: float) -> bool:
    return 48 <= c <= 57


_SIMPLE = {34: '"', 92: "\\", 47: "/", 98: "\b", 102: "\f", 110: "\n", 114: "\r", 116: "\t"}


# The measurement reads JSON nested at most this deep (lib/measure/schema.ts holds the same
# bound); deeper, the content is not JSON to it, and key paths stay bounded in length.
MAX_MEASURED_JSON_DEPTH = 64


def parse_json(s: str) -> tuple[bool, Any]:
    """(True, value) or (False, error); objects are dicts in document order, numbers JNumber."""
    n = len(s)
    pos = [0]

    def fail(what: str) -> Any:
        raise _JsonError(f"{what} at offset {pos[0]}")

    def ws() -> None:
        i = pos[0]
        while i < n and _is_ws(ord(s[i])):
            i += 1
        pos[0] = i

    def read_string() -> str:
        i = pos[0] + 1
        parts: list[str] = []
        start = i
        while True:
            if i >= n:
                pos[0] = i
                fail("unterminated string")
            c = ord(s[i])
            if c == 34:
                parts.append(s[start:i])
                pos[0] = i + 1
                return "".join(parts)
            if c < 32:
                pos[0] = i
                fail("control character in string")
            if c != 92:
                i += 1
                continue
            parts.append(s[start:i])
            e = cc(s, i + 1)
            i += 2
            if e == 117:
                code = 0
                for k in range(4):
                    h = cc(s, i + k)
                    d = h - 48 if _is_digit(h) else h - 87 if 97 <= h <= 102 else h - 55 if 65 <= h <= 70 else -1
                    if not d >= 0:
                        pos[0] = i
                        fail("bad \\u escape")
                    code = code * 16 + int(d)
                parts.append(chr(code))
                i += 4
            else:
                simple = _SIMPLE.get(e) if e == e else None
                if simple is None:
                    pos[0] = i
                    fail("bad escape")
                parts.append(simple)
            start = i

    def read_number() -> JNumber:
        i = start = pos[0]
        if cc(s, i) == 45:
            i += 1
        if cc(s, i) == 48:
            i += 1
        elif _is_digit(cc(s, i)):
            while i < n and _is_digit(ord(s[i])):
                i += 1
        else:
            pos[0] = i
            fail("bad number")
        if cc(s, i) == 46:
            i += 1
            if not _is_digit(cc(s, i)):
                pos[0] = i
                fail("bad fraction")
            while i < n and _is_digit(ord(s[i])):
                i += 1
        if cc(s, i) == 101 or cc(s, i) == 69:
            i += 1
            if cc(s, i) == 43 or cc(s, i) == 45:
                i += 1
            if not _is_digit(cc(s, i)):
                pos[0] = i
                fail("bad exponent")
            while i < n and _is_digit(ord(s[i])):
                i += 1
        pos[0] = i
        return JNumber(s[start:i])

    def read_key() -> str:
        ws()
        if cc(s, pos[0]) != 34:
            fail("expected a string key")
        key = read_string()
        ws()
        if cc(s, pos[0]) != 58:
            fail("expected ':'")
        pos[0] += 1
        return key

    def literal(word: str, value: Any) -> Any:
        if s.startswith(word, pos[0]):
            pos[0] += len(word)
            return value
        return fail("unexpected character")

    try:
        stack: list[list[Any]] = []  # [container, key or None]
        while True:
            ws()
            c = cc(s, pos[0])
            if c == 123:
                pos[0] += 1
                ws()
                if cc(s, pos[0]) == 125:
                    pos[0] += 1
                    value: Any = {}
                else:
                    if len(stack) >= MAX_MEASURED_JSON_DEPTH:
                        fail(f"nested deeper than {MAX_MEASURED_JSON_DEPTH} levels")
                    stack.append([{}, read_key()])
                    continue
            elif c == 91:
                pos[0] += 1
                ws()
                if cc(s, pos[0]) == 93:
                    pos[0] += 1
                    value = []
                else:
                    if len(stack) >= MAX_MEASURED_JSON_DEPTH:
                        fail(f"nested deeper than {MAX_MEASURED_JSON_DEPTH} levels")
                    stack.append([[], None])
                    continue
            elif c == 34:
                value = read_string()
            elif c == 45 or _is_digit(c):
                value = read_number()
            elif c == 116:
                value = literal("true", True)
            elif c == 102:
                value = literal("false", False)
            elif c == 110:
                value = literal("null", None)
            else:
                return False, "unexpected end of input" if pos[0] >= n else f"unexpected character at offset {pos[0]}"
            while True:
                if not stack:
                    ws()
                    if pos[0] != n:
                        fail("unexpected text after the value")
                    return True, value
                top = stack[-1]
                ws()
                nxt = cc(s, pos[0])
                if isinstance(top[0], list):
                    top[0].append(value)
                    if nxt == 44:
                        pos[0] += 1
                        break
                    if nxt != 93:
                        fail("expected ',' or ']'")
                    pos[0] += 1
                    value = top[0]
                else:
                    top[0][top[1]] = value
                    if nxt == 44:
                        pos[0] += 1
                        top[1] = read_key()
                        break
                    if nxt != 125:
                        fail("expected ',' or '}'")
                    pos[0] += 1
                    value = top[0]
                stack.pop()
    except _JsonError as error:
        return False, str(error)


def opens_like_json(s: str) -> bool:
    i = 0
    while i < len(s) and _is_ws(ord(s[i])):
        i += 1
    c = cc(s, i)
    return c == 123 or c == 91


@dataclass(slots=True, eq=False)
class Leaf:
    path: str
    last: str
    value: str
    raw: str
    kind: str
    tokens: list[Token]
    doc: TextDoc | None


@dataclass(slots=True, eq=False)
class JsonDoc:
    root: Any
    leaves: list[Leaf]
    members: list[tuple[str, str]]
    empty_containers: int


_SHORT_STRING_TOKENS = 8


def _canonical_number(lexeme: str) -> str:
    read = classify(lexeme, False, False)
    key = read[0].need[0] if read and read[0].kind == "number" else None
    return key[2:] if key else ascii_lower(lexeme)


def analyse_json(root: Any) -> JsonDoc:
    leaves: list[Leaf] = []
    members: list[tuple[str, str]] = []
    empty = 0
    stack: list[tuple[Any, str, str]] = [(root, "", "")]
    while stack:
        value, path, last = stack.pop()
        if isinstance(value, dict):
            if not value:
                empty += 1
            children = []
            for key, child in value.items():
                child_path = f"{path}.{key}" if path else key
                members.append((child_path, key))
                children.append((child, child_path, key))
            stack.extend(reversed(children))
        elif isinstance(value, list):
            if not value:
                empty += 1
            for k in range(len(value) - 1, -1, -1):
                stack.append((value[k], f"{path}[]", last))
        else:
            at = path or "$"
            if isinstance(value, str):
                doc = analyse_text(value)
                tokens = [t for line in doc.lines for t in line]
                leaves.append(Leaf(at, last, ascii_lower(js_trim(value)), value, "string", tokens, doc))
            elif isinstance(value, JNumber):
                leaves.append(Leaf(at, last, _canonical_number(value.num), value.num, "number", classify(value.num, False, False), None))
            else:
                raw = "null" if value is None else "true" if value else "false"
                leaves.append(Leaf(at, last, raw, raw, "null" if value is None else "boolean", [], None))
    return JsonDoc(root, leaves, members, empty)


def _leaf_id(leaf: Leaf) -> str:
    return f"j:{leaf.path}={leaf.value}"


def _need_of(tokens: list[Token]) -> list[str]:
    need: list[str] = []
    for t in tokens:
        for key in t.need:
            if key not in need:
                need.append(key)
    return need


_MAX_DISPLAY = 120


def _clip(s: str) -> str:
    return f"{s[:_MAX_DISPLAY]}..." if len(s) > _MAX_DISPLAY else s


def add_json_facts(doc: JsonDoc, into: FactSet) -> None:
    per_path: dict[str, int] = {}
    per_value: dict[str, int] = {}
    for leaf in doc.leaves:
        per_path[leaf.path] = per_path.get(leaf.path, 0) + 1
        ident = _leaf_id(leaf)
        per_value[ident] = per_value.get(ident, 0) + 1
    for leaf in doc.leaves:
        records = per_path.get(leaf.path, 1)
        if leaf.doc is not None and len(leaf.tokens) > _SHORT_STRING_TOKENS:
            add_text_facts(leaf.doc, into, 1 / records)
            continue
        shown = f'"{leaf.raw}"' if leaf.kind == "string" else leaf.raw
        into.add(Fact("json_leaf", per_value.get(_leaf_id(leaf), 1) / records, True, _clip(f"{leaf.path}={shown}"), _need_of(leaf.tokens), [_leaf_id(leaf), f"j:{leaf.last}={leaf.value}"]))
    for path, last in doc.members:
        into.add(Fact("json_key", CONTEXT_WEIGHT, False, path, _need_of(classify(last, False, False)), [f"k:{path}", f"k:{last}"]))


def index_json(doc: JsonDoc, index: FactIndex) -> None:
    keys = index.keys
    for leaf in doc.leaves:
        keys.add(_leaf_id(leaf))
        keys.add(f"j:{leaf.last}={leaf.value}")
        for t in leaf.tokens:
            keys.update(t.index)
    for path, last in doc.members:
        keys.add(f"k:{path}")
        keys.add(f"k:{last}")
        for t in classify(last, False, False):
            keys.update(t.index)


def json_units(doc: JsonDoc) -> list[tuple[str, str, int]]:
    """Per leaf: its `j:path=value` key, its canonical value, and its bytes (json.ts key, value, bytes)."""
    return [(_leaf_id(leaf), leaf.value, utf8_length(leaf.path) + utf8_length(leaf.raw) + 1) for leaf in doc.leaves]


def json_specificity(doc: JsonDoc) -> float:
    count = len(doc.leaves) + doc.empty_containers
    if count == 0:
        return 0
    total: float = 0
    for leaf in doc.leaves:
        if leaf.kind == "number":
            total += 1
        elif leaf.kind == "boolean":
            total += 0.5
        elif leaf.kind == "string":
            total += token_specificity(leaf.tokens)
    return total / count


def field_holds(root: Any, field: str) -> bool:
    segments = [s[:-2] if s.endswith("[]") else s for s in field.split(".")]
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        value, at = stack.pop()
        if at >= len(segments):
            continue
        segment = segments[at]
        if segment == "":
            stack.append((value, at + 1))
            continue
        if isinstance(value, list):
            if len(segment) > 0 and all(48 <= ord(ch) <= 57 for ch in segment):
                index = int(segment)
                if index >= len(value):
                    return False
                stack.append((value[index], at + 1))
            else:
                for item in value:
                    stack.append((item, at))
            continue
        if not isinstance(value, dict) or segment not in value:
            return False
        stack.append((value[segment], at + 1))
    return True
