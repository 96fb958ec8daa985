from .base import CompressionStoreBackend

__all__ = ["CompressionStoreBackend"]
