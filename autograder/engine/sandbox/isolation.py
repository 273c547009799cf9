"""`Isolation`: the layers that held one notebook's learner code, as its sandbox reported them in `hello` (before any
learner code ran), with the judge's own record of its memory group. The judge sends it once per notebook, in its
`graded` reply; everyone who reports a level or requires one reads this value: the weak-isolation note
(grading), the class's refusal (autograde), Gradescope's choice of level, the printed words."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from autograder.engine.sandbox.limits import ISOLATION_LEVELS


@dataclass(frozen=True)
class Isolation:
    """A field is None when the sandbox did not report it (the JSON report then leaves it out)."""
    level: str | None = None               # the level asked for (Limits.isolation)
    namespaces: bool | None = None
    namespaces_refused: str | None = None  # why the kernel refused them
    identity: str | None = None            # "unallocated" (an id of its own) or "grader's"
    read_only_root: bool | None = None
    root_refused: str | None = None
    own_proc: bool | None = None
    folder_quota: bool | None = None
    capabilities: bool | None = None       # capabilities its user namespace granted were left
    memory_cgroup: bool | str | None = None  # the group's name once the judge records it
    landlock: int | None = None            # Landlock's ABI version in force, 0 for none
    seccomp: bool | None = None

    @property
    def strong(self) -> bool:
        """The layers a class is graded with by default: namespaces with the read-only root, Landlock and seccomp
        all in force."""
        return bool(self.namespaces and self.read_only_root and self.landlock and self.seccomp)

    @property
    def reached(self) -> str:
        """The level the layers amount to: "full" (namespaces, Landlock, seccomp), "no-namespaces" (Landlock and
        seccomp) or "none"."""
        if self.landlock and self.seccomp:
            return "full" if self.namespaces else "no-namespaces"
        return "none"

    def at_least(self, weakest: str) -> bool:
        """Whether the layers amount to `weakest` or a stronger level."""
        return weakest in ISOLATION_LEVELS and ISOLATION_LEVELS.index(self.reached) <= ISOLATION_LEVELS.index(weakest)

    def describe(self) -> str:
        """The layers in force, in words: "namespaces, a read-only root, Landlock 7, seccomp" or "no namespaces
        (why), ..."."""
        parts = ["namespaces" if self.namespaces else
                 f"no namespaces ({self.namespaces_refused})" if self.namespaces_refused else "no namespaces"]
        parts.append("a read-only root" if self.read_only_root else "no read-only root")
        parts.append(f"Landlock {self.landlock}" if self.landlock else "no Landlock")
        parts.append("seccomp" if self.seccomp else "no seccomp")
        return ", ".join(parts)

    def to_wire(self) -> dict:
        """As the `graded` reply and the JSON report carry it: the reported fields, and `strong`."""
        reported = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) is not None}
        return dict(reported, strong=self.strong)

    @classmethod
    def from_wire(cls, facts: dict) -> "Isolation":
        """From `hello`'s or `graded`'s plain facts (protocol-checked): each field only of its own type, anything
        else (an undeclared field, `strong`, which is computed here) left out."""
        kept = {}
        for f in dataclasses.fields(cls):
            value = facts.get(f.name) if type(facts) is dict else None
            if any(type(value) is kind for kind in _TYPES[f.name]):
                kept[f.name] = value
        return cls(**kept)


_TYPES = {f.name: tuple({"str": str, "bool": bool, "int": int}[t.strip()] for t in f.type.split("|")
                        if t.strip() != "None") for f in dataclasses.fields(Isolation)}
