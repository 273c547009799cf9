"""The course's nbgrader flow on a real JupyterHub, end to end, as its people meet it.

The instructor releases 01_square with nbgrader (the course's own configuration: the release version is
course/01_square/); two students log in to the hub in a browser, fetch it in JupyterLab's Assignment List,
write their answer in the notebook (ada the right one, alan the zoo's ctx_attribute mistake) and submit;
the instructor collects with nbgrader, grades with `python -m autograder autograde`, writes feedback with
`python -m autograder feedback` and releases it with nbgrader; each student fetches the feedback in the
Assignment List and reads it in the browser: their score, and for alan the grader's named mistake. Then
the students try to read each other's work, as Unix users, through the exchange and through the hub.

What keeps students apart is Unix: private homes (0700), the instructor's private grading folder, and
nbgrader's exchange, whose inbound (0733) and feedback (0711) folders cannot be listed. Two properties of
nbgrader 0.9.6's exchange are pinned by strict xfail tests below, so that a change in either is noticed:
a submission (and a released feedback page) is hidden only by its unguessable name, and `nbgrader collect`
takes a submission handed in under another student's name, with a warning.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from pathlib import Path

import pytest

from hub_classroom import ARTIFACTS, COURSE_ID, Account, Classroom

pytestmark = [pytest.mark.classroom]

A = "01_square"
NB = "01_square.ipynb"
ANSWER_ID = "answer_Square"
MISTAKE = ("Square", "ctx_attribute")      # tests/zoo/Square/ctx_attribute.py

# Filled in by test_course_flow for the isolation test that follows it.
STATE: dict = {}


def reference_answer() -> str:
    from autograder.engine import notebooks
    from autograder.maintain import samples

    source = next(s for s in notebooks.sources() if s.assignment == A)
    return samples.reference_answers(source)[ANSWER_ID]


def zoo_entry():
    from autograder.maintain import samples

    return next(e for e in samples.zoo() if (e.exercise, e.name) == MISTAKE)


def as_typed(source: str) -> str:
    """A zoo entry as a student would write it: without the zoo's own header comments."""
    lines = source.splitlines()
    while lines and re.match(r"# [a-z_]+:", lines[0]):
        lines.pop(0)
    return "\n".join(lines).strip() + "\n"


# ------------------------------------------------------------------------------------------ in the browser

def shot(page, name: str) -> None:
    try:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    except Exception:  # noqa: BLE001 - a screenshot is evidence, never a reason to fail
        pass


def log_in(browser, classroom: Classroom, student: Account):
    """A fresh browser context (its own cookies) logged in to the hub, with the student's JupyterLab loaded."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto(classroom.url + "hub/login", timeout=120_000)
    page.fill("#username_input", student.name)
    page.fill("#password_input", student.password)
    page.click("#login_submit")
    page.wait_for_url(re.compile(rf"/user/{re.escape(student.name)}/lab"), timeout=240_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.commands.hasCommand("
                           "'nbgrader:open-assignment-list')", timeout=240_000)
    page.wait_for_selector("#jp-MainMenu .lm-MenuBar-itemLabel", timeout=120_000)
    return page


def open_assignment_list(page) -> None:
    """Nbgrader > Assignment List, and wait until its three lists have loaded."""
    page.click("#jp-MainMenu .lm-MenuBar-itemLabel:text-is('Nbgrader')")
    page.click(".lm-Menu-itemLabel:text-is('Assignment List')")
    page.wait_for_selector("#nbgrader-assignment-list", state="visible")
    wait_lists_loaded(page)


def wait_lists_loaded(page) -> None:
    for which in ("released", "fetched", "submitted"):
        page.wait_for_selector(f"#{which}_assignments_list_loading", state="hidden", timeout=120_000)


def refresh_assignment_list(page) -> None:
    page.click("#nbgrader-assignment-list #refresh_assignments_list")
    wait_lists_loaded(page)


def row(page, which: str, assignment: str = A):
    return page.locator(f"#{which}_assignments_list .list_item").filter(has_text=assignment).first


def fetch(page) -> None:
    row(page, "released").locator("button:text-is('Fetch')").click()
    row(page, "fetched").locator("button:text-is('Submit')").wait_for(timeout=120_000)


def write_answer(page, student: Account, answer: str) -> None:
    """Open the fetched notebook from the Assignment List, replace the answer cell's code, save."""
    fetched = row(page, "fetched")
    notebook = fetched.locator(".nested_list_item .item_name a").filter(has_text=Path(NB).stem).first
    if not notebook.is_visible():
        fetched.locator("a.assignment-notebooks-link").click()     # unfold the assignment's notebooks
    notebook.click()
    path = f"{A}/{NB}"
    page.wait_for_function("(path) => { const w = window.jupyterapp.shell.currentWidget;"
                           " return w && w.context && w.context.path === path && w.context.isReady"
                           " && w.content.widgets.length > 1; }", arg=path, timeout=120_000)
    index = page.evaluate("""([path, gid]) => {
        const w = window.jupyterapp.shell.currentWidget;
        const cells = w.content.widgets;
        for (let i = 0; i < cells.length; i++) {
          const meta = cells[i].model.getMetadata('nbgrader') || {};
          if (meta.grade_id === gid) return i;
        }
        return -1; }""", [path, ANSWER_ID])
    assert index >= 0, f"no {ANSWER_ID} cell in {path}"
    editor = page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell").nth(index).locator(".cm-content")
    editor.scroll_into_view_if_needed()
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(answer)
    page.keyboard.press("Escape")
    typed = page.evaluate("(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel"
                          ".getSource()", index)
    assert typed.strip() == answer.strip(), f"the answer cell holds {typed!r} after typing"
    save(page, student, path)
    shot(page, f"answer-{student.name}")


SAVE_STATE = """(path) => { const w = window.jupyterapp.shell.currentWidget;
    const dialog = document.querySelector('.jp-Dialog');
    return {path: w && w.context ? w.context.path : null,
            dirty: w && w.context ? w.context.model.dirty : null,
            dialog: dialog ? dialog.innerText : null}; }"""


def save(page, student: Account, path: str) -> None:
    """Save as a student does (Ctrl+S), and answer JupyterLab's questions as a student would.

    If JupyterLab finds the file changed on disk since it was opened (nbgrader's fetch may still touch it), it
    asks whether to overwrite: the student's version is what they mean to hand in. Any other dialog fails the
    test with its text. A key press lost to focus is pressed again once, then the menu's command is used."""
    page.keyboard.press("Control+s")
    started, retried, state = time.monotonic(), False, {}
    while time.monotonic() - started < 120:
        state = page.evaluate(SAVE_STATE, path)
        if state["path"] == path and state["dirty"] is False and not state["dialog"]:
            return
        if state["dialog"]:
            shot(page, f"save-dialog-{student.name}")
            if "changed on disk" not in state["dialog"]:
                raise AssertionError(f"saving {path}, JupyterLab asked: {state['dialog']!r}")
            (ARTIFACTS / f"save-dialog-{student.name}.txt").write_text(state["dialog"])
            page.locator(".jp-Dialog button:has-text('Overwrite')").click()
        elif not retried and time.monotonic() - started > 15:
            retried = True
            page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        time.sleep(0.5)
    shot(page, f"save-failed-{student.name}")
    raise AssertionError(f"{path} not saved after 120 s: {state}")


def submit(page) -> None:
    page.evaluate("() => window.jupyterapp.shell.activateById('nbgrader-assignment-list')")
    refresh_assignment_list(page)
    row(page, "fetched").locator("button:text-is('Submit')").click()
    page.locator("#submitted_assignments_list .list_item").filter(has_text=A).first.wait_for(timeout=120_000)
    wait_lists_loaded(page)


def fetch_and_read_feedback(page, student: Account) -> str:
    """Fetch Feedback in the Assignment List, follow its (view feedback) link, open the page; its text."""
    page.evaluate("() => window.jupyterapp.shell.activateById('nbgrader-assignment-list')")
    refresh_assignment_list(page)
    submitted = row(page, "submitted")
    submitted.locator("button:text-is('Fetch Feedback')").click()
    link = page.locator("#submitted_assignments_list a:has-text('view feedback')").first
    link.wait_for(timeout=120_000)
    shot(page, f"feedback-list-{student.name}")
    link.click()
    item = page.locator(".jp-DirListing-item").filter(has_text=Path(NB).stem + ".html").first
    item.wait_for(timeout=60_000)
    item.dblclick()
    frame = page.frame_locator(".jp-HTMLViewer:visible iframe")
    frame.locator("body").wait_for(timeout=60_000)
    deadline = time.monotonic() + 60
    text = ""
    while time.monotonic() < deadline:
        text = frame.locator("body").inner_text()
        if "Score" in text or "score" in text:
            break
        time.sleep(0.5)
    shot(page, f"feedback-{student.name}")
    return text


# ---------------------------------------------------------------------------------------------- the test

def test_course_flow(classroom: Classroom, browser):
    ada, alan = classroom.students
    correct, mistake = reference_answer(), zoo_entry()
    answers = {ada.name: correct, alan.name: as_typed(mistake.source)}
    timings = {}
    t0 = time.monotonic()

    # The instructor releases the assignment: nbgrader's release folder is course/ (nbgrader_setup).
    classroom.instructor_nbgrader("release_assignment", A)
    outbound = classroom.exchange / COURSE_ID / "outbound" / A
    assert (outbound / NB).is_file()
    timings["release"] = time.monotonic() - t0

    # Both students' JupyterLab servers start at once (the hub's REST API), then each logs in.
    classroom.start_servers([ada, alan])
    timings["servers"] = time.monotonic() - t0
    pages = {}
    for student in (ada, alan):
        page = log_in(browser, classroom, student)
        pages[student.name] = page
        open_assignment_list(page)
        shot(page, f"assignment-list-{student.name}")
        fetch(page)
        assert (student.home / A / NB).is_file()
        write_answer(page, student, answers[student.name])
        saved = json.loads((student.home / A / NB).read_text())
        cell = next(c for c in saved["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == ANSWER_ID)
        assert "".join(cell["source"]).strip() == answers[student.name].strip()
        submit(page)
        shot(page, f"submitted-{student.name}")
    timings["submitted"] = time.monotonic() - t0

    # The instructor collects (nbgrader: exchange -> submitted/), grades, writes and releases feedback.
    classroom.instructor_nbgrader("collect", A)
    submitted = classroom.grading / "submitted"
    for student in (ada, alan):
        assert (submitted / student.name / A / NB).is_file()
    graded = classroom.autograder("autograde", "--workers", "2", "--assignment", A)
    timings["autograde"] = time.monotonic() - t0
    reports = {s.name: json.loads((classroom.grading / "autograded" / s.name / A / f"{Path(NB).stem}.grade.json")
                                  .read_text()) for s in (ada, alan)}
    assert reports[ada.name]["score"] == reports[ada.name]["max_score"] > 0, graded.stdout
    failed = [c for c in reports[alan.name]["cells"] if c["status"] != "passed"]
    assert failed and reports[alan.name]["score"] < reports[alan.name]["max_score"], graded.stdout
    named = next(c["feedback"] for c in failed if mistake.feedback in c["feedback"])

    classroom.autograder("feedback")
    for student in (ada, alan):
        bridge_submission_stamp(classroom, student)
    classroom.instructor_nbgrader("release_feedback", A)
    timings["feedback released"] = time.monotonic() - t0

    # Each student fetches the feedback in the Assignment List and reads it in the browser.
    texts = {}
    for student in (ada, alan):
        texts[student.name] = fetch_and_read_feedback(pages[student.name], student)
        (ARTIFACTS / f"feedback-{student.name}.txt").write_text(texts[student.name])
    timings["feedback read"] = time.monotonic() - t0

    def score_line(report):
        return f"{report['score']:g} / {report['max_score']:g}"

    for student in (ada, alan):
        text, report = texts[student.name], reports[student.name]
        numbers = re.findall(r"Score:\s*([\d.]+)\s*/\s*([\d.]+)", text)
        assert numbers, f"no score in {student.name}'s feedback:\n{text[:2000]}"
        assert (float(numbers[0][0]), float(numbers[0][1])) == (report["score"], report["max_score"]), \
            f"{student.name}: feedback says {numbers[0]}, the gradebook {score_line(report)}"
    assert squash(named) in squash(texts[alan.name]), f"alan's feedback lacks the named mistake {named!r}"
    assert mistake.feedback in texts[alan.name]
    assert squash(named) not in squash(texts[ada.name])

    STATE.update(ok=True, pages=pages, answers=answers, reports=reports, timings=timings)
    (ARTIFACTS / "timings.json").write_text(json.dumps(timings, indent=1))


def squash(text: str) -> str:
    return " ".join(text.split())


def bridge_submission_stamp(classroom: Classroom, student: Account) -> None:
    """`nbgrader release_feedback` names each released page after the submission's secret, which it reads
    from the feedback folder (timestamp.txt, submission_secret.txt); nbgrader's own autograde carries those
    two files from submitted/ into autograded/ and so into feedback/. Where `python -m autograder` has not,
    the instructor copies them over from the collected submission."""
    feedback = classroom.grading / "feedback" / student.name / A
    source = classroom.grading / "submitted" / student.name / A
    for name in ("timestamp.txt", "submission_secret.txt"):
        if not (feedback / name).exists():
            classroom.run_as(classroom.instructor, "cp", str(source / name), str(feedback / name))


# ------------------------------------------------------------------------------------------- isolation

def flow_done() -> dict:
    if not STATE.get("ok"):
        pytest.skip("the course flow did not finish")
    return STATE


def denied(classroom: Classroom, reader: Account, *cmd: str) -> None:
    result = classroom.run_as(reader, *cmd, check=False)
    assert result.returncode != 0 and "Permission denied" in result.stderr, \
        f"{reader.name} ran {' '.join(cmd)}: exit {result.returncode}\n{result.stdout[:500]}{result.stderr[:500]}"


def one(pattern_root: Path, pattern: str) -> Path:
    found = sorted(pattern_root.glob(pattern))
    if len(found) != 1:      # not an assertion: the xfail tests below expect only their own to fail
        raise LookupError(f"{pattern_root}/{pattern}: {found}")
    return found[0]


def released_page_of(classroom: Classroom, student: Account) -> Path:
    """The student's feedback page in the exchange: release_feedback names it after the submission's secret."""
    from nbgrader.utils import notebook_hash

    secret = (inbound_of(classroom, student) / "submission_secret.txt").read_text()
    name = notebook_hash(secret=secret, notebook_id=Path(NB).stem)
    page = classroom.exchange / COURSE_ID / "feedback" / f"{name}.html"
    if not page.is_file():
        raise LookupError(f"no released feedback page {page}")
    return page


def inbound_of(classroom: Classroom, student: Account) -> Path:
    return one(classroom.exchange / COURSE_ID / "inbound", f"{student.name}+{A}+*")


def test_students_cannot_read_each_others_work(classroom: Classroom):
    state = flow_done()
    ada, alan = classroom.students
    grading = classroom.grading
    for reader, owner in ((alan, ada), (ada, alan)):
        # As a Unix user: the owner's home (their notebook, nbgrader's cache of the submission, the fetched
        # feedback) and the instructor's grading folder (submitted, autograded, feedback; a SQLite gradebook).
        targets = [owner.home / A / NB,
                   one(owner.home / A / "feedback", f"*/{Path(NB).stem}.html"),
                   one(owner.home / ".local/share/jupyter/nbgrader_cache" / COURSE_ID, f"{owner.name}+{A}+*") / NB,
                   grading / "submitted" / owner.name / A / NB,
                   grading / "autograded" / owner.name / A / NB,
                   grading / "feedback" / owner.name / A / f"{Path(NB).stem}.html"]
        if not classroom.db_url:
            targets.append(grading / "gradebook.db")
        for target in targets:
            assert target.is_file(), target
            denied(classroom, reader, "cat", str(target))
        denied(classroom, reader, "ls", str(owner.home))
        denied(classroom, reader, "ls", str(grading))
        # The exchange: submissions and released feedback cannot be listed, so their names stay unknown.
        denied(classroom, reader, "ls", str(classroom.exchange / COURSE_ID / "inbound"))
        denied(classroom, reader, "ls", str(classroom.exchange / COURSE_ID / "feedback"))
        name = inbound_of(classroom, owner).name
        assert re.fullmatch(rf"{re.escape(owner.name)}\+{A}\+[^+]+\+[A-Za-z0-9_=-]{{12}}", name), name

        if classroom.db_url and reader is alan:
            # The gradebook server answers on loopback, to the instructor's password only.
            denied(classroom, reader, "cat", str(classroom.instructor.home / ".pgpass"))
            result = classroom.run_as(reader, str(classroom.bin / "python"), "-c",
                                      f"import psycopg; psycopg.connect({classroom.db_url!r})", check=False)
            assert result.returncode != 0 and "password" in result.stderr, result.stderr[-1000:]

        # Through nbgrader, as the reader, naming the owner: no list of their submissions, no feedback.
        # (One direction only: each nbgrader command costs seconds.)
        if reader is alan:
            result = classroom.nbgrader(reader, "list", "--inbound", f"--student={owner.name}")
            assert owner.name not in result.stdout + result.stderr
            before = sorted(p.relative_to(reader.home) for p in (reader.home / A).rglob("*"))
            result = classroom.nbgrader(reader, "fetch_feedback", A, f"--student={owner.name}", check=False)
            after = sorted(p.relative_to(reader.home) for p in (reader.home / A).rglob("*"))
            assert after == before, f"{reader.name} fetched something as {owner.name}: {result.stderr[-1500:]}"

        # Through the hub, with the reader's own login: the owner's JupyterLab does not serve them.
        request = state["pages"][reader.name].context.request
        secret = state["answers"][owner.name].strip().splitlines()[-1].strip()
        for path in (f"user/{owner.name}/api/contents/{A}/{NB}?content=1", f"user/{owner.name}/files/{A}/{NB}",
                     f"user/{owner.name}/lab/tree/{A}/{NB}"):
            response = request.get(classroom.url + path)
            body = response.text()
            assert response.status in (403, 404), f"{reader.name} GET {path}: {response.status}"
            assert secret not in body


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="nbgrader 0.9.6 submit makes each submission folder 0777 with 0644 files, "
                                       "and release_feedback writes 0644 pages: only the unlisted folders and the "
                                       "random part of each name keep them from other students")
def test_a_submission_is_hidden_by_more_than_its_name(classroom: Classroom):
    flow_done()
    ada, alan = classroom.students
    targets = (inbound_of(classroom, ada) / NB, released_page_of(classroom, ada))
    read = [t.name for t in targets if classroom.run_as(alan, "cat", str(t), check=False).returncode == 0]
    assert not read, f"{alan.name} read {read} of {ada.name}'s by name"


def spoof_and_collect(classroom: Classroom) -> dict:
    """alan hands in his notebook under ada's name, and the instructor collects again (--update)."""
    if "spoof" not in STATE:
        ada, alan = classroom.students
        classroom.nbgrader(alan, "submit", A, f"--student={ada.name}")
        collected = classroom.instructor_nbgrader("collect", "--update", A)
        submitted = classroom.grading / "submitted" / ada.name / A / NB
        STATE["spoof"] = {"log": collected.stdout + collected.stderr,
                          "ada_now": json.loads(submitted.read_text())}
    return STATE["spoof"]


def answer_of(nb: dict) -> str:
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == ANSWER_ID)
    return "".join(cell["source"]).strip()


def test_collect_warns_of_a_submission_handed_in_under_another_name(classroom: Classroom):
    flow_done()
    ada, alan = classroom.students
    log = squash(spoof_and_collect(classroom)["log"])
    assert f"claims to be submitted by {ada.name} but is owned by {alan.name}" in log, log[-2000:]


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="nbgrader 0.9.6 collect only warns when a submission's owner is not the "
                                       "student it names (CollectApp.check_owner), and collects it anyway")
def test_collect_keeps_a_submission_handed_in_under_another_name_out(classroom: Classroom):
    state = flow_done()
    ada, _ = classroom.students
    assert answer_of(spoof_and_collect(classroom)["ada_now"]) == state["answers"][ada.name].strip()
