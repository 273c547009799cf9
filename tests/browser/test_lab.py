"""Works where learners are: every course notebook runs clean in JupyterLab, its widgets redraw their
figures, and nbgrader's JupyterLab extension (menu, assignment list, formgrader, Validate) is there.

Screenshots go to artifacts/screenshots/. Run with `make test-browser`; see conftest.py for the setup.
"""

from __future__ import annotations

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
RUN_ALL_TIMEOUT_MS = 240_000     # one notebook's Run All; generous because CPUs are shared
WIDGET_TIMEOUT_MS = 60_000       # one control change until its figure is redrawn
VALIDATE_TIMEOUT_MS = 240_000
MAX_SCREENSHOT_HEIGHT = 16_000   # Chromium cannot capture much taller pages


def strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


@dataclass
class Executed:
    """A course notebook opened in JupyterLab and Run All'd (or how that went wrong)."""

    name: str
    path: str                                  # as JupyterLab names it
    page: object
    seconds: float = 0.0
    summary: dict = field(default_factory=dict)
    problem: str | None = None                 # why it could not be run to the end


def open_notebook(page, path: str, timeout_ms: int = 180_000) -> None:
    """Open a notebook in the lab tab (as double-clicking it in the file browser does) and wait until
    its kernel is idle."""
    page.evaluate("(p) => { window.jupyterapp.commands.execute('docmanager:open', {path: p}); }", path)
    page.wait_for_function("(p) => { const w = window.__panel(p); return !!(w && w.context.isReady); }",
                           arg=path, timeout=timeout_ms)
    page.wait_for_function("(p) => window.__kernelIdle(p)", arg=path, timeout=timeout_ms, polling=250)


def screenshot(page, name: str, path: str | None = None) -> Path:
    """A full-page screenshot; with a notebook `path`, the window is first made tall enough to show the
    whole notebook (JupyterLab scrolls inside a fixed-size page, so full_page alone shows one screen)."""
    target = SCREENSHOTS / f"{name}.png"
    viewport = page.viewport_size
    if path is not None:
        height = page.evaluate("""(p) => { const panel = window.__panel(p);
            const scroller = panel.content.node.querySelector('.jp-WindowedPanel-outer') || panel.content.node;
            return panel.node.getBoundingClientRect().top + panel.toolbar.node.offsetHeight
                   + scroller.scrollHeight + 40; }""", path)
        page.set_viewport_size({"width": viewport["width"],
                                "height": int(min(max(height, viewport["height"]), MAX_SCREENSHOT_HEIGHT))})
        page.wait_for_timeout(300)
        page.evaluate("""(p) => { const panel = window.__panel(p);
            const scroller = panel.content.node.querySelector('.jp-WindowedPanel-outer') || panel.content.node;
            scroller.scrollTop = 0; }""", path)
        page.wait_for_timeout(300)
    try:
        page.screenshot(path=str(target), full_page=True)
    finally:
        if page.viewport_size != viewport:
            page.set_viewport_size(viewport)
    return target


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def executed(request, lab_server, _lab_session_page):
    """The course notebook with the reference answers filled in (as a student who finished it would
    have it), opened in JupyterLab and Run All'd. Module-scoped so that pytest runs the tests of one
    notebook one after the other on the same open notebook."""
    from autograder.samples import student_notebook

    source_path: Path = request.param
    page = _lab_session_page
    page.evaluate("() => window.__closeAll()")
    result = Executed(source_path.stem, "", page)
    try:
        try:
            source, nb = student_notebook(source_path.parent.name)
        except Exception as error:  # an unfinished notebook may not even build
            result.problem = f"could not build the student notebook: {type(error).__name__}: {error}"
            yield result
            return
        target = lab_server.notebooks / source.assignment / f"{source.name}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
        result.path = lab_server.rel(target)
        start = time.monotonic()
        try:
            open_notebook(page, result.path)
            page.evaluate("""async (p) => {
                const app = window.jupyterapp, panel = window.__panel(p);
                app.shell.activateById(panel.id);
                await app.commands.execute('notebook:clear-all-cell-outputs');
                window.__runAll = {done: false, ok: null, error: null};
                app.commands.execute('notebook:run-all-cells').then(
                    (ok) => { window.__runAll.done = true; window.__runAll.ok = ok; },
                    (e) => { window.__runAll.done = true; window.__runAll.error = String(e); });
            }""", result.path)
            page.wait_for_function("(p) => window.__runAll.done && window.__kernelIdle(p)", arg=result.path,
                                   timeout=RUN_ALL_TIMEOUT_MS, polling=250)
            page.wait_for_timeout(500)   # widget views render their outputs just after the kernel goes idle
        except Exception as error:
            result.problem = (f"opening it and Run All did not finish within the time allowed "
                              f"({type(error).__name__}: {str(error).splitlines()[0]})")
        result.seconds = time.monotonic() - start
        try:
            result.summary = page.evaluate("(p) => window.__summary(p)", result.path)
        except Exception as error:
            result.problem = result.problem or f"could not read the notebook back: {error}"
        yield result
    finally:
        page.keyboard.press("Escape")
        page.evaluate("() => window.__closeAll()")


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
                found.append(f"{where}: {out['ename']}: {out['evalue']}\n{strip_ansi(out['traceback'])[-1500:]}")
            elif "Traceback" in out["text"] or "Traceback" in out["plain"]:
                found.append(f"{where}: a traceback in its {out['name'] or out['output_type']} output:\n"
                             f"{strip_ansi(out['text'] or out['plain'])[-1500:]}")
    text = summary.get("text", "")
    for marker in ("Error displaying widget", "Traceback"):
        if marker in text and not any(marker in f for f in found):
            found.append(f"the rendered notebook shows {marker!r}")
    return found


def stderr_of(summary: dict) -> list[str]:
    return [f"cell {c['index']}: {o['text'].strip()[:300]}" for c in summary.get("cells", [])
            for o in c["outputs"] if o["name"] == "stderr" and o["text"].strip()]


def test_notebook_runs_clean(executed):
    """Run All in JupyterLab: every code cell gets an execution count and nothing raises."""
    if executed.path:
        shot = screenshot(executed.page, executed.name, executed.path)
        print(f"{executed.name}: Run All took {executed.seconds:.1f} s; screenshot {shot.relative_to(ROOT)}")
    for line in stderr_of(executed.summary):
        print(f"{executed.name} stderr (not an error): {line}")
    assert executed.problem is None, f"{executed.name}: {executed.problem}\n" + "\n".join(
        problems_of(executed.summary))
    found = problems_of(executed.summary)
    assert not found, f"{executed.name} does not run clean in JupyterLab:\n" + "\n\n".join(found)
    assert executed.summary["cells"], f"{executed.name} has no code cells"


CONTROLS = ".widget-slider .noUi-handle, .jupyter-widgets select"


def output_images(cell) -> list[str]:
    return cell.locator(".jp-Cell-outputArea img").evaluate_all("(imgs) => imgs.map((i) => i.src)")


def change_control(page, control) -> str:
    """Move a slider one step (right, or left at its maximum) or pick the next option of a dropdown."""
    tag = control.evaluate("(e) => e.tagName.toLowerCase()")
    if tag == "select":
        options = control.evaluate("(e) => ({n: e.options.length, i: e.selectedIndex})")
        if options["n"] < 2:
            return ""
        index = (options["i"] + 1) % options["n"]
        control.select_option(index=index)
        return f"dropdown -> option {index}"
    now = control.get_attribute("aria-valuenow")
    top = control.get_attribute("aria-valuemax")
    key = "ArrowLeft" if now is not None and top is not None and float(now) >= float(top) else "ArrowRight"
    control.click()
    page.keyboard.press(key)
    return f"slider {now} -> {key}"


def test_widgets_redraw_figure(executed):
    """Every slider or dropdown of the notebook's interactive figures redraws its figure when moved."""
    if executed.problem or not executed.path:
        pytest.skip(f"{executed.name} did not run (see test_notebook_runs_clean)")
    page = executed.page
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    cells = panel.locator(".jp-CodeCell").filter(has=page.locator(CONTROLS))
    if cells.count() == 0:
        pytest.skip(f"{executed.name} has no slider or dropdown")
    moved = 0
    for c in range(cells.count()):
        cell = cells.nth(c)
        cell.scroll_into_view_if_needed()
        for k in range(cell.locator(CONTROLS).count()):
            control = cell.locator(CONTROLS).nth(k)
            before = output_images(cell)
            assert before, f"{executed.name}: widget cell {c} shows no figure before its control is moved"
            what = change_control(page, control)
            if not what:
                continue
            try:
                page.wait_for_function(
                    """([p, before, sel, c]) => {
                        const cells = [...document.querySelectorAll(
                            '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell')].filter(
                            (e) => e.querySelector(sel));
                        const imgs = [...cells[c].querySelectorAll('.jp-Cell-outputArea img')].map((i) => i.src);
                        return window.__kernelIdle(p) && imgs.length > 0
                               && JSON.stringify(imgs) !== JSON.stringify(before);
                    }""", arg=[executed.path, before, CONTROLS, c], timeout=WIDGET_TIMEOUT_MS, polling=250)
            except Exception:
                text = cell.inner_text()
                pytest.fail(f"{executed.name}: widget cell {c}, control {k} ({what}): the figure did not "
                            f"change within {WIDGET_TIMEOUT_MS // 1000} s. Cell output:\n{text[-1500:]}")
            page.wait_for_timeout(300)
            text = cell.locator(".jp-Cell-outputArea").inner_text()
            assert "Traceback" not in text and "Error" not in text.split("\n")[0], (
                f"{executed.name}: widget cell {c}, control {k} ({what}) raised:\n{text[-1500:]}")
            moved += 1
    screenshot(page, f"{executed.name}-widgets", executed.path)
    assert moved, f"{executed.name}: no control could be moved"


# nbgrader's JupyterLab extension ----------------------------------------------------------------------

def open_nbgrader_menu(page):
    page.locator("#jp-MainMenu .lm-MenuBar-itemLabel", has_text=re.compile(r"^Nbgrader$")).click()
    menu = page.locator(".lm-Menu").filter(has_text="Formgrader").last
    menu.wait_for(state="visible")
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


# What nbgrader's panels show when something is wrong with the course's setup.
SETUP_ERRORS = ("does not exist", "Unwritable", "contact your instructor", "Error", "Traceback")


def test_nbgrader_assignment_list(lab):
    """Nbgrader > Assignment List renders, without an error about the course's exchange folder."""
    click_nbgrader_item(lab, "Assignment List")
    lab.wait_for_selector("#nbgrader-assignment-list", state="visible")
    lab.wait_for_selector("#released_assignments_list_loading", state="hidden", timeout=60_000)
    text = lab.locator("#nbgrader-assignment-list").inner_text()
    screenshot(lab, "nbgrader-assignment-list")
    assert "Released assignments" in text, text[:1000]
    shown = [e for e in SETUP_ERRORS if e in text]
    assert not shown, f"the assignment list shows an error ({shown}):\n{text[:1500]}"


def assignments_in_solutions() -> list[str]:
    return sorted({p.parent.name for p in NOTEBOOKS})


def wait_for_assignments(frame_or_page, names: list[str]) -> str:
    """Formgrader's Manage Assignments table lists every assignment of solutions/ (which shows that the
    project's nbgrader_config.py is in effect); returns the page text if it does not."""
    try:
        frame_or_page.locator("body").filter(has_text=names[-1]).wait_for(timeout=60_000)
    except Exception:
        pass
    return frame_or_page.locator("body").inner_text()


def test_formgrader_standalone(browser_context, lab_server):
    """/formgrader answers 200 with Manage Assignments, listing the course's assignments."""
    status, body = lab_server.get("formgrader")
    assert status == 200, f"/formgrader answered {status} (500 means the course root is not inside the " \
                          f"server's root_dir):\n{body[:1000]}"
    assert "Manage Assignments" in body
    page = browser_context.new_page()
    try:
        page.goto(lab_server.url + "formgrader")
        page.get_by_text("Manage Assignments").first.wait_for()
        names = assignments_in_solutions()
        text = wait_for_assignments(page, names)
        screenshot(page, "formgrader")
        missing = [n for n in names if n not in text]
        assert not missing, (f"formgrader does not list {missing}; it shows:\n{text[:1500]}\n"
                             f"server log:\n{lab_server.log_tail(15)}")
    finally:
        page.close()


def test_formgrader_in_lab(lab):
    """Nbgrader > Formgrader opens formgrader inside JupyterLab."""
    click_nbgrader_item(lab, "Formgrader")
    frame = lab.frame_locator("#formgrader-iframe iframe")
    frame.get_by_text("Manage Assignments").first.wait_for(timeout=60_000)
    names = assignments_in_solutions()
    text = wait_for_assignments(frame, names)
    screenshot(lab, "nbgrader-formgrader-in-lab")
    missing = [n for n in names if n not in text]
    assert not missing, f"formgrader in JupyterLab does not list {missing}; it shows:\n{text[:1500]}"


def validate_target() -> Path:
    """A finished notebook: the first one released in course/, else the first in solutions/."""
    released = [p for p in NOTEBOOKS if (ROOT / "course" / p.parent.name / p.name).exists()]
    return (released or NOTEBOOKS)[0]


def test_validate_button(lab, lab_server):
    """A notebook's toolbar has nbgrader's Validate button; on a finished notebook it reports success."""
    from autograder.samples import student_notebook

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
    assert lab.evaluate("() => window.jupyterapp.commands.hasCommand('notebook:run-all-cells')")
    button.click()
    lab.wait_for_function(
        "() => { const d = document.querySelector('.jp-Dialog');"
        " return !!(d && d.querySelector('.validation-success, .validation-failed, pre, p')); }",
        timeout=VALIDATE_TIMEOUT_MS, polling=500)
    text = lab.locator(".jp-Dialog").inner_text()
    screenshot(lab, "nbgrader-validate")
    assert "Success! Your notebook passes all the tests." in text, f"Validate on {source.name}:\n{text[:3000]}"
