"""The deployment guide cannot rot: docs/jupyterhub_config.py loads and sets up the course, and every command
docs/deploy.md shows parses with the real command lines (ours and nbgrader's)."""

from __future__ import annotations

import re
import shlex
import stat
from pathlib import Path

import pytest

from helpers import ROOT

GUIDE = ROOT / "docs" / "deploy.md"
HUB_CONFIG = ROOT / "docs" / "jupyterhub_config.py"


def load_hub_config():
    """Run the example as JupyterHub does: a traitlets Config named `c`, from `get_config()`."""
    from traitlets.config import Config

    c = Config()
    namespace = {"get_config": lambda: c, "__file__": str(HUB_CONFIG)}
    exec(compile(HUB_CONFIG.read_text(), str(HUB_CONFIG), "exec"), namespace)
    return c, namespace


def course_id() -> str:
    from autograder.classroom.nbgrader_setup import config

    return config().CourseDirectory.course_id


def test_hub_config_sets_up_the_course_for_its_instructors_and_students():
    c, ns = load_hub_config()
    course = ns["COURSE_ID"]
    assert course == course_id(), "the hub's course id must be the one the course's nbgrader settings use"
    groups = c.JupyterHub.load_groups
    assert set(groups[f"formgrade-{course}"]["users"]) == set(ns["INSTRUCTORS"])
    assert set(ns["STUDENTS"]) <= set(groups[f"nbgrader-{course}"]["users"])
    assert set(c.Authenticator.allowed_users) == set(ns["INSTRUCTORS"]) | set(ns["STUDENTS"])
    assert not set(c.Authenticator.admin_users) & set(ns["STUDENTS"]), "students are never hub admins"

    (service,) = c.JupyterHub.services
    assert service["name"] == course, "nbgrader finds a course's formgrader by the service's name"
    assert service["user"] == ns["GRADER"] and service["cwd"] == ns["GRADER_HOME"]
    assert not service["cwd"].startswith(ns["COURSE_CLONE"]), "the clone's own nbgrader_config.py would win"
    assert service["command"][0].startswith(ns["COURSE_CLONE"] + "/.venv/")
    roles = {r["name"]: r for r in c.JupyterHub.load_roles}
    assert f"access:services!service={course}" in roles[f"formgrade-{course}"]["scopes"]
    assert f"access:services!service={course}" not in roles[f"nbgrader-{course}"]["scopes"], \
        "students must not reach the formgrader"


def test_hub_config_prepares_the_exchange_and_everyones_nbgrader_settings(tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    c, ns = load_hub_config()
    assert ns["PREPARE_EXCHANGE"] and c.Spawner.pre_spawn_hook is ns["prepare_exchange"]
    ns["EXCHANGE"] = str(tmp_path / "srv" / "nbgrader" / "exchange")
    ns["STUDENT_NBGRADER_CONFIG"] = str(tmp_path / "etc" / "jupyter" / "nbgrader_config.py")
    for _ in range(2):  # once per server start: the second run must change nothing and not fail
        c.Spawner.pre_spawn_hook(None)
    exchange = Path(ns["EXCHANGE"])
    assert stat.S_IMODE(exchange.stat().st_mode) == 0o1777, "writable by all, sticky"
    written = Path(ns["STUDENT_NBGRADER_CONFIG"])
    assert stat.S_IMODE(written.stat().st_mode) == 0o644
    loaded = PyFileConfigLoader(written.name, path=str(written.parent)).load_config()
    assert loaded.CourseDirectory.course_id == course_id()
    assert loaded.Exchange.root == str(exchange)


def test_hub_config_is_valid_for_jupyterhub():
    pytest.importorskip("jupyterhub", reason="JupyterHub is in the classroom extra: pip install -e '.[classroom]'")
    from jupyterhub.app import JupyterHub
    from jupyterhub.auth import Authenticator
    from jupyterhub.scopes import scope_definitions
    from jupyterhub.spawner import LocalProcessSpawner

    c, ns = load_hub_config()
    hub = JupyterHub(config=c)  # validates every JupyterHub trait the file sets
    assert hub.services[0]["name"] == ns["COURSE_ID"]
    assert Authenticator(config=c).allowed_users == set(ns["INSTRUCTORS"] + ns["STUDENTS"])
    assert LocalProcessSpawner(config=c).pre_spawn_hook is ns["prepare_exchange"]
    for role in hub.load_roles:
        for scope in role["scopes"]:
            name, _, where = scope.partition("!")
            assert name in scope_definitions, f"role {role['name']}: no such scope {scope!r}"
            assert not where or re.fullmatch(r"(user|service|group|server)(=.+)?", where), scope


def code_lines(markdown: str) -> list[str]:
    """Shell lines of the fenced code blocks (continuations joined) and inline code spans."""
    lines, block, inside = [], [], False
    for line in markdown.splitlines():
        if line.strip().startswith("```"):
            inside = not inside
            continue
        if inside:
            block.append(line.strip())
            if not line.rstrip().endswith("\\"):
                lines.append(" ".join(part.rstrip("\\").strip() for part in block))
                block = []
    lines += re.findall(r"(?<!`)`([^`\n]+)`(?!`)", markdown)
    return lines


def commands(program: str) -> list[list[str]]:
    """Each `<program> ...` command in the guide, as its arguments after the program's name."""
    pattern = {"autograder": r"-m autograder\b", "nbgrader": r"(?:^|[\s/])nbgrader\s"}[program]
    found = []
    for line in code_lines(GUIDE.read_text()):
        for piece in re.split(r"&&|;|\|", line):
            match = re.search(pattern, piece)
            if not match:
                continue
            words = shlex.split(piece[match.end():], comments=True)
            found.append(words[: next((i for i, w in enumerate(words) if w in {">", ">>", "2>&1"}), len(words))])
    return found


def test_every_autograder_command_in_the_guide_parses(monkeypatch):
    from autograder import cli

    seen = []
    for name in [n for n in dir(cli) if n.startswith("cmd_")]:
        monkeypatch.setattr(cli, name, lambda args, _name=name: seen.append((_name, args)) or 0)
    shown = commands("autograder")
    assert len(shown) >= 15, shown
    for argv in shown:
        seen.clear()
        try:
            assert cli.main(argv) == 0
        except SystemExit as error:  # argparse's way of refusing
            pytest.fail(f"`python -m autograder {shlex.join(argv)}` does not parse (exit {error.code})")
        assert len(seen) == 1 and seen[0][0] == f"cmd_{argv[0]}", (argv, seen)
    used = {argv[0] for argv in shown}
    assert {"release", "collect", "autograde", "feedback", "export", "report"} <= used
    db_urls = {argv[0] for argv in shown if "--db-url" in argv}
    assert {"autograde", "feedback", "export"} <= db_urls
    assert any("--scheduler" in argv for argv in shown) and any("--workers" in argv for argv in shown)


def test_every_nbgrader_command_in_the_guide_exists():
    from nbgrader.apps.nbgraderapp import NbGraderApp

    shown = commands("nbgrader")
    assert {argv[0] for argv in shown} >= {"release_assignment", "collect", "release_feedback"}, shown
    for argv in shown:
        assert argv[0] in NbGraderApp.subcommands, f"nbgrader has no command {argv[0]!r}"
        app = NbGraderApp.subcommands[argv[0]][0]
        app_class = app if isinstance(app, type) else _import(app)
        flags = {f"--{name}" for name in app_class.flags} | {f"--{name}" for name in app_class.aliases}
        for word in argv[1:]:
            if word.startswith("--"):
                assert word.split("=")[0] in flags, f"nbgrader {argv[0]} has no option {word}"


def _import(dotted: str):
    from importlib import import_module

    module, _, name = dotted.rpartition(".")
    return getattr(import_module(module), name)


def test_the_guides_lms_table_is_what_collect_does():
    from autograder.classroom.layouts import origin_of

    section = GUIDE.read_text().split("## The LMS path", 1)[1]
    rows = [line.strip() for line in section.splitlines() if line.strip().startswith("| ") and "`" in line]
    checked = 0
    for row in rows:
        _, lms, files, student, _ = (cell.strip() for cell in row.split("|"))
        name = re.search(r"`([^`]+)`", files).group(1)
        expected = re.search(r"`([^`]+)`", student).group(1)
        if "<" in name:
            continue  # the generic patterns
        assert origin_of(Path(name)).student == expected, f"{lms}: {name} should give {expected}"
        checked += 1
    assert checked >= 6
