"""The project's requirements from pyproject.toml, one a line, with some left out: a second torch release's
venv (make test-torch) installs every pin but torch's, then the package itself with --no-deps.

    python tools/requirements.py --extra test --without torch > requirements.txt
"""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def requirements(extras: list[str], without: list[str]) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in extras:
        wanted += project["optional-dependencies"][extra]
    drop = {name.lower() for name in without}
    kept = []
    for requirement in wanted:
        name = re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower()
        if name not in drop and requirement not in kept:
            kept.append(requirement)
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extra", action="append", default=[])
    parser.add_argument("--without", action="append", default=[])
    args = parser.parse_args()
    print("\n".join(requirements(args.extra, args.without)))


if __name__ == "__main__":
    main()
