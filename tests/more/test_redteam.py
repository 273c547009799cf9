"""Red team: a student edits only the answer cell of notebook 01 and may write any Python there.

Each attack (one file in tests/redteam/attacks/<layer>/, like the zoo) is a WRONG Square from the zoo (wrong
derivative: 1/3 without extra code; ctx attribute: 2/3) plus code that tries to raise the grade: replace the
functions the checks use, rewrite their bytecode through raw memory, plant modules, rebind builtins, read
the instructor's files, write the gradebook, forge the channel, patch PyTorch, kill or flood the process...
The requirement for every one: the grade is never higher than the same wrong answer gets alone, and nothing
secret (solutions, hidden test source, zoo, gradebook) appears in the report. Where the kernel refuses the
attack, the feedback says so (`# says:` in the file's header).

Why they gain nothing: every check runs in the judge process, which never runs student code; the answer
runs in another, confined process whose results cross as plain data (docs/threat-model.md). Each attack's
folder names the first layer that stops it (LAYERS below; tests/redteam/LAYERS.md has the table), and its
test id starts with that folder: `seccomp/new-processes`.

The honest side is in tests/redteam/honest/: correct answers with harmless extra code keep full marks.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from autograder.engine import grading
from autograder import paths
from autograder.maintain import samples
from autograder.engine.sandbox import Limits

pytestmark = pytest.mark.xdist_group("redteam")

HERE = Path(__file__).parent.parent / "redteam"
ASSIGNMENT = "01_square"
LIMITS = Limits(seconds_per_test=90)
ZOO = {e.name: e.source for e in samples.zoo() if e.exercise == "Square"}
WRONG = {"wrong": ZOO["wrong_derivative"], "ctx": ZOO["ctx_attribute"]}

# Text that exists only in protected files: it must never reach a report.
SECRETS = ["BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "check.gradcheck(Square)", "check.saves_input(Square)",
           "check.graph_node(Square)", "# mistake:", "SQLite format"]


header = samples.header  # the zoo's header reader: `# key: value` lines


def attack_source(path: Path) -> tuple[str, dict]:
    text = path.read_text()
    meta = header(text)
    for key, value in {"{root}": paths.ROOT, "{home}": paths.grading_home(), "{solutions}": paths.SOLUTIONS,
                       "{zoo}": paths.ZOO}.items():
        text = text.replace(key, str(value))
    return text.replace("{WRONG}", WRONG[meta.get("base", "wrong")]), meta


# The layer that stops an attack first, one folder each under attacks/ (and boundary/, test_boundary.py):
LAYERS = {
    "judge": "the verdict is computed in the judge from values: rewriting the learner's process changes nothing",
    "integrity": "the learner-side checkpoint: patched PyTorch, NumPy, builtins, autograd or checks",
    "protocol": "the wire contract: forged control messages, pids and channel frames",
    "seccomp": "no exec, new processes, threads, network sockets, connect, SysV IPC, signals, others' limits",
    "landlock": "no files outside the allow-list, no writes outside its folder",
    "namespaces": "no other processes' /proc, no IPC that outlives a grading, not the judge's pid",
    "limits": "judge memory and tensor-size caps, disk quota, time, memory",
    "identity": "an unallocated uid and gid under a root grader: it owns no file on the host",
    "root": "a fresh read-only root of the allow-list: EROFS everywhere but its own tmpfs /tmp",
    "environment": "an allow-listed environment from the root process down, and no seed in the learner",
}

# Attacks on another exercise than Square (a `# exercise:` header) are graded in their own notebook, against the
# same mistake without the disguise: tests/more/test_redteam_paths.py.
ATTACKS = sorted(p for p in (HERE / "attacks").rglob("*.py") if "exercise" not in header(p.read_text()))
HONEST = sorted((HERE / "honest").glob("*.py"))


def layer_id(path: Path) -> str:
    """`<layer>/<name>`: the test id of an attack file."""
    return f"{path.parent.name}/{path.stem}"


def attack_file(name: str) -> Path:
    """tests/redteam/attacks/<layer>/<name>.py, whatever its layer."""
    found = sorted((HERE / "attacks").glob(f"*/{name}.py"))
    assert len(found) == 1, f"attack {name}: {found}"
    return found[0]


@pytest.fixture(scope="session")
def redteam_sandbox():
    with grading.new_sandbox() as box:
        yield box


def grade(sandbox, answer: str, seed: int = 0):
    _, nb = samples.student_notebook(ASSIGNMENT, {"Square": answer})
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", sandbox, seed=seed, limits=LIMITS)
    return report


@pytest.fixture(scope="session")
def baselines(redteam_sandbox):
    scores = {name: grade(redteam_sandbox, answer).score for name, answer in WRONG.items()}
    assert scores == {"wrong": 2.0, "ctx": 2.0}, "the zoo answers no longer fail as this file assumes"
    return scores


def feedback_of(report) -> str:
    return " | ".join(c.feedback for c in report.cells)


def assert_no_secrets(report) -> None:
    text = json.dumps(report.to_json())
    leaked = [s for s in SECRETS if s in text]
    assert not leaked, f"protected text in the report: {leaked}: {text[:2000]}"


@pytest.mark.parametrize("path", ATTACKS, ids=[layer_id(p) for p in ATTACKS])
def test_attack_gains_nothing(path, redteam_sandbox, baselines):
    source, meta = attack_source(path)
    report = grade(redteam_sandbox, source)
    assert report.score <= baselines[meta.get("base", "wrong")], [(c.grade_id, c.status, c.feedback)
                                                                  for c in report.cells]
    assert_no_secrets(report)
    if meta.get("says"):
        text = feedback_of(report).lower()
        assert any(word.strip().lower() in text for word in meta["says"].split("|")), feedback_of(report)


@pytest.mark.parametrize("folder", ["attacks", "boundary"])
def test_every_attack_lives_in_a_known_layer_folder(folder):
    """Each attack file is <folder>/<layer>/<name>.py with a layer of LAYERS, names unique across layers."""
    files = sorted((HERE / folder).rglob("*.py"))
    assert files, f"no attack in {folder}/"
    misplaced = [str(p.relative_to(HERE)) for p in files
                 if p.parent.parent != HERE / folder or p.parent.name not in LAYERS]
    assert not misplaced, f"not in a layer folder ({', '.join(LAYERS)}): {misplaced}"
    names = [p.stem for p in files]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    stray = [str(p.relative_to(HERE)) for p in (HERE / folder).rglob("*")
             if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts]
    assert not stray, stray
    for path in files:
        said = header(path.read_text()).get("layer")
        assert said in (None, path.parent.name), f"{path.relative_to(HERE)} says layer: {said}"


@pytest.mark.parametrize("path", HONEST, ids=[p.stem for p in HONEST])
def test_correct_answer_with_harmless_code_keeps_full_marks(path, redteam_sandbox):
    report = grade(redteam_sandbox, path.read_text())
    assert report.score == report.max_score == 3, [(c.grade_id, c.feedback) for c in report.cells]


@pytest.mark.parametrize("magic", ["%%bash", "%%writefile square.py", "%%html"])
def test_a_cell_magic_whose_body_is_not_python_is_named(magic, redteam_sandbox):
    """Its body does not run (it is not Python): the feedback names the magic instead of "not defined"."""
    report = grade(redteam_sandbox, f"{magic}\necho hello\n")
    assert report.score == 0
    assert all(magic.split()[0] in c.feedback for c in report.cells), [(c.grade_id, c.feedback) for c in report.cells]


def test_raw_memory_forgery_really_ran(redteam_sandbox):
    """The raw-memory attack is real: in the learner's process it does neuter `fail` (a probe run there
    sees it return None instead of raising)."""
    source, _ = attack_source(attack_file("raw-memory-fail-bytecode"))
    source += "\nimport autograder.checks.common as _c2\n_c2.fail('x', 'y')\nprint('FAIL-NEUTERED')\n"
    _, nb = samples.student_notebook(ASSIGNMENT, {"Square": source})
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", redteam_sandbox, limits=LIMITS)
    assert report.score <= 2.0  # the wrong Square's own score: it gains nothing
    assert not any("raised an error" in n for n in report.notes), report.notes


def test_protected_files_are_not_read(redteam_sandbox):
    """Whatever route the answer takes to the instructor's files, the zoo or the gradebook, what it gets
    back (reported through an exception the feedback shows) holds none of their text."""
    source, _ = attack_source(attack_file("read-protected-files"))
    report = grade(redteam_sandbox, source)
    text = feedback_of(report)
    assert "READ [" in text  # the attack ran and reported what it got
    assert_no_secrets(report)
    assert "PermissionError" in text


def test_gradebook_and_sources_unchanged(redteam_sandbox):
    home = paths.grading_home()
    watched = [p for p in [home / "gradebook.db", paths.SOLUTIONS / "01_square" / "01_square.ipynb",
                           paths.ROOT / "autograder" / "checks" / "common" / "__init__.py"] if p.exists()]
    before = {p: p.read_bytes() for p in watched}
    grade(redteam_sandbox, attack_source(attack_file("write-gradebook-and-course"))[0])
    assert not (home / "x.txt").exists() and not (paths.SOLUTIONS / "x.txt").exists()
    assert {p: p.read_bytes() for p in watched} == before


def test_hidden_tests_never_reach_the_learner(redteam_sandbox):
    """The test source never enters the learner's process: an answer that looks for it everywhere it
    could be finds nothing, and the report holds the visible feedback only."""
    attack = """
import sys, gc, linecache
_seen = [name for name in list(linecache.cache)]
_seen += [repr(o)[:200] for o in gc.get_objects() if isinstance(o, str) and "HIDDEN" in o][:5]
{WRONG}
_f = Square.forward
def forward(ctx, x):
    print("BEGIN HIDDEN TESTS is what I would print")
    frames, frame = [], sys._getframe()
    while frame is not None:
        frames.append(frame.f_code.co_filename)
        frame = frame.f_back
    raise RuntimeError("SEEN " + repr(_seen + frames))
Square.forward = staticmethod(forward)
"""
    report = grade(redteam_sandbox, attack.replace("{WRONG}", WRONG["wrong"]))
    assert report.score == 0
    assert_no_secrets(report)
    assert "SEEN" in feedback_of(report) and "<test:" not in feedback_of(report)


def test_edited_test_cells_change_nothing(redteam_sandbox, baselines):
    """Deleting test cells, emptying them, or giving them 100 points: tests and points come from the
    instructor's copy."""
    _, nb = samples.student_notebook(ASSIGNMENT, {"Square": WRONG["wrong"]})
    tests = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    tests[0].source = "pass"
    tests[0].metadata["nbgrader"]["points"] = 100
    tests[1].metadata["nbgrader"]["points"] = 100
    nb.cells.remove(tests[2])
    nb.cells.append(nbformat.v4.new_code_cell("pass", metadata={"nbgrader": {
        "grade": True, "grade_id": "test_free_points", "points": 100, "solution": False, "locked": True}}))
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", redteam_sandbox, limits=LIMITS)
    assert report.score == baselines["wrong"] and report.max_score == 3
    assert [c.grade_id for c in report.cells] == ["test_Square_values", "test_Square_graph", "test_Square_saved"]


def test_answer_cell_as_test_cell_gains_nothing(redteam_sandbox, baselines):
    _, nb = samples.student_notebook(ASSIGNMENT, {"Square": WRONG["wrong"]})
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id") == "answer_Square":
            meta.update(grade=True, points=50)
    report, _ = grading.grade_text(nbformat.writes(nb), "01_square.ipynb", redteam_sandbox, limits=LIMITS)
    assert report.score <= baselines["wrong"] and report.max_score == 3


def test_isolation_is_in_force(redteam_sandbox):
    """What the kernel enforces here (Landlock and seccomp need Linux; docs/threat-model.md says what is
    weaker without them)."""
    graded = redteam_sandbox.run([("setup:setup_1", "import torch\n"), ("answer_Square", WRONG["wrong"])],
                                 [("t", "pass\n")])
    assert graded.outcomes[0].status == "passed", graded.outcomes[0].feedback
    isolation = graded.isolation.to_wire()
    assert {"level", "namespaces", "landlock", "seccomp", "strong"} <= set(isolation)
    if redteam_sandbox.landlock:
        assert isolation["landlock"] == redteam_sandbox.landlock


@pytest.mark.parametrize("where", ["forward", "backward"])
def test_answer_that_zeroes_its_input_gains_nothing(redteam_sandbox, baselines, where):
    """Expected values are computed from the inputs after the learner's code ran: an answer that zeroes its
    input would make every comparison 0 == 0. The change crosses back to the judge, which says so."""
    wrong = WRONG["wrong"]
    if where == "forward":
        answer = wrong + "\n_f = Square.forward\ndef forward(ctx, x):\n    x.data.zero_()\n    return _f(ctx, x)\n" \
                         "Square.forward = staticmethod(forward)\n"
    else:
        answer = wrong + "\n_b = Square.backward\ndef backward(ctx, g):\n    r = _b(ctx, g)\n" \
                         "    ctx.saved_tensors[0].data.zero_()\n    return r * 0\nSquare.backward = staticmethod(backward)\n"
    report = grade(redteam_sandbox, answer)
    assert report.score <= baselines["wrong"]
    assert "changed one of its inputs in place" in feedback_of(report)
