# Stand-in (see headroom/__init__.py): CompressionEntry with Headroom's fields and defaults, and
# a CompressionStore that calls its backend exactly where Headroom's does:
# - store(): the pending feedback first (a backend.get per queued retrieval event), then under
#   the lock the expiry sweep (items(), delete() of each expired), the capacity loop
#   (count() >= max_entries: pop the oldest of this process's heap, get(), delete()), the
#   collision check (get()), and set();
# - retrieve(): get(); delete() when expired; record_access() and set() (the write-back that
#   counts the access); then the feedback (get() again);
# - get_metadata(), exists(), get_entry_status(): get() (delete() only when asked to clean);
# - get_stats(): the sweep, items(), the backend's get_stats() and count(); clear(): clear().
# Plus the env-driven backend loader with its entry-point group and factory kwargs.
from __future__ import annotations

import hashlib
import heapq
import logging
import os
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

logger = logging.getLogger(__name__)

DEFAULT_CCR_TTL_SECONDS = 1800
CCR_TTL_SECONDS_ENV = "HEADROOM_CCR_TTL_SECONDS"


@dataclass
class CompressionEntry:
    hash: str
    original_content: str
    compressed_content: str
    original_tokens: int
    compressed_tokens: int
    original_item_count: int
    compressed_item_count: int
    tool_name: str | None
    tool_call_id: str | None
    query_context: str | None
    created_at: float
    ttl: int = DEFAULT_CCR_TTL_SECONDS
    tool_signature_hash: str | None = None
    compression_strategy: str | None = None
    retrieval_count: int = 0
    search_queries: list[str] = field(default_factory=list)
    last_accessed: float | None = None

    def is_expired(self) -> bool:
        return time.time() - self.created_at > self.ttl

    def record_access(self, query: str | None = None) -> None:
        self.retrieval_count += 1
        self.last_accessed = time.time()
        if query and query not in self.search_queries:
            self.search_queries.append(query)
            if len(self.search_queries) > 10:
                self.search_queries = self.search_queries[-10:]


@dataclass
class RetrievalEvent:
    hash: str
    query: str | None
    items_retrieved: int
    total_items: int
    tool_name: str | None
    timestamp: float
    retrieval_type: str
    tool_signature_hash: str | None = None


class CompressionStore:
    def __init__(self, max_entries: int = 1000, default_ttl: int = DEFAULT_CCR_TTL_SECONDS,
                 enable_feedback: bool = True, backend: Any = None) -> None:
        from .backends import InMemoryBackend

        self._backend = backend or InMemoryBackend()
        self._lock = threading.Lock()
        self._max_entries = max_entries
        self._default_ttl = default_ttl
        self._enable_feedback = enable_feedback
        self._retrieval_events: list[RetrievalEvent] = []
        self._pending_feedback_events: list[RetrievalEvent] = []
        self._eviction_heap: list[tuple[float, str]] = []
        self._stale_heap_entries = 0

    @property
    def default_ttl_seconds(self) -> int:
        return self._default_ttl

    def store(self, original: str, compressed: str, *, original_tokens: int = 0, compressed_tokens: int = 0,
              original_item_count: int = 0, compressed_item_count: int = 0, tool_name: str | None = None,
              tool_call_id: str | None = None, query_context: str | None = None,
              tool_signature_hash: str | None = None, compression_strategy: str | None = None,
              ttl: int | None = None, explicit_hash: str | None = None) -> str:
        if explicit_hash is not None:
            if not explicit_hash or any(c not in "0123456789abcdefABCDEF" for c in explicit_hash):
                raise ValueError(f"explicit_hash must be a non-empty hex string, got {explicit_hash!r}")
            hash_key = explicit_hash.lower()
        else:
            hash_key = hashlib.sha256(original.encode()).hexdigest()[:24]
        entry = CompressionEntry(
            hash=hash_key, original_content=original, compressed_content=compressed,
            original_tokens=original_tokens, compressed_tokens=compressed_tokens,
            original_item_count=original_item_count, compressed_item_count=compressed_item_count,
            tool_name=tool_name, tool_call_id=tool_call_id, query_context=query_context,
            created_at=time.time(), ttl=ttl if ttl is not None else self._default_ttl,
            tool_signature_hash=tool_signature_hash, compression_strategy=compression_strategy,
        )
        if self._enable_feedback:
            self.process_pending_feedback()
        with self._lock:
            self._evict_if_needed()
            existing = self._backend.get(hash_key)
            if existing is not None:
                if existing.original_content != original:
                    logger.warning("Hash collision detected: hash=%s", hash_key)
                self._stale_heap_entries += 1
            self._backend.set(hash_key, entry)
            heapq.heappush(self._eviction_heap, (entry.created_at, hash_key))
        return hash_key

    def retrieve(self, hash_key: str, query: str | None = None) -> CompressionEntry | None:
        with self._lock:
            entry = self._backend.get(hash_key)
            if entry is None:
                return None
            if entry.is_expired():
                self._backend.delete(hash_key)
                self._stale_heap_entries += 1
                return None
            entry.record_access(query)
            self._backend.set(hash_key, entry)
            if self._enable_feedback:
                self._log_retrieval(hash_key, query, entry.original_item_count, entry.original_item_count,
                                    entry.tool_name, "full", entry.tool_signature_hash)
            result = replace(entry, search_queries=list(entry.search_queries))
        if self._enable_feedback:
            self.process_pending_feedback()
        return result

    def get_metadata(self, hash_key: str) -> dict[str, Any] | None:
        with self._lock:
            entry = self._backend.get(hash_key)
            if entry is None:
                return None
            if entry.is_expired():
                self._backend.delete(hash_key)
                self._stale_heap_entries += 1
                return None
            return {
                "hash": entry.hash, "tool_name": entry.tool_name,
                "original_item_count": entry.original_item_count,
                "compressed_item_count": entry.compressed_item_count,
                "query_context": entry.query_context, "compressed_content": entry.compressed_content,
                "created_at": entry.created_at, "ttl": entry.ttl,
            }

    def exists(self, hash_key: str, clean_expired: bool = False) -> bool:
        with self._lock:
            entry = self._backend.get(hash_key)
            if entry is None:
                return False
            if entry.is_expired():
                if clean_expired:
                    self._backend.delete(hash_key)
                    self._stale_heap_entries += 1
                return False
            return True

    def get_entry_status(self, hash_key: str, *, clean_expired: bool = False) -> dict[str, Any]:
        now = time.time()
        with self._lock:
            entry = self._backend.get(hash_key)
            if entry is None:
                return {"hash": hash_key, "status": "missing", "default_ttl_seconds": self._default_ttl}
            expired = now - entry.created_at > entry.ttl
            if expired and clean_expired:
                self._backend.delete(hash_key)
                self._stale_heap_entries += 1
            return {
                "hash": hash_key, "status": "expired" if expired else "available", "ttl_seconds": entry.ttl,
                "default_ttl_seconds": self._default_ttl, "created_at": entry.created_at,
                "expires_at": entry.created_at + entry.ttl, "age_seconds": now - entry.created_at,
            }

    def get_stats(self) -> dict[str, Any]:
        with self._lock:
            self._clean_expired()
            entries = [entry for _, entry in self._backend.items()]
            backend_stats = self._backend.get_stats()
            return {
                "entry_count": self._backend.count(),
                "max_entries": self._max_entries,
                "default_ttl_seconds": self._default_ttl,
                "total_original_tokens": sum(e.original_tokens for e in entries),
                "total_compressed_tokens": sum(e.compressed_tokens for e in entries),
                "total_retrievals": sum(e.retrieval_count for e in entries),
                "event_count": len(self._retrieval_events),
                "backend": backend_stats,
            }

    def clear(self) -> None:
        with self._lock:
            self._backend.clear()
            self._retrieval_events.clear()
            self._pending_feedback_events.clear()
            self._eviction_heap.clear()
            self._stale_heap_entries = 0

    def _evict_if_needed(self) -> None:
        self._clean_expired()
        if self._eviction_heap and self._stale_heap_entries / len(self._eviction_heap) >= 0.5:
            self._eviction_heap = [(e.created_at, k) for k, e in self._backend.items()]
            heapq.heapify(self._eviction_heap)
            self._stale_heap_entries = 0
        while self._backend.count() >= self._max_entries and self._eviction_heap:
            created_at, hash_key = heapq.heappop(self._eviction_heap)
            entry = self._backend.get(hash_key)
            if entry is not None and entry.created_at == created_at:
                self._backend.delete(hash_key)
            elif self._stale_heap_entries > 0:
                self._stale_heap_entries -= 1

    def _clean_expired(self) -> None:
        for key in [k for k, e in self._backend.items() if e.is_expired()]:
            self._backend.delete(key)
            self._stale_heap_entries += 1

    def _log_retrieval(self, hash_key: str, query: str | None, items_retrieved: int, total_items: int,
                       tool_name: str | None, retrieval_type: str, tool_signature_hash: str | None = None) -> None:
        event = RetrievalEvent(hash_key, query, items_retrieved, total_items, tool_name, time.time(),
                               retrieval_type, tool_signature_hash)
        self._retrieval_events = (self._retrieval_events + [event])[-1000:]
        self._pending_feedback_events.append(event)

    def process_pending_feedback(self) -> None:
        # Headroom reads each event's entry back (for its learners, left out here).
        with self._lock:
            events, self._pending_feedback_events = self._pending_feedback_events, []
            for event in events:
                self._backend.get(event.hash)


def _create_default_ccr_backend() -> Any:
    backend_type = (os.environ.get("HEADROOM_CCR_BACKEND") or "").strip().lower()
    if backend_type == "memory" or not backend_type or backend_type == "sqlite":
        # Headroom opens its SQLite backend for "" and "sqlite": not part of the stand-in.
        return None
    try:
        from importlib.metadata import entry_points

        ep = next((e for e in entry_points(group="headroom.ccr_backend") if e.name == backend_type), None)
        if ep is None:
            logger.warning("HEADROOM_CCR_BACKEND=%s but no entry point headroom.ccr_backend[%s]", backend_type, backend_type)
            return None
        kwargs = {
            "url": os.environ.get("HEADROOM_REDIS_URL", ""),
            "tenant_prefix": os.environ.get("HEADROOM_CCR_TENANT_PREFIX", ""),
        }
        return ep.load()(**kwargs)
    except Exception as e:  # noqa: BLE001 - Headroom falls back to memory on any failure
        logger.warning("Failed to load CCR backend %s: %s", backend_type, e)
        return None


_compression_store: CompressionStore | None = None
_store_lock = threading.Lock()


def get_compression_store(max_entries: int = 1000, default_ttl: int | None = None, backend: Any = None) -> CompressionStore:
    global _compression_store
    if _compression_store is None:
        with _store_lock:
            if _compression_store is None:
                if backend is None:
                    backend = _create_default_ccr_backend()
                ttl = default_ttl if default_ttl is not None else int(os.environ.get(CCR_TTL_SECONDS_ENV) or DEFAULT_CCR_TTL_SECONDS)
                _compression_store = CompressionStore(max_entries=max_entries, default_ttl=ttl, backend=backend)
    return _compression_store


def reset_compression_store() -> None:
    global _compression_store
    with _store_lock:
        if _compression_store is not None:
            _compression_store.clear()
        _compression_store = None
