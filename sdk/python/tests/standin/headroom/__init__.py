# A stand-in for Headroom (github.com/headroomlabs-ai/headroom), which cannot be installed here
# (no PyPI). Written for these tests, not copied: the protocol classes keep Headroom's module
# paths, names, fields and the order in which Headroom calls a CCR backend and a pipeline
# extension, as read from its source (headroom/cache/compression_store.py,
# headroom/cache/backends/base.py, headroom/pipeline.py).
