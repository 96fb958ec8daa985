# A stand-in for Headroom (github.com/headroomlabs-ai/headroom), which cannot be installed here
# (no PyPI). Written for these tests, not copied: the protocol classes keep Headroom's module
# paths, names, fields and signatures, and the order in which Headroom calls a CCR backend and
# a pipeline extension, as read from its source (headroom/cache/compression_store.py,
# headroom/cache/backends/base.py and memory.py, headroom/pipeline.py, and the proxy's
# emit calls in headroom/proxy/handlers/). Left out: Headroom's SQLite backend (the default
# when HEADROOM_CCR_BACKEND is unset), its telemetry, TOIN and feedback learners (only their
# reads of the backend are kept) and everything else of Headroom.
