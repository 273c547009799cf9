"""A classroom on this machine for the classroom test: Linux accounts, an nbgrader exchange and JupyterHub.

`open_classroom()` builds one and removes all of it afterwards, whatever happens:
  * three Linux accounts with a unique prefix (an instructor and two students), private home folders
    (0700) and passwords set with chpasswd; each account's comment names the creating pid and a RunRecord
    lists the run's servers and folders, so a later run removes what a run killed before its own cleanup
    left behind;
  * an nbgrader exchange (`Exchange.root`): a world-writable folder of its own, in a fresh temporary folder;
  * the students' nbgrader configuration (course id, exchange) in ~/.jupyter; the instructor works in the
    project folder with the course's own nbgrader_config.py (autograder.classroom.nbgrader_setup: this project's
    solutions/ and course/, grading state in $AUTOGRADER_HOME, here ~instructor/grading);
  * the gradebook: PostgreSQL (Debian's, tests/install-postgresql.sh) on loopback with a password only
    the instructor has (~/.pgpass), or SQLite in the instructor's grading folder if CLASSROOM_GRADEBOOK=sqlite;
  * JupyterHub (jupyterhub_config.py.in) as root on loopback, with configurable-http-proxy from
    .classroom/node, PAM authentication and LocalProcessSpawner.
Cleanup: the hub (which stops the JupyterLab servers and the proxy), the gradebook server, every process
still running under the classroom's accounts (by pid), the accounts with their homes (userdel --remove), the
temporary folder. Logs stay in artifacts/classroom/.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import pwd
import secrets
import shlex
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
LOCAL = ROOT / ".classroom"                       # install.sh: node/ (the proxy), venv/ (if needed)
CHP = LOCAL / "node" / "node_modules" / ".bin" / "configurable-http-proxy"
ARTIFACTS = ROOT / "artifacts" / "classroom"
LIVE_RUNS = ARTIFACTS / "live"                    # RunRecord: what a running classroom has made
VENV_BIN = Path(sys.executable).parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]

COURSE_ID = "custom-autograd-functions"           # autograder.classroom.nbgrader_setup's course id
ACCOUNT_MARK = "autograder classroom test run"    # GECOS of every account made here: "<mark> <pid>"

# JupyterLab user settings for every account: no news pop-up, every cell attached to the DOM.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def users_bin() -> Path:
    """The bin folder whose interpreter and scripts the accounts run: .venv's own, or the mirror install.sh
    makes when .venv's interpreter is out of their reach."""
    mirror = LOCAL / "venv" / "bin"
    return mirror if (mirror / "python").exists() else VENV_BIN


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _log(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(text if text.endswith("\n") else text + "\n")


# ----------------------------------------------------------------------------------------------- accounts

@dataclass
class Account:
    name: str
    uid: int
    gid: int
    home: Path
    password: str


def _pids_of_uid(uid: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("Uid:"):
                    if int(line.split()[1]) == uid:
                        pids.append(int(entry.name))
                    break
        except (OSError, ValueError):
            continue
    return pids


def _end_processes_of(uid: int) -> None:
    """Every process running as one of this test's own accounts, ended by pid: TERM, then KILL."""
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        pids = _pids_of_uid(uid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and _pids_of_uid(uid):
            time.sleep(0.1)


def create_account(name: str, log: Path) -> Account:
    password = secrets.token_urlsafe(18)
    subprocess.run(["useradd", "--create-home", "--key", "HOME_MODE=0700", "--shell", "/bin/bash",
                    "--comment", f"{ACCOUNT_MARK} {os.getpid()}", name],
                   check=True, capture_output=True, text=True)
    subprocess.run(["chpasswd"], input=f"{name}:{password}\n", check=True, capture_output=True, text=True)
    entry = pwd.getpwnam(name)
    _log(log, f"# account {name} uid {entry.pw_uid} home {entry.pw_dir}")
    return Account(name, entry.pw_uid, entry.pw_gid, Path(entry.pw_dir), password)


def remove_account(name: str, log: Path | None = None) -> None:
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return
    _end_processes_of(entry.pw_uid)
    result = subprocess.run(["userdel", "--remove", name], capture_output=True, text=True)
    if log is not None:
        _log(log, f"# userdel --remove {name}: exit {result.returncode} {result.stderr.strip()}")
    if result.returncode not in (0, 12):   # 12: home not removed (reported below by the existence check)
        raise RuntimeError(f"userdel --remove {name} failed: {result.stderr}")
    if Path(entry.pw_dir).exists() and Path(entry.pw_dir).name == name:
        shutil.rmtree(entry.pw_dir, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _end_if(pid: int, marker: str) -> None:
    """End one process by pid, if its command line still names `marker` (not some later process's pid)."""
    try:
        if marker not in Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
            return
        os.kill(pid, signal.SIGTERM)
    except (OSError, ValueError):
        return
    deadline = time.monotonic() + 20
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


class RunRecord:
    """What one classroom has running and on disk (artifacts/classroom/live/<pid>.json), so that a later run
    can remove what a run killed before its own cleanup (SIGKILL, a machine that stopped) left behind."""

    def __init__(self):
        LIVE_RUNS.mkdir(parents=True, exist_ok=True)
        self.path = LIVE_RUNS / f"{os.getpid()}.json"
        self.data: dict = {"pid": os.getpid(), "folders": [], "processes": []}
        self._save()

    def folder(self, path: Path) -> None:
        self.data["folders"].append(str(path))
        self._save()

    def process(self, pid: int, marker: str) -> None:
        self.data["processes"].append({"pid": pid, "marker": marker})
        self._save()

    def _save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data))
        os.replace(tmp, self.path)

    def close(self) -> None:
        self.path.unlink(missing_ok=True)


def sweep_stale(log: Path) -> None:
    """Remove what earlier runs whose test process is gone left: their hub, proxy and gradebook server (by
    pid), the processes and accounts of their users, their folders."""
    stale = []
    for record in sorted(LIVE_RUNS.glob("*.json")) if LIVE_RUNS.exists() else []:
        try:
            data = json.loads(record.read_text())
        except (OSError, ValueError):
            record.unlink(missing_ok=True)
            continue
        if data.get("pid") != os.getpid() and _alive(data.get("pid", 0)):
            continue
        _log(log, f"# sweeping a stale classroom run: {data}")
        for process in data.get("processes", []):
            _end_if(process["pid"], process["marker"])
        for folder in data.get("folders", []):
            with contextlib.suppress(OSError, ValueError):
                _end_if(int((Path(folder) / "hub" / "proxy.pid").read_text().strip()), "configurable-http-proxy")
        stale.append((record, data.get("folders", [])))
    sweep_stale_accounts(log)
    for record, folders in stale:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
        record.unlink(missing_ok=True)


def sweep_stale_accounts(log: Path) -> None:
    """Remove the accounts of earlier runs whose test process is gone (killed before its cleanup)."""
    for entry in pwd.getpwall():
        if not entry.pw_gecos.startswith(ACCOUNT_MARK):
            continue
        try:
            pid = int(entry.pw_gecos.split()[-1])
        except ValueError:
            pid = 0
        if pid == os.getpid() or not _alive(pid):
            _log(log, f"# removing stale account {entry.pw_name} ({entry.pw_gecos})")
            remove_account(entry.pw_name, log)


def _write_owned(account: Account, relative: str, text: str, mode: int = 0o644) -> Path:
    """Write a file in an account's home as that account (folders created on the way are theirs too)."""
    path = account.home / relative
    for parent in reversed(path.relative_to(account.home).parents[:-1]):
        folder = account.home / parent
        if not folder.exists():
            folder.mkdir(mode=0o755)
            os.chown(folder, account.uid, account.gid)
    path.write_text(text)
    os.chown(path, account.uid, account.gid)
    os.chmod(path, mode)
    return path


# ------------------------------------------------------------------------------------------------ the hub

def _http(method: str, url: str, token: str | None = None, body: dict | None = None,
          timeout: float = 30.0) -> tuple[int, object]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if token:
        request.add_header("Authorization", f"token {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw.decode("utf-8", "replace")


class CommandFailed(RuntimeError):
    """A command run as one of the classroom's accounts exited non-zero."""


@dataclass
class Classroom:
    url: str                        # the hub's public URL, http://127.0.0.1:PORT/
    api_token: str                  # the test service's token for the hub's REST API
    instructor: Account
    students: list[Account]
    exchange: Path                  # nbgrader's Exchange.root
    grading: Path                   # the instructor's AUTOGRADER_HOME
    bin: Path                       # interpreter and scripts the accounts run
    db_url: str | None              # gradebook URL (None: SQLite in the grading folder)
    commands_log: Path
    hub_log: Path
    hub: subprocess.Popen | None = field(default=None, repr=False)

    # --------------------------------------------------------------------- commands as an account
    def env_for(self, account: Account) -> dict[str, str]:
        env = {"HOME": str(account.home), "USER": account.name, "LOGNAME": account.name,
               "PATH": f"{self.bin}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
               "PYTHONUNBUFFERED": "1"}
        if account is self.instructor:
            env["AUTOGRADER_HOME"] = str(self.grading)
        return env

    def run_as(self, account: Account, *args: str, check: bool = True, timeout: float = 600,
               cwd: Path | None = None) -> subprocess.CompletedProcess:
        """Run a command as the account (runuser, a clean environment, in its home)."""
        env = [f"{k}={v}" for k, v in self.env_for(account).items()]
        cmd = ["runuser", "-u", account.name, "--", "env", "-i", *env, *args]
        start = time.monotonic()
        result = subprocess.run(cmd, cwd=cwd or account.home, capture_output=True, text=True,
                                stdin=subprocess.DEVNULL, timeout=timeout)
        output = result.stdout + result.stderr
        if len(output) > 6000:
            output = output[:3000] + f"\n[... {len(output) - 6000} characters ...]\n" + output[-3000:]
        _log(self.commands_log, f"$ [{account.name}] {shlex.join(args)}   "
                                f"(exit {result.returncode}, {time.monotonic() - start:.1f} s)\n{output}")
        if check and result.returncode != 0:
            raise CommandFailed(f"[{account.name}] {shlex.join(args)} exited {result.returncode}:\n"
                                 f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        return result

    def nbgrader(self, account: Account, *args: str, **kw) -> subprocess.CompletedProcess:
        """`nbgrader ...` as a student, in their home (their ~/.jupyter/nbgrader_config.py applies)."""
        return self.run_as(account, str(self.bin / "nbgrader"), *args, **kw)

    def instructor_nbgrader(self, *args: str, **kw) -> subprocess.CompletedProcess:
        """`nbgrader ...` as the instructor, in the project folder as the README has it: the course's own
        nbgrader_config.py applies. That file sets Exchange.root to $AUTOGRADER_HOME/exchange, and nbgrader
        reads it last, so this hub's exchange (and gradebook) are given on the command line."""
        flags = [f"--Exchange.root={self.exchange}"]
        if self.db_url:
            flags.append(f"--CourseDirectory.db_url={self.db_url}")
        return self.run_as(self.instructor, str(self.bin / "nbgrader"), *args, *flags, cwd=ROOT, **kw)

    def autograder(self, *args: str, **kw) -> subprocess.CompletedProcess:
        """`python -m autograder ...` as the instructor, in the project folder, with the classroom's gradebook."""
        db = ["--db-url", self.db_url] if self.db_url else []
        return self.run_as(self.instructor, str(self.bin / "python"), "-m", "autograder", *args, *db,
                           cwd=ROOT, **kw)

    # ------------------------------------------------------------------------------------ REST API
    def api(self, method: str, path: str, body: dict | None = None) -> tuple[int, object]:
        return _http(method, self.url + "hub/api/" + path.lstrip("/"), self.api_token, body)

    def start_servers(self, accounts: list[Account], timeout: float = 300) -> None:
        """Start each account's JupyterLab through the REST API (all at once), and wait until all answer."""
        for account in accounts:
            status, body = self.api("POST", f"users/{account.name}/server")
            assert status in (201, 202), f"starting {account.name}'s server: {status} {body}"
        deadline = time.monotonic() + timeout
        waiting = {a.name for a in accounts}
        while waiting and time.monotonic() < deadline:
            for name in sorted(waiting):
                status, body = self.api("GET", f"users/{name}")
                server = (body or {}).get("servers", {}).get("", {}) if status == 200 else {}
                if server.get("ready"):
                    waiting.discard(name)
            time.sleep(1)
        assert not waiting, f"servers of {sorted(waiting)} not ready after {timeout} s; hub log:\n" \
                            f"{self.hub_log_tail()}"

    def hub_log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.hub_log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _render_config(run: Path, values: dict) -> Path:
    template = string.Template((HERE / "jupyterhub_config.py.in").read_text())
    path = run / "jupyterhub_config.py"
    path.write_text(template.substitute(values))
    return path


def _start_hub(classroom: Classroom, run: Path, users: list[str], record: RunRecord) -> subprocess.Popen:
    if not CHP.exists():
        raise RuntimeError(f"{CHP} is missing: run `bash tests/classroom_hub/install.sh`")
    for _attempt in range(3):
        port, hub_port, proxy_api_port = _free_port(), _free_port(), _free_port()
        config = _render_config(run, {
            "port": port, "hub_port": hub_port, "proxy_api_port": proxy_api_port, "chp": CHP, "run": run,
            "users": repr(sorted(users)), "bin": classroom.bin, "api_token": classroom.api_token})
        node_dir = Path(shutil.which("node") or "/usr/bin/node").parent
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY_", "CONFIGPROXY"))}
        env.update({"PATH": os.pathsep.join([str(VENV_BIN), str(node_dir), "/usr/local/bin", "/usr/bin", "/bin"]),
                    "PYTHONUNBUFFERED": "1"})
        with open(classroom.hub_log, "ab") as out:
            # Its own session: stopping the hub reaches whatever it left in its process group.
            process = subprocess.Popen([str(VENV_BIN / "jupyterhub"), "-f", str(config)], cwd=run, env=env,
                                       stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       start_new_session=True)
        record.process(process.pid, str(config))
        classroom.url = f"http://127.0.0.1:{port}/"
        classroom.hub = process
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if _http("GET", classroom.url + "hub/api/", timeout=3)[0] == 200:
                    return process
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.5)
        _stop_hub(classroom, run)
    raise RuntimeError(f"JupyterHub did not start; log {classroom.hub_log}:\n{classroom.hub_log_tail()}")


def _stop_hub(classroom: Classroom, run: Path) -> None:
    process = classroom.hub
    if process is None:
        return
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)     # the hub stops its servers and its proxy on SIGTERM
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    # The proxy runs in a session of its own: end it by the pid it wrote, if it outlived the hub.
    pid_file = run / "proxy.pid"
    try:
        pid = int(pid_file.read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        if b"configurable-http-proxy" in cmdline:
            os.kill(pid, signal.SIGKILL)
    except (OSError, ValueError):
        pass
    classroom.hub = None


def _student_config(exchange: Path) -> str:
    return (f"# This course's exchange on this machine (written by the classroom test).\n"
            f"c = get_config()  # noqa: F821\n"
            f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
            f"c.Exchange.root = {str(exchange)!r}\n")


# -------------------------------------------------------------------------------------------- gradebook

GRADEBOOK_USER = "grader"


def postgres_bindir() -> Path | None:
    """The newest Debian PostgreSQL server's bin folder (tests/install-postgresql.sh installs it)."""
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")
             if (Path(p).parent / "postgres").exists()]
    return max(found, key=lambda b: int(b.parent.name) if b.parent.name.isdigit() else 0) if found else None


def use_postgres() -> bool:
    """The gradebook is PostgreSQL unless CLASSROOM_GRADEBOOK=sqlite."""
    return os.environ.get("CLASSROOM_GRADEBOOK", "postgresql") != "sqlite"


@contextlib.contextmanager
def gradebook_server(log: Path, record: RunRecord | None = None):
    """A PostgreSQL server for the gradebook, as a shared classroom machine needs one: loopback only, and a
    password (scram-sha-256) that only the instructor has, in ~/.pgpass, never on a command line (where
    every account could read it in `ps`). Runs as the `postgres` account; yields (url, port, password)."""
    import psycopg

    bindir = postgres_bindir()
    if bindir is None:
        raise RuntimeError("no PostgreSQL server: run `bash tests/install-postgresql.sh` "
                           "(or CLASSROOM_GRADEBOOK=sqlite for a SQLite gradebook)")
    owner = pwd.getpwnam("postgres")
    as_postgres = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
    folder = Path(tempfile.mkdtemp(prefix="classroom-postgres-"))
    if record:
        record.folder(folder)
    os.chown(folder, owner.pw_uid, owner.pw_gid)
    password = secrets.token_urlsafe(24)
    proc = None
    try:
        pwfile = folder / "password"
        pwfile.write_text(password + "\n")
        os.chown(pwfile, owner.pw_uid, owner.pw_gid)
        os.chmod(pwfile, 0o600)
        init = subprocess.run([str(bindir / "initdb"), "-D", str(folder / "data"), "-U", GRADEBOOK_USER,
                               "--auth=scram-sha-256", f"--pwfile={pwfile}", "-E", "UTF8", "--locale=C",
                               "--no-sync"], cwd=folder, capture_output=True, text=True, timeout=180,
                              **as_postgres)
        pwfile.unlink()
        if init.returncode != 0:
            raise RuntimeError(f"initdb failed:\n{init.stdout}\n{init.stderr}")
        port = _free_port()
        with open(log, "ab") as out:
            proc = subprocess.Popen([str(bindir / "postgres"), "-D", str(folder / "data"), "-p", str(port),
                                     "-k", str(folder), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                                     "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
                                    cwd=folder, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, **as_postgres)
        if record:
            record.process(proc.pid, str(folder))
        deadline = time.monotonic() + 90
        while True:
            try:
                with psycopg.connect(host="127.0.0.1", port=port, user=GRADEBOOK_USER, password=password,
                                     dbname="postgres", connect_timeout=3, autocommit=True) as conn:
                    conn.execute("CREATE DATABASE gradebook")
                break
            except psycopg.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"PostgreSQL did not start; log {log}") from None
                time.sleep(0.3)
        yield f"postgresql://{GRADEBOOK_USER}@127.0.0.1:{port}/gradebook", port, password
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGINT)          # fast shutdown of the postmaster we started
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def open_classroom(students: tuple[str, ...] = ("ada", "alan")):
    """An instructor and the named students as Linux accounts, the exchange, and JupyterHub running."""
    if os.geteuid() != 0:
        raise RuntimeError("the classroom creates Linux accounts: run it as root")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    commands_log, hub_log = ARTIFACTS / "commands.log", ARTIFACTS / "jupyterhub.log"
    for log in (commands_log, hub_log, ARTIFACTS / "postgres.log"):
        log.write_text("")
    sweep_stale(commands_log)

    record = RunRecord()
    run = Path(tempfile.mkdtemp(prefix="classroom-hub-"))
    record.folder(run)
    os.chmod(run, 0o711)                    # the accounts reach the exchange inside, nothing else
    hub_dir = run / "hub"
    hub_dir.mkdir(mode=0o700)
    exchange = run / "exchange"
    exchange.mkdir()
    os.chmod(exchange, 0o777)               # nbgrader's exchange: world-writable, as nbgrader requires

    prefix = "cls" + secrets.token_hex(3)
    names = [f"{prefix}-teacher"] + [f"{prefix}-{s}" for s in students]
    made: list[str] = []
    classroom = None
    stack = contextlib.ExitStack()      # the gradebook server, stopped after the hub
    try:
        accounts = []
        for name in names:
            made.append(name)
            accounts.append(create_account(name, commands_log))
        instructor, *others = accounts
        db_url = None
        if use_postgres():
            db_url, port, password = stack.enter_context(gradebook_server(ARTIFACTS / "postgres.log", record))
            _write_owned(instructor, ".pgpass", f"127.0.0.1:{port}:gradebook:{GRADEBOOK_USER}:{password}\n",
                         mode=0o600)
        classroom = Classroom(url="", api_token=secrets.token_hex(32), instructor=instructor, students=others,
                              exchange=exchange, grading=instructor.home / "grading", bin=users_bin(),
                              db_url=db_url, commands_log=commands_log, hub_log=hub_log)
        for account in accounts:
            if account is not instructor:
                _write_owned(account, ".jupyter/nbgrader_config.py", _student_config(exchange))
            for name, value in LAB_SETTINGS.items():
                _write_owned(account, f".jupyter/lab/user-settings/{name}", json.dumps(value))
        classroom.grading.mkdir(mode=0o700)
        os.chown(classroom.grading, instructor.uid, instructor.gid)
        _start_hub(classroom, hub_dir, names, record)
        yield classroom
    finally:
        try:
            if classroom is not None:
                _stop_hub(classroom, hub_dir)
        finally:
            stack.close()
            problems = []
            for name in made:
                try:
                    remove_account(name, commands_log)
                except Exception as error:  # noqa: BLE001 - remove the others anyway, then report
                    problems.append(f"{name}: {error}")
            shutil.rmtree(run, ignore_errors=True)
            problems += [f"{n}: still exists" for n in made if _exists(n)]
            if not problems:
                record.close()
            if problems:
                raise RuntimeError("classroom cleanup: " + "; ".join(problems))


def _exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False
