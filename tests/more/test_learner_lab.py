"""The learner's JupyterLab (`make lab`, which runs tools/lab.sh) holds no instructor tool: nbgrader's formgrader
page is not served, and its formgrader, create-assignment and course-list Lab plugins are disabled."""

import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from helpers import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_lab_serves_no_formgrader():
    assert "bash tools/lab.sh" in (ROOT / "Makefile").read_text().split("\nlab:", 1)[1].split("\n\n", 1)[0]
    port = free_port()
    lab = subprocess.Popen(["bash", str(ROOT / "tools" / "lab.sh"), "--no-browser", f"--port={port}",
                            "--ServerApp.token=t", "--ServerApp.ip=127.0.0.1"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, env={k: v for k, v in os.environ.items() if k != "JUPYTER_CONFIG_PATH"})
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token=t", timeout=5)
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.5)
        else:
            pytest.fail("jupyter lab did not start: " + lab.stderr.read1(5000).decode(errors="replace"))
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/formgrader?token=t", timeout=30)
        assert refused.value.code == 404
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token=t", timeout=30).read().decode()
        import json
        import re

        disabled = json.loads(re.search(r'"disabledExtensions": (\[[^\]]*\])', page).group(1))
        assert {f"@jupyter/nbgrader:{p}" for p in ("formgrader", "create-assignment", "course-list")} <= set(disabled)
        assert "@jupyter/nbgrader:assignment-list" not in disabled, "the learner's own assignment list stays"
        validate = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token=t", timeout=30)
        assert validate.status == 200
    finally:
        lab.terminate()
        lab.wait(timeout=60)


def test_binders_environment_holds_no_nbgrader():
    """Binder's learner environment (requirements/binder.lock) has no nbgrader at all: no formgrader to turn off."""
    import re

    lock = (ROOT / "requirements" / "binder.lock").read_text()
    assert not re.search(r"^nbgrader==", lock, re.M)
    assert "nbgrader" not in (ROOT / "postBuild").read_text()
