"""The project's requirements from pyproject.toml, one a line, with some left out; or a lock file's entries with
some left out. The inputs of the hashed locks in requirements/ (tools/lock.sh compiles them), and what a second
torch release's venv (make test-torch) installs beside that release: every locked package but torch.

    python tools/requirements.py --extra test --without torch > requirements.txt   # top-level pins
    python tools/requirements.py --only --extra grader --cpu                        # grader.lock's input
    python tools/requirements.py --lock requirements/dev.lock --without torch       # a lock less torch
    python tools/requirements.py --lock requirements/dev.lock --package torch       # torch's entry alone
"""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The CPU build's local version label: pip and uv take torch==2.13.0+cpu from PyTorch's CPU index (or a
# folder of wheels), never PyPI's CUDA build.
CPU = "+cpu"


def name_of(requirement: str) -> str:
    """A requirement's project name, normalised as PEP 503 does (Foo_Bar[x]==1 -> foo-bar)."""
    return re.sub(r"[-_.]+", "-", re.split(r"[\[<>=!~; \\]", requirement.strip(), maxsplit=1)[0]).lower()


def requirements(extras: list[str], without: list[str], only: bool = False, cpu: bool = False) -> list[str]:
    """The pins of pyproject.toml's dependencies (none if `only`) and of `extras`, less `without`; with `cpu`,
    torch's pin names its CPU build."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [] if only else list(project["dependencies"])
    for extra in extras:
        if extra not in project["optional-dependencies"]:
            raise SystemExit(f"pyproject.toml has no extra {extra!r} "
                             f"(it has {', '.join(project['optional-dependencies'])})")
        wanted += project["optional-dependencies"][extra]
    drop = {name_of(name) for name in without}
    kept = []
    for requirement in wanted:
        if cpu and name_of(requirement) == "torch" and CPU not in requirement:
            requirement = requirement.replace(" ", "") + CPU
        if name_of(requirement) not in drop and requirement not in kept:
            kept.append(requirement)
    return kept


def lock_entries(text: str) -> dict[str, str]:
    """A hashed lock's entries: project name -> its whole entry (the pin and its `--hash` lines)."""
    entries, current = {}, None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0].isspace():  # a continuation: --hash=sha256:..., or a comment uv writes
            if current is not None and line.strip().startswith("--hash"):
                entries[current] += "\n" + line.rstrip()
            continue
        current = name_of(line)
        entries[current] = line.rstrip()
    return entries


def lock_pins(text: str) -> dict[str, str]:
    """A lock's pins: project name -> version (torch's with its local label, 2.13.0+cpu)."""
    pins = {}
    for name, entry in lock_entries(text).items():
        match = re.match(r"^\s*[A-Za-z0-9_.\-]+(?:\[[^\]]*\])?\s*==\s*([^\s;\\]+)", entry)
        if not match:
            raise ValueError(f"not a pinned, hashed entry: {entry.splitlines()[0]!r}")
        pins[name] = match.group(1)
    return pins


def lock_subset(text: str, without: list[str], package: list[str] | None = None) -> str:
    """A lock's entries (pin and hashes) less `without`, or only `package`'s; a named package it lacks is an
    error (a typo would otherwise install nothing)."""
    entries = lock_entries(text)
    unknown = [name for name in list(without) + list(package or []) if name_of(name) not in entries]
    if unknown:
        raise SystemExit(f"the lock has no {', '.join(unknown)}")
    keep = {name_of(name) for name in package} if package else set(entries) - {name_of(n) for n in without}
    return "\n".join(entry for name, entry in entries.items() if name in keep) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extra", action="append", default=[], help="an extra of pyproject.toml; repeatable")
    parser.add_argument("--without", action="append", default=[], help="leave this project out; repeatable")
    parser.add_argument("--only", action="store_true", help="the extras' pins alone, not the dependencies")
    parser.add_argument("--cpu", action="store_true", help="torch's pin names its CPU build (+cpu)")
    parser.add_argument("--lock", help="print this lock file's entries (less --without) instead")
    parser.add_argument("--package", action="append", default=[],
                        help="with --lock: only this project's entry; repeatable")
    args = parser.parse_args()
    if args.lock:
        print(lock_subset(Path(args.lock).read_text(), args.without, args.package), end="")
    else:
        print("\n".join(requirements(args.extra, args.without, args.only, args.cpu)))


if __name__ == "__main__":
    main()
