# Stand-in (see headroom/__init__.py): the storage backends package.
from .base import CompressionStoreBackend
from .memory import InMemoryBackend

__all__ = ["CompressionStoreBackend", "InMemoryBackend"]
