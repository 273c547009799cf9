"""One environment: pyproject.toml's pins, the hashed locks of requirements/ (what Gradescope's setup.sh, Binder,
make setup and make test-torch install), environment.yml and the release branch Binder serves a graded class
all agree."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from helpers import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import requirements as reqs  # noqa: E402  (tools/requirements.py: the locks' inputs and their reader)

LOCKS = ROOT / "requirements"
# Each lock, and pyproject.toml's groups it is compiled from (tools/lock.sh): (dependencies?, extras).
LOCK_INPUTS = {"grader": (False, ["grader"]), "binder": (False, ["grader", "binder"]), "dev": (True, ["test"])}
# What grading never imports: the Gradescope image must not install them.
NOT_FOR_GRADING = {"jupyterlab", "jupyter-server", "notebook", "nbgrader", "dask", "distributed", "pandas",
                   "sqlalchemy", "nbconvert", "nbclient", "ipykernel", "ipywidgets", "tqdm", "alembic"}
# Binder's server, kernel and their plumbing are repo2docker's: its lock must not re-pin them.
SERVER = {"jupyterlab", "jupyter-server", "notebook", "jupyterhub", "ipykernel", "jupyter-client", "tornado",
          "pyzmq", "jupyterlab-server", "nbclassic"}


def pins(lines):
    out = {}
    for line in lines:
        m = re.match(r"^\s*([A-Za-z0-9_.\-\[\]]+?)\s*==\s*([^\s;]+)", line)
        if m:
            out[reqs.name_of(m.group(1))] = m.group(2)
    return out


def project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def project_pins():
    return pins(project()["dependencies"])


def lock(name):
    return reqs.lock_pins((LOCKS / f"{name}.lock").read_text())


def binder_env():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    return pip, env


def public(version):
    return version.split("+")[0]


# ------------------------------------------------------------------------------------------ the pins

def test_the_grader_extra_pins_what_the_dependencies_pin():
    grader = pins(project()["optional-dependencies"]["grader"])
    assert {"torch", "numpy", "nbformat", "matplotlib", "jsonschema", "ipython"} <= set(grader)
    both = set(grader) & set(project_pins())
    assert both >= {"torch", "numpy", "nbformat", "matplotlib"}
    assert {n: grader[n] for n in both} == {n: project_pins()[n] for n in both}
    assert not set(grader) & NOT_FOR_GRADING


@pytest.mark.parametrize("name", sorted(LOCK_INPUTS))
def test_each_lock_holds_its_inputs_pins_hashed(name):
    dependencies, extras = LOCK_INPUTS[name]
    text = (LOCKS / f"{name}.lock").read_text()
    locked = reqs.lock_pins(text)
    wanted = pins(reqs.requirements(extras, [], only=not dependencies))
    assert {n: public(locked.get(n, "missing")) for n in wanted} == wanted, f"{name}.lock is stale: bash tools/lock.sh"
    for entry_name, entry in reqs.lock_entries(text).items():
        assert re.search(r"--hash=sha256:[0-9a-f]{64}", entry), f"{name}.lock: {entry_name} has no hash"
    assert "--hash" in text and "--index-url" not in text and "--find-links" not in text


@pytest.mark.parametrize("name", sorted(LOCK_INPUTS))
def test_each_lock_names_torchs_cpu_build(name):
    entry = reqs.lock_entries((LOCKS / f"{name}.lock").read_text())["torch"]
    assert entry.startswith(f"torch=={project_pins()['torch']}+cpu ")
    assert not [n for n in lock(name) if n.startswith(("nvidia-", "triton", "cuda-"))], "a CUDA build's packages"
    wheel = Path("/opt/wheels") / f"torch-{project_pins()['torch']}+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    if wheel.exists():  # where the CPU wheel lies on disk (this course's machines), the hash is its own
        import hashlib

        assert f"--hash=sha256:{hashlib.sha256(wheel.read_bytes()).hexdigest()}" in entry


def test_the_locks_agree_with_each_other_and_the_test_environment_is_the_grading_one():
    dev = lock("dev")
    for name in ("grader", "binder"):
        assert {n: v for n, v in lock(name).items() if dev.get(n) != v} == {}, f"{name}.lock and dev.lock differ"


def test_the_grading_lock_is_slim_and_binders_leaves_the_server_alone():
    grader, binder, dev = lock("grader"), lock("binder"), lock("dev")
    assert not set(grader) & NOT_FOR_GRADING
    assert len(grader) < 60 < 120 < len(dev), (len(grader), len(dev))
    assert not set(binder) & SERVER
    assert "ipywidgets" in binder and set(grader) < set(binder)


def test_the_installed_venv_is_the_locked_one():
    """make setup installs dev.lock: this venv has exactly its versions (torch's build included)."""
    import sysconfig
    from importlib import metadata

    # The venv's own site-packages only: a library that puts its vendored copies on sys.path (setuptools'
    # _vendor, once torch.utils.cpp_extension imported it) lists older dists of the same names.
    site = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")}
    installed = {reqs.name_of(d.metadata["Name"]): d.version for d in metadata.distributions()
                 if os.path.realpath(str(d.locate_file(""))) in site}
    differ = {n: (v, installed.get(n)) for n, v in lock("dev").items() if installed.get(n) != v}
    assert not differ, f"the venv is not dev.lock's: {differ}: make setup"


GRADING_IMPORTS = """
import autograder.classroom.gradescope, autograder.engine.grading, autograder.engine.notebooks, autograder.lab, autograder.figures
import autograder.engine.sandbox.root as root
root.prepare()
print("grading imports:", " ".join(sorted({m.split(".")[0] for m in sys.modules})))
"""


def only_the_grading_lock(tmp_path, code=GRADING_IMPORTS):
    """`code` in an interpreter that sees the standard library, the course and only grader.lock's packages:
    each linked from this venv into a folder of its own, site-packages left out (python -S)."""
    from importlib import metadata

    site = tmp_path / "site"
    site.mkdir()
    allowed = set(lock("grader"))
    for dist in metadata.distributions():
        if reqs.name_of(dist.metadata["Name"]) not in allowed:
            continue
        for top in {f.parts[0] for f in dist.files or [] if f.parts[0] != ".."}:
            source = Path(dist.locate_file(top))
            if source.exists() and not (site / top).exists() and not top.endswith(".pth"):
                (site / top).symlink_to(source)
    return subprocess.run([sys.executable, "-S", "-c", "import sys\n" + code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={"PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg",
                                                       "HOME": str(Path.home()), "PYTHONPATH": f"{site}:{ROOT}"})


def test_grading_needs_nothing_outside_the_grading_lock(tmp_path):
    """The grader's modules and the sandbox root's imports and warm-up (autograder.engine.sandbox.root.prepare: numpy,
    torch.func, matplotlib.pyplot, IPython's input transformer, every check module) run with only grader.lock's
    packages: the Gradescope image has all that grading imports. (Every reference answer graded through
    run_autograder in a venv of grader.lock alone scored 143/147, the 4 lost to notebook 15's key, which the
    zip lacks.)"""
    run = only_the_grading_lock(tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    imported = set(run.stdout.split(":", 1)[1].split())
    assert {"torch", "numpy", "nbformat", "matplotlib", "IPython", "autograder"} <= imported
    assert not imported & {"pandas", "nbgrader", "dask", "jupyterlab", "sqlalchemy", "tqdm"}


def test_the_missing_packages_check_can_fail(tmp_path):
    run = only_the_grading_lock(tmp_path, "import pandas\n" + GRADING_IMPORTS)
    assert run.returncode != 0 and "No module named 'pandas'" in run.stderr


# ---------------------------------------------------------------------------------- who installs them

def test_gradescope_setup_installs_the_grading_lock_alone():
    from autograder.classroom import gradescope
    from autograder.classroom.gradescope import autograder_zip as gradescope_zip
    from autograder.classroom.gradescope import scripts as gradescope_scripts

    assert gradescope_zip.requirements() == (LOCKS / "grader.lock").read_text()
    assert gradescope.torch_pin() == f"torch=={project_pins()['torch']}"
    setup = gradescope_scripts.SETUP
    installs = [line for line in setup.splitlines() if line.startswith('"$PY" -m pip install')]
    assert installs and all("--require-hashes" in line and "--no-deps" in line for line in installs)
    assert "--index-url https://download.pytorch.org/whl/cpu" in setup


def test_gradescope_setup_splits_the_lock_into_torch_and_the_rest(tmp_path):
    """setup.sh's awk: torch's entry (with its hashes) alone for the CPU index, every other entry for PyPI."""
    from autograder.classroom.gradescope import scripts as gradescope_scripts

    lines = [line for line in gradescope_scripts.SETUP.splitlines() if line.startswith("awk ")]
    assert len(lines) == 2
    (tmp_path / "requirements.txt").write_text((LOCKS / "grader.lock").read_text())
    parts = []
    for line in lines:
        script = line.split("'")[1]
        parts.append(subprocess.run(["awk", script, str(tmp_path / "requirements.txt")], capture_output=True,
                                    text=True, check=True).stdout)
    torch_part, rest = (reqs.lock_entries(p) for p in parts)
    assert list(torch_part) == ["torch"] and torch_part["torch"] == reqs.lock_entries(
        (LOCKS / "grader.lock").read_text())["torch"]
    assert set(rest) == set(lock("grader")) - {"torch"}


def test_binder_installs_the_binder_lock_with_torchs_cpu_index():
    pip, env = binder_env()
    assert env["name"] and "python=3.11" in env["dependencies"]
    assert "-r requirements/binder.lock" in pip and "--require-hashes" in pip
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in pip
    assert not pins(pip), "pins belong in the lock"
    text = (ROOT / "environment.yml").read_text().lower()
    assert "cuda" not in text and "nvidia" not in text and "jupyterlab=" not in text


def test_binder_installs_the_course_package():
    post = (ROOT / "postBuild").read_text()
    assert "pip install --no-deps -e ." in post


def test_make_setup_and_test_torch_install_the_dev_lock():
    make = (ROOT / "Makefile").read_text()
    setup = make.split("\n$(STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "--require-hashes" in setup and "requirements/dev.lock" in setup
    torch = make.split("\n$(TORCH_STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "requirements/dev.lock" in torch and "--without torch" in torch and "--require-hashes" in torch
    assert "download.pytorch.org/whl/cpu" in torch


def test_a_lock_less_torch_keeps_every_other_entry():
    out = subprocess.run([sys.executable, "tools/requirements.py", "--lock", "requirements/dev.lock", "--without",
                          "torch"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    rest = reqs.lock_entries(out)
    assert "torch" not in rest and set(rest) == set(lock("dev")) - {"torch"}
    assert rest["numpy"] == reqs.lock_entries((LOCKS / "dev.lock").read_text())["numpy"]  # hashes kept


# ----------------------------------------------------------------------------- Binder for a graded class

def test_the_release_branch_holds_the_course_and_no_answers(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--shared", str(ROOT), str(clone)], check=True)
    shutil.copy(ROOT / "tools" / "release_branch.sh", clone / "tools" / "release_branch.sh")  # this one
    who = {f"GIT_{role}_{what}": value for role in ("AUTHOR", "COMMITTER")
           for what, value in (("NAME", "Course maintainers"), ("EMAIL", "maintainers@example.org"))}
    env = {**os.environ, **who}  # a machine without a git identity (CI) can still commit
    run = subprocess.run(["bash", "tools/release_branch.sh"], cwd=clone, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    files = subprocess.run(["git", "ls-tree", "-r", "--name-only", "release"], cwd=clone, capture_output=True,
                           text=True, check=True).stdout.split()
    assert {"environment.yml", "postBuild", "pyproject.toml", "requirements/binder.lock", "README.md",
            "autograder/__init__.py", "autograder/lab.py", "course/01_square/01_square.ipynb"} <= set(files)
    assert not [f for f in files if f.startswith(("solutions/", "tests/", "docs/", "tools/"))]
    assert "autograder/checks/shapes/unbroadcast.py" in files
    assert not [f for f in files if f.startswith("autograder/references/")], "the judge-only references shipped"
    released = subprocess.run(["git", "ls-tree", "-r", "HEAD", "--", "course"], cwd=clone, capture_output=True,
                              text=True, check=True).stdout
    branch = subprocess.run(["git", "ls-tree", "-r", "release", "--", "course"], cwd=clone, capture_output=True,
                            text=True, check=True).stdout
    assert branch == released, "the branch's course/ is the commit's, blob for blob"
    again = subprocess.run(["bash", "tools/release_branch.sh"], cwd=clone, capture_output=True, text=True, env=env)
    assert again.returncode == 0 and "already" in again.stdout
    assert subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=clone, capture_output=True,
                          text=True, check=True).stdout == "", "the work tree and the index are left alone"


def test_gradebook_schema_version_read_in_process_matches_alembic_cli():
    """New gradebooks are stamped with the version nbgrader's `alembic heads` subprocess would give."""
    from nbgrader.dbutil import _temp_alembic_ini

    from autograder.classroom.nbgrader_setup import alembic_head

    alembic = Path(sys.executable).parent / "alembic"
    with _temp_alembic_ini("sqlite:////tmp/unused-gradebook.db") as ini:
        output = subprocess.run([str(alembic), "-c", ini, "heads"], capture_output=True, text=True, check=True)
    assert alembic_head() == output.stdout.split()[0]
