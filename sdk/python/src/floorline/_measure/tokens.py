"""Tokenisation and classification of text (lib/measure/tokens.ts and scan.ts), ported line by
line: the order of the tests is part of the method. Longer than most modules on purpose: the
classification, the scan and the joins across tokens read as one list only in one place."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .chars import (
    ATTACHED_ONLY_UNITS, ELISIONS, MAGNITUDES, MONTHS, NUMBER_WORDS, ORDINAL_SUFFIXES, STOP_WORDS, UNITS, ascii_lower, cc, date_key, digits_at,
    is_alnum, is_break, is_digit, is_hex_letter, is_letter, is_lower, is_upper, pad2, read_dotted_or_slashed_date,
    is_utc_offset, read_epoch, read_iso_date, read_log_date, read_number, read_time, shift_decimal, stem,
)


@dataclass(slots=True, eq=False)
class Token:
    text: str
    kind: str
    need: list[str]
    index: list[str]
    shape: str
    key: str = ""
    ends: bool = False
    open: bool = False
    # A comma with no space after it follows: a field separator (CSV; scan.ts FIELD, since /4).
    field: bool = False
    # Another part of the same raw token follows ("GNU/Linux"; scan.ts INNER, since /4).
    inner: bool = False
    # Set aside by where it stands: a Markdown link's target, or a key quoted as JSON quotes one
    # (`"statusCode":`) or a setting's (`port = 5432`); its facts weigh as context (scan.ts ASIDE).
    aside: bool = False

    def __post_init__(self) -> None:
        self.index = with_yearless(self.index)


def with_yearless(index: list[str]) -> list[str]:
    """A full date also states its day of the year, its month and its year (tokens.ts withYearless)."""
    out = index
    for key in index:
        if len(key) == 12 and key.startswith("d:") and is_digit(ord(key[2])):
            if out is index:
                out = list(index)
            out.extend([f"d:--{key[7:]}", key[:9], f"n:{int(key[2:6])}"])
    return out


def _all_hex(s: str) -> bool:
    return all(is_digit(ord(ch)) or is_hex_letter(ord(ch)) for ch in s)


def is_hash(s: str) -> bool:
    if len(s) < 7 or not _all_hex(s):
        return False
    digit = letter = False
    for ch in s:
        if is_digit(ord(ch)):
            digit = True
        else:
            letter = True
    return digit and letter


def _hash_key(lower: str) -> str:
    """A hash's key: its first 7 characters, so a hash abbreviated as git abbreviates it states
    the full one (tokens.ts hashKey, since floorline-facts/4)."""
    return f"h:{lower[:7]}"


def _is_uuid(s: str) -> bool:
    if len(s) != 36:
        return False
    for i in range(36):
        c = ord(s[i])
        if i in (8, 13, 18, 23):
            if c != 45:
                return False
        elif not is_digit(c) and not is_hex_letter(c):
            return False
    return True


def _is_ipv4(s: str) -> bool:
    colon = s.find(":")
    host = s[:colon] if colon >= 0 else s
    if colon >= 0 and digits_at(s, colon + 1, len(s) - colon - 1) < 0:
        return False
    parts = host.split(".")
    if len(parts) != 4:
        return False
    return all(1 <= len(p) <= 3 and digits_at(p, 0, len(p)) >= 0 and int(p) <= 255 for p in parts)


_URL_PREFIXES = ("http://", "https://", "ftp://", "ws://", "wss://", "file://", "www.")


def _is_email(s: str) -> bool:
    at = s.find("@")
    if at <= 0 or at != s.rfind("@"):
        return False
    domain = s[at + 1 :]
    dot = domain.find(".")
    return 0 < dot < len(domain) - 1


def _read_version(s: str) -> str | None:
    i = 0
    v = cc(s, 0) == 118 or cc(s, 0) == 86
    if v:
        i = 1
    dots = digits = 0
    n = len(s)
    while i < n:
        c = ord(s[i])
        if is_digit(c):
            digits += 1
        elif c == 46 and digits > 0 and i + 1 < n and is_digit(cc(s, i + 1)):
            dots += 1
        else:
            break
        i += 1
    if digits == 0 or (not v and dots < 2):
        return None
    if i < n:
        c = ord(s[i])
        if c != 45 and c != 43:
            return None
        for k in range(i + 1, n):
            if not is_alnum(ord(s[k])) and ord(s[k]) != 46:
                return None
    return f"v:{ascii_lower(s[1 if v else 0:])}"


def _is_path(s: str) -> bool:
    c0 = cc(s, 0)
    if c0 == 47:
        return len(s) > 1 and is_alnum(cc(s, 1))
    if s.startswith("./") or s.startswith("../") or s.startswith("~/"):
        return len(s) > 2
    if len(s) > 3 and is_letter(c0) and cc(s, 1) == 58 and cc(s, 2) == 92:
        return True
    slash = s.find("/")
    if slash <= 0 or slash == len(s) - 1:
        return False
    slashes = 0
    marked = False
    for ch in s:
        c = ord(ch)
        if c == 47:
            slashes += 1
        elif c == 46 or c == 95 or is_digit(c):
            marked = True
    return slashes >= 2 or marked


class _Shape:
    __slots__ = ("letters", "digit", "upper_inside", "all_upper", "underscore", "inner_dot", "plain")


def _shape_of(s: str) -> _Shape:
    shape = _Shape()
    shape.letters = shape.digit = shape.upper_inside = shape.underscore = shape.inner_dot = False
    shape.all_upper = shape.plain = True
    n = len(s)
    for i in range(n):
        c = ord(s[i])
        if is_letter(c):
            shape.letters = True
            if is_lower(c):
                shape.all_upper = False
            if i > 0 and is_upper(c) and is_lower(ord(s[i - 1])):
                shape.upper_inside = True
        elif is_digit(c):
            shape.digit = True
        elif c == 95:
            shape.underscore = True
        elif c == 46:
            if 0 < i < n - 1 and is_alnum(ord(s[i - 1])) and is_alnum(ord(s[i + 1])):
                shape.inner_dot = True
            else:
                shape.plain = False
        elif c != 45 and c != 39:
            shape.plain = False
    return shape


def _is_offset_like(s: str) -> bool:
    return all(is_alnum(ord(ch)) or ord(ch) in (43, 58, 45, 95, 46) for ch in s)


def _word_index(lower: str) -> list[str]:
    bare = lower
    while bare.startswith("-"):
        bare = bare[1:]
    return [f"w:{stem(bare)}", f"c:{bare}"]


def _number_token(text: str, value: str, unit: str) -> Token:
    plain = f"n:{value}"
    need = f"{plain}|{unit}" if unit else plain
    return Token(text, "number", [need], [plain, need] if unit else [plain], "#num")


def _number_range(text: str) -> list[Token] | None:
    """Two numbers joined by `..` or `-` (`304.68..304.87`, `2.5-3.5`): a range, each end a number
    of its own (tokens.ts numberRange, since floorline-facts/4)."""
    a = read_number(text, 0)
    if a is None:
        return None
    end = a[1]
    gap = 2 if text.startswith("..", end) else 1 if cc(text, end) == 45 else 0
    if gap == 0 or not is_digit(cc(text, end + gap)):
        return None
    b = read_number(text, end + gap)
    if b is None or b[1] != len(text):
        return None
    return [_number_token(text[:end], a[0], ""), _number_token(text[end + gap :], b[0], "")]


def is_capital_word(text: str) -> bool:
    if not is_upper(cc(text, 0)):
        return False
    shape = _shape_of(text)
    return not shape.all_upper and not shape.upper_inside


def _hyphen_parts(lower: str) -> list[str] | None:
    parts = [p for p in lower.split("-") if len(p) > 0]
    return parts if len(parts) > 1 else None


def _parts_need(parts: list[str] | None, kind: str) -> list[str] | None:
    if parts is None:
        return None
    need: list[str] = []
    for part in parts:
        if part in STOP_WORDS or len(part) < (2 if kind == "c" else 3):
            continue
        key = f"c:{part}" if kind == "c" else f"w:{stem(part)}"
        if key not in need:
            need.append(key)
    return need or None


def _is_elided_stop(lower: str) -> bool:
    """A function word elided before another one is one too: "qu'il", "d'une" (tokens.ts isElidedStop)."""
    quote = lower.find("'")
    return quote > 0 and lower[:quote] in ELISIONS and lower[quote + 1 :] in STOP_WORDS


def _word_token(text: str, initial: bool) -> Token:
    lower = ascii_lower(text)
    if lower in STOP_WORDS or len(lower) < 2 or _is_elided_stop(lower):
        return Token(text, "stop", [], [], lower)
    shape = _shape_of(text)
    capital = is_upper(cc(text, 0))
    parts = _hyphen_parts(lower) if lower.find("-") > 0 else None
    index = _word_index(lower)
    if parts:
        for part in parts:
            index.extend(_word_index(part))
    if (capital and (not initial or (shape.all_upper and len(text) >= 2))) or shape.upper_inside:
        return Token(text, "name", _parts_need(parts, "c") or [f"c:{lower}"], index, lower)
    if len(lower) < 3:
        return Token(text, "stop", [], [], lower)
    return Token(text, "keyword", _parts_need(parts, "w") or [f"w:{stem(lower)}"], index, lower)


def _magnitude(suffix: str, currency: bool) -> int:
    if suffix in ("k", "K"):
        return 3
    if suffix == "M":
        return 6
    if ascii_lower(suffix) == "bn" or (suffix == "B" and currency):
        return 9
    return 0


# Runs of one token read, at most (since floorline-facts/4): `1:1:1:...` written without a space
# is one token of a million runs, which no reader takes facts from one by one. The rest is not read.
MAX_RUNS = 64


def _compound(text: str, initial: bool) -> list[Token]:
    out: list[Token] = []
    i = 0
    n = len(text)
    runs = 0
    while i < n and runs < MAX_RUNS:
        while i < n and not is_alnum(ord(text[i])):
            i += 1
        start = i
        while i < n and is_alnum(ord(text[i])):
            i += 1
        if i > start:
            runs += 1
            out.extend(classify(text[start:i], initial and len(out) == 0, False))
    return out


def _small_int(v: str | None, top: int) -> int:
    if v is None or len(v) > 4:
        return -1
    value = digits_at(v, 0, len(v))
    return value if value >= 0 and 1 <= value <= top else -1


# Extensions of source code files: such a file's name then `:line` or `:line:column` is a
# position in code (`git.c:460`); a host's name (`db.example.com:5432`) keeps its port.
_CODE_EXTENSIONS = frozenset(
    "c h cc cpp cxx hpp hh go rs py pyx js mjs cjs jsx ts mts cts tsx java kt kts scala rb php cs fs "
    "swift lua pl pm sh bash zig ex exs erl hs ml dart vue svelte sql groovy clj jl nim".split()
)


def code_position(text: str) -> int:
    """Where `:line[:column]` begins after a code file's name or a Node module, else -1 (since /4)."""
    end = len(text)
    at = -1
    for _ in range(2):
        i = end
        while i > 0 and is_digit(cc(text, i - 1)):
            i -= 1
        if i == end or i < 2 or cc(text, i - 1) != 58:
            break
        end = i - 1
        at = end
    if at < 0:
        return -1
    if at > 5 and text.startswith("node:"):
        # A Node module's name holds no colon (`node:1:1:1` is no module): read once.
        return at if text.find(":", 5) == at else -1
    return at if is_code_file(text[:at]) else -1


def is_code_file(text: str) -> bool:
    """tokens.ts isCodeFile: a name, a dot and a code extension (`orders.ts`)."""
    dot = text.rfind(".")
    if dot <= 0 or (not is_alnum(ord(text[dot - 1])) and text[dot - 1] != "_"):
        return False
    return ascii_lower(text[dot + 1 :]) in _CODE_EXTENSIONS


# tokens.ts bracketedPosition: `(line)` or `(line,column)` right after a code file.
_BRACKETED_POSITION = re.compile(r"\(\d+(?:,\d+)?\)", re.ASCII)


def classify(text: str, initial: bool, allow_pairs: bool = True) -> list[Token]:
    if text == "%":
        return [Token(text, "stop", [], [], "%")]
    lower = ascii_lower(text)
    position = code_position(text)
    if position > 0:
        return classify(text[:position], initial, allow_pairs)
    eq = text.find("=") if allow_pairs else -1
    if 0 < eq < len(text) - 1 and is_letter(cc(text, 0)):
        key = text[:eq]
        if _shape_of(key).plain and "'" not in key:
            key_lower = ascii_lower(key)
            value = text[eq + 1 :]
            read = read_number(value, 0)
            unit = UNITS.get(key_lower)
            inner = [_number_token(value, read[0], unit)] if read and read[1] == len(value) and unit else classify(value, False, False)
            for t in inner:
                t.shape = f"{key_lower}={t.shape if t.kind in ('stop', 'keyword') else '#' + t.kind}"
                t.key = key
                t.index = [*t.index, *_word_index(key_lower)]
            return inner
    for prefix in _URL_PREFIXES:
        if lower.startswith(prefix) and len(text) > len(prefix) + 1:
            u = lower
            while u.endswith("/"):
                u = u[:-1]
            return [Token(text, "url", [f"u:{u}"], [f"u:{u}"], "#url")]
    if text.find("@") > 0 and _is_email(text):
        return [Token(text, "email", [f"e:{lower}"], [f"e:{lower}"], "#email")]
    if _is_uuid(text) or is_hash(text):
        h = _hash_key(lower)
        return [Token(text, "hash", [h], [h], "#hash")]
    for algo in ("sha256:", "sha1:", "md5:", "sha512:", "ccr:"):
        if lower.startswith(algo) and is_hash(text[len(algo) :]):
            h = _hash_key(lower[len(algo) :])
            return [Token(text, "hash", [h], [h], "#hash")]
    c0 = cc(text, 0)
    if is_digit(c0):
        if _is_ipv4(text):
            return [Token(text, "ip", [f"ip:{text}"], [f"ip:{text}"], "#ip")]
        iso = read_iso_date(text)
        if iso and iso[1] == len(text):
            return [Token(text, "date", [iso[0]], [iso[0]], "#date")]
        if iso and cc(text, 10) in (84, 116, 95):
            time = read_time(text, 11)
            if time and 11 + time[1] == len(text):
                return [Token(text, "datetime", [iso[0], time[0]], [iso[0], time[0]], "#datetime")]
        dated = read_dotted_or_slashed_date(text)
        if dated:
            return [Token(text, "date", [dated], [dated], "#date")]
        logged = read_log_date(text)
        if logged:
            kind = "datetime" if len(logged) == 2 else "date"
            return [Token(text, kind, logged, list(logged), f"#{kind}")]
        month = digits_at(text, 5, 2) if len(text) == 7 and cc(text, 4) == 45 else -1
        if 1 <= month <= 12 and digits_at(text, 0, 4) >= 1000:
            key = f"d:{text[:7]}"
            return [Token(text, "date", [key], [key], "#date")]
        dash = text.find("-")
        if dash > 0:
            a = read_time(text[:dash])
            b = read_time(text[dash + 1 :])
            if a and b and a[1] == dash and b[1] == len(text) - dash - 1:
                return [
                    Token(text[:dash], "time", [a[0]], [a[0]], "#time"),
                    Token(text[dash + 1 :], "time", [b[0]], [b[0]], "#time"),
                ]
        time = read_time(text)
        if time and time[1] == len(text):
            return [Token(text, "time", [time[0]], [time[0]], "#time")]
        epoch = read_epoch(text)
        if epoch:
            return [Token(text, "datetime", [epoch[0], epoch[1]], [epoch[0], epoch[1]], "#datetime")]
    version = _read_version(text)
    if version:
        return [Token(text, "version", [version], [version, f"n:{version[2:]}"], "#version")]
    if c0 == 35 and len(text) > 1 and digits_at(text, 1, len(text) - 1) >= 0:
        read = read_number(text, 1)
        if read:
            return [Token(text, "number", [f"n:{read[0]}"], [f"n:{read[0]}"], "#num")]
    if is_utc_offset(text):
        return [Token(text, "stop", [], [], "#zone")]
    currency = "usd" if c0 == 36 else "eur" if c0 == 0x20AC else "gbp" if c0 == 0xA3 else ""
    number_at = 1 if currency else 0
    second = cc(text, number_at + 1)
    first = cc(text, number_at)
    if is_digit(first) or ((first == 45 or first == 43) and is_digit(second)):
        read = read_number(text, number_at)
        if read:
            value, end = read
            power = _magnitude(text[end:], currency != "")
            if power > 0:
                return [_number_token(text, shift_decimal(value, power), currency)]
            suffix = ascii_lower(text[end:])
            if suffix == "":
                return [_number_token(text, value, currency)]
            if suffix in ORDINAL_SUFFIXES:
                return [_number_token(text, value, "")]
            hour = _small_int(value, 12) if not currency and suffix in ("am", "pm") else -1
            time = read_time(f"{hour}:00{suffix}") if hour > 0 else None
            if time:
                return [Token(text, "time", [time[0]], [time[0]], "#time")]
            unit = UNITS.get(suffix)
            if unit and not currency:
                return [_number_token(text, value, unit)]
    number_range = _number_range(text) if is_digit(c0) else None
    if number_range:
        return number_range
    if c0 == 45 and len(text) > 1:
        bare = lower
        while bare.startswith("-"):
            bare = bare[1:]
        if len(bare) > 0 and is_letter(ord(bare[0])) and _shape_of(bare).plain:
            return [Token(text, "name", [f"c:{bare}"], _word_index(lower), "#flag")]
    if _is_path(text):
        p = lower
        while len(p) > 1 and p.endswith("/"):
            p = p[:-1]
        return [Token(text, "path", [f"p:{p}"], [f"p:{p}"], "#path")]
    shape = _shape_of(text)
    if shape.letters and (shape.digit or shape.underscore or shape.inner_dot) and (shape.plain or _is_offset_like(text)):
        return [Token(text, "name", [f"c:{lower}"], _word_index(lower), "#id")]
    if shape.plain and shape.letters and not shape.digit:
        w = text
        while len(w) > 0 and (w.endswith("-") or w.endswith("'")):
            w = w[:-1]
        while len(w) > 0 and (w.startswith("-") or w.startswith("'")):
            w = w[1:]
        if len(w) == len(text):
            spelled = _number_word(ascii_lower(text))
            return [_word_token(text, initial) if spelled is None else _spelled_number(text, spelled)]
        return classify(w, initial, False) if len(w) > 0 else []
    if shape.plain and not shape.letters and not shape.digit:
        return []
    return _compound(text, initial)


def _number_word(lower: str) -> int | None:
    """The value of a number written as a word ("fifteen", "twenty-one", "zw\u00f6lf"), or None
    (tokens.ts numberWord, since floorline-facts/4)."""
    value = NUMBER_WORDS.get(lower)
    if value is not None:
        return value
    dash = lower.find("-")
    if dash < 0:
        return None
    tens = NUMBER_WORDS.get(lower[:dash])
    unit = NUMBER_WORDS.get(lower[dash + 1 :])
    if tens is not None and unit is not None and 20 <= tens <= 90 and tens % 10 == 0 and 1 <= unit <= 9:
        return tens + unit
    return None


def _spelled_number(text: str, value: int) -> Token:
    """A number written as a word states the number. "One" is also a pronoun: as a stop word it
    states 1 in a content but is no fact of a source (tokens.ts spelledNumber)."""
    lower = ascii_lower(text)
    if lower in STOP_WORDS:
        return Token(text, "stop", [], [f"n:{value}"], lower)
    return _number_token(text, str(value), "")


# . , : = ' _ trimmed from a token's end, , : = ' _ from its start (Markdown's `_emphasis_`
# is notation, since floorline-facts/4).
_TRAILING = frozenset((46, 44, 58, 61, 39, 95))
_LEADING = frozenset((44, 58, 61, 39, 95))


def is_cjk(c: float) -> bool:
    return 0x3040 <= c <= 0x30FF or 0x3400 <= c <= 0x4DBF or 0x4E00 <= c <= 0x9FFF or 0xF900 <= c <= 0xFAFF or 0xFF66 <= c <= 0xFF9F


def _is_cjk_punctuation(c: int) -> bool:
    return (
        0x3001 <= c <= 0x3003 or 0x3008 <= c <= 0x3011 or 0x3014 <= c <= 0x301F or 0xFF01 <= c <= 0xFF0F
        or 0xFF1A <= c <= 0xFF20 or 0xFF3B <= c <= 0xFF40 or 0xFF5B <= c <= 0xFF65
    )


_CJK_SENTENCE_ENDS = frozenset((0x3002, 0xFF01, 0xFF1F, 0xFF0E))

# The break test as a set of characters: the scan below asks it of every character of the content.
_BREAK_CHARS = frozenset(chr(c) for c in range(0x10000) if (is_break(c) if c <= 0x3000 or c == 0xFEFF else _is_cjk_punctuation(c)))


def _class_of(codes: list[int]) -> str:
    """A regular expression character class (without brackets) of the given code units."""
    out = []
    codes = sorted(codes)
    k = 0
    while k < len(codes):
        j = k
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        out.append(re.escape(chr(codes[k])) if j == k else f"{re.escape(chr(codes[k]))}-{re.escape(chr(codes[j]))}")
        k = j + 1
    return "".join(out)


_CJK_CLASS = _class_of([c for c in range(0x10000) if is_cjk(c)])
_LETTER_CLASS = _class_of([c for c in range(0x10000) if is_letter(c)])
# A raw token, as the scan in scan.ts cuts it: a run of CJK script, or a run of anything else
# that is no break, where a comma stays only between thousands ("10,000") and an apostrophe
# only between letters. One compiled pattern, so the scan runs in C, not a call per character.
_RAW_TOKEN = re.compile(
    f"[{_CJK_CLASS}]+|(?:[^{_class_of([ord(c) for c in _BREAK_CHARS])}{_CJK_CLASS},']"
    f"|(?<=[0-9]),(?=[0-9]{{3}}(?![0-9]))|(?<=[{_LETTER_CLASS}])'(?=[{_LETTER_CLASS}]))+"
)

# Raw tokens already classified (texts repeat: a log states the same levels, paths and values
# line after line): the tokens, copied on the way out, since the scan sets their flags.
_CLASSIFIED: dict[tuple[str, bool], tuple[Token, ...]] = {}
_CLASSIFIED_LIMIT = 1 << 14


def _copy(t: Token) -> Token:
    c = object.__new__(Token)
    c.text, c.kind, c.need, c.index, c.shape, c.key, c.ends, c.open = t.text, t.kind, t.need, t.index, t.shape, t.key, False, False
    c.inner = False
    c.aside = False
    c.field = False
    return c


def _classified(text: str, initial: bool) -> list[Token]:
    key = (text, initial)
    known = _CLASSIFIED.get(key)
    if known is None:
        if len(_CLASSIFIED) >= _CLASSIFIED_LIMIT:
            _CLASSIFIED.clear()
        known = tuple(classify(text, initial))
        _CLASSIFIED[key] = known
    return [_copy(t) for t in known]


def _label_close(line: str) -> int:
    """Where a link definition's label closes: the line's first `]`, when its first character but
    blanks is `[`; else -1 (scan.ts labelCloseOf)."""
    lead = len(line) - len(line.lstrip(" \t"))
    return line.find("]", lead + 1) if line.startswith("[", lead) else -1


# scan.ts settingKey: a line's first token with `=` after it (not `==`): `port = 5432`.
_SETTING_KEY = re.compile(r"[ \t]*=(?!=)")


def _is_quoted_key(line: str, start: int, end: int) -> bool:
    """Whether the raw token at [start, end) is a key quoted as JSON quotes one: `"statusCode":`."""
    return start > 0 and line[start - 1] == '"' and line[end : end + 2] == '":'


def _is_link_target(line: str, start: int, label: list[int]) -> bool:
    """Whether the raw token at `start` is a Markdown link's target: after `](`, or a URL after a
    link definition's label (scan.ts linkBefore and labelCloseOf, since floorline-facts/4).
    `label` holds where the line's label closes once read ([-2] before), so it is read once."""
    if line[max(0, start - 2) : start] == "](":
        return True
    k = start - 1
    while k >= 0 and line[k] in " \t":
        k -= 1
    if k == start - 1 or k < 1 or line[k] != ":" or line[k - 1] != "]":
        return False
    if not line.startswith(("http://", "https://"), start):
        return False
    if label[0] == -2:
        label[0] = _label_close(line)
    return k - 1 == label[0]


def tokenize_line(line: str) -> list[Token]:
    raw: list[list] = []
    n = len(line)
    label = [-2]
    # Where a position in code in brackets after its file ends: raw tokens before it are read past.
    skip_to = 0
    for match in _RAW_TOKEN.finditer(line):
        a, i = match.span()
        if a < skip_to:
            continue
        b = i
        after = ord(line[i]) if i < n else -1
        ends = after == 33 or after == 63 or after in _CJK_SENTENCE_ENDS
        while b > a and ord(line[b - 1]) in _TRAILING:
            if ord(line[b - 1]) == 46:
                ends = True
            b -= 1
        while a < b and ord(line[a]) in _LEADING:
            a += 1
        is_open = b == i and (i >= n or after <= 32)
        is_field = b == i and after == 44 and i + 1 < n and ord(line[i + 1]) > 32
        if b > a:
            key = _is_quoted_key(line, match.start(), i) or (not raw and _SETTING_KEY.match(line, b) is not None)
            raw.append([line[a:b], ends, is_open, _is_link_target(line, match.start(), label) or key, is_field])
        elif ends and raw:
            raw[-1][1] = True
        # scan.ts: `orders.ts(8,57)`, as tsc writes it, reads as its file.
        if b == i and b > a and i < n and line[i] == "(":
            position = _BRACKETED_POSITION.match(line, i)
            if position and is_code_file(line[a:b]):
                skip_to = position.end()
    out: list[Token] = []
    initial = True
    for text, ends, is_open, aside, is_field in raw:
        classified = _classified(text, initial)
        if classified:
            for part in classified[:-1]:
                part.inner = True
            if aside:
                for part in classified:
                    part.aside = True
            classified[-1].ends = ends
            classified[-1].open = is_open
            classified[-1].field = is_field
        out.extend(classified)
        initial = ends
    return _join_across(out)


def _number_value(t: Token | None) -> str | None:
    if t is not None and t.kind == "number" and len(t.need) == 1 and "|" not in t.need[0]:
        return t.need[0][2:]
    return None


def _number_parts(t: Token) -> tuple[str | None, str]:
    """Any number's value and unit, from its single need."""
    if t.kind != "number" or len(t.need) != 1:
        return None, ""
    need = t.need[0]
    bar = need.find("|")
    return (need[2:], "") if bar < 0 else (need[2:bar], need[bar + 1 :])


def _date_token(parts: list[Token], y: int, m: int, d: int) -> Token:
    key = f"d:{y}-{pad2(m)}" if d == 0 else date_key(y, m, d) if y > 0 else f"d:--{pad2(m)}-{pad2(d)}"
    t = Token(" ".join(p.text for p in parts), "date", [key], [key], "#date")
    t.ends = parts[-1].ends
    t.open = parts[-1].open
    t.field = parts[-1].field
    t.inner = parts[-1].inner
    t.aside = parts[-1].aside
    return t


def _join_across(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    i = 0
    n = len(tokens)
    at = lambda k: tokens[k] if k < n else None  # noqa: E731
    while i < n:
        t = tokens[i]
        nxt = at(i + 1)
        # Month names are at most nine letters: a longer token needs no lower-casing to say it is none.
        month = MONTHS.get(ascii_lower(t.text)) if t.kind != "number" and len(t.text) <= 9 else None
        if month is not None and not t.ends:
            day = _small_int(_number_value(nxt), 31)
            if day > 0:
                year = _small_int(_number_value(at(i + 2)), 2999) if nxt is not None and not nxt.ends else -1
                parts = [t, nxt, tokens[i + 2]] if year >= 1000 else [t, nxt]
                out.append(_date_token(parts, year if year >= 1000 else 0, month, day))
                i += len(parts)
                continue
            year = _small_int(_number_value(nxt), 2999)
            if year >= 1000:
                out.append(_date_token([t, nxt], year, month, 0))
                i += 2
                continue
        day = _small_int(_number_value(t), 31) if t.kind == "number" else -1
        if day > 0 and nxt is not None and not t.ends:
            m = MONTHS.get(ascii_lower(nxt.text))
            year = _small_int(_number_value(at(i + 2)), 2999)
            if m is not None and year >= 1000 and not nxt.ends:
                out.append(_date_token([t, nxt, tokens[i + 2]], year, m, day))
                i += 3
                continue
        if nxt is not None and t.open and t.kind in ("number", "time"):
            word = ascii_lower(nxt.text)
            unit = UNITS.get(word)
            value = _number_value(t)
            if t.kind == "number" and value is not None and unit and word not in ATTACHED_ONLY_UNITS:
                joined = _number_token(f"{t.text} {nxt.text}", value, unit)
                joined.ends = nxt.ends
                joined.open = nxt.open
                joined.field = nxt.field
                joined.inner = nxt.inner
                joined.aside = nxt.aside
                joined.key = t.key
                joined.shape = t.shape
                out.append(joined)
                i += 2
                continue
            power = MAGNITUDES.get(word, 0)
            raw, raw_unit = _number_parts(t)
            if t.kind == "number" and power > 0 and raw is not None and raw_unit in ("", "usd", "eur", "gbp"):
                third = at(i + 2)
                third_word = ascii_lower(third.text) if third is not None else ""
                third_unit = UNITS.get(third_word) if third is not None and third_word not in ATTACHED_ONLY_UNITS else None
                with_unit = third is not None and raw_unit == "" and nxt.open and bool(third_unit)
                parts = [t, nxt, third] if with_unit else [t, nxt]
                joined = _number_token(" ".join(p.text for p in parts), shift_decimal(raw, power), third_unit if with_unit else raw_unit)
                joined.ends = parts[-1].ends
                joined.open = parts[-1].open
                joined.field = parts[-1].field
                joined.inner = parts[-1].inner
                joined.aside = parts[-1].aside
                joined.key = t.key
                joined.shape = t.shape
                out.append(joined)
                i += len(parts)
                continue
            if word in ("am", "pm", "a.m", "p.m"):
                hour = _small_int(value, 12) if t.kind == "number" else -1
                time = read_time(f"{t.text}{word}") if t.kind == "time" else read_time(f"{hour}:00{word}") if hour > 0 else None
                if time:
                    joined = Token(f"{t.text} {nxt.text}", "time", [time[0]], [time[0]], "#time")
                    joined.ends = nxt.ends
                    joined.open = nxt.open
                    joined.field = nxt.field
                    joined.inner = nxt.inner
                    joined.aside = nxt.aside
                    out.append(joined)
                    i += 2
                    continue
        if nxt is not None and t.open and t.kind != "number" and nxt.kind == "number":
            value = _number_value(nxt)
            currency = UNITS.get(ascii_lower(t.text)) if value is not None and len(t.text) <= 16 else None
            if currency in ("usd", "eur", "gbp") and value is not None:
                third = at(i + 2)
                power = MAGNITUDES.get(ascii_lower(third.text), 0) if third is not None and nxt.open else 0
                parts = [t, nxt, third] if power > 0 else [t, nxt]
                joined = _number_token(" ".join(p.text for p in parts), shift_decimal(value, power) if power > 0 else value, currency)
                joined.ends = parts[-1].ends
                joined.open = parts[-1].open
                joined.field = parts[-1].field
                joined.inner = parts[-1].inner
                joined.aside = parts[-1].aside
                joined.key = nxt.key
                joined.shape = nxt.shape
                out.append(joined)
                i += len(parts)
                continue
        out.append(t)
        i += 1
    return out
