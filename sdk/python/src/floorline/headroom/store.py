"""Floorline as Headroom's CCR store: the `CompressionStoreBackend` protocol on cached originals.

How Headroom's entry maps onto the store (docs/originals.md):
- the key stays Headroom's own (24 or 12 hex of a SHA-256, or an MD5 / BLAKE3 key), sent as
  the original's `hash` with its `hash_algorithm`, and kept as the original's `pass_id`
  (`headroom:<key>`) so that any worker can find it by that key without counting a retrieval;
- the tenant prefix is the original's `content_type` (`application/x-headroom-ccr; tenant=...`);
- original and compressed text, token and item counts, tool name and TTL are the store's own
  fields; the fields the store has no place for (tool_call_id, query_context, the TOIN hash,
  the strategy, search queries and Headroom's own access counters) are kept in this process.
The server evicts and expires by itself, so `delete` and `clear` forget locally only.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..http import Answer, Transport

log = logging.getLogger("floorline.headroom")

CONTENT_TYPE = "application/x-headroom-ccr"
KEY_PREFIX = "headroom:"
#: Headroom's CompressionEntry default TTL, for entries the server keeps without one.
HEADROOM_DEFAULT_TTL = 1800
#: After a failed call the server is not asked again for this long: Headroom's request must
#: not wait on an outage once per entry.
OUTAGE_PAUSE_SECONDS = 5.0
_HEX = frozenset("0123456789abcdef")


@dataclass
class _Local:
    """What Headroom keeps on an entry that the store has no field for."""

    digest: str
    created_at: float
    ttl: int
    tool_call_id: str | None = None
    query_context: str | None = None
    tool_signature_hash: str | None = None
    compression_strategy: str | None = None
    retrieval_count: int = 0
    search_queries: list[str] = field(default_factory=list)
    last_accessed: float | None = None


def _entry_class() -> Any:
    # Imported when called, so the SDK itself depends on nothing.
    from headroom.cache.compression_store import CompressionEntry

    return CompressionEntry


def _epoch(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def algorithm_of(key: str, original: str) -> str | None:
    """Which of Headroom's hash functions made `key` for `original`: sha256, md5, or (since
    hashlib has no BLAKE3, and the server verifies it) blake3 for any other hex key."""
    data = original.encode("utf-8")
    if hashlib.sha256(data).hexdigest().startswith(key):
        return "sha256"
    if hashlib.md5(data, usedforsecurity=False).hexdigest().startswith(key):
        return "md5"
    return "blake3"


class FloorlineCCRBackend:
    """Thread-safe; every call answers, none raises into Headroom."""

    backend_type = "floorline"

    def __init__(self, url: str = "", tenant_prefix: str = "", api_key: str | None = None, timeout: float = 3.0) -> None:
        if url and not url.startswith(("http://", "https://")):
            # Headroom hands over HEADROOM_REDIS_URL, which is a redis:// URL when one is set for
            # its other backends; Floorline is found from FLOORLINE_URL then.
            log.info("floorline: ignoring the non-HTTP store URL Headroom passed; using FLOORLINE_URL")
            url = ""
        self.url = url or os.environ.get("FLOORLINE_URL") or "http://127.0.0.1:3000"
        self.tenant_prefix = tenant_prefix or ""
        self.content_type = CONTENT_TYPE + (f"; tenant={self.tenant_prefix}" if self.tenant_prefix else "")
        self._http = Transport(self.url, api_key if api_key is not None else os.environ.get("FLOORLINE_API_KEY") or None, timeout)
        self._lock = threading.Lock()
        self._local: dict[str, _Local] = {}
        self._down_until = 0.0
        self._last_problem = ""

    # -- plumbing ---------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None) -> Answer | None:
        """None when the server could not be reached (and for a moment after that)."""
        if time.monotonic() < self._down_until:
            return None
        answer = self._http.request(method, path, body, query)
        if answer.status == 0 or answer.status == 503 or answer.status >= 500:
            self._down_until = time.monotonic() + OUTAGE_PAUSE_SECONDS
            self._last_problem = answer.error_message()
            log.warning("floorline: CCR store unreachable (%s)", self._last_problem)
            return None
        return answer

    @staticmethod
    def _norm(hash_key: str) -> str | None:
        key = hash_key.strip().lower() if isinstance(hash_key, str) else ""
        return key if len(key) >= 12 and set(key) <= _HEX else None

    def _find(self, key: str) -> dict[str, Any] | None | bool:
        """The store's summary of this tenant's entry under `key`, without counting a retrieval;
        None when there is none, False when the server could not be asked."""
        answer = self._call("GET", "/api/v1/originals", query={"q": key, "content_type": self.content_type, "limit": 10})
        if answer is None or not answer.ok or not isinstance(answer.body, dict):
            return False
        for item in answer.body.get("items") or []:
            if item.get("pass_id") == KEY_PREFIX + key or str(item.get("hash", "")).startswith(key):
                return item
        return None

    def _summaries(self) -> list[dict[str, Any]] | None:
        """Every live entry of this tenant, page by page; None when the server could not be asked."""
        items: list[dict[str, Any]] = []
        cursor = None
        while True:
            answer = self._call("GET", "/api/v1/originals", query={"content_type": self.content_type, "status": "live", "limit": 500, "cursor": cursor})
            if answer is None or not answer.ok or not isinstance(answer.body, dict):
                return None
            items.extend(answer.body.get("items") or [])
            cursor = answer.body.get("next_cursor")
            if not cursor:
                return items

    @staticmethod
    def _key_of(summary: dict[str, Any]) -> str:
        pass_id = summary.get("pass_id") or ""
        return pass_id[len(KEY_PREFIX) :] if pass_id.startswith(KEY_PREFIX) else str(summary["hash"])[:24]

    def _entry(self, key: str, summary: dict[str, Any], original: str, compressed: str) -> Any:
        with self._lock:
            local = self._local.get(key)
        created = local.created_at if local else (_epoch(summary.get("created_at")) or time.time())
        ttl = local.ttl if local else (summary.get("ttl_seconds") or HEADROOM_DEFAULT_TTL)
        return _entry_class()(
            hash=key,
            original_content=original,
            compressed_content=compressed,
            original_tokens=summary.get("original_tokens") or 0,
            compressed_tokens=summary.get("compressed_tokens") or 0,
            original_item_count=summary.get("original_items") or 0,
            compressed_item_count=summary.get("compressed_items") or 0,
            tool_name=summary.get("tool_name"),
            tool_call_id=local.tool_call_id if local else None,
            query_context=local.query_context if local else None,
            created_at=created,
            ttl=ttl,
            tool_signature_hash=local.tool_signature_hash if local else None,
            compression_strategy=local.compression_strategy if local else None,
            retrieval_count=local.retrieval_count if local else int(summary.get("retrieval_count") or 0),
            search_queries=list(local.search_queries) if local else [],
            last_accessed=local.last_accessed if local else _epoch(summary.get("last_retrieved_at")),
        )

    def _compressed(self, summary: dict[str, Any]) -> str | None:
        if summary.get("compressed_size_bytes") is None:
            return ""
        # The detail page's reader: whole texts, not counted as a retrieval.
        path = f"/originals/{summary['hash']}/content"
        answer = self._call("GET", path, query={"part": "compressed"})
        if answer is None or not answer.ok:
            return None
        return answer.body if isinstance(answer.body, str) else None

    # -- CompressionStoreBackend ------------------------------------------------------------

    def get(self, hash_key: str) -> Any:
        try:
            key = self._norm(hash_key)
            if key is None:
                return None
            summary = self._find(key)
            if not summary:
                return None
            # The retrieval itself, counted by the server (a gone entry counts its miss and why).
            answer = self._call("GET", f"/api/v1/originals/{urllib.parse.quote(key)}")
            if answer is None or not answer.ok or not isinstance(answer.body, dict):
                return None
            compressed = self._compressed(answer.body)
            if compressed is None:
                return None
            return self._entry(key, answer.body, str(answer.body.get("original", "")), compressed)
        except Exception:  # noqa: BLE001 - a miss, never an exception into Headroom
            log.exception("floorline: CCR get failed")
            return None

    def set(self, hash_key: str, entry: Any) -> None:
        try:
            key = self._norm(hash_key)
            original = entry.original_content
            digest = hashlib.sha256(original.encode("utf-8")).hexdigest()
            local = _Local(
                digest, entry.created_at, int(entry.ttl), entry.tool_call_id, entry.query_context,
                entry.tool_signature_hash, entry.compression_strategy, int(entry.retrieval_count),
                list(entry.search_queries), entry.last_accessed,
            )
            with self._lock:
                known = self._local.get(key) if key else None
                if key:
                    self._local[key] = local
            if key is None:
                log.warning("floorline: Headroom key %r is not 12+ hex; the store cannot keep it", hash_key)
                return
            if known is not None and known.digest == digest and known.created_at == local.created_at:
                # Headroom writes an entry back after each retrieval to count it; the store counts
                # retrievals itself, and storing again would push its expiry later.
                return
            body: dict[str, Any] = {
                "original": original,
                "compressed": entry.compressed_content,
                "hash": key,
                "pass_id": KEY_PREFIX + key,
                "content_type": self.content_type,
                "original_tokens": entry.original_tokens,
                "compressed_tokens": entry.compressed_tokens,
                "original_items": entry.original_item_count,
                "compressed_items": entry.compressed_item_count,
                "ttl_seconds": int(entry.ttl),
            }
            if entry.tool_name:
                body["tool_name"] = entry.tool_name
            algorithm = algorithm_of(key, original)
            if algorithm != "sha256":
                body["hash_algorithm"] = algorithm
            answer = self._call("POST", "/api/v1/originals", body)
            if answer is None:
                log.warning("floorline: CCR entry %s not stored: the store is unreachable", key)
            elif not answer.ok:
                log.warning("floorline: CCR entry %s refused: %s", key, answer.error_message())
        except Exception:  # noqa: BLE001 - logged, never raised into Headroom
            log.exception("floorline: CCR set failed")

    def delete(self, hash_key: str) -> bool:
        # The store has no deletion for originals; Floorline evicts and expires them itself.
        key = self._norm(hash_key)
        with self._lock:
            return key is not None and self._local.pop(key, None) is not None

    def exists(self, hash_key: str) -> bool:
        try:
            key = self._norm(hash_key)
            if key is None:
                return False
            summary = self._find(key)
            return bool(summary) and summary.get("status") == "live"
        except Exception:  # noqa: BLE001
            log.exception("floorline: CCR exists failed")
            return False

    def clear(self) -> None:
        with self._lock:
            self._local.clear()
        log.info("floorline: CCR clear forgets this process's entry details; the store keeps its originals")

    def count(self) -> int:
        return len(self._summaries() or [])

    def keys(self) -> list[str]:
        return [self._key_of(s) for s in self._summaries() or []]

    def items(self) -> list[tuple[str, Any]]:
        """Every entry with its details, without the texts: Headroom reads items() for expiry,
        eviction order and totals on each store, and the texts stay on the server (get() has them)."""
        try:
            return [(self._key_of(s), self._entry(self._key_of(s), s, "", "")) for s in self._summaries() or []]
        except Exception:  # noqa: BLE001
            log.exception("floorline: CCR items failed")
            return []

    def get_stats(self) -> dict[str, Any]:
        summaries = self._summaries()
        return {
            "backend_type": self.backend_type,
            "entry_count": len(summaries or []),
            "bytes_used": sum(s.get("size_bytes", 0) + (s.get("compressed_size_bytes") or 0) for s in summaries or []),
            "connection_status": "connected" if summaries is not None else f"unreachable: {self._last_problem}",
            "url": self.url,
            "tenant_prefix": self.tenant_prefix,
        }


def create_ccr_backend(url: str = "", tenant_prefix: str = "", **kwargs: Any) -> FloorlineCCRBackend:
    """The `headroom.ccr_backend` entry point: Headroom calls it with url and tenant_prefix."""
    return FloorlineCCRBackend(url=url, tenant_prefix=tenant_prefix, **kwargs)
