"""Browser tests: JupyterLab driven by headless Chromium, the way learners meet the course.

Run them with `make test-browser` (which installs Chromium if needed and sets BROWSER_TESTS=1). Without
BROWSER_TESTS=1 every test in this folder is skipped, so `make test` never starts a browser.

One JupyterLab server and one Chromium serve the whole session:
  * the server runs from the project root (its cwd and root_dir), so nbgrader's formgrader reads the
    project's nbgrader_config.py and finds the course root inside the server's root, as it does on
    Binder; the notebooks under test are written to a fresh temporary folder under artifacts/browser/;
  * HOME, Jupyter's config/data/runtime folders and AUTOGRADER_HOME (the gradebook) are fresh temporary
    folders, so the developer's own Jupyter state and .grading/ are neither used nor touched;
  * Chromium is the system one (/usr/bin/chromium, see install-chromium.sh), never `playwright install`;
  * JupyterLab is loaded once, in one tab that the tests share (`lab`): each test starts with no
    document open and closes what it opened (shutting its kernels down).
The server's log is kept in artifacts/browser/jupyter-lab.log.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
BROWSER_WORK = ARTIFACTS / "browser"          # per-run notebook folders and the server log (git-ignored)
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
VENV_BIN = Path(sys.executable).parent

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]

# JupyterLab user settings for the run: no news pop-up (it covers the bottom-right corner), and every
# cell attached to the DOM (windowing would leave off-screen cells out of the page and the screenshots).
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none",
                                                                    "recordTiming": True},
}


def pytest_collection_modifyitems(config, items):
    """Skip this folder's tests unless BROWSER_TESTS=1 (tests/conftest.py does the same for every
    test marked `browser`; repeated here so this folder stays safe on its own)."""
    if os.environ.get("BROWSER_TESTS") == "1":
        return
    skip = pytest.mark.skip(reason="browser test: run with `make test-browser` (BROWSER_TESTS=1)")
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(skip)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, timeout: float = 5.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


_workspace_counter = iter(range(1, 10**6))


@dataclass
class LabServer:
    url: str                  # http://127.0.0.1:PORT/ (no token)
    root: Path                # the server's root_dir
    notebooks: Path           # this run's folder for notebooks under test (inside root)
    log: Path
    process: subprocess.Popen

    def rel(self, path: Path) -> str:
        """A path as JupyterLab names it: relative to the server root, with forward slashes."""
        return Path(path).resolve().relative_to(self.root).as_posix()

    def lab_url(self, path: str | None = None) -> str:
        """/lab in a fresh, empty workspace (JupyterLab would otherwise reopen the previous test's tabs),
        opening `path` if given."""
        workspace = f"lab/workspaces/test-{next(_workspace_counter)}"
        return self.url + workspace + (f"/tree/{path}" if path else "")

    def get(self, path: str, timeout: float = 60.0) -> tuple[int, str]:
        return _get(self.url + path.lstrip("/"), timeout)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _start_lab(env: dict, notebooks: Path, log: Path) -> LabServer:
    for _attempt in range(3):
        port = _free_port()
        cmd = [str(VENV_BIN / "jupyter"), "lab", "--no-browser", "--ip", "127.0.0.1", "--port", str(port),
               "--ServerApp.port_retries=0", "--IdentityProvider.token=", "--ServerApp.password=",
               f"--ServerApp.root_dir={ROOT}", "--LabApp.expose_app_in_browser=True"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")
        with open(log, "ab") as out:
            # Own process group: stopping the server also reaches kernels it left behind.
            process = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        url = f"http://127.0.0.1:{port}/"
        server = LabServer(url, ROOT, notebooks, log, process)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if _get(url + "api/status", timeout=2)[0] == 200:
                    return server
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.3)
        _stop(process)
    raise RuntimeError(f"JupyterLab did not start; log {log}:\n{server.log_tail()}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)    # jupyter server shuts its kernels down on SIGTERM
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    try:
        os.killpg(process.pid, signal.SIGKILL)  # any kernel of this server's group still alive
    except (ProcessLookupError, PermissionError):
        pass


@pytest.fixture(scope="session")
def lab_server():
    """JupyterLab on a free loopback port, no token, fresh user state; stopped at the end."""
    BROWSER_WORK.mkdir(parents=True, exist_ok=True)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="lab-home-"))
    notebooks = Path(tempfile.mkdtemp(prefix="run-", dir=BROWSER_WORK))
    settings = home / ".jupyter" / "lab" / "user-settings"
    for name, value in LAB_SETTINGS.items():
        target = settings / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(value))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY_"))}
    env.update({
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
        "JUPYTER_DATA_DIR": str(home / ".local" / "share" / "jupyter"),
        "JUPYTER_RUNTIME_DIR": str(home / ".local" / "share" / "jupyter" / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / ".jupyter" / "lab" / "workspaces"),
        "IPYTHONDIR": str(home / ".ipython"),
        "MPLCONFIGDIR": str(home / ".config" / "matplotlib"),
        "AUTOGRADER_HOME": str(home / "grading"),
        "PATH": str(VENV_BIN) + os.pathsep + os.environ.get("PATH", ""),
        "PYTHONUNBUFFERED": "1",
    })
    log = BROWSER_WORK / "jupyter-lab.log"
    log.write_text("")
    server = _start_lab(env, notebooks, log)
    try:
        yield server
    finally:
        _stop(server.process)
        shutil.rmtree(notebooks, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


# Defined in every page: find a notebook panel by path, tell whether its kernel is idle, open a notebook
# and Run All in it (in the background: __runs[path] tells how far it got), summarise a notebook without
# its images, and close one or every tab (shutting down kernels, discarding changes).
HELPERS = r"""
window.__panel = (path) => {
  const app = window.jupyterapp;
  if (!app) return null;
  for (const w of app.shell.widgets('main')) {
    if (w.context && w.context.path === path && w.content && w.content.model) return w;
  }
  return null;
};
window.__kernelIdle = (path) => {
  const panel = window.__panel(path);
  const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
  return !!(kernel && kernel.status === 'idle' && !panel.sessionContext.pendingInput);
};
window.__summary = (path) => {
  const panel = window.__panel(path);
  const text = (v) => Array.isArray(v) ? v.join('') : (v == null ? '' : String(v));
  const cells = [];
  const model = panel.content.model;
  for (let i = 0; i < model.cells.length; i++) {
    const cell = model.cells.get(i);
    if (cell.type !== 'code') continue;
    const outputs = cell.outputs.toJSON().map((o) => ({
      output_type: o.output_type, name: o.name || null, text: text(o.text).slice(0, 4000),
      ename: o.ename || null, evalue: o.evalue || null,
      traceback: (o.traceback || []).join('\n').slice(0, 4000),
      mimes: Object.keys(o.data || {}),
      plain: text((o.data || {})['text/plain']).slice(0, 2000),
    }));
    const ex = cell.getMetadata('execution') || {};
    const seconds = ex['shell.execute_reply'] && ex['iopub.execute_input']
      ? (Date.parse(ex['shell.execute_reply']) - Date.parse(ex['iopub.execute_input'])) / 1000 : null;
    cells.push({index: i, count: cell.executionCount, seconds,
                source: cell.sharedModel.getSource().split('\n').slice(0, 3).join('\n'), outputs});
  }
  const rendered = [...panel.content.node.querySelectorAll('.jp-Cell-outputArea')].map((e) => e.innerText);
  return {cells, text: rendered.join('\n')};
};
window.__runs = {};
window.__activate = async (panel) => {
  window.jupyterapp.shell.activateById(panel.id);
  for (let i = 0; i < 50 && window.jupyterapp.shell.currentWidget !== panel; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
};
window.__startRun = async (path) => {
  const app = window.jupyterapp;
  const run = window.__runs[path] = {stage: 'opening', done: false, ok: null, error: null,
                                     t0: Date.now(), t1: null, panel: null};
  try {
    const panel = await app.commands.execute('docmanager:open', {path});
    run.panel = panel.id;
    await panel.context.ready;
    await panel.sessionContext.ready;
    run.stage = 'starting kernel';
    while (!window.__kernelIdle(path)) {
      if (panel.isDisposed) throw new Error('the notebook was closed');
      await new Promise((r) => setTimeout(r, 200));
    }
    await window.__activate(panel);
    await app.commands.execute('notebook:clear-all-cell-outputs');
    run.stage = 'running';
    run.ok = await app.commands.execute('notebook:run-all-cells');
  } catch (e) {
    run.error = String((e && e.stack) || e);
  }
  run.t1 = Date.now();
  run.done = true;
};
window.__close = async (w) => {
  try {
    if (w.sessionContext && w.sessionContext.session) await w.sessionContext.shutdown();
    if (w.context && w.context.model) w.context.model.dirty = false;
  } catch (e) { /* closing anyway */ }
  w.dispose();
};
window.__closePath = async (path) => {
  const panel = window.__panel(path);
  if (panel) await window.__close(panel);
  delete window.__runs[path];
};
window.__closeAll = async () => {
  const app = window.jupyterapp;
  for (const d of document.querySelectorAll('.jp-Dialog')) d.remove();
  for (const w of [...app.shell.widgets('main')]) await window.__close(w);
  window.__runs = {};
};
"""


@pytest.fixture(scope="session")
def browser_context():
    """Headless system Chromium (fresh profile) through Playwright."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `bash tests/browser/install-chromium.sh`")
    from playwright.sync_api import sync_playwright

    profile = Path(tempfile.mkdtemp(prefix="chromium-profile-"))
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900})
        context.set_default_timeout(30_000)
        context.add_init_script(HELPERS)
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


def _load_lab(page, server: LabServer) -> None:
    page.goto(server.lab_url(), timeout=180_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.commands.hasCommand("
                           "'nbgrader:open-assignment-list') && window.jupyterapp.commands.hasCommand("
                           "'notebook:run-all-cells')", timeout=180_000)
    page.wait_for_selector("#jp-MainMenu .lm-MenuBar-itemLabel", timeout=60_000)


@pytest.fixture(scope="session")
def _lab_session_page(lab_server, browser_context):
    page = browser_context.new_page()
    _load_lab(page, lab_server)
    yield page
    page.close()


@pytest.fixture
def lab(_lab_session_page, lab_server):
    """The session's JupyterLab tab (loading JupyterLab takes seconds, so tests share one), with no
    document or panel open; whatever a test opens is closed, and its kernels shut down, afterwards."""
    page = _lab_session_page
    try:
        alive = page.evaluate("() => !!window.jupyterapp")
    except Exception:
        alive = False
    if not alive:
        _load_lab(page, lab_server)
    page.keyboard.press("Escape")
    page.evaluate("() => window.__closeAll()")
    try:
        yield page
    finally:
        try:
            page.keyboard.press("Escape")
            page.evaluate("() => window.__closeAll()")
        except Exception:
            pass
