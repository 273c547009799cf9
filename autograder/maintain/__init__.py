"""Maintainers' tools: release the course, the compatibility matrix and upstream-bug sentinels, the
probe share, the benchmark, the sample class."""
