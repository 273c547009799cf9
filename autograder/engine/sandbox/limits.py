"""What one grading may use."""

from __future__ import annotations

from dataclasses import dataclass

# Isolation levels, strongest first. "full" uses every layer the machine offers (and reports what it had);
# the weaker ones are forced for tests and for machines where a layer misbehaves.
ISOLATION_LEVELS = ("full", "no-namespaces", "none")


@dataclass
class Limits:
    seconds_per_test: float = 60.0   # wall time for the answer cells (once), and for each test
    memory_mb: int = 1536            # address space on top of the root process's (Binder has 2 GB)
    output_bytes: int = 64_000       # captured output of the answer cells; the rest is dropped
    file_bytes: int = 32_000_000     # largest file the learner's code may write (in its own folder)
    folder_bytes: int = 128_000_000  # all the learner's files together (its folder is a tmpfs of this size)
    judge_memory_mb: int = 2048      # the judge's own address space on top of the root process's
    group_memory_mb: int = 2048      # all a notebook's learner sandbox holds at once (pages, tmpfs, pipes), where a
                                     # memory cgroup can be made (cgroup.py)
    fork_seconds: float = 10.0       # the learner's process forks a test's copy within this
    end_seconds: float = 2.0         # a test's copy is reported ended within this after its test
    restarts: int = 3                # fresh learner processes a notebook may need (after a timeout or a stall)
    isolation: str = "full"          # one of ISOLATION_LEVELS

    @classmethod
    def from_settings(cls, settings: dict, isolation: str = "full", seconds_cap: float | None = None) -> "Limits":
        """The limits of a grading at `isolation`: the defaults, with each of `settings` (field -> value; None, the
        isolation and any other name left out) in the field's type; each test's time cut to `seconds_cap` (at least
        1 s) where that is less. The one builder: the CLI's options, and gradescope.json's "limits" with the time
        budget's cap."""
        limits = cls(isolation=isolation)
        for key, value in settings.items():
            if key in cls.__dataclass_fields__ and key != "isolation" and value is not None:
                setattr(limits, key, type(getattr(limits, key))(value))
        if seconds_cap is not None and seconds_cap < limits.seconds_per_test:
            limits.seconds_per_test = max(1.0, float(seconds_cap))
        return limits
