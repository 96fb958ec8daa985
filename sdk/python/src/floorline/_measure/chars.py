"""Character classes, values and word lists of the measurement (lib/measure/chars.ts,
values.ts, words.ts), ported line by line. Longer than most modules on purpose: three small
TypeScript modules with no logic of their own side by side, read against them.

Every string here is a string of UTF-16 code units, as in JavaScript: `to16` splits each
character above U+FFFF into its surrogate pair on the way in, so lengths, slices and the
five-letter stems agree with the TypeScript unit for unit; `from16` joins them on the way out.
A read past the end answers NaN, as charCodeAt does, so every comparison with it is false."""

from __future__ import annotations

import datetime as _dt
import math
import re

NAN = math.nan
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _pair(m: re.Match[str]) -> str:
    v = ord(m.group(0)) - 0x10000
    return chr(0xD800 + (v >> 10)) + chr(0xDC00 + (v & 0x3FF))


def to16(s: str) -> str:
    return s if s.isascii() else _ASTRAL.sub(_pair, s)


def from16(s: str) -> str:
    if s.isascii():
        return s
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def cc(s: str, i: int) -> float:
    """charCodeAt: the code unit at i, NaN outside the string."""
    return ord(s[i]) if 0 <= i < len(s) else NAN


def is_digit(c: float) -> bool:
    return 48 <= c <= 57


def is_upper(c: float) -> bool:
    return 65 <= c <= 90


def is_lower(c: float) -> bool:
    return 97 <= c <= 122


def is_hex_letter(c: float) -> bool:
    return 97 <= c <= 102 or 65 <= c <= 70


def is_wide_separator(c: float) -> bool:
    return (
        c == 0xA0 or c == 0xAB or c == 0xBB or 0x2000 <= c <= 0x200B or 0x2010 <= c <= 0x201F
        or c == 0x2026 or c == 0x2039 or c == 0x203A or c == 0x3000 or c == 0xFEFF
    )


def is_letter(c: float) -> bool:
    return is_upper(c) or is_lower(c) or (c >= 0x80 and not is_wide_separator(c))


def is_alnum(c: float) -> bool:
    return is_letter(c) or is_digit(c)


_BREAKS = frozenset((40, 41, 91, 93, 123, 125, 60, 62, 34, 96, 124, 59, 33, 63, 42, 127))


def is_break(c: float) -> bool:
    return c <= 32 or c in _BREAKS or is_wide_separator(c)


_LOWER = {i: i + 32 for i in range(65, 91)}


def ascii_lower(s: str) -> str:
    return s.translate(_LOWER)


def utf8_length(s: str) -> int:
    n = 0
    i = 0
    size = len(s)
    if s.isascii():
        return size
    while i < size:
        c = ord(s[i])
        if c < 0x80:
            n += 1
        elif c < 0x800:
            n += 2
        elif 0xD800 <= c <= 0xDBFF and i + 1 < size:
            d = ord(s[i + 1])
            if 0xDC00 <= d <= 0xDFFF:
                n += 4
                i += 1
            else:
                n += 3
        else:
            n += 3
        i += 1
    return n


def stem(lower: str) -> str:
    w = lower
    if w.endswith("'s"):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith("ss") and not w.endswith("us") and not w.endswith("is"):
        w = w[:-1]
    return w[:5] if len(w) > 5 else w


_JS_SPACE = frozenset("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")


def js_trim(s: str) -> str:
    a, b = 0, len(s)
    while a < b and s[a] in _JS_SPACE:
        a += 1
    while b > a and s[b - 1] in _JS_SPACE:
        b -= 1
    return s[a:b]


# --- numbers, dates, times (values.ts) ---


def read_number(s: str, i: int) -> tuple[str, int] | None:
    """(canonical value, end) of the number at i, or None."""
    j = i
    negative = False
    if cc(s, j) == 45 or cc(s, j) == 43:
        negative = cc(s, j) == 45
        j += 1
    int_start = j
    n = len(s)
    while j < n and is_digit(ord(s[j])):
        j += 1
    if j == int_start:
        return None
    whole = s[int_start:j]
    if len(whole) <= 3:
        while (
            j + 3 < n
            and (cc(s, j) == 44 or cc(s, j) == 95)
            and is_digit(cc(s, j + 1)) and is_digit(cc(s, j + 2)) and is_digit(cc(s, j + 3))
            and not (j + 4 < n and is_digit(cc(s, j + 4)))
        ):
            whole += s[j + 1 : j + 4]
            j += 4
    frac = ""
    if cc(s, j) == 46 and j + 1 < n and is_digit(cc(s, j + 1)):
        frac_start = j + 1
        j = frac_start
        while j < n and is_digit(ord(s[j])):
            j += 1
        frac = s[frac_start:j]
    exp = ""
    power = 0
    if (cc(s, j) == 101 or cc(s, j) == 69) and j + 1 < n:
        k = j + 1
        sign = ""
        if cc(s, k) == 45 or cc(s, k) == 43:
            sign = "-" if cc(s, k) == 45 else ""
            k += 1
        exp_start = k
        while k < n and is_digit(ord(s[k])):
            k += 1
        if k > exp_start:
            digits = s[exp_start:k]
            while len(digits) > 1 and digits.startswith("0"):
                digits = digits[1:]
            if len(digits) <= 2 and int(digits) <= _MAX_SHIFT:
                power = -int(digits) if sign else int(digits)
            else:
                exp = f"e{sign}{digits}"
            j = k
    while len(whole) > 1 and whole.startswith("0"):
        whole = whole[1:]
    while frac.endswith("0"):
        frac = frac[:-1]
    value = f"{whole}.{frac}" if frac else whole
    if power != 0:
        value = shift_decimal(value, power)
    value += exp
    if negative and value != "0":
        value = f"-{value}"
    return value, j


_MAX_SHIFT = 21


def shift_decimal(value: str, power: int) -> str:
    """A canonical number times 10**power, canonical again: digits moved, no floating point."""
    negative = value.startswith("-")
    v = value[1:] if negative else value
    dot = v.find(".")
    whole = v if dot < 0 else v[:dot]
    frac = "" if dot < 0 else v[dot + 1 :]
    digits = whole + frac
    point = len(whole) + power
    if point <= 0:
        head, tail = "0", "0" * (-point) + digits
    elif point >= len(digits):
        head, tail = digits + "0" * (point - len(digits)), ""
    else:
        head, tail = digits[:point], digits[point:]
    while len(head) > 1 and head.startswith("0"):
        head = head[1:]
    while tail.endswith("0"):
        tail = tail[:-1]
    out = f"{head}.{tail}" if tail else head
    return f"-{out}" if negative and out != "0" else out


def pad2(n: int) -> str:
    return f"0{n}" if n < 10 else f"{n}"


def digits_at(s: str, i: int, n: int) -> int:
    if i + n > len(s):
        return -1
    v = 0
    for k in range(i, i + n):
        c = ord(s[k])
        if not 48 <= c <= 57:
            return -1
        v = v * 10 + (c - 48)
    return v


def valid_date(y: int, m: int, d: int) -> bool:
    return y >= 1000 and 1 <= m <= 12 and 1 <= d <= 31


def date_key(y: int, m: int, d: int) -> str:
    return f"d:{y}-{pad2(m)}-{pad2(d)}"


def read_iso_date(s: str) -> tuple[str, int] | None:
    y = digits_at(s, 0, 4)
    sep = cc(s, 4)
    if y < 0 or (sep != 45 and sep != 47) or cc(s, 7) != sep:
        return None
    m = digits_at(s, 5, 2)
    d = digits_at(s, 8, 2)
    if not valid_date(y, m, d) or (len(s) > 10 and is_digit(cc(s, 10))):
        return None
    return date_key(y, m, d), 10


def read_dotted_or_slashed_date(s: str) -> str | None:
    sep = "." if s.find(".") > 0 else "/"
    parts = s.split(sep)
    if len(parts) != 3:
        return None
    a, b, c = (int(p) if 1 <= len(p) <= 4 and digits_at(p, 0, len(p)) >= 0 else -1 for p in parts)
    if len(parts[2]) != 4:
        return None
    day = a if sep == "." else b
    month = b if sep == "." else a
    if sep == "/" and a > 12:
        day = a
        month = b
    return date_key(c, month, day) if valid_date(c, month, day) else None


def read_log_date(s: str) -> list[str] | None:
    """values.ts readLogDate: `10/Oct/2000` as web servers log it, `:13:55:36` after it its time."""
    first = s.find("/")
    if first < 1 or first > 2:
        return None
    day = digits_at(s, 0, first)
    m = first + 1
    while m < len(s) and is_letter(ord(s[m])):
        m += 1
    month = MONTHS.get(ascii_lower(s[first + 1 : m]), 0)
    if month == 0 or cc(s, m) != 47:
        return None
    year = digits_at(s, m + 1, 4)
    if not valid_date(year, month, day) or (m + 5 < len(s) and is_digit(cc(s, m + 5))):
        return None
    date = date_key(year, month, day)
    if m + 5 == len(s):
        return [date]
    if cc(s, m + 5) != 58:
        return None
    time = read_time(s, m + 6)
    return [date, time[0]] if time and m + 6 + time[1] == len(s) else None


def is_utc_offset(s: str) -> bool:
    """values.ts isUtcOffset: `+0000`, `-0700`, `+05:30` written apart from a time."""
    sign = cc(s, 0)
    if sign != 43 and sign != 45:
        return False
    colon = len(s) == 6 and cc(s, 3) == 58
    if len(s) != 5 and not colon:
        return False
    if not colon and cc(s, 1) != 48:
        return False
    hours = digits_at(s, 1, 2)
    minutes = digits_at(s, 4 if colon else 3, 2)
    return 0 <= hours <= 14 and minutes in (0, 15, 30, 45)


# Unix times read as moments: from 2001-09-09 (10^9 s, 10^12 ms) to the start of 2100.
EPOCH_FROM_S = 1_000_000_000
EPOCH_TO_S = 4_102_444_800


def read_epoch(s: str) -> tuple[str, str] | None:
    """values.ts readEpoch: 13 digits of milliseconds or 10 digits of seconds with a fraction."""
    if len(s) == 13:
        if digits_at(s, 0, 13) < 0:
            return None
        seconds = int(s) // 1000
    elif 12 <= len(s) <= 20 and cc(s, 10) == 46:
        if digits_at(s, 0, 10) < 0 or digits_at(s, 11, len(s) - 11) < 0:
            return None
        seconds = int(s[:10])
    else:
        return None
    if seconds < EPOCH_FROM_S or seconds >= EPOCH_TO_S:
        return None
    moment = _dt.datetime.fromtimestamp(seconds, tz=_dt.timezone.utc)
    time = read_time(f"{pad2(moment.hour)}:{pad2(moment.minute)}:{pad2(moment.second)}")
    if time is None:
        return None
    return date_key(moment.year, moment.month, moment.day), time[0]


def read_time(s: str, start: int = 0) -> tuple[str, int] | None:
    i = start
    h = 0
    n = len(s)
    while i < n and is_digit(ord(s[i])) and i - start < 2:
        h = h * 10 + ord(s[i]) - 48
        i += 1
    if i == start or cc(s, i) != 58:
        return None
    minute = digits_at(s, i + 1, 2)
    if minute < 0 or minute > 59 or h > 24:
        return None
    i += 3
    sec = ""
    if cc(s, i) == 58:
        sv = digits_at(s, i + 1, 2)
        if sv < 0 or sv > 60:
            return None
        sec = pad2(sv)
        i += 3
        # A fraction of a second is read and not kept (values.ts readTime, since floorline-facts/4).
        if cc(s, i) == 46 or cc(s, i) == 44:
            j = i + 1
            while j < n and is_digit(ord(s[j])):
                j += 1
            i = j
    rest = ascii_lower(s[i:])
    if rest in ("am", "a.m", "pm", "p.m"):
        if h > 12:
            return None
        if rest.startswith("p") and h < 12:
            h += 12
        if rest.startswith("a") and h == 12:
            h = 0
        i = n
    elif cc(s, i) == 90 or cc(s, i) == 122:
        i += 1
    elif (cc(s, i) == 43 or cc(s, i) == 45) and digits_at(s, i + 1, 2) >= 0:
        i += 3
        if cc(s, i) == 58:
            i += 1
        if digits_at(s, i, 2) >= 0:
            i += 2
    key = f"t:{pad2(h)}:{pad2(minute)}{':' + sec if sec and sec != '00' else ''}"
    return key, i - start


# --- word lists (words.ts): part of the method's definition ---

GERMAN_WORDS = frozenset(
    (
        "der die das den dem des und ist sind nicht mit f\u00fcr auf ein eine einen einem einer eines zu im vom zum "
        "zur von sich wird werden wurde wurden auch nach bei oder aus durch wie nur noch bis jetzt kein keine "
        "dass wenn aber beim ins sowie"
    ).split(" ")
)

# French function words, stop words (words.ts FRENCH_WORDS).
FRENCH_WORDS = frozenset(
    (
        "le la les un une des du de au aux ce cet cette ces son sa ses notre nos votre vos leur "
        "leurs quel quelle quels quelles chaque tout tous toute toutes aucun aucune "
        "quelque quelques plusieurs autre autres m\u00eame m\u00eames \u00e0 en dans sur sous avec sans pour "
        "par entre vers chez contre depuis pendant avant apr\u00e8s selon parmi malgr\u00e9 d\u00e8s hors jusque "
        "je tu il elle on nous vous ils elles me te se lui eux moi toi soi y qui que quoi dont o\u00f9 "
        "lequel laquelle lesquels lesquelles auquel auxquels duquel celui celle ceux celles ceci cela "
        "\u00e7a et ou mais donc ni or si comme quand lorsque puisque parce quoique afin ainsi alors puis "
        "ne pas aussi tr\u00e8s d\u00e9j\u00e0 encore \u00eatre est sont suis es sommes \u00eates \u00e9tait \u00e9taient "
        "\u00e9t\u00e9 \u00e9tant sera seront serait seraient soit soient fut avoir ai as a avons avez ont avait "
        "avaient aura auront aurait eu ayant peut peuvent pourra doit doivent"
    ).split(" ")
)

# Spanish function words, stop words (words.ts SPANISH_WORDS).
SPANISH_WORDS = frozenset(
    (
        "el la los las un una unos unas lo al del este esta estos estas ese esa esos esas aquel aquella "
        "aquellos aquellas mi mis tu tus su sus nuestro nuestra nuestros nuestras cada toda todos todas "
        "otro otra otros otras mismo misma mismos mismas alg\u00fan alguna algunos algunas ning\u00fan ninguna "
        "cualquier varios varias a ante con contra de desde durante en entre hacia hasta mediante para por "
        "seg\u00fan sin sobre tras yo t\u00fa \u00e9l ella ello ellos ellas usted ustedes nosotros nosotras me te se "
        "nos os le les que qu\u00e9 quien qui\u00e9n quienes cual cu\u00e1l cuales cuyo cuya donde d\u00f3nde cuando "
        "esto eso y e o u ni pero sino porque aunque si mientras como pues no s\u00ed ya muy tambi\u00e9n m\u00e1s "
        "ser es son eran fue fueron sido siendo ser\u00e1 ser\u00e1n sean estar est\u00e1 est\u00e1n estaba estaban "
        "haber ha han hay hab\u00eda hab\u00edan puede pueden debe deben"
    ).split(" ")
)

# What French elides before a vowel (words.ts ELISIONS): "qu'il", "d'une" are stop words.
ELISIONS = frozenset("c d j l m n s t qu jusqu lorsqu puisqu quoiqu".split(" "))

# The function words of the languages the measurement tells apart (words.ts LANGUAGE_WORDS,
# since floorline-facts/4): English, German, French, Spanish.
LANGUAGE_WORDS: tuple[frozenset[str], ...] = (
    frozenset(
        (
            "the and of to is are was were with that this which from by be been it its or not for when if "
            "will can each but their these those there has have"
        ).split(" ")
    ),
    GERMAN_WORDS,
    frozenset(
        (
            "le la les et est sont des une du pour dans qui que sur pas avec ce cette ces par ou au aux il "
            "elle ne se son sa ses leur \u00eatre peut"
        ).split(" ")
    ),
    frozenset(
        (
            "el los las y del para una con por al lo como m\u00e1s pero sus su este esta estos la que se "
            "cuando tambi\u00e9n puede ser"
        ).split(" ")
    ),
)

STOP_WORDS = frozenset(
    (
        "a an the and or nor but if then else so than that this these those there here it its itself "
        "is are was were be been being am do does did done doing have has had having will would shall "
        "should can could may might must not no yes of in on at to from by for with without within into "
        "onto over under above below between among about after before during since until upon via per "
        "as like also too very just only even still yet ever never always often sometimes again further "
        "more most less least much many some any all each every both either neither few several such "
        "own same other another what which who whom whose when where why how whether while because "
        "although though however therefore thus hence i me my mine we us our ours you your yours he him "
        "his she her hers they them their theirs one ones up down out off now new old etc e.g i.e "
        "various variety topic topics thing things stuff document documents doc discuss discusses "
        "discussed discussing discussion cover covers covered covering overview summary summarize "
        "summarizes summarized summarise summarises summarised information info details detail detailed "
        "aspect aspects content contents general generally overall relevant important key main mainly "
        "related regarding include includes included including improvement improvements change changes "
        "changed update updates updated miscellaneous misc number numbers part parts section sections "
        "text period series range several certain particular specific different way ways lot lots "
        "kind kinds type types matter matters point points area areas item items well good better best "
        "make makes made get gets got give gives given take takes taken use uses used using"
    ).split(" ")
    + list(GERMAN_WORDS)
    + list(FRENCH_WORDS)
    + list(SPANISH_WORDS)
)


def _pairs(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in text.split(" "):
        colon = pair.rfind(":")
        out[pair[:colon]] = pair[colon + 1 :]
    return out


UNITS = _pairs(
    "b:b byte:b bytes:b kb:kb kib:kb kilobyte:kb kilobytes:kb mb:mb mib:mb megabyte:mb megabytes:mb "
    "gb:gb gib:gb gigabyte:gb gigabytes:gb tb:tb tib:tb terabyte:tb terabytes:tb "
    "ns:ns nanosecond:ns nanoseconds:ns us:us microsecond:us microseconds:us ms:ms msec:ms "
    "millisecond:ms milliseconds:ms s:s sec:s secs:s second:s seconds:s min:min mins:min minute:min "
    "minutes:min h:h hr:h hrs:h hour:h hours:h day:d days:d week:wk weeks:wk %:% percent:% pct:% "
    "x:x usd:usd eur:eur gbp:gbp $:usd \u20ac:eur \u00a3:gbp k:k m:m"
)
ATTACHED_ONLY_UNITS = frozenset(["s", "h", "x", "k", "m", "b", "us"])
MAGNITUDES = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
ORDINAL_SUFFIXES = frozenset(["st", "nd", "rd", "th"])
MONTHS = {k: int(v) for k, v in _pairs(
    "january:1 jan:1 february:2 feb:2 march:3 mar:3 april:4 apr:4 may:5 june:6 jun:6 july:7 jul:7 august:8 aug:8 "
    "september:9 sep:9 sept:9 october:10 oct:10 november:11 nov:11 december:12 dec:12"
).items()}
ERROR_LEVELS = frozenset(["error", "err", "fatal", "critical", "crit", "panic", "severe", "emerg", "emergency", "alert"])
LOG_LEVELS = ERROR_LEVELS | frozenset(["trace", "debug", "info", "notice", "warn", "warning"])
ERROR_OPENERS = frozenset(["error", "fatal", "panic", "traceback", "exception", "failed", "failure"])
# Since floorline-facts/4: a warning opens an entry as an error does, and a detail level (PostgreSQL's
# DETAIL, HINT, STATEMENT) continues the entry before it.
WARNING_LEVELS = frozenset(["warn", "warning"])
DETAIL_LEVELS = frozenset(["detail", "hint", "statement", "context", "query", "location"])
LEVEL_WORDS = LOG_LEVELS | DETAIL_LEVELS | frozenset(["log"])
# Numbers written as words (since floorline-facts/4): English, and the small numbers of German,
# French and Spanish, less the words that mostly mean something else.
NUMBER_WORDS = {k: int(v) for k, v in _pairs(
    "zero:0 one:1 two:2 three:3 four:4 five:5 six:6 seven:7 eight:8 nine:9 ten:10 eleven:11 "
    "twelve:12 thirteen:13 fourteen:14 fifteen:15 sixteen:16 seventeen:17 eighteen:18 "
    "nineteen:19 twenty:20 thirty:30 forty:40 fifty:50 sixty:60 seventy:70 eighty:80 ninety:90 "
    "hundred:100 dozen:12 "
    "eins:1 zwei:2 drei:3 vier:4 f\u00fcnf:5 sechs:6 sieben:7 acht:8 neun:9 zehn:10 zw\u00f6lf:12 "
    "zwanzig:20 hundert:100 tausend:1000 "
    "z\u00e9ro:0 deux:2 trois:3 quatre:4 cinq:5 huit:8 neuf:9 dix:10 douze:12 quinze:15 "
    "vingt:20 trente:30 mille:1000 "
    "cero:0 tres:3 cuatro:4 cinco:5 seis:6 siete:7 ocho:8 nueve:9 diez:10 doce:12 "
    "quince:15 veinte:20 cien:100"
).items()}
