"""Binder's environment.yml and the project's dependencies name the same pinned packages."""

import re
import tomllib

import yaml

from helpers import ROOT


def pins(lines):
    out = {}
    for line in lines:
        m = re.match(r"^\s*([A-Za-z0-9_.\-\[\]]+?)\s*==\s*([^\s;]+)", line)
        if m:
            name = re.sub(r"\[.*\]", "", m.group(1)).lower().replace("_", "-")
            out[name] = m.group(2)
    return out


def project_pins():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return pins(data["project"]["dependencies"])


def binder_pins():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    return pins(pip), env


def test_environment_yml_parses_and_pins_the_same_packages():
    binder, env = binder_pins()
    project = project_pins()
    assert env["name"]
    assert "python=3.11" in env["dependencies"]
    binder["torch"] = binder["torch"].removesuffix("+cpu")
    assert binder == project


def test_torch_is_pinned_to_the_verified_cpu_build():
    binder, env = binder_pins()
    assert project_pins()["torch"] == "2.13.0"
    assert binder["torch"] == "2.13.0+cpu"
    text = (ROOT / "environment.yml").read_text().lower()
    assert "download.pytorch.org/whl/cpu" in text
    assert "cuda" not in text and "nvidia" not in text


def test_binder_installs_the_course_package():
    post = (ROOT / "postBuild").read_text()
    assert "pip install --no-deps -e ." in post


def test_gradebook_schema_version_read_in_process_matches_alembic_cli():
    """New gradebooks are stamped with the version nbgrader's `alembic heads` subprocess would give."""
    import subprocess
    import sys
    from pathlib import Path

    from nbgrader.dbutil import _temp_alembic_ini

    from autograder.nbgrader_setup import alembic_head

    alembic = Path(sys.executable).parent / "alembic"
    with _temp_alembic_ini("sqlite:////tmp/unused-gradebook.db") as ini:
        output = subprocess.run([str(alembic), "-c", ini, "heads"], capture_output=True, text=True, check=True)
    assert alembic_head() == output.stdout.split()[0]
