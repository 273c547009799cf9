"""Work a notebook's tests would each pay again, paid once per notebook instead: PyTorch's lazy first uses
(opcheck's test machinery and the first forward-mode operation take 0.2-1.5 s each in a new process, and every
test runs in a fresh fork). The judge runs the warm-ups a notebook needs before it forks the learner's
starter, so the judge's tests and the learner's copies inherit them. The root runs the ones the course's preload
names once for all its notebooks, and a class's root (root.prepare) every warm-up.

Which warm-ups a notebook needs the grader reads off its test cells' text (`needed`): names only cross, never
test text, and a warm-up changes no verdict (it only imports and runs PyTorch on the judge's own tensors).
This module imports no PyTorch at import time: the grader process uses `needed`.
"""

from __future__ import annotations

import re

# name -> what in a test cell's text asks for it
PATTERNS = {
    "opcheck": re.compile(r"opcheck"),
    "forward-ad": re.compile(r"jvp|jacfwd|hessian|forward|dual"),
}
_DONE: set = set()


def needed(test_sources: list[str]) -> list[str]:
    """The warm-ups the tests whose cells read `test_sources` would each pay for."""
    return [name for name, pattern in PATTERNS.items() if any(pattern.search(s) for s in test_sources)]


def _opcheck() -> None:
    import torch._functorch.partitioners  # noqa: F401
    import torch._inductor.pattern_matcher  # noqa: F401
    import torch.testing._internal.optests  # noqa: F401


def _forward_ad() -> None:
    import torch
    import torch.autograd.forward_ad as fwAD

    x = torch.randn(3, dtype=torch.float64)
    with fwAD.dual_level():
        fwAD.unpack_dual(fwAD.make_dual(x, torch.ones_like(x)).sin())
    torch.func.jvp(torch.sin, (x,), (torch.ones_like(x),))


# (A first torch.compile is not warmed here: dynamo's state, made in the judge, broke the learner's own compile.)
RUN = {"opcheck": _opcheck, "forward-ad": _forward_ad}


def run(names) -> list[str]:
    """Run each named warm-up once per process (unknown names are ignored); the names that ran."""
    ran = []
    for name in names if isinstance(names, (list, tuple)) else ():
        if name in RUN and name not in _DONE:
            RUN[name]()
            _DONE.add(name)
            ran.append(name)
    return ran
