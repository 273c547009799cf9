"""No reference answer is importable or readable from the learner's process, nor shipped in the release (issue 36).

The rule, for every module of the course's package and every check added later:
- a module the learner's process can import names no reference answer: no top-level name with "reference" in it,
  or "ref" as a word of it (`linear_ref`), outside the judge-only package; checks compute expected values with
  torch's own operators (autograd or torch.func of them: `grad.sum_to_size(shape)`, `F.linear`'s gradients), which
  give no answer away, and a stand-in a probe needs in the learner's process is made inside the probe;
- a hand-written reference the judge cannot do without lives in `autograder/references/` (judge-only): imported
  only inside the check that needs it (never by the root process, of which every learner is a fork), denied to the
  learner by Landlock wherever the package lies, left out of the release branch; where it cannot be imported (the
  released course), the check falls back to torch's operators.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import pytest

from autograder import paths
from autograder.engine.sandbox import Limits, confine, root

from test_world import attack, box, grade, told  # noqa: F401  (fixture)

PACKAGE = paths.ROOT / "autograder"
JUDGE_ONLY = PACKAGE / "references"
NAMED = r"(?i)reference"          # reference_unbroadcast, REFERENCE_LINEAR_FUNCTION, _sinc_reference
SHORT = r"(^|_)(ref|REF)(_|$)"    # linear_ref, linear_grads_ref (case-sensitive: the codec's `Ref` is a handle)
# Names that are no answer: the instructor's tools that grade or read the solutions (files the learner's process
# cannot read: the protected trees).
EXEMPT = {"autograder.engine.grading.reference_report", "autograder.maintain.samples.reference_answers"}


def _top_level_names(tree: ast.Module) -> list[str]:
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            names += [a.asname or a.name for a in node.names]
    return names


def _module_name(path) -> str:
    return ".".join(path.relative_to(paths.ROOT).with_suffix("").parts)


def test_no_module_the_learner_can_import_names_a_reference_answer():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if JUDGE_ONLY in path.parents:
            continue
        module = _module_name(path)
        for name in _top_level_names(ast.parse(path.read_text())):
            if (re.search(NAMED, name) or re.search(SHORT, name)) and f"{module}.{name}" not in EXEMPT:
                found.append(f"{module}.{name}")
    assert not found, f"move these to autograder/references/ (judge-only) or compute them with torch: {found}"


def test_the_judge_only_references_are_imported_only_inside_a_check():
    """A top-level import would bring them into the root process, and so into every learner's memory."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if JUDGE_ONLY in path.parents:
            continue
        for node in ast.parse(path.read_text()).body:
            imported = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            found += [f"{_module_name(path)}: {m}" for m in imported if m.startswith("autograder.references")]
    assert not found, found


def test_the_root_process_never_holds_the_judge_only_references():
    program = ("import sys\nfrom autograder.engine.sandbox import root\nroot.prepare()\n"
               "print([m for m in sys.modules if m.startswith('autograder.references')])\n")
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
                         cwd=paths.ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "[]", run.stdout


def test_the_judge_only_references_are_off_the_learners_allow_list():
    roots = root.learner_read_roots([])
    assert JUDGE_ONLY.is_dir() and not any(
        str(JUDGE_ONLY) == r or str(JUDGE_ONLY).startswith(r.rstrip("/") + "/") for r in roots), roots
    assert str(PACKAGE / "checks") in roots  # the rest of the package stays readable


@pytest.mark.skipif(not confine.linux(), reason="the kernel layers are Linux's")
@pytest.mark.parametrize("level", ["full", "no-namespaces"])
def test_no_reference_is_importable_or_readable_in_the_sandbox(box, level):  # noqa: F811
    source = attack("borrow-the-graders-references", NAMED=NAMED, SHORT=SHORT, EXEMPT=sorted(EXEMPT))
    report = grade(box, source, Limits(seconds_per_test=60, isolation=level))
    found = json.loads(told(report).split(" END")[0].strip())
    # (the folder's names may be listed where no fresh root hides it: the import system lists the package's folder)
    assert found and all(f.startswith(("refused: ", "listed ")) for f in found), found
    assert found[0].startswith("refused: ")
    assert report.score == 3  # the answer's own right Square, graded as usual
