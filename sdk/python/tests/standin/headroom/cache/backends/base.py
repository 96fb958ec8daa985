# Stand-in (see headroom/__init__.py): Headroom's CompressionStoreBackend protocol, method for
# method. Its contract as Headroom documents it: get and exists do not check TTL (the store
# does); set overwrites; delete answers whether something was deleted; get_stats has at least
# entry_count and backend_type.
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..compression_store import CompressionEntry


@runtime_checkable
class CompressionStoreBackend(Protocol):
    def get(self, hash_key: str) -> CompressionEntry | None: ...

    def set(self, hash_key: str, entry: CompressionEntry) -> None: ...

    def delete(self, hash_key: str) -> bool: ...

    def exists(self, hash_key: str) -> bool: ...

    def clear(self) -> None: ...

    def count(self) -> int: ...

    def keys(self) -> list[str]: ...

    def items(self) -> list[tuple[str, CompressionEntry]]: ...

    def get_stats(self) -> dict[str, Any]: ...
