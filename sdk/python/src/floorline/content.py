"""Parseability and schema validity of a pass's output, as the server's content checks judge them."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any, Sequence

FORMATS = ("json", "base64", "text", "any")
# The server's strict base64: standard alphabet, whole quanta, padding only at the end.
_BASE64_STRICT = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_MISSING = object()


def _reject_constant(name: str) -> Any:
    # JavaScript's JSON.parse refuses NaN and Infinity; so must we, to agree with the server.
    raise ValueError(f"{name} is not JSON")


def parse_json(text: str) -> Any:
    """The parsed value, or _MISSING when the text is not JSON."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return _MISSING


def _holds(value: Any, segments: Sequence[str]) -> bool:
    if not segments:
        return True
    head = segments[0]
    if isinstance(value, list):
        if head.isascii() and head.isdigit():
            index = int(head)
            return index < len(value) and _holds(value[index], segments[1:])
        return all(_holds(item, segments) for item in value)
    return isinstance(value, dict) and head in value and _holds(value[head], segments[1:])


def check(content: str, format: str = "any", required_fields: Sequence[str] = (), decoded_format: str | None = None) -> tuple[bool, bool]:
    """(parseable, schema_valid) of content in a policy's format, with its required dot paths
    (through an array a path must hold for every item)."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    text: str | None = content
    if format == "base64":
        if not _BASE64_STRICT.fullmatch(content):
            return False, False
        inner = decoded_format or "any"
        if inner == "any":
            text = None
        else:
            try:
                text = base64.b64decode(content, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                return False, False
            format = inner
    parsed = _MISSING if text is None else parse_json(text)
    if format == "json" and parsed is _MISSING:
        return False, False
    if not required_fields:
        return True, True
    if parsed is _MISSING:
        return True, False
    return True, all(_holds(parsed, field.split(".")) for field in required_fields)
