"""What the SDKs name and mark the same way, byte for byte, so that one piece of work recorded
from Python or from TypeScript makes the same receipts (sdk/typescript/src/ids.ts)."""

from __future__ import annotations

import json
from typing import Any, Sequence

from ._args import MAX_ID, utf16_length
from .content import parse_json, _MISSING
from .guard import sha256_hex

#: Headroom's markers carry the first 24 hex of the SHA-256; so do ours.
MARKER_KEY_LENGTH = 24


def pass_id_for(chain_id: str, number: int) -> str:
    """`<chain id>.p<n>`: unique across chains, so a pass is findable by its id alone. A chain id
    too long to leave room for the suffix is replaced by the first 24 hex of its SHA-256."""
    pass_id = f"{chain_id}.p{number}"
    return pass_id if utf16_length(pass_id) <= MAX_ID else f"{sha256_hex(chain_id)[:24]}.p{number}"


def trace_id_for(wire_nodes: Sequence[dict[str, Any]]) -> str:
    """A trace named by its nodes (the wire's four fields each): a resend or a rerun of the same
    nodes is a repeat, not a second trace."""
    return "trace-" + sha256_hex(json.dumps(list(wire_nodes), sort_keys=True))[:24]


def format_marker(key: str, original_items: int | None = None, compressed_items: int | None = None) -> str:
    if original_items is not None and compressed_items is not None:
        return f"[{original_items} items compressed to {compressed_items}. Retrieve more: hash={key}]"
    return f"[Content compressed. Retrieve more: hash={key}]"


_JSON_SPACE = " \t\n\r"


def with_marker(output: str, marker: str) -> str:
    """The output with its CCR marker, still in its format: JSON stays JSON (a `_ccr` field of an
    object, a last item of an array), written into the text as it is so the compressor's bytes
    are kept; anything else gets the marker on a line of its own."""
    head = output.lstrip(_JSON_SPACE)[:1]
    if head in ("{", "["):
        value = parse_json(output)
        if value is not _MISSING and isinstance(value, (dict, list)):
            end = len(output.rstrip(_JSON_SPACE)) - 1
            # The marker's characters need no escaping in a JSON string.
            item = f'"{marker}"' if isinstance(value, list) else f'"_ccr":"{marker}"'
            return f"{output[:end]}{'' if not value else ','}{item}{output[end:]}"
    return f"{output}\n{marker}"
