"""Works where learners are: every course notebook runs clean in JupyterLab, its widgets redraw their
figures, and nbgrader's JupyterLab extension (menu, assignment list, formgrader, Validate) is there.

Screenshots go to artifacts/screenshots/. Run with `make test-browser`; see conftest.py for the setup.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"    # conftest.py's lab_server fixture creates it

NOTEBOOKS = sorted(p for p in (ROOT / "solutions").glob("*/*.ipynb") if ".ipynb_checkpoints" not in p.parts)
OPEN_TIMEOUT_MS = 180_000        # opening a notebook until its kernel is idle
RUN_ALL_TIMEOUT_MS = 300_000     # one notebook's Run All; generous because CPUs may be shared
WIDGET_TIMEOUT_MS = 60_000       # one control change until its figure is redrawn
VALIDATE_TIMEOUT_MS = 240_000
MAX_SCREENSHOT_HEIGHT = 16_000   # px; a taller notebook continues in <name>-part2.png, ...


def strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


@dataclass
class Executed:
    """A course notebook opened in JupyterLab and Run All'd (or how that went wrong)."""

    name: str
    path: str = ""                             # as JupyterLab names it
    page: object = None
    panel_id: str = ""
    seconds: float = 0.0                       # from opening to the end of Run All
    summary: dict = field(default_factory=dict)
    problem: str | None = None                 # why it could not be run to the end

    def activate(self) -> None:
        self.page.evaluate("(p) => window.__activate(window.__panel(p))", self.path)

    def panel(self):
        return self.page.locator(f'[id="{self.panel_id}"]')


class Runner:
    """Runs the course notebooks in the session's JupyterLab tab, two at a time: while one notebook runs
    (or its tests look at it), the next one is already open and running in another tab, with its own
    kernel. Most of a notebook's time goes to importing torch and to the grading self-check at its end,
    which runs in a separate process; two at a time keeps both CPUs of a small machine busy."""

    def __init__(self, page, server):
        self.page, self.server = page, server
        self.paths: dict[Path, str] = {}           # source notebook -> path in JupyterLab
        self.problems: dict[Path, str] = {}        # source notebook -> why it could not be started

    def start(self, source_path: Path) -> None:
        if source_path in self.problems:
            return
        if source_path in self.paths and self.page.evaluate(
                "(p) => !!(window.__runs[p] && window.__panel(p))", self.paths[source_path]):
            return
        from autograder.maintain.samples import student_notebook

        try:
            source, nb = student_notebook(source_path.parent.name)
        except Exception as error:  # an unfinished notebook may not even build
            self.problems[source_path] = f"could not build the student notebook: {_first_line(error)}"
            return
        target = self.server.notebooks / source.assignment / f"{source.name}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
        path = self.paths[source_path] = self.server.rel(target)
        self.page.evaluate("(p) => { window.__startRun(p); }", path)
        # Wait until Run All has started (it activates the notebook) so that nothing else switches tabs
        # meanwhile.
        try:
            self.page.wait_for_function("(p) => { const r = window.__runs[p];"
                                        " return !r || r.done || r.stage === 'running'; }",
                                        arg=path, timeout=OPEN_TIMEOUT_MS, polling=250)
        except Exception as error:
            self.problems[source_path] = f"did not open with an idle kernel in time: {_first_line(error)}"

    def finish(self, source_path: Path) -> Executed:
        self.start(source_path)
        result = Executed(source_path.stem, self.paths.get(source_path, ""), self.page)
        if source_path in self.problems:
            result.problem = self.problems[source_path]
            return result
        try:
            self.page.wait_for_function("(p) => { const r = window.__runs[p];"
                                        " return r && r.done && window.__kernelIdle(p); }",
                                        arg=result.path, timeout=RUN_ALL_TIMEOUT_MS, polling=250)
            run = self.page.evaluate("(p) => window.__runs[p]", result.path)
            result.seconds = (run["t1"] - run["t0"]) / 1000
            result.panel_id = run["panel"]
            if run["error"]:
                result.problem = f"JupyterLab could not open it or Run All: {run['error'][:1500]}"
            result.activate()
            self.page.wait_for_timeout(500)   # widget views render their outputs just after idle
        except Exception as error:
            run = self.page.evaluate("(p) => window.__runs[p] || {}", result.path)
            result.panel_id = run.get("panel") or ""
            result.problem = (f"Run All did not finish within {RUN_ALL_TIMEOUT_MS // 1000} s "
                              f"(stage: {run.get('stage')}; {_first_line(error)})")
        try:
            result.summary = self.page.evaluate("(p) => window.__summary(p)", result.path)
        except Exception as error:
            result.problem = result.problem or f"could not read the notebook back: {_first_line(error)}"
        return result

    def close(self, source_path: Path) -> None:
        if source_path in self.paths:
            self.page.keyboard.press("Escape")
            self.page.evaluate("(p) => window.__closePath(p)", self.paths[source_path])


def _first_line(error: Exception) -> str:
    return f"{type(error).__name__}: {(str(error).splitlines() or [''])[0]}"


@pytest.fixture(scope="session")
def runner(_lab_session_page, lab_server):
    _lab_session_page.evaluate("() => window.__closeAll()")
    return Runner(_lab_session_page, lab_server)


def selected_notebooks(session) -> list[Path]:
    """The notebooks of this session's selected tests, in the order pytest runs them."""
    order = []
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        if callspec and "executed" in callspec.params and callspec.params["executed"] not in order:
            order.append(callspec.params["executed"])
    return order


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def executed(request, runner):
    """The course notebook with the reference answers filled in (as a student who finished it would
    have it), opened in JupyterLab and Run All'd. Module-scoped so that pytest runs the tests of one
    notebook one after the other on the same open notebook; the next notebook starts meanwhile."""
    this = request.param
    runner.start(this)
    order = selected_notebooks(request.session)
    if this in order and order.index(this) + 1 < len(order):
        runner.start(order[order.index(this) + 1])
    result = runner.finish(this)
    try:
        yield result
    finally:
        runner.close(this)


def problems_of(summary: dict) -> list[str]:
    """Errors in an executed notebook: error outputs, tracebacks anywhere, widgets that failed to show,
    and code cells that never ran. stderr that is only a warning is not a problem."""
    found = []
    for cell in summary.get("cells", []):
        where = f"cell {cell['index']} ({cell['source'].splitlines()[0] if cell['source'] else 'empty'!r})"
        if cell["count"] is None:
            found.append(f"{where}: never ran (no execution count)")
        for out in cell["outputs"]:
            if out["output_type"] == "error" or "application/vnd.jupyter.error" in out["mimes"]:
                found.append(f"{where}: {out['ename']}: {out['evalue']}\n"
                             f"{strip_ansi(out['traceback'])[-1500:]}")
            elif "Traceback" in out["text"] or "Traceback" in out["plain"]:
                found.append(f"{where}: a traceback in its {out['name'] or out['output_type']} output:\n"
                             f"{strip_ansi(out['text'] or out['plain'])[-1500:]}")
    text = summary.get("text", "")
    for marker in ("Error displaying widget", "Traceback"):
        if marker in text and not any(marker in f for f in found):
            found.append(f"a rendered output shows {marker!r}")
    return found


def stderr_of(summary: dict) -> list[str]:
    return [f"cell {c['index']}: {o['text'].strip()[:300]}" for c in summary.get("cells", [])
            for o in c["outputs"] if o["name"] == "stderr" and o["text"].strip()]


def open_notebook(page, path: str) -> None:
    """Open a notebook (as double-clicking it in the file browser does); wait until its kernel is idle."""
    page.evaluate("(p) => { window.jupyterapp.commands.execute('docmanager:open', {path: p}); }", path)
    page.wait_for_function("(p) => { const w = window.__panel(p); return !!(w && w.context.isReady); }",
                           arg=path, timeout=OPEN_TIMEOUT_MS)
    page.wait_for_function("(p) => window.__kernelIdle(p)", arg=path, timeout=OPEN_TIMEOUT_MS, polling=250)


def screenshot(page, name: str, path: str | None = None) -> Path:
    """A full-page screenshot to artifacts/screenshots/<name>.png. With a notebook `path`, the window is
    first made tall enough to show the whole notebook (JupyterLab scrolls inside a fixed-size page, so
    full_page alone shows one screen); a notebook taller than MAX_SCREENSHOT_HEIGHT continues in
    <name>-part2.png, <name>-part3.png, ..."""
    target = SCREENSHOTS / f"{name}.png"
    for old in SCREENSHOTS.glob(f"{name}-part*.png"):
        old.unlink()
    viewport = page.viewport_size
    if path is None:
        page.screenshot(path=str(target), full_page=True)
        return target
    geometry = page.evaluate(f"""(p) => {{ const panel = window.__panel(p);
        const scroller = panel.content.node.querySelector('{SCROLLER}') || panel.content.node;
        return {{top: scroller.getBoundingClientRect().top, height: scroller.scrollHeight}}; }}""", path)
    chrome = int(geometry["top"]) + 60            # menu, tabs and toolbar above, status bar below
    height = min(max(geometry["height"] + chrome, viewport["height"]), MAX_SCREENSHOT_HEIGHT)
    step = height - chrome - 40                   # 40 px overlap between parts
    try:
        page.set_viewport_size({"width": viewport["width"], "height": int(height)})
        part, offset = 1, 0
        while True:
            page.evaluate(f"""([p, y]) => {{ const panel = window.__panel(p);
                const scroller = panel.content.node.querySelector('{SCROLLER}') || panel.content.node;
                scroller.scrollTop = y; }}""", [path, offset])
            page.wait_for_timeout(400)
            page.screenshot(path=str(target if part == 1 else SCREENSHOTS / f"{name}-part{part}.png"),
                            full_page=True)
            if offset + (height - chrome) >= geometry["height"]:
                break
            offset += step
            part += 1
    finally:
        page.set_viewport_size(viewport)
    return target


SCROLLER = ".jp-WindowedPanel-outer"   # the element a notebook scrolls in (JupyterLab 4)


def slowest_cells(summary: dict, n: int = 3) -> str:
    timed = sorted((c for c in summary.get("cells", []) if c.get("seconds") is not None),
                   key=lambda c: -c["seconds"])[:n]
    return ", ".join(f"cell {c['index']} {c['seconds']:.1f} s" for c in timed)


def test_notebook_runs_clean(executed):
    """Run All in JupyterLab: every code cell gets an execution count and nothing raises."""
    if executed.panel_id:
        executed.activate()
        shot = screenshot(executed.page, executed.name, executed.path)
        print(f"\n{executed.name}: open + Run All {executed.seconds or float('nan'):.1f} s (slowest: "
              f"{slowest_cells(executed.summary)}); screenshot {shot.relative_to(ROOT)}")
    for line in stderr_of(executed.summary):
        print(f"{executed.name} stderr (not an error): {line}")
    assert executed.problem is None, f"{executed.name}: {executed.problem}\n" + "\n".join(
        problems_of(executed.summary))
    found = problems_of(executed.summary)
    assert not found, f"{executed.name} does not run clean in JupyterLab:\n" + "\n\n".join(found)
    assert executed.summary["cells"], f"{executed.name} has no code cells"


# Controls of ipywidgets: a slider's handle, a dropdown's <select>.
CONTROLS = ".widget-slider .noUi-handle, .jupyter-widgets select"

# Number the notebook's cells in the DOM, and return those with a control in their output.
MARK_CELLS = """([id, sel]) => {
    const out = [];
    document.querySelectorAll(`[id="${id}"] .jp-Cell`).forEach((cell, i) => {
        cell.dataset.browserTestCell = i;
        if (cell.classList.contains('jp-CodeCell') && cell.querySelector(`.jp-Cell-outputArea :is(${sel})`)) {
            out.push(i);
        }
    });
    return out;
}"""

# What a cell shows below its controls: its images (figures) and its rendered text.
CELL_OUTPUT = """([id, i]) => {
    const area = document.querySelector(`[id="${id}"] [data-browser-test-cell="${i}"] .jp-Cell-outputArea`);
    return {imgs: [...area.querySelectorAll('img')].map((e) => e.src),
            text: [...area.querySelectorAll('.jp-RenderedText, .jp-RenderedHTMLCommon')]
                      .map((e) => e.innerText).join('\\n')};
}"""

# After a control moved: the kernel is idle again and the figure (or, without a figure, the text) changed.
CHANGED = """([p, id, i, before]) => {
    if (!window.__kernelIdle(p)) return false;
    const area = document.querySelector(`[id="${id}"] [data-browser-test-cell="${i}"] .jp-Cell-outputArea`);
    if (before.imgs.length) {
        const imgs = [...area.querySelectorAll('img')].map((e) => e.src);
        return imgs.length > 0 && JSON.stringify(imgs) !== JSON.stringify(before.imgs);
    }
    const text = [...area.querySelectorAll('.jp-RenderedText, .jp-RenderedHTMLCommon')]
                     .map((e) => e.innerText).join('\\n');
    return text.trim() !== '' && text !== before.text;
}"""


def change_control(page, control) -> str:
    """Move a slider one step (right, or left at its maximum) or pick the next option of a dropdown."""
    control.scroll_into_view_if_needed()
    if control.evaluate("(e) => e.tagName.toLowerCase()") == "select":
        options = control.evaluate("(e) => ({n: e.options.length, i: e.selectedIndex})")
        if options["n"] < 2:
            return ""
        # No selection (-1) shows when the widget's value is None, which the first option may also mean.
        index = 1 if options["i"] < 0 else (options["i"] + 1) % options["n"]
        control.select_option(index=index)
        return f"dropdown: option {options['i']} -> {index}"
    now, top = control.get_attribute("aria-valuenow"), control.get_attribute("aria-valuemax")
    key = "ArrowLeft" if now is not None and top is not None and float(now) >= float(top) else "ArrowRight"
    control.click()
    page.keyboard.press(key)
    return f"slider at {now}: {key}"


def widget_makers() -> set[str]:
    """The learner's helpers that build an ipywidgets control: every function of autograder/figures/ and
    autograder/widgets.py that imports ipywidgets."""
    import ast

    package = ROOT / "autograder"
    names = set()
    for path in [package / "widgets.py", *sorted((package / "figures").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(inner, (ast.Import, ast.ImportFrom)) and "ipywidgets" in ast.unparse(inner)
                    for inner in ast.walk(node)):
                names.add(node.name)
    return names


def shows_widgets(source_path: Path) -> bool:
    """Does one of the notebook's code cells call a helper that builds a widget?"""
    calls = re.compile(r"\b(" + "|".join(map(re.escape, sorted(widget_makers()))) + r")\(")
    nb = nbformat.read(source_path, as_version=4)
    return any(calls.search(cell.source) for cell in nb.cells if cell.cell_type == "code")


def test_widget_notebooks_are_known():
    """The widget test below skips a notebook without controls; these are the notebooks where that skip would
    hide a widget that failed to render."""
    assert {"broadcast_explorer", "batch_dim_explorer", "decision_practice"} <= widget_makers()
    assert [p.stem for p in NOTEBOOKS if shows_widgets(p)] == ["00_when_to_write_one", "03_shapes", "10_torch_func"]


def test_widgets_redraw_figure(executed):
    """Each slider or dropdown of the notebook's interactive demonstrations, moved, makes its cell's
    figure change (or, in a cell without a figure, its printed output)."""
    if executed.problem or not executed.panel_id:
        pytest.skip(f"{executed.name} did not run (see test_notebook_runs_clean)")
    page = executed.page
    executed.activate()
    cells = page.evaluate(MARK_CELLS, [executed.panel_id, CONTROLS])
    if not cells:
        source = next(p for p in NOTEBOOKS if p.stem == executed.name)
        assert not shows_widgets(source), f"{executed.name} builds a widget, but no slider or dropdown rendered"
        pytest.skip(f"{executed.name} has no slider or dropdown")
    moved = []
    for i in cells:
        cell = executed.panel().locator(f'[data-browser-test-cell="{i}"]')
        controls = cell.locator(".jp-Cell-outputArea").locator(CONTROLS)
        for k in range(controls.count()):
            before = page.evaluate(CELL_OUTPUT, [executed.panel_id, i])
            assert before["imgs"] or before["text"].strip(), (
                f"{executed.name}: cell {i} shows nothing (no figure, no text) under its controls")
            what = change_control(page, controls.nth(k))
            if not what:
                continue
            kind = "figure" if before["imgs"] else "printed output"
            try:
                page.wait_for_function(CHANGED, arg=[executed.path, executed.panel_id, i, before],
                                       timeout=WIDGET_TIMEOUT_MS, polling=250)
            except Exception:
                pytest.fail(f"{executed.name}: cell {i}, control {k} ({what}): its {kind} did not change "
                            f"within {WIDGET_TIMEOUT_MS // 1000} s. The cell shows:\n"
                            f"{cell.locator('.jp-Cell-outputArea').inner_text()[-1500:]}", pytrace=False)
            page.wait_for_timeout(500)
            text = cell.locator(".jp-Cell-outputArea").inner_text()
            assert "Traceback" not in text and "Error displaying widget" not in text, (
                f"{executed.name}: cell {i}, control {k} ({what}) raised:\n{text[-1500:]}")
            moved.append(f"cell {i} control {k} ({what}): {kind} changed")
    shot = screenshot(page, f"{executed.name}-widgets", executed.path)
    print(f"\n{executed.name}: " + "; ".join(moved) + f"; screenshot {shot.relative_to(ROOT)}")
    assert moved, f"{executed.name}: no control could be moved"


# nbgrader's JupyterLab extension ----------------------------------------------------------------------

def open_nbgrader_menu(page):
    """Click Nbgrader in the menu bar. (A click right after a menu was closed with Escape can toggle the
    menu bar instead of opening the menu: try again.)"""
    item = page.locator("#jp-MainMenu .lm-MenuBar-itemLabel", has_text=re.compile(r"^Nbgrader$"))
    menu = page.locator(".lm-Menu").filter(has_text="Formgrader").last
    for attempt in range(3):
        item.click()
        try:
            menu.wait_for(state="visible", timeout=5_000)
            return menu
        except Exception:
            page.keyboard.press("Escape")
    menu.wait_for(state="visible", timeout=5_000)
    return menu


def click_nbgrader_item(page, label: str) -> None:
    menu = open_nbgrader_menu(page)
    menu.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{label}$")).click()


def test_nbgrader_menu(lab):
    """The Nbgrader menu is in JupyterLab's menu bar, with the assignment list and formgrader."""
    menu = open_nbgrader_menu(lab)
    labels = [t.strip() for t in menu.locator(".lm-Menu-itemLabel").all_inner_texts()]
    screenshot(lab, "nbgrader-menu")
    for expected in ("Assignment List", "Formgrader"):
        assert expected in labels, f"the Nbgrader menu lacks {expected!r}: {labels}"


def open_assignment_list(page) -> str:
    click_nbgrader_item(page, "Assignment List")
    page.wait_for_selector("#nbgrader-assignment-list", state="visible")
    page.wait_for_selector("#released_assignments_list_loading", state="hidden", timeout=60_000)
    return page.locator("#nbgrader-assignment-list").inner_text()


def test_nbgrader_assignment_list(lab):
    """Nbgrader > Assignment List opens and renders its three lists."""
    text = open_assignment_list(lab)
    screenshot(lab, "nbgrader-assignment-list")
    for heading in ("Released assignments", "Downloaded assignments", "Submitted assignments"):
        assert heading in text, text[:1500]


# What nbgrader's panels show when the course's folders are not set up.
SETUP_ERRORS = ("does not exist", "Unwritable", "contact your instructor", "Error", "Traceback")


def test_nbgrader_assignment_list_has_no_setup_error(lab):
    """On a fresh clone (no .grading/ yet: the server runs with an empty AUTOGRADER_HOME), the
    assignment list shows no error about the exchange folder that nbgrader_config.py names."""
    text = open_assignment_list(lab)
    shown = [e for e in SETUP_ERRORS if e in text]
    assert not shown, f"the assignment list shows an error ({shown}):\n{text[:800]}"


def assignments_in_solutions() -> list[str]:
    return sorted({p.parent.name for p in NOTEBOOKS})


def test_formgrader_standalone(browser_context, lab_server):
    """/formgrader answers 200 and shows Manage Assignments (nbgrader_config.py's course root is inside
    the server's root; otherwise formgrader answers 500)."""
    status, body = lab_server.get("formgrader")
    assert status == 200, f"/formgrader answered {status}:\n{body[:1000]}"
    assert "Manage Assignments" in body
    page = browser_context.new_page()
    try:
        page.goto(lab_server.url + "formgrader")
        page.get_by_text("Manage Assignments").first.wait_for()
        page.wait_for_timeout(1500)    # the assignment table loads after the page
        screenshot(page, "formgrader")
    finally:
        page.close()


def test_formgrader_lists_course_assignments(lab_server):
    """On a fresh clone, formgrader's assignment table (its /formgrader/api/assignments) lists every
    assignment of solutions/: the project's nbgrader_config.py is in effect and its gradebook opens."""
    status, body = lab_server.get("formgrader/api/assignments")
    assert status == 200, (f"/formgrader/api/assignments answered {status}, so Manage Assignments stays at "
                           f"'Loading, please wait...'. Server log:\n{lab_server.log_tail(6)}")
    listed = {a.get("name") for a in json.loads(body)}
    missing = [n for n in assignments_in_solutions() if n not in listed]
    assert not missing, f"formgrader does not list {missing} (it lists {sorted(listed)})"


def test_formgrader_in_lab(lab):
    """Nbgrader > Formgrader opens formgrader inside JupyterLab."""
    click_nbgrader_item(lab, "Formgrader")
    frame = lab.frame_locator("#formgrader-iframe iframe")
    frame.get_by_text("Manage Assignments").first.wait_for(timeout=60_000)
    lab.wait_for_timeout(1500)
    screenshot(lab, "nbgrader-formgrader-in-lab")


def validate_target() -> Path:
    """A finished notebook: the first one released in course/, else the first in solutions/."""
    released = [p for p in NOTEBOOKS if (ROOT / "course" / p.parent.name / p.name).exists()]
    return (released or NOTEBOOKS)[0]


def test_validate_button(lab, lab_server):
    """A notebook's toolbar has nbgrader's Validate button; on a finished notebook it reports success."""
    from autograder.maintain.samples import student_notebook

    source, nb = student_notebook(validate_target().parent.name)
    target = lab_server.notebooks / "validate" / source.assignment / f"{source.name}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)
    path = lab_server.rel(target)
    open_notebook(lab, path)
    panel = lab.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    button = panel.locator(".jp-Toolbar .validate-button")
    button.wait_for(state="visible")
    assert "Validate" in button.inner_text()
    button.click()
    lab.wait_for_function(
        "() => { const d = document.querySelector('.jp-Dialog');"
        " return !!(d && d.querySelector('.validation-success, .validation-failed, pre, p')); }",
        timeout=VALIDATE_TIMEOUT_MS, polling=500)
    text = lab.locator(".jp-Dialog").inner_text()
    screenshot(lab, "nbgrader-validate")
    assert "Success! Your notebook passes all the tests." in text, (
        f"Validate on {source.name}:\n{text[:3000]}")
