"""The course site: the released notebooks of course/, executed as a learner first gets them, as a
Jupyter Book (1.x, Sphinx) in .site/_build/html/.

    python -m autograder.site.build            # or: make site
    python -m autograder.site.build --force    # re-execute every notebook, even unchanged ones

Only course/ goes in (never solutions/). Each notebook runs top to bottom with its exercises empty:
  - demonstrations must run clean (an error there fails the build, as it would mislead the reader),
    except those that use a learner's answer (directly, or through what an earlier such cell
    defined): like the visible tests, they show the error a learner sees before answering;
  - answer cells run (they define the learner's stubs) and are shown without output, as handed out;
  - visible test cells are allowed to fail, and show the NotImplementedError or NameError a learner
    sees before answering;
  - the self-check cell (`grade_this_notebook(...)`) is shown but not run: the site never grades.
Each page links to its notebook on Binder. MathJax and the widget manager come with the site
(autograder.site.assets bundles them from pinned npm packages), so its pages need no CDN. The table
of contents comes from the list of course notebooks, and the home page's course table from README.md,
so neither is kept by hand. Executed notebooks are cached in .site/book/ by content (the notebook, the
files of this package its cells imported, the PyTorch version): a rebuild re-executes only what changed.
The Sphinx build itself always runs in full, with warnings treated as errors.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import time
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat

from autograder.engine import notebooks
from autograder import paths
from autograder.site import assets as site_assets

SITE_SOURCES = paths.ROOT / "docs" / "site"     # _config.yml and the home page's template
# Pages of docs/site/ after the notebooks: compatibility.md is written by `python -m autograder.maintain.matrix render`.
EXTRA_PAGES = ["compatibility"]
BUILD = paths.ROOT / ".site"                    # git-ignored: the book's sources and its HTML
BOOK = BUILD / "book"
HTML = BUILD / "_build" / "html"
LOGS = BUILD / "logs"

REPOSITORY = "custom-autograd-course/custom-autograd-functions"
BRANCH = "main"
SKIP_TAG = "skip-execution"      # nbclient's tag for cells it must not run
ERROR_TAG = "raises-exception"   # nbclient's tag for cells whose error is expected
NEEDS_ANSWERS_NOTE = ("```{note}\nThe next demonstration uses your answers to the exercises above, so here, "
                      "without them, it shows the error it raises. Run it on Binder once you have written them.\n```")
TIMEOUT = 300                    # seconds per cell (each takes under 30 s on 2 busy cores)
IOPUB_TIMEOUT = 30               # seconds for a cell's last outputs after its reply: late outputs fail the build


def course_notebooks(course: Path | None = None) -> list[Path]:
    course = course or paths.COURSE
    return [p for p in sorted(course.glob("*/*.ipynb")) if ".ipynb_checkpoints" not in p.parts]


def page_name(notebook: Path) -> str:
    """The page's Sphinx name, which is also its path in the repository: course/<folder>/<file>."""
    return f"course/{notebook.parent.name}/{notebook.stem}"


def binder_url(notebook: Path) -> str:
    return (f"https://mybinder.org/v2/gh/{REPOSITORY}/{BRANCH}"
            f"?urlpath=lab/tree/course/{notebook.parent.name}/{notebook.name}")


def is_selfcheck(cell) -> bool:
    return cell.cell_type == "code" and "grade_this_notebook(" in cell.source


def _names(source: str) -> tuple[set[str], set[str]]:
    """The top-level names a cell defines, and every name it reads."""
    tree = ast.parse(source)
    defined, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (defined if isinstance(node.ctx, ast.Store) else used).add(node.id)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
    ignore = {"_"}
    return defined - ignore, used - ignore


def needs_answers(nb: nbformat.NotebookNode) -> set[int]:
    """Indices of the demonstration cells that use an answer, directly or through what an earlier such
    cell defined: without the learner's answers they cannot run."""
    tainted: set[str] = set()
    found = set()
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or is_selfcheck(cell):
            continue
        defined, used = _names(cell.source)
        if notebooks.role(cell) == "answer":
            tainted |= defined
        elif notebooks.role(cell) == "other":
            if (used - defined) & tainted:   # a name this cell reads but does not set itself
                found.add(index)
                tainted |= defined
            else:
                tainted -= defined           # set again by a cell that runs without the answers
    return found


def prepare(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Tag each code cell for execution by its role (see the module's docstring)."""
    nb = nbformat.from_dict(nb)
    dependent = needs_answers(nb)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = [t for t in cell.metadata.get("tags", []) if t not in (SKIP_TAG, ERROR_TAG)]
        if is_selfcheck(cell):
            tags.append(SKIP_TAG)
        elif notebooks.role(cell) in ("answer", "test") or index in dependent:
            tags.append(ERROR_TAG)
        cell.metadata["tags"] = tags
    return nb


def finish(nb: nbformat.NotebookNode, notebook: Path) -> nbformat.NotebookNode:
    """After execution: answer cells back to how they are handed out, our tags removed, a Binder link,
    and a note above each demonstration that needs the learner's answers."""
    for index in sorted(needs_answers(nb), reverse=True):
        nb.cells.insert(index, nbformat.v4.new_markdown_cell(NEEDS_ANSWERS_NOTE))
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if notebooks.role(cell) == "answer" or is_selfcheck(cell):
            cell.outputs, cell.execution_count = [], None
        tags = [t for t in cell.metadata.get("tags", []) if t not in (SKIP_TAG, ERROR_TAG)]
        if tags:
            cell.metadata["tags"] = tags
        else:
            cell.metadata.pop("tags", None)
    link = (f"**[Open this notebook on Binder]({binder_url(notebook)})**: JupyterLab in your browser, "
            "nothing to install.")
    first = nb.cells[0]
    if first.cell_type == "markdown" and first.source.startswith("# "):
        title, _, rest = first.source.partition("\n")
        first.source = f"{title}\n\n{link}\n{rest}"
    else:
        nb.cells.insert(0, nbformat.v4.new_markdown_cell(link))
    return nb


# The last cell of each run, removed again: which of the package's files the notebook's cells imported.
_IMPORTED = """import json as _json, sys as _sys
print(_json.dumps(sorted({getattr(_m, "__file__", None) or "" for _m in list(_sys.modules.values())}
                         - {""})))"""


def _package_files() -> dict[str, bytes]:
    package = paths.ROOT / "autograder"
    return {f.relative_to(paths.ROOT).as_posix(): f.read_bytes() for f in sorted(package.rglob("*.py"))}


def cache_key(notebook: bytes, imported: list[str], files: dict[str, bytes]) -> str:
    """What an executed page depends on: the notebook, the files of this package its cells imported,
    the code that runs and shapes it (this module, the cell roles) and the PyTorch version."""
    digest = hashlib.sha256(notebook)
    for name in sorted({*imported, "autograder/site/build.py", "autograder/engine/notebooks.py"}):
        digest.update(name.encode() + b"\0" + files.get(name, b"(missing)"))
    digest.update(importlib.metadata.version("torch").encode())
    return digest.hexdigest()


def is_current(notebook: Path, target: Path) -> bool:
    """Whether target is notebook's executed page and nothing it depends on has changed since."""
    if not target.exists():
        return False
    old = nbformat.read(target, as_version=4).metadata.get("course_site", {})
    return old.get("key") == cache_key(notebook.read_bytes(), old.get("imported", []), _package_files())


def _sliced(get_msg):
    """A channel's get_msg that waits in slices of at most a second. A single long wait on a kernel
    channel (pyzmq's asyncio poll) can miss the wake-up for a message that has arrived, and then sits
    out its whole timeout (seen here after widget-heavy cells on busy cores); each slice's end looks
    again, so a missed wake-up costs at most a second."""
    from queue import Empty

    async def wait(timeout: float | None = None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = 1.0 if deadline is None else min(1.0, max(0.0, deadline - time.monotonic()))
            try:
                return await get_msg(timeout=left)
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise

    return wait


def _client(nb, **options):
    from nbclient import NotebookClient

    class Client(NotebookClient):
        async def async_start_new_kernel_client(self):
            kc = await super().async_start_new_kernel_client()
            for channel in (kc.shell_channel, kc.iopub_channel):
                channel.get_msg = _sliced(channel.get_msg)
            return kc

    return Client(nb, **options)


def execute(notebook: Path, target: Path, force: bool = False, logs: Path = LOGS) -> tuple[str, float]:
    """Write the executed page of one course notebook to target; reuse it if nothing it depends on changed."""
    if not force and is_current(notebook, target):
        return "cached", 0.0
    # The key is computed from the files as they were before the run: one edited meanwhile runs again.
    source, files = notebook.read_bytes(), _package_files()
    nb = prepare(nbformat.reads(source.decode("utf-8"), as_version=4))
    nb.cells.append(nbformat.v4.new_code_cell(_IMPORTED))
    target.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    # Run in the page's own folder, as a learner runs the notebook in its folder.
    client = _client(nb, timeout=TIMEOUT, iopub_timeout=IOPUB_TIMEOUT, raise_on_iopub_timeout=True,
                     kernel_name="python3", skip_cells_with_tag=SKIP_TAG,
                     resources={"metadata": {"path": str(target.parent)}},
                     extra_arguments=["--IPKernelApp.log_level=ERROR", "--HistoryManager.enabled=False"])
    # What the kernel process itself prints (not a cell's output: e.g. PyTorch's C++ warnings) goes to a log.
    logs.mkdir(parents=True, exist_ok=True)
    with open(logs / f"{notebook.stem}.kernel.log", "w") as log:
        client.execute(stdout=log, stderr=log)
    seconds = time.monotonic() - start
    last = nb.cells.pop()
    loaded = json.loads("".join(o.text for o in last.outputs if o.output_type == "stream" and o.name == "stdout"))
    package = paths.ROOT / "autograder"
    imported = sorted(Path(f).resolve().relative_to(paths.ROOT).as_posix() for f in loaded
                      if Path(f).resolve().is_relative_to(package))
    nb = finish(nb, notebook)
    nb.metadata["course_site"] = {"key": cache_key(source, imported, files), "imported": imported}
    tmp = target.with_suffix(".tmp")
    nbformat.write(nb, tmp)
    tmp.replace(target)
    return "executed", seconds


def _execute_job(job: tuple[Path, Path, bool, Path]) -> tuple[str, float, str | None]:
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    try:
        return (*execute(*job), None)
    except CellTimeoutError as error:
        return "failed", 0.0, f"a cell or its output timed out:\n{error}"
    except CellExecutionError as error:   # a demonstration that fails without the answers
        return "failed", 0.0, f"a demonstration raised an error, so its page would mislead:\n{error}"


def readme_parts(readme: Path | None = None) -> tuple[str, str]:
    """README's title and first paragraph, and the course table under "## The course"."""
    text = (readme or paths.ROOT / "README.md").read_text(encoding="utf-8")
    intro = text.split("\n\n")[:2]
    if not intro or not intro[0].startswith("# "):
        raise ValueError("README.md must open with its title and a paragraph")
    section = re.search(r"^## The course\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not section:
        raise ValueError('README.md has no "## The course" section')
    table = "\n".join(line for line in section.group(1).splitlines() if line.startswith("|"))
    if not table:
        raise ValueError('README.md\'s "## The course" section has no table')
    return "\n\n".join(intro), table


def write_book(pages: list[str], book: Path = BOOK) -> None:
    """_config.yml, _toc.yml and index.md into the book's folder (the executed notebooks go there too)."""
    book.mkdir(parents=True, exist_ok=True)
    shutil.copy(SITE_SOURCES / "_config.yml", book / "_config.yml")
    toc = ["# Generated by autograder.site.build from the notebooks in course/: do not edit.",
           "format: jb-book", "root: index", "chapters:"]
    extra = [page for page in EXTRA_PAGES if (SITE_SOURCES / f"{page}.md").exists()]
    for page in extra:
        shutil.copy(SITE_SOURCES / f"{page}.md", book / f"{page}.md")
    toc += [f"  - file: {page}" for page in pages + extra]
    (book / "_toc.yml").write_text("\n".join(toc) + "\n")
    intro, table = readme_parts()
    template = (SITE_SOURCES / "index.md").read_text(encoding="utf-8")
    template = re.sub(r"\A<!--.*?-->\n", "", template, flags=re.S)
    (book / "index.md").write_text(template.replace("{{ README_INTRO }}", intro)
                                   .replace("{{ README_COURSE_TABLE }}", table))


def build(force: bool = False, workers: int = 2, quiet: bool = False) -> Path:
    """Execute the course notebooks (2 at a time) and build the HTML. Returns the HTML folder."""
    say = (lambda *a: None) if quiet else (lambda *a: print(*a, flush=True))
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    if not jupyter_book.exists():
        raise SystemExit("jupyter-book is not installed: `make site` installs it (pip install -e '.[site]')")
    sources = course_notebooks()
    if not sources:
        raise SystemExit("no notebooks in course/: run `make release` first")
    pages = [page_name(p) for p in sources]
    site_assets.install(say=say)    # MathJax and the widget scripts, in _static/vendor/: a no-op when current
    # Pages of notebooks no longer in course/ must not linger in the book.
    if (BOOK / "course").exists():
        keep = {BOOK / f"{page}.ipynb" for page in pages}
        for stale in (BOOK / "course").rglob("*.ipynb"):
            if stale not in keep:
                stale.unlink()
    start = time.monotonic()

    jobs = []
    for source in sources:
        target = BOOK / f"{page_name(source)}.ipynb"
        if not force and is_current(source, target):
            say(f"  {source.name:40} unchanged")
        else:
            jobs.append((source, target, True, LOGS))
    # Each notebook runs in a fresh process of its own (which drives its kernel): no state is shared.
    if jobs:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            for (source, *_), (how, seconds, error) in zip(jobs, pool.map(_execute_job, jobs)):
                if error:
                    raise SystemExit(f"course/{source.parent.name}/{source.name}: {error}")
                say(f"  {source.name:40} executed in {seconds:.1f} s")
    say(f"notebooks ready in {time.monotonic() - start:.1f} s")
    write_book(pages)
    if HTML.exists():
        shutil.rmtree(HTML)
    sphinx_start = time.monotonic()
    command = [str(jupyter_book), "build", str(BOOK), "--path-output", str(BUILD), "--builder", "html",
               "--all", "--warningiserror", "--keep-going"]
    if quiet:
        command.append("--quiet")
    result = subprocess.run(command)
    if result.returncode != 0:
        raise SystemExit(f"the site did not build (jupyter-book exit code {result.returncode}); "
                         "every warning counts as an error")
    _widget_fonts_beside_pages(HTML)
    say(f"HTML built in {time.monotonic() - sphinx_start:.1f} s: {HTML / 'index.html'}")
    return HTML


def _widget_fonts_beside_pages(html: Path) -> None:
    """The widget manager's stylesheet declares the icon fonts again, at `@jupyter-widgets/<file>` next to the page
    that loads it; once it has loaded, every icon of the page (the theme's "back to top" arrow, shown only once the
    reader scrolls down) asks for its font there. Each page that loads the manager gets those fonts beside it."""
    fonts = sorted((html / "_static" / "vendor" / "html-manager").glob("*.woff*"))
    for page in html.rglob("*.html"):
        if fonts and "html-manager/embed-amd.js" in page.read_text(encoding="utf-8", errors="replace"):
            folder = page.parent / "@jupyter-widgets"
            folder.mkdir(exist_ok=True)
            for font in fonts:
                shutil.copy(font, folder / font.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.site.build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="re-execute every notebook, even unchanged ones")
    parser.add_argument("--workers", type=int, default=2, help="notebooks executed at a time (default 2)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    start = time.monotonic()
    build(force=args.force, workers=args.workers, quiet=args.quiet)
    if not args.quiet:
        print(f"site built in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
