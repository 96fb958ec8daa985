"""Floorline as Headroom's CCR store: the `CompressionStoreBackend` protocol on cached originals.
Long because the protocol is one class of many small calls, each mapping an entry both ways.

How Headroom's entry maps onto the store (docs/headroom.md):
- the key stays Headroom's own (24 or 12 hex of a SHA-256, or an MD5 / BLAKE3 key), sent as
  the original's `hash` with its `hash_algorithm`;
- the tenant is `headroom`, or `headroom:<prefix>` with a tenant prefix: Headroom's entries
  never mix with an agent's own originals, and `clear()` empties only its own tenant;
- original and compressed text, token and item counts, tool name and TTL are the store's own
  fields; the rest of the entry (its key, created_at, tool_call_id, query_context, the TOIN
  hash, the strategy, search queries and the access counters) rides in the entry's metadata,
  so every worker reads the same entry back.
Headroom reads its backend far more often than it retrieves (a collision check on every
store, a read-back after every retrieval), so `get` is a peek that counts nothing; the
retrieval is counted when Headroom writes the entry back to record the access.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
import urllib.parse
from collections import OrderedDict
from dataclasses import replace
from datetime import datetime
from typing import Any

from ..http import Answer, Transport

log = logging.getLogger("floorline.headroom")

TENANT = "headroom"
#: The TTL Headroom sees on an entry the store keeps without one: about 100 years.
NO_TTL = 100 * 365 * 24 * 3600
#: After a failed call the server is not asked again for this long: Headroom's request must
#: not wait on an outage once per entry.
OUTAGE_PAUSE_SECONDS = 5.0
#: How long a call waits for Floorline unless told otherwise (FLOORLINE_CCR_TIMEOUT).
DEFAULT_TIMEOUT_SECONDS = 3.0
#: The server keeps at most 16 KiB of metadata per entry; Headroom's free text is cut to fit.
METADATA_BUDGET = 15 * 1024
#: Entries read in this process whose write-back would be a retrieval (Headroom's retrieve()
#: reads, then writes back in the same call): bounded, oldest forgotten first.
MAX_REMEMBERED = 4096
#: Headroom lists every entry (items(), count()) on every store, for an expiry sweep the
#: server does by itself: the listing is kept this long, with this process's own changes
#: applied to it, so a store costs its own calls rather than a listing of the whole tenant.
LISTING_SECONDS = 2.0
_HEX = frozenset("0123456789abcdef")
#: The entry's fields the store has no column for, kept in its metadata.
_META_FIELDS = (
    "created_at", "ttl", "tool_call_id", "query_context", "tool_signature_hash",
    "compression_strategy", "retrieval_count", "search_queries", "last_accessed",
)


def _entry_class() -> Any:
    # Imported when called, so the SDK itself depends on nothing.
    from headroom.cache.compression_store import CompressionEntry

    return CompressionEntry


def algorithm_of(key: str, original: str) -> str:
    """Which of Headroom's hash functions made `key` for `original`: sha256, md5, or (since
    hashlib has no BLAKE3, and the server verifies it) blake3 for any other hex key."""
    data = original.encode("utf-8")
    if hashlib.sha256(data).hexdigest().startswith(key):
        return "sha256"
    if hashlib.md5(data, usedforsecurity=False).hexdigest().startswith(key):
        return "md5"
    return "blake3"


def _epoch(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _cut(text: str | None, max_bytes: int) -> str | None:
    if text is None:
        return None
    data = text.encode("utf-8")
    return text if len(data) <= max_bytes else data[:max_bytes].decode("utf-8", "ignore")


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def metadata_of(key: str, entry: Any) -> dict[str, Any]:
    """The entry's fields beyond the store's columns, within the server's 16 KiB: free text
    (query context, search queries) is cut, oldest queries first, until it fits."""
    meta: dict[str, Any] = {"key": key, **{name: getattr(entry, name) for name in _META_FIELDS}}
    meta["search_queries"] = list(meta["search_queries"] or [])
    meta["query_context"] = _cut(meta["query_context"], 4096)
    for name in ("tool_call_id", "tool_signature_hash", "compression_strategy"):
        meta[name] = _cut(meta[name], 512)
    while _size(meta) > METADATA_BUDGET and meta["search_queries"]:
        meta["search_queries"].pop(0)
    if _size(meta) > METADATA_BUDGET:
        meta["query_context"] = _cut(meta["query_context"], 1024)
    return meta


def _timeout(given: float | None) -> float:
    """Seconds a call waits: the argument, else FLOORLINE_CCR_TIMEOUT (Headroom's entry point passes
    no timeout, so a proxy far from its Floorline sets it there), else 3. Every call of Headroom's
    waits on it, so it stays short unless an operator says otherwise."""
    if given is not None:
        return given
    raw = os.environ.get("FLOORLINE_CCR_TIMEOUT", "")
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT_SECONDS
    except ValueError:
        value = -1.0
    if not 0 < value <= 600:
        log.warning("floorline: FLOORLINE_CCR_TIMEOUT=%r is not a number of seconds in (0, 600]; using %s", raw, DEFAULT_TIMEOUT_SECONDS)
        return DEFAULT_TIMEOUT_SECONDS
    return value


class FloorlineCCRBackend:
    """Thread-safe; every call answers, none raises into Headroom."""

    backend_type = "floorline"

    def __init__(self, url: str = "", tenant_prefix: str = "", api_key: str | None = None, timeout: float | None = None) -> None:
        if url and not url.startswith(("http://", "https://")):
            # Headroom hands over HEADROOM_REDIS_URL, which is a redis:// URL when one is set for
            # its other backends; Floorline is found from FLOORLINE_URL then.
            log.info("floorline: ignoring the non-HTTP store URL Headroom passed; using FLOORLINE_URL")
            url = ""
        self.url = url or os.environ.get("FLOORLINE_URL") or "http://127.0.0.1:3000"
        self.tenant_prefix = tenant_prefix or ""
        self.tenant = f"{TENANT}:{self.tenant_prefix}"[:128] if self.tenant_prefix else TENANT
        self._http = Transport(self.url, api_key if api_key is not None else os.environ.get("FLOORLINE_API_KEY") or None, _timeout(timeout))
        self._lock = threading.Lock()
        self._read: OrderedDict[str, tuple[float, int]] = OrderedDict()
        self._listing: dict[str, Any] | None = None
        self._listed_at = 0.0
        self._down_until = 0.0
        self._delete_refusal_noted = False
        self._last_problem = ""

    # -- plumbing ---------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None) -> Answer | None:
        """None when the server could not be reached (and for a moment after that)."""
        if time.monotonic() < self._down_until:
            return None
        answer = self._http.request(method, path, body, query)
        if answer.status == 0 or answer.status >= 500:
            self._down_until = time.monotonic() + OUTAGE_PAUSE_SECONDS
            self._last_problem = answer.error_message()
            log.warning("floorline: CCR store unreachable (%s)", self._last_problem)
            return None
        if answer.status == 403 and method == "DELETE":
            # Deletions are admin on Floorline; an ingest/read key's refusals are expected and
            # Floorline's own budget and TTL bound the store, so say it once, not per delete.
            if not self._delete_refusal_noted:
                self._delete_refusal_noted = True
                log.info("floorline: CCR deletes refused (%s); they need a key with admin", answer.error_message())
        elif answer.status in (401, 403):
            log.warning("floorline: CCR store refused the key (%s); set FLOORLINE_API_KEY", answer.error_message())
        return answer

    @staticmethod
    def _norm(hash_key: Any) -> str | None:
        key = hash_key.strip().lower() if isinstance(hash_key, str) else ""
        return key if 12 <= len(key) <= 64 and set(key) <= _HEX else None

    @staticmethod
    def _path(key: str, tail: str = "") -> str:
        return f"/api/v1/originals/{urllib.parse.quote(key)}{tail}"

    def _remember(self, key: str, entry: Any) -> None:
        with self._lock:
            self._read[key] = (entry.created_at, entry.retrieval_count)
            self._read.move_to_end(key)
            while len(self._read) > MAX_REMEMBERED:
                self._read.popitem(last=False)

    def _entry(self, item: dict[str, Any], original: str, compressed: str) -> tuple[str, Any]:
        meta = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
        key = meta.get("key") if isinstance(meta.get("key"), str) else str(item["hash"])[:24]
        # An entry stored by another client has no metadata: the store's own times then.
        created = meta.get("created_at")
        if not isinstance(created, (int, float)):
            created = _epoch(item.get("created_at")) or time.time()
        ttl = meta.get("ttl")
        if not isinstance(ttl, int):
            ttl = item.get("ttl_seconds") or NO_TTL
        return key, _entry_class()(
            hash=key,
            original_content=original,
            compressed_content=compressed,
            original_tokens=item.get("original_tokens") or 0,
            compressed_tokens=item.get("compressed_tokens") or 0,
            original_item_count=item.get("original_items") or 0,
            compressed_item_count=item.get("compressed_items") or 0,
            tool_name=item.get("tool_name"),
            tool_call_id=meta.get("tool_call_id"),
            query_context=meta.get("query_context"),
            created_at=created,
            ttl=ttl,
            tool_signature_hash=meta.get("tool_signature_hash"),
            compression_strategy=meta.get("compression_strategy"),
            retrieval_count=int(meta.get("retrieval_count") or 0),
            search_queries=list(meta.get("search_queries") or []),
            last_accessed=meta.get("last_accessed"),
        )

    def _live(self) -> list[dict[str, Any]] | None:
        """This tenant's live entries (summaries and metadata, no texts); None when the server
        could not be asked."""
        items: list[dict[str, Any]] = []
        cursor = None
        while True:
            query = {"tenant": self.tenant, "status": "live", "limit": 500, "cursor": cursor}
            answer = self._call("GET", "/api/v1/originals", query=query)
            if answer is None or not answer.ok or not isinstance(answer.body, dict):
                return None
            items.extend(answer.body.get("items") or [])
            cursor = answer.body.get("next_cursor")
            if not cursor:
                return items

    def _listed(self) -> dict[str, Any] | None:
        """This tenant's live entries by key, without texts, from the last listing while it is
        fresh; None when the server could not be asked."""
        with self._lock:
            if self._listing is not None and time.monotonic() - self._listed_at < LISTING_SECONDS:
                return dict(self._listing)
        live = self._live()
        if live is None:
            return None
        listing = dict(self._entry(item, "", "") for item in live)
        with self._lock:
            self._listing, self._listed_at = listing, time.monotonic()
        return dict(listing)

    def _note(self, key: str, entry: Any | None) -> None:
        """This process's own change, applied to the kept listing."""
        with self._lock:
            if self._listing is None:
                return
            if entry is None:
                self._listing.pop(key, None)
            else:
                self._listing[key] = entry

    def _counted(self) -> dict[str, Any] | None:
        answer = self._call("GET", "/api/v1/originals/count", query={"tenant": self.tenant, "status": "live"})
        return answer.body if answer is not None and answer.ok and isinstance(answer.body, dict) else None

    # -- CompressionStoreBackend ------------------------------------------------------------

    def get(self, hash_key: str) -> Any:
        """The whole entry, or None (unknown, gone, unreachable). Counts nothing."""
        try:
            key = self._norm(hash_key)
            if key is None:
                return None
            answer = self._call("GET", self._path(key), query={"peek": 1, "tenant": self.tenant})
            if answer is None or not answer.ok or not isinstance(answer.body, dict):
                return None
            _, entry = self._entry(answer.body, str(answer.body.get("original", "")), answer.body.get("compressed") or "")
            self._remember(key, entry)
            return entry
        except Exception:  # noqa: BLE001 - a miss, never an exception into Headroom
            log.exception("floorline: CCR get failed")
            return None

    def set(self, hash_key: str, entry: Any) -> None:
        try:
            key = self._norm(hash_key)
            if key is None:
                log.warning("floorline: Headroom key %r is not 12-64 hex; the store cannot keep it", hash_key)
                return
            meta = metadata_of(key, entry)
            with self._lock:
                read = self._read.pop(key, None)
            if read is not None and read[0] == entry.created_at and entry.retrieval_count == read[1] + 1:
                # Headroom's retrieve() writing back the access it just recorded: a retrieval.
                answer = self._call("POST", self._path(key, "/retrievals"), {"tenant": self.tenant, "metadata": meta})
                if answer is not None and answer.ok:
                    self._note(key, replace(entry, original_content="", compressed_content=""))
                if answer is None or answer.ok:
                    return
                # Gone since the read: store it again, as Headroom's own backends would.
            self._store(key, entry, meta)
        except Exception:  # noqa: BLE001 - logged, never raised into Headroom
            log.exception("floorline: CCR set failed")

    def _store(self, key: str, entry: Any, meta: dict[str, Any]) -> None:
        original = entry.original_content
        body: dict[str, Any] = {
            "original": original,
            "compressed": entry.compressed_content,
            "hash": key,
            "tenant": self.tenant,
            "metadata": meta,
            "ttl_seconds": max(0, int(entry.ttl)),
        }
        # Headroom's 0 is "not counted": sent as absent, the store estimates tokens from bytes
        # and writes no "0 items" marker; either way the entry reads back as 0.
        counts = {
            "original_tokens": entry.original_tokens,
            "compressed_tokens": entry.compressed_tokens,
            "original_items": entry.original_item_count,
            "compressed_items": entry.compressed_item_count,
        }
        body.update({name: value for name, value in counts.items() if value})
        if entry.tool_name:
            body["tool_name"] = _cut(entry.tool_name, 256)
        algorithm = algorithm_of(key, original)
        if algorithm != "sha256":
            body["hash_algorithm"] = algorithm
        answer = self._call("POST", "/api/v1/originals", body)
        if answer is not None and answer.ok:
            self._note(key, replace(entry, original_content="", compressed_content=""))
        if answer is None:
            log.warning("floorline: CCR entry %s not stored: the store is unreachable", key)
        elif not answer.ok:
            log.warning("floorline: CCR entry %s refused: %s", key, answer.error_message())

    def delete(self, hash_key: str) -> bool:
        try:
            key = self._norm(hash_key)
            if key is None:
                return False
            with self._lock:
                self._read.pop(key, None)
            answer = self._call("DELETE", self._path(key), query={"tenant": self.tenant})
            if answer is not None and answer.status in (200, 404):
                self._note(key, None)
            return bool(answer is not None and answer.ok and isinstance(answer.body, dict) and answer.body.get("deleted"))
        except Exception:  # noqa: BLE001
            log.exception("floorline: CCR delete failed")
            return False

    def exists(self, hash_key: str) -> bool:
        try:
            key = self._norm(hash_key)
            if key is None:
                return False
            answer = self._call("GET", "/api/v1/originals/count", query={"tenant": self.tenant, "key": key, "status": "live"})
            return bool(answer is not None and answer.ok and isinstance(answer.body, dict) and answer.body.get("count"))
        except Exception:  # noqa: BLE001
            log.exception("floorline: CCR exists failed")
            return False

    def clear(self) -> None:
        try:
            with self._lock:
                self._read.clear()
            answer = self._call("DELETE", "/api/v1/originals", query={"tenant": self.tenant})
            with self._lock:
                self._listing = {} if answer is not None and answer.ok else None
                self._listed_at = time.monotonic()
            if answer is not None and not answer.ok:
                log.warning("floorline: CCR clear refused: %s", answer.error_message())
        except Exception:  # noqa: BLE001
            log.exception("floorline: CCR clear failed")

    def count(self) -> int:
        with self._lock:
            if self._listing is not None and time.monotonic() - self._listed_at < LISTING_SECONDS:
                return len(self._listing)
        counted = self._counted()
        return int(counted.get("count") or 0) if counted else 0

    def keys(self) -> list[str]:
        try:
            return list(self._listed() or {})
        except Exception:  # noqa: BLE001
            log.exception("floorline: CCR keys failed")
            return []

    def items(self) -> list[tuple[str, Any]]:
        """Every live entry with its fields and counters but not its texts: Headroom reads
        items() on every store (for expiry) and for its totals, never for the texts, which
        stay on the server (get() has them). A listing is kept for LISTING_SECONDS, with this
        process's own stores and deletes applied: another worker's show after that."""
        try:
            return list((self._listed() or {}).items())
        except Exception:  # noqa: BLE001
            log.exception("floorline: CCR items failed")
            return []

    def get_stats(self) -> dict[str, Any]:
        counted = self._counted()
        return {
            "backend_type": self.backend_type,
            "entry_count": int(counted.get("count") or 0) if counted else 0,
            "bytes_used": int(counted.get("bytes") or 0) if counted else 0,
            "connection_status": "connected" if counted is not None else f"unreachable: {self._last_problem}",
            "url": self.url,
            "tenant": self.tenant,
        }


def create_ccr_backend(url: str = "", tenant_prefix: str = "", **kwargs: Any) -> FloorlineCCRBackend:
    """The `headroom.ccr_backend` entry point: Headroom calls it with url and tenant_prefix."""
    return FloorlineCCRBackend(url=url, tenant_prefix=tenant_prefix, **kwargs)
