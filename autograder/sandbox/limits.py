"""What one grading may use, and what it is asked to do."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Limits:
    seconds_per_test: float = 60.0   # wall time for the answer cells (once), and for each test
    memory_mb: int = 1536            # address space on top of the zygote's own (Binder has 2 GB)
    output_bytes: int = 64_000       # captured output of the answer cells; the rest is dropped
    file_bytes: int = 32_000_000     # largest file the learner's code may write (in its own folder)


@dataclass
class Job:
    """One test cell on a notebook's setup and answer cells (the sandbox's own tests use it)."""
    cells: list                      # [(label, source)] setup and answer cells, in notebook order
    test_id: str
    test_source: str
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
