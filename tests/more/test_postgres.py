"""The gradebook on a real PostgreSQL server: `autograde`, `feedback` and `export` with `--db-url`, run as an
instructor would, and nbgrader's own Gradebook and formgrader's API read the same grades from the server.

The server is Debian's PostgreSQL (tests/install-postgresql.sh), started for this module only: initdb in a
fresh temporary folder, listening on loopback on a free port, run as the unprivileged `postgres` account
when the tests run as root (initdb refuses root). It is stopped and its folder removed whatever happens.
"""

from __future__ import annotations

import contextlib
import csv
import glob
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import tomllib
from pathlib import Path

import pytest

from helpers import ROOT, run_cli, write_student

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres")]

INSTALL = ROOT / "tests" / "install-postgresql.sh"
ZOO = ROOT / "tests" / "zoo" / "Square"
A = "01_square"
USER = "grader"


def server_bin() -> Path | None:
    """The newest Debian PostgreSQL server's bin folder, if installed."""
    def version(path: str) -> int:
        number = Path(path).parts[-3]
        return int(number) if number.isdigit() else 0

    found = [p for p in glob.glob("/usr/lib/postgresql/*/bin/initdb") if Path(p).with_name("postgres").exists()]
    return Path(max(found, key=version)).parent if found else None


def installed_server_bin() -> Path:
    """Install the server if needed; skip (with the installer's own words) only if that is impossible."""
    bindir = server_bin()
    if bindir is None:
        result = subprocess.run(["bash", str(INSTALL)], capture_output=True, text=True,
                                stdin=subprocess.DEVNULL, timeout=900)
        bindir = server_bin()
        if bindir is None:
            tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
            pytest.skip(f"no PostgreSQL server: tests/install-postgresql.sh could not install one "
                        f"(exit {result.returncode}): {' / '.join(tail)}")
    return bindir


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_as() -> tuple[list[str], str | None]:
    """The command prefix that runs the server unprivileged, and that account (None: as we are)."""
    if os.geteuid() != 0:
        return [], None
    for account in ("postgres", "nobody"):
        try:
            pwd.getpwnam(account)
        except KeyError:
            continue
        return ["runuser", "-u", account, "--"], account
    pytest.fail("running as root, but there is neither a postgres nor a nobody account to run the server as")


@contextlib.contextmanager
def running_postgres(bindir: Path):
    """A fresh PostgreSQL server with an empty database `gradebook`: yields (url, folder, server pid)."""
    import psycopg

    prefix, account = run_as()
    folder = Path(tempfile.mkdtemp(prefix="autograder-postgres-"))
    proc = None
    data = folder / "data"
    try:
        if account:
            shutil.chown(folder, user=account)
        init = subprocess.run([*prefix, str(bindir / "initdb"), "-D", str(data), "-U", USER, "--auth=trust",
                               "-E", "UTF8", "--locale=C", "--no-sync"],
                              capture_output=True, text=True, timeout=120)
        assert init.returncode == 0, f"initdb failed:\n{init.stdout}\n{init.stderr}"
        port = free_port()
        log = open(folder / "server.log", "wb")
        proc = subprocess.Popen([*prefix, str(bindir / "postgres"), "-D", str(data), "-p", str(port),
                                 "-k", str(folder), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                                 "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        log.close()
        deadline = time.monotonic() + 60
        while True:
            try:
                with psycopg.connect(host="127.0.0.1", port=port, user=USER, dbname="postgres",
                                     connect_timeout=2, autocommit=True) as conn:
                    conn.execute("CREATE DATABASE gradebook")
                break
            except psycopg.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("PostgreSQL did not start:\n" + (folder / "server.log").read_text(errors="replace"))
                time.sleep(0.2)
        yield f"postgresql://{USER}@127.0.0.1:{port}/gradebook", folder, _postmaster_pid(data)
    finally:
        _stop(proc, data)
        shutil.rmtree(folder, ignore_errors=True)


def _postmaster_pid(data: Path) -> int | None:
    try:
        return int((data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _stop(proc, data: Path) -> None:
    """Fast shutdown (SIGINT to the postmaster we started); SIGKILL if it does not end in 30 s."""
    if proc is None:
        return
    pid = _postmaster_pid(data)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGINT) if pid else proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        for target in filter(None, (pid, proc.pid)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(target, signal.SIGKILL)
        proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while pid and _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@pytest.fixture(scope="module")
def postgres_url():
    with running_postgres(installed_server_bin()) as (url, _, _):
        yield url


def make_class(home: Path) -> None:
    wrong = (ZOO / "ctx_attribute.py").read_text()  # saves x as ctx.x: 2 of 3
    for name, answers, fill in (("ada", None, True), ("alan", {"Square": wrong}, True), ("grace", None, False)):
        write_student(home / "submitted" / name / A / f"{A}.ipynb", A, answers, fill=fill)


def gradebook_scores(url: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        return {s.student_id: s.score for s in gb.assignment_submissions(A)}


def test_autograde_feedback_export_and_report_on_postgres(grading_home, postgres_url):
    import psycopg
    from nbgrader.api import Gradebook
    from nbgrader.apps import NbGraderAPI

    from autograder.classroom.nbgrader_setup import alembic_head, config

    make_class(grading_home)
    env = {"AUTOGRADER_HOME": str(grading_home)}

    graded = run_cli("autograde", "--workers", "2", "--assignment", A, "--quiet", "--db-url", postgres_url, env=env)
    assert graded.returncode == 0, graded.stderr[-3000:]
    assert "graded 3 notebooks" in graded.stdout, graded.stdout
    assert not (grading_home / "gradebook.db").exists(), "--db-url must replace the SQLite gradebook, not add to it"

    # nbgrader's Gradebook, formgrader's API and the rows on the server agree with the grader's reports.
    expected = {"ada": 3.0, "alan": 2.0, "grace": 0.0}
    assert gradebook_scores(postgres_url) == expected
    reports = {r.parent.parent.name: r for r in (grading_home / "autograded").glob(f"*/{A}/{A}.grade.json")}
    assert sorted(reports) == sorted(expected)
    import json

    with Gradebook(postgres_url) as gb:
        for student, marker in reports.items():
            report = json.loads(marker.read_text())
            notebook = gb.find_submission_notebook(A, A, student)
            assert (notebook.score, notebook.max_score) == (report["score"], report["max_score"]) == (
                expected[student], 3.0)
            for cell in report["cells"]:
                assert gb.find_grade(cell["grade_id"], A, A, student).score == cell["points"], (student, cell)
    formgrader = {s["student"]: s["score"] for s in NbGraderAPI(config=config(postgres_url)).get_submissions(A)}
    assert formgrader == expected
    with psycopg.connect(postgres_url) as conn:
        students = [r[0] for r in conn.execute("SELECT id FROM student ORDER BY id")]
        (version,) = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        (rows,) = conn.execute("SELECT count(*) FROM submitted_assignment").fetchone()
    assert students == ["ada", "alan", "grace"] and rows == 3
    assert version == alembic_head(), "a new PostgreSQL gradebook is stamped like nbgrader's own"

    feedback = run_cli("feedback", "--db-url", postgres_url, env=env)
    assert feedback.returncode == 0, feedback.stderr[-3000:]
    pages = {p.parts[-3]: p for p in (grading_home / "feedback").glob(f"*/{A}/*.html")}
    assert sorted(pages) == sorted(expected)
    alan = pages["alan"].read_text()
    assert "save_for_backward" in alan, "feedback names alan's mistake"
    assert "saves_input(" not in alan, "hidden tests never reach students"

    out = grading_home / "export" / "grades.csv"
    export = run_cli("export", "--db-url", postgres_url, "--output", str(out), env=env)
    assert export.returncode == 0, export.stderr[-3000:]
    rows = [r for r in csv.DictReader(out.open()) if r["assignment"] == A]
    assert {r["student_id"]: float(r["score"]) for r in rows} == expected
    assert {float(r["max_score"]) for r in rows} == {3.0}

    report = run_cli("report", env=env)  # the class report reads the graded reports, not the gradebook
    assert report.returncode == 0, report.stderr[-3000:]
    assert "Score distribution" in (grading_home / "class-report.html").read_text()

    # A rerun grades only grace's fixed hand-in, which overwrites her row on the server, never adds one.
    write_student(grading_home / "submitted" / "grace" / A / f"{A}.ipynb", A)
    fixed = run_cli("autograde", "--assignment", A, "--quiet", "--db-url", postgres_url, env=env)
    assert fixed.returncode == 0, fixed.stderr[-3000:]
    assert "graded 1 notebooks, 2 already up to date" in fixed.stdout, fixed.stdout
    assert gradebook_scores(postgres_url) == {**expected, "grace": 3.0}
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT count(*) FROM submitted_assignment").fetchone()[0] == 3


def test_the_server_is_stopped_and_its_folder_removed():
    bindir = installed_server_bin()
    with running_postgres(bindir) as (url, folder, pid):
        import psycopg

        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        assert pid and _alive(pid)
    assert not _alive(pid), "the server process is gone"
    assert not folder.exists(), "its data folder is removed"


def test_the_driver_pin_is_the_same_for_tests_and_instructors():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    pin = [d for d in extras["postgres"] if d.startswith("psycopg")]
    assert len(pin) == 1 and re.fullmatch(r"psycopg\[binary\]==\d+(\.\d+)+", pin[0]), pin
    assert pin[0] in extras["test"]
    from importlib.metadata import version

    assert version("psycopg") == pin[0].split("==")[1], "the installed driver is the pinned one"
