# Stand-in (see headroom/__init__.py): Headroom's in-process backend, a locked dict. The
# reference a Floorline round trip is compared with.
from __future__ import annotations

import sys
import threading
from typing import Any


class InMemoryBackend:
    def __init__(self) -> None:
        self._store: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, hash_key: str) -> Any:
        with self._lock:
            return self._store.get(hash_key)

    def set(self, hash_key: str, entry: Any) -> None:
        with self._lock:
            self._store[hash_key] = entry

    def delete(self, hash_key: str) -> bool:
        with self._lock:
            return self._store.pop(hash_key, None) is not None

    def exists(self, hash_key: str) -> bool:
        with self._lock:
            return hash_key in self._store

    def clear(self) -> None:
        with self._lock:
            self._store.clear()

    def count(self) -> int:
        with self._lock:
            return len(self._store)

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._store)

    def items(self) -> list[tuple[str, Any]]:
        with self._lock:
            return list(self._store.items())

    def get_stats(self) -> dict[str, Any]:
        with self._lock:
            used = sum(sys.getsizeof(e.original_content) + sys.getsizeof(e.compressed_content) for e in self._store.values())
            return {"backend_type": "memory", "entry_count": len(self._store), "bytes_used": used}
