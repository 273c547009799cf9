"""The course site (`make site`): a page per course notebook with its figures and its Binder link, the
home page's course table from README.md, and nothing from solutions/ (answers or hidden tests).

The build takes a minute or two and needs Jupyter Book (`pip install -e '.[site]'`): `make test-site`
runs these tests (SITE_TESTS=1); `make test` skips the ones that build. The build runs once per session.

The site is whole offline: no page loads a script, stylesheet, font or image from another host (read off
the HTML and CSS), and in headless Chromium (the system one, as in tests/browser/), with every request to
another host refused, a page's math is typeset by MathJax and a page's widgets are drawn by the widget
manager, both from the copies autograder.site.assets bundles into the site.
"""

from __future__ import annotations

import functools
import http.server
import io
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest

from helpers import PY, ROOT

from autograder.engine import notebooks
from autograder.site import build as site, assets as site_assets

pytestmark = pytest.mark.site

needs_build = pytest.mark.skipif(os.environ.get("SITE_TESTS") != "1",
                                 reason="site test: run with `make test-site`")

COURSE = sorted(p for p in (ROOT / "course").glob("*/*.ipynb") if ".ipynb_checkpoints" not in p.parts)
SOLUTIONS = sorted(p for p in (ROOT / "solutions").glob("*/*.ipynb") if ".ipynb_checkpoints" not in p.parts)
HTML = ROOT / ".site" / "_build" / "html"
BOOK = ROOT / ".site" / "book"
IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml", "image/gif")
WIDGET = "application/vnd.jupyter.widget-view+json"
TEXT_SUFFIXES = {".html", ".js", ".json", ".ipynb", ".txt", ".md", ".css", ".yml", ".xml"}


# -- helpers -----------------------------------------------------------------------------------------

class _Page(HTMLParser):
    """A page's text as a reader sees it (code spans joined back into lines), its links and images."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.links, self.images = [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag == "img":
            self.images.append(attrs.get("src", ""))

    def handle_data(self, data):
        self.text.append(data)


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.text = "".join(page.text)
    return page


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def page_of(notebook: Path) -> Path:
    return HTML / "course" / notebook.parent.name / f"{notebook.stem}.html"


def binder_url_from_readme(notebook: Path) -> str:
    """README's Binder badge, pointed at this notebook."""
    badge = re.search(r"\]\((https://mybinder\.org/v2/gh/[^)?]+)\?urlpath=lab/tree/course/[^)]+\)",
                      (ROOT / "README.md").read_text())
    assert badge, "README.md has no Binder badge"
    return f"{badge.group(1)}?urlpath=lab/tree/course/{notebook.parent.name}/{notebook.name}"


def between(source: str, begin: str, end: str) -> list[str]:
    return re.findall(rf"^[ \t]*### {begin}[^\n]*\n(.*?)^[ \t]*### {end}", source, re.M | re.S)


def secret_lines() -> dict[str, set[str]]:
    """Per solutions notebook: the distinctive lines of its answers and hidden tests, that is, every
    line of at least 12 characters between the markers that the released course does not contain."""
    released = "\n".join(c.source for p in COURSE for c in nbformat.read(p, as_version=4).cells)
    released = squash(released) + "\n" + squash(released.replace("`", ""))   # as code and as rendered text
    found = {}
    for path in SOLUTIONS:
        nb = nbformat.read(path, as_version=4)
        blocks = []
        for cell in nb.cells:
            blocks += between(cell.source, "BEGIN SOLUTION", "END SOLUTION")
            blocks += between(cell.source, "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
        lines = {squash(line) for block in blocks for line in block.splitlines()}
        found[path.stem] = {line for line in lines if len(line) >= 12 and line not in released}
    return found


def site_texts() -> dict[Path, str]:
    """Every text file of the built site: a page's raw HTML and its text as read, other files as they are."""
    texts = {}
    for path in sorted(HTML.rglob("*")):
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES:
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".html":
            raw += "\n" + parse(path).text
        texts[path] = squash(raw)
    return texts


def is_external(url: str) -> bool:
    """Whether a URL names another host (a page of this static site names its own files by relative paths)."""
    url = url.strip()
    return url.startswith("//") or urlsplit(url).scheme in ("http", "https", "ftp", "ws", "wss")


# -- what needs no build -------------------------------------------------------------------------------

def test_the_course_has_notebooks_and_solutions():
    assert COURSE and SOLUTIONS


def test_home_page_table_is_readmes_course_table():
    intro, table = site.readme_parts()
    assert intro.startswith("# ")
    rows = [line for line in table.splitlines() if re.match(r"\| \d\d[a-z]? \|", line)]  # 10b: a letter
    assert len(rows) == len(COURSE)
    for row, notebook in zip(rows, COURSE):
        assert f"(course/{notebook.parent.name}/{notebook.name})" in row


def test_table_of_contents_lists_every_course_notebook_in_order(tmp_path):
    site.write_book([site.page_name(p) for p in site.course_notebooks()], book=tmp_path)
    toc = (tmp_path / "_toc.yml").read_text()
    files = re.findall(r"^\s*- file: (\S+)$", toc, re.M)
    assert files == [f"course/{p.parent.name}/{p.stem}" for p in COURSE] + site.EXTRA_PAGES
    assert (tmp_path / "compatibility.md").read_text().startswith("<!-- Generated by")
    index = (tmp_path / "index.md").read_text()
    assert "{{" not in index and "| 00 |" in index


def test_demonstrations_that_use_an_answer_are_found():
    nb = nbformat.v4.new_notebook()
    answer = nbformat.v4.new_code_cell("class Square:\n    pass\n# YOUR CODE HERE\nraise NotImplementedError()")
    answer.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "answer_Square"}
    nb.cells = [
        nbformat.v4.new_code_cell("import torch\nx = torch.ones(3)"),
        answer,
        nbformat.v4.new_code_cell("y = Square.apply(x)"),           # uses the answer
        nbformat.v4.new_code_cell("print(y * 2)"),                  # uses what that cell made
        nbformat.v4.new_code_cell("y = x + 1\nprint(y)"),            # sets y again without the answer
        nbformat.v4.new_code_cell("print(y)"),                       # so this one runs
    ]
    assert site.needs_answers(nb) == {2, 3}
    tags = [c.metadata.get("tags", []) for c in site.prepare(nb).cells]
    assert tags == [[], ["raises-exception"], ["raises-exception"], ["raises-exception"], [], []]


def is_bundled(path: str) -> bool:
    """Whether a bundle's pins name this path under _static/ (a file, or one under a folder they take)."""
    for bundle in site_assets.BUNDLES:
        prefix = f"vendor/{bundle.folder}/"
        if path.startswith(prefix):
            name = bundle.strip + path.removeprefix(prefix)
            under = lambda entry: name == entry or (entry.endswith("/") and name.startswith(entry))
            return any(map(under, bundle.take)) and not any(map(under, bundle.leave))
    return False


def test_the_site_config_loads_only_what_the_site_has():
    import yaml

    config = yaml.safe_load((site.SITE_SOURCES / "_config.yml").read_text())["sphinx"]["config"]
    assert [(site.BOOK / p).resolve() for p in config["html_static_path"]] == [site_assets.ASSETS.resolve()]
    scripts = [config["mathjax_path"], *config["nb_ipywidgets_js"]]
    assert len(scripts) == 4 and not [s for s in scripts if is_external(s)]
    own = {p.name for p in site_assets.OWN.iterdir()}
    for script in scripts:
        assert is_bundled(script) or script in own, f"{script}: neither bundled nor in docs/site/static/"
    assert list(config["nb_ipywidgets_js"])[0].endswith("require.js")      # RequireJS before what needs it
    assert list(config["nb_ipywidgets_js"])[-1].endswith("embed-amd.js")
    assert not is_bundled("vendor/html-manager/embed.js") and not is_bundled("vendor/mathjax/tex-svg.js")


def test_the_bundled_mathjax_is_the_major_version_sphinx_would_load():
    mathjax = pytest.importorskip("sphinx.ext.mathjax", reason="needs the site extra (make site)")
    major = re.search(r"mathjax@(\d+)", mathjax.MATHJAX_URL).group(1)
    bundle = next(b for b in site_assets.BUNDLES if b.package == "mathjax")
    assert bundle.version.split(".")[0] == major


def _tarball(path: Path, members: dict[str, bytes], link: str | None = None) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        if link:
            info = tarfile.TarInfo(link)
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(info)
    return path


def test_a_bundle_takes_only_the_files_it_names(tmp_path):
    tarball = _tarball(tmp_path / "p.tgz", {
        "package/es5/a.js": b"a", "package/es5/sub/b.js": b"b", "package/es5/sub/map.js.map": b"m",
        "package/es5/other.js": b"o", "package/LICENSE": b"l", "package/../evil.js": b"e",
        "outside/x.js": b"x"}, link="package/es5/sub/link.js")
    bundle = site_assets.Bundle("p", "1.0.0", "", folder="p", take=("LICENSE", "es5/a.js", "es5/sub/"),
                                leave=("es5/sub/map.js.map",), strip="es5/")
    taken = site_assets.unpack(tarball, bundle, tmp_path / "out")
    assert sorted(taken) == ["LICENSE", "a.js", "sub/b.js"]
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*")
                  if p.is_file()) == ["LICENSE", "a.js", "sub/b.js"]
    assert not (tmp_path / "evil.js").exists()
    with pytest.raises(SystemExit, match="has no"):
        site_assets.unpack(tarball, site_assets.Bundle("p", "1.0.0", "", folder="p", take=("es5/gone.js",)),
                           tmp_path / "out2")


def test_a_tarball_that_is_not_the_pinned_one_is_refused(tmp_path, monkeypatch):
    tarball = _tarball(tmp_path / "p.tgz", {"package/dist/x.js": b"x"})
    fetched = []

    def npm_pack(package, version, into):
        fetched.append(package)
        return Path(shutil.copy(tarball, into / "p.tgz"))

    monkeypatch.setattr(site_assets, "npm_pack", npm_pack)
    vendor = tmp_path / "vendor"
    wrong = site_assets.Bundle("p", "1.0.0", "sha512-AAAA", folder="p", take=("dist/",), strip="dist/")
    with pytest.raises(SystemExit, match="not the pinned"):
        site_assets.install(vendor, (wrong,), say=lambda *a: None)
    assert not vendor.exists()
    right = site_assets.Bundle("p", "1.0.0", site_assets.integrity(tarball), folder="p", take=("dist/",),
                               strip="dist/")
    site_assets.install(vendor, (right,), say=lambda *a: None)
    assert (vendor / "p" / "x.js").read_bytes() == b"x" and site_assets.is_current(vendor, (right,))
    site_assets.install(vendor, (right,), say=lambda *a: None)            # current: nothing fetched
    assert fetched == ["p", "p"]
    assert not site_assets.is_current(vendor, (right, wrong))               # a changed pin fetches again


# -- the built site ---------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def built():
    """Build the site once per test session (unchanged notebooks are not re-executed)."""
    start = time.monotonic()
    run = subprocess.run([PY, "-m", "autograder.site.build"], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-5000:]   # the build treats every warning as an error
    assert "build succeeded" in output
    print(f"site built in {time.monotonic() - start:.0f} s")
    return HTML


@needs_build
def test_every_course_notebook_has_a_page(built):
    home = parse(built / "index.html")
    for notebook in COURSE:
        page = page_of(notebook)
        assert page.exists(), f"no page for {notebook.relative_to(ROOT)}"
        title = squash(nbformat.read(notebook, as_version=4).cells[0].source.splitlines()[0].lstrip("# "))
        assert squash(title.replace("`", "")) in squash(parse(page).text)
        assert f"course/{notebook.parent.name}/{notebook.stem}.html" in home.links
    assert not list(built.rglob("*solutions*")), "a page or file from solutions/"


@needs_build
def test_the_compatibility_matrix_is_a_page(built):
    page = parse(built / "compatibility.html")
    assert "Compatibility matrix" in page.text and "silently wrong" in page.text
    assert "https://github.com/pytorch/pytorch/issues/197867" in page.links
    assert any(link.startswith("course/10_torch_func/10_torch_func") for link in page.links)


@needs_build
def test_every_page_links_to_its_notebook_on_binder(built):
    for notebook in COURSE:
        url = binder_url_from_readme(notebook)
        links = parse(page_of(notebook)).links
        assert url in links, f"{page_of(notebook).name}: no link to {url}"


@needs_build
def test_every_figure_a_demonstration_draws_is_on_its_page(built):
    drawn_in_total = 0
    for notebook in COURSE:
        executed = nbformat.read(BOOK / "course" / notebook.parent.name / notebook.name, as_version=4)
        demos = [c for c in executed.cells if c.cell_type == "code" and notebooks.role(c) == "other"]
        drawn = sum(1 for c in demos for o in c.outputs if any(t in o.get("data", {}) for t in IMAGE_TYPES))
        # A demonstration that shows a figure and runs without the learner's answers has drawn it (a
        # figure inside a widget is drawn by the widget, where widgets render; its notebook draws it
        # statically too).
        needs = site.needs_answers(executed)
        for index, cell in enumerate(executed.cells):
            widget = any(WIDGET in o.get("data", {}) for o in cell.get("outputs", []))
            if cell in demos and index not in needs and "plt.show()" in cell.source and not widget:
                assert any(t in o.get("data", {}) for o in cell.outputs for t in IMAGE_TYPES), \
                    f"{notebook.name}: {notebooks.nbgrader_meta(cell).get('grade_id')} drew no figure"
        shown = [src for src in parse(page_of(notebook)).images if "_images/" in src]
        assert len(shown) == drawn, f"{notebook.name}: {drawn} figures drawn, {len(shown)} on the page"
        for src in shown:
            assert (page_of(notebook).parent / src).resolve().is_file(), src
        drawn_in_total += drawn
    assert drawn_in_total >= len(COURSE) // 2


@needs_build
def test_visible_tests_show_their_error_and_the_self_check_does_not_run(built):
    for notebook in COURSE:
        executed = nbformat.read(BOOK / "course" / notebook.parent.name / notebook.name, as_version=4)
        tests = [c for c in executed.cells if notebooks.role(c) == "test" and "check." in c.source]
        errors = [c for c in tests if any(o.output_type == "error" for o in c.outputs)]
        assert errors, f"{notebook.name}: no visible test shows the error a learner sees before answering"
        # before answering, a visible test says so (not a NameError, nor a stub's bare NotImplementedError)
        unclear = [o.get("evalue", "")[:120] for c in errors for o in c.outputs if o.output_type == "error"
                   and not any(words in o.get("evalue", "") for words in ("not implemented yet", "not answered yet"))]
        assert not unclear, f"{notebook.name}: visible tests that do not say the exercise is not done yet: {unclear}"
        for cell in executed.cells:
            if notebooks.role(cell) == "answer" or "grade_this_notebook(" in cell.source:
                assert not cell.outputs and cell.execution_count is None
    assert not (BOOK / ".grading").exists()


@needs_build
def test_no_solution_or_hidden_test_is_on_the_site(built):
    texts = site_texts()
    assert any(p.suffix == ".html" for p in texts)
    for path, text in texts.items():
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
            assert marker not in text, f"{path.relative_to(HTML)}: {marker}"
    secrets = secret_lines()
    assert sum(len(lines) for lines in secrets.values()) >= 50, "too few distinctive solution lines to check"
    everything = "\n".join(texts.values())
    for name, lines in secrets.items():
        assert lines, f"{name}: no distinctive solution line"
        leaked = sorted(line for line in lines if line in everything)
        assert not leaked, f"{name}: solution or hidden-test lines on the site: {leaked[:5]}"


@needs_build
def test_the_search_can_see_code(built):
    """The leak check reads pages as text: a line of each page's own demonstration code is found."""
    texts = site_texts()
    for notebook in COURSE:
        nb = nbformat.read(notebook, as_version=4)
        demo = next(c for c in nb.cells if c.cell_type == "code" and notebooks.role(c) == "other"
                    and c.source.startswith("# Demonstration"))
        line = next(squash(l) for l in demo.source.splitlines()[1:] if len(l.strip()) >= 12)
        assert line in texts[page_of(notebook)], f"{notebook.name}: {line!r} not found on its page"


# -- whole offline -----------------------------------------------------------------------------------

# A <link>'s rel that names a page to go to, not a file the browser loads with the page.
NAVIGATION_RELS = {"canonical", "next", "prev", "index", "search", "author", "license", "help", "alternate",
                   "top", "up", "first", "last", "copyright", "bookmark", "external", "nofollow", "noopener",
                   "noreferrer"}
# Attributes whose URL the browser (or a script of the page) fetches.
RESOURCE_ATTRS = {("script", "src"), ("img", "src"), ("img", "srcset"), ("source", "src"),
                  ("source", "srcset"), ("iframe", "src"), ("embed", "src"), ("object", "data"),
                  ("video", "src"), ("video", "poster"), ("audio", "src"), ("track", "src"),
                  ("input", "src"), ("script", "data-jupyter-widgets-cdn")}
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""")
# The one absolute URL allowed in a page's inline scripts: sphinx-thebe's, fetched only when a reader presses
# a "Live Code" launch button, which this site does not show (asserted below).
INLINE_SCRIPT_URLS = {re.compile(r"https://unpkg\.com/thebe@[\d.]+/lib/index\.js")}


def css_urls(css: str) -> list[str]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    return [a or b for a, b in CSS_URL.findall(css)]


class _Resources(HTMLParser):
    """Every URL a page loads (scripts, stylesheets, fonts, images, frames), and its inline scripts' text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.loads, self.inline_scripts, self.styles = [], [], []
        self._in, self._script_type = None, ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name, value in attrs.items():
            if (tag, name) in RESOURCE_ATTRS and value:
                urls = [part.split()[0] for part in value.split(",") if part.strip()] if "srcset" in name \
                    else [value]
                self.loads += [(f"<{tag} {name}>", url) for url in urls]
        if tag == "link" and attrs.get("href"):
            rels = set((attrs.get("rel") or "").lower().split())
            if not rels or rels - NAVIGATION_RELS:
                self.loads.append((f"<link rel={attrs.get('rel')}>", attrs["href"]))
        if attrs.get("style"):
            self.styles.append(attrs["style"])
        self._in = tag if tag in ("script", "style") and not attrs.get("src") else None
        self._script_type = attrs.get("type", "")

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "style":
            self.styles.append(data)
        elif self._in == "script" and self._script_type in ("", "text/javascript", "module"):
            self.inline_scripts.append(data)


def resources(path: Path) -> _Resources:
    found = _Resources()
    found.feed(path.read_text(encoding="utf-8"))
    return found


@needs_build
def test_no_page_loads_anything_from_another_host(built):
    # Every page (the .html files in _static/ are the theme's Jinja macros, not pages).
    pages = sorted(p for p in built.rglob("*.html") if "_static" not in p.relative_to(built).parts)
    assert len(pages) > len(COURSE)
    loaded = 0
    for page in pages:
        name = page.relative_to(built)
        found = resources(page)
        external = [f"{what} {url}" for what, url in found.loads if is_external(url)]
        external += [f"<style> {url}" for css in found.styles for url in css_urls(css) if is_external(url)]
        for script in found.inline_scripts:
            for url in re.findall(r"""https?://[^\s"'`<>]+""", script):
                if not any(allowed.fullmatch(url) for allowed in INLINE_SCRIPT_URLS):
                    external.append(f"<script> (inline) {url}")
        assert not external, f"{name} loads from another host: {external}"
        assert "thebe-launch-button" not in page.read_text(encoding="utf-8"), f"{name}: a Live Code button"
        for what, url in found.loads:   # and what it loads is in the site
            if what.startswith(("<script src", "<link")) and not url.startswith("data:"):
                target = (page.parent / urlsplit(url).path).resolve()
                assert target.is_file() and target.is_relative_to(built.resolve()), f"{name}: {url} is missing"
                loaded += 1
    assert loaded >= 10 * len(pages)
    for sheet in sorted(built.rglob("*.css")):
        external = [url for url in css_urls(sheet.read_text(encoding="utf-8", errors="replace"))
                    if is_external(url)]
        assert not external, f"{sheet.relative_to(built)} loads from another host: {external}"


def widget_pages() -> list[Path]:
    """The course notebooks whose executed demonstrations show a widget (each page keeps its state)."""
    found = []
    for notebook in COURSE:
        executed = nbformat.read(BOOK / "course" / notebook.parent.name / notebook.name, as_version=4)
        if any(WIDGET in o.get("data", {}) for c in executed.cells if c.cell_type == "code" for o in c.outputs):
            found.append(notebook)
    return found


@needs_build
def test_every_widget_a_page_uses_is_in_the_bundled_manager(built):
    """The widget manager loads a widget's code from a CDN unless the module is one it bundles: every
    widget on the site is of those (base, controls, output), so none is fetched."""
    assert widget_pages(), "no course page shows a widget"
    for notebook in widget_pages():
        html = page_of(notebook).read_text(encoding="utf-8")
        modules = set(re.findall(r'"(?:model|view)_module": "([^"]+)"', html))
        assert modules and modules <= {"@jupyter-widgets/base", "@jupyter-widgets/controls",
                                       "@jupyter-widgets/output"}, f"{notebook.name}: {modules}"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(built):
    """The built site over HTTP on 127.0.0.1 (a port of its own), as a static host serves it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(built)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()



CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


class OfflineBrowser:
    """Headless Chromium that reaches the local server only: every other request is refused and noted,
    as is every local request that fails or finds nothing."""

    def __init__(self, context, base: str):
        self.context, self.base = context, base
        self.refused, self.failed = [], []
        context.route("**/*", self._route)

    def _route(self, route):
        url = route.request.url
        if url.startswith(self.base) or url.startswith(("data:", "blob:", "about:")):
            route.continue_()
        else:
            self.refused.append(url)
            route.abort("internetdisconnected")

    def open(self, path: str):
        page = self.context.new_page()
        page.on("requestfailed", lambda r: r.url.startswith(self.base) and self.failed.append(r.url))
        page.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.status} {r.url}"))
        page.goto(self.base + path, wait_until="load")
        return page


@pytest.fixture(scope="module")
def offline(served):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `bash tests/browser/install-chromium.sh`")
    from playwright.sync_api import sync_playwright

    profile = Path(tempfile.mkdtemp(prefix="chromium-profile-"))
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(str(profile), executable_path=CHROMIUM, headless=True,
                                                       args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900})
        context.set_default_timeout(30_000)
        try:
            yield OfflineBrowser(context, served)
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


def _wait(page, condition: str, seconds: float) -> bool:
    try:
        page.wait_for_function(condition, timeout=seconds * 1000)
        return True
    except Exception:   # playwright's TimeoutError: the caller's assertion says what was missing
        return False


MATH_PAGE = "13_safe_gradients"    # its prose writes norms as \lVert a - b \rVert


@needs_build
def test_a_pages_math_is_typeset_offline(offline):
    notebook = next(p for p in COURSE if p.stem == MATH_PAGE)
    assert "\\lVert" in "".join(c.source for c in nbformat.read(notebook, as_version=4).cells
                                if c.cell_type == "markdown")
    page = offline.open(page_of(notebook).relative_to(HTML).as_posix())
    try:
        count = page.locator(".math").count()
        assert count >= 10, f"{count} math elements on the page"
        typeset = _wait(page, "() => { const m = document.querySelectorAll('.math');"
                              " return m.length && [...m].every(e => e.querySelector('mjx-container')); }", 30)
        page.evaluate("() => document.fonts.ready")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.locator(".math").nth(1).scroll_into_view_if_needed()      # the norm's formula
        page.screenshot(path=str(SCREENSHOTS / f"site-{MATH_PAGE}-offline.png"))
        raw = page.evaluate("() => [...document.querySelectorAll('.math')].map(e => e.innerText)"
                            ".filter(t => /\\\\[(\\[]|\\$|\\\\[a-zA-Z]/.test(t))")
        assert typeset and not raw, (f"math not typeset offline: {len(raw)} of {count} math elements still "
                                     f"show TeX, e.g. {raw[:2]}; requests refused: {offline.refused}")
        assert page.locator("mjx-container").count() >= count
        text = page.locator("main").inner_text()
        assert "\\lVert" not in text and "\\(" not in text
        assert page.evaluate("() => window.MathJax.version").startswith("3.")
        fonts = page.evaluate("() => [...document.fonts].filter(f => f.status === 'loaded')"
                              ".map(f => f.family).filter(f => f.startsWith('MJX'))")
        assert fonts, "MathJax's fonts did not load"
        assert not offline.refused, f"requests to another host: {offline.refused}"
        assert not offline.failed, f"local requests that failed: {offline.failed}"
    finally:
        page.close()


@needs_build
def test_a_pages_widgets_are_drawn_offline(offline):
    figures = 0
    for notebook in widget_pages():
        html = page_of(notebook).read_text(encoding="utf-8")
        views = len(re.findall(r'<script type="application/vnd.jupyter.widget-view\+json">', html))
        page = offline.open(page_of(notebook).relative_to(HTML).as_posix())
        try:
            drawn = _wait(page, f"() => document.querySelectorAll('.widget-subarea > .jupyter-widgets').length"
                                f" >= {views}", 30)
            subareas = page.locator(".widget-subarea").count()
            assert drawn, (f"{notebook.name}: {subareas} of {views} widget views drawn offline; "
                           f"requests refused: {offline.refused}")
            controls = page.locator(".widget-subarea :is(select, input, button)")
            assert controls.count() >= 1, f"{notebook.name}: no widget control drawn"
            assert page.locator(".widget-subarea .widget-output .jp-OutputArea-output").count() >= 1, \
                f"{notebook.name}: no Output widget shows its saved output"
            figures += page.locator(".widget-subarea .widget-output img").count()
            page.evaluate("() => document.fonts.ready")
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.locator(".widget-subarea").first.scroll_into_view_if_needed()
            page.screenshot(path=str(SCREENSHOTS / f"site-{notebook.stem}-widgets-offline.png"))
            assert not offline.refused, f"requests to another host: {offline.refused}"
            assert not offline.failed, f"local requests that failed: {offline.failed}"
        finally:
            page.close()
    assert figures >= 1, "no interactive figure drawn by a widget"
