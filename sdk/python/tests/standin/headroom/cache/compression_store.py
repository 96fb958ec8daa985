# Stand-in (see headroom/__init__.py): CompressionEntry with Headroom's fields, and a store
# that calls its backend as Headroom's CompressionStore does (store: evict-if-needed, which
# lists items and counts, then get, then set; retrieve: get, expiry check, record access,
# set), plus the env-driven backend loader with its entry-point group and factory kwargs.
from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

logger = logging.getLogger(__name__)
DEFAULT_CCR_TTL_SECONDS = 1800


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
            self.search_queries = self.search_queries[-10:]


class CompressionStore:
    def __init__(self, max_entries: int = 1000, default_ttl: int = DEFAULT_CCR_TTL_SECONDS, backend: Any = None) -> None:
        if backend is None:
            raise ValueError("the stand-in needs a backend")
        self._backend = backend
        self._lock = threading.Lock()
        self._max_entries = max_entries
        self._default_ttl = default_ttl

    def store(self, original: str, compressed: str, *, original_tokens: int = 0, compressed_tokens: int = 0,
              original_item_count: int = 0, compressed_item_count: int = 0, tool_name: str | None = None,
              tool_call_id: str | None = None, query_context: str | None = None,
              tool_signature_hash: str | None = None, compression_strategy: str | None = None,
              ttl: int | None = None, explicit_hash: str | None = None) -> str:
        key = explicit_hash.lower() if explicit_hash else hashlib.sha256(original.encode()).hexdigest()[:24]
        entry = CompressionEntry(key, original, compressed, original_tokens, compressed_tokens, original_item_count,
                                 compressed_item_count, tool_name, tool_call_id, query_context, time.time(),
                                 ttl if ttl is not None else self._default_ttl, tool_signature_hash, compression_strategy)
        with self._lock:
            for k, e in self._backend.items():  # Headroom's _clean_expired
                if e.is_expired():
                    self._backend.delete(k)
            self._backend.count()  # Headroom's capacity check
            self._backend.get(key)  # Headroom's collision check
            self._backend.set(key, entry)
        return key

    def retrieve(self, hash_key: str, query: str | None = None) -> CompressionEntry | None:
        with self._lock:
            entry = self._backend.get(hash_key)
            if entry is None:
                return None
            if entry.is_expired():
                self._backend.delete(hash_key)
                return None
            entry.record_access(query)
            self._backend.set(hash_key, entry)
            return replace(entry, search_queries=list(entry.search_queries))

    def exists(self, hash_key: str) -> bool:
        with self._lock:
            entry = self._backend.get(hash_key)
            return entry is not None and not entry.is_expired()

    def get_stats(self) -> dict[str, Any]:
        with self._lock:
            entries = [e for _, e in self._backend.items()]
            return {
                "entry_count": self._backend.count(),
                "total_original_tokens": sum(e.original_tokens for e in entries),
                "total_retrievals": sum(e.retrieval_count for e in entries),
                "backend": self._backend.get_stats(),
            }


def _create_default_ccr_backend() -> Any:
    backend_type = (os.environ.get("HEADROOM_CCR_BACKEND") or "").strip().lower()
    from importlib.metadata import entry_points

    ep = next((e for e in entry_points(group="headroom.ccr_backend") if e.name == backend_type), None)
    if ep is None:
        return None
    return ep.load()(url=os.environ.get("HEADROOM_REDIS_URL", ""), tenant_prefix=os.environ.get("HEADROOM_CCR_TENANT_PREFIX", ""))


def get_compression_store() -> CompressionStore:
    return CompressionStore(backend=_create_default_ccr_backend())
