"""Checks at the SDK's surface, so a wrong argument fails at the call that passed it, naming it,
rather than deep inside hashing or as a 422 from the server long after. A wrong type is a
TypeError, a value out of its range a ValueError; the TypeScript SDK words the same checks the
same way (TypeError and RangeError)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

STRATEGIES = ("halt", "restore", "accept_loss")
MAX_ID = 256


def kind_of(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def utf16_length(text: str) -> int:
    """The server's length of a string (JavaScript's), where a character past U+FFFF counts twice."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def require_str(where: str, name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where}: {name} must be a str, not {kind_of(value)}")
    return value


def require_id(where: str, name: str, value: Any) -> str:
    text = require_str(where, name, value)
    length = utf16_length(text)
    if not 1 <= length <= MAX_ID:
        raise ValueError(f"{where}: {name} must be 1 to {MAX_ID} characters, not {length}")
    return text


def optional_density(where: str, name: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where}: {name} must be a number, not {kind_of(value)}")
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise ValueError(f"{where}: {name} must be from 0 to 1, not {value}")
    return value


def optional_count(where: str, name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where}: {name} must be an int, not {kind_of(value)}")
    if not 0 <= value <= 2**53 - 1:
        raise ValueError(f"{where}: {name} must be a whole number of 0 or more, not {value}")
    return value


def optional_mapping(where: str, name: str, value: Any) -> Mapping[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"{where}: {name} must be a mapping, not {kind_of(value)}")
    return value


def require_strategy(where: str, name: str, value: Any) -> str:
    strategy = require_str(where, name, value)
    if strategy not in STRATEGIES:
        raise ValueError(f'{where}: {name} must be "halt", "restore" or "accept_loss", not "{strategy}"')
    return strategy
