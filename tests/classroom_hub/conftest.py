"""The classroom test: the whole nbgrader course flow on a real JupyterHub, with real Linux accounts.

Run it with `make test-classroom` (installs the `classroom` extra, Chromium and configurable-http-proxy,
then sets CLASSROOM_TESTS=1). Without CLASSROOM_TESTS=1 every test in this folder is skipped. It runs as
root: it creates Linux accounts, and JupyterHub starts each user's JupyterLab as that user.

The classroom itself (accounts, exchange, hub, cleanup) is hub_classroom.py; here it becomes a session
fixture, next to headless system Chromium through Playwright (never `playwright install`).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from hub_classroom import CHROMIUM, CHROMIUM_ARGS, open_classroom

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    """Skip this folder's tests unless CLASSROOM_TESTS=1 (tests/conftest.py does the same for every test
    marked `classroom`; repeated here so this folder stays safe on its own)."""
    if os.environ.get("CLASSROOM_TESTS") == "1":
        return
    skip = pytest.mark.skip(reason="classroom test: run with `make test-classroom` (CLASSROOM_TESTS=1)")
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def classroom():
    """Accounts, exchange, configuration and a running JupyterHub; all of it removed afterwards."""
    if os.geteuid() != 0:
        pytest.fail("the classroom test creates Linux accounts: run it as root (make test-classroom)")
    # A SIGTERM (a CI timeout, a killed make) unwinds through the cleanup like Ctrl+C does.
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        with open_classroom() as room:
            yield room
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.fixture(scope="session")
def browser():
    """Headless system Chromium; each student gets a browser context of their own (their own cookies)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `bash tests/browser/install-chromium.sh`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
