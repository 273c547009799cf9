"""`make setup`'s first step: the Python it was given is the one the lock is for (pyproject.toml's requires-python),
said in a sentence, before pip would fail with "ResolutionImpossible". Runs on any Python 3."""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
wanted = re.search(r'requires-python\s*=\s*">=(\d+)\.(\d+),<(\d+)\.(\d+)"', (ROOT / "pyproject.toml").read_text())
low, high = (int(wanted[1]), int(wanted[2])), (int(wanted[3]), int(wanted[4]))
have = sys.version_info[:2]
if not low <= have < high:
    need = f"{low[0]}.{low[1]}" if (high[0], high[1] - 1) == low else f">={low[0]}.{low[1]},<{high[0]}.{high[1]}"
    sys.exit(f"make setup needs Python {need}: requirements/dev.lock pins wheels built for it, and {sys.executable} "
             f"is Python {have[0]}.{have[1]}. Install Python {need} and run: make setup PYTHON=python{need}")
