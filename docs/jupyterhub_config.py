"""JupyterHub for one class of this course, with nbgrader's exchange: an example to adapt (docs/deploy.md).

Where it goes:
  The Littlest JupyterHub  /opt/tljh/config/jupyterhub_config.d/custom_autograd.py, then
                           `sudo tljh-config reload hub`
  your own JupyterHub      the end of its jupyterhub_config.py
  Zero to JupyterHub       hub.extraConfig in the chart's values, with PREPARE_EXCHANGE = False: students'
                           servers run in their own pods there, so the exchange is a shared volume and
                           nbgrader's configuration a file in the image (docs/deploy.md)

Who is who:
  INSTRUCTORS  hub users who grade: they reach the course's formgrader and may start anyone's server
  STUDENTS     hub users who fetch and submit assignments
  GRADER       a Unix account (not a hub login) that owns the course: the clone (with solutions/, which
               students must never read), the grading folder, the gradebook settings. The hub runs the
               formgrader as this account, as a service named after the course (nbgrader requires the name).
"""

from pathlib import Path

c = get_config()  # noqa: F821 - provided by traitlets when JupyterHub loads this file

COURSE_ID = "custom-autograd-functions"      # nbgrader's course id, the same in every nbgrader_config.py
INSTRUCTORS = ["instructor1"]                # hub user names (TLJH's Unix accounts are jupyter-<name>)
STUDENTS = ["student1", "student2"]
GRADER = "grader-autograd"                   # sudo useradd --create-home grader-autograd
GRADER_HOME = f"/home/{GRADER}"
COURSE_CLONE = f"{GRADER_HOME}/custom-autograd-functions"
FORMGRADER_PORT = 9999                       # any free port on the hub's machine
EXCHANGE = "/srv/nbgrader/exchange"          # nbgrader's default exchange folder
STUDENT_NBGRADER_CONFIG = "/etc/jupyter/nbgrader_config.py"
PREPARE_EXCHANGE = True                      # False where users' servers do not run on the hub's machine

# --- who may log in -------------------------------------------------------------------------------------
c.Authenticator.allowed_users = set(INSTRUCTORS + STUDENTS)
c.Authenticator.admin_users = set(INSTRUCTORS)

# --- the course: nbgrader finds courses by these group names ---------------------------------------------
# formgrade-<course>: may open the course's formgrader; nbgrader-<course>: sees the course in the
# Assignments and Courses tabs.
c.JupyterHub.load_groups = {
    f"formgrade-{COURSE_ID}": {"users": INSTRUCTORS},
    f"nbgrader-{COURSE_ID}": {"users": INSTRUCTORS + STUDENTS},
}
c.JupyterHub.load_roles = [
    {
        "name": f"formgrade-{COURSE_ID}",
        "groups": [f"formgrade-{COURSE_ID}"],
        "scopes": [f"access:services!service={COURSE_ID}", "list:services", f"read:services!service={COURSE_ID}"],
    },
    {
        "name": f"nbgrader-{COURSE_ID}",
        "groups": [f"nbgrader-{COURSE_ID}"],
        "scopes": ["list:services", f"read:services!service={COURSE_ID}"],
    },
    # nbgrader's course list asks the hub, with the user's server token, which courses its user may see:
    # that token gets its user's own permissions.
    {"name": "server", "scopes": ["inherit"]},
]

# --- the formgrader: JupyterLab as GRADER, started and proxied by the hub ---------------------------------
# Its environment is the course clone's .venv (pip install -e '.[postgres,classroom]' gives it
# jupyterhub-singleuser); its nbgrader settings are ~GRADER/.jupyter/nbgrader_config.py (docs/deploy.md).
# The hub must run as root to start a service as another user (TLJH's does).
c.JupyterHub.services = [
    {
        "name": COURSE_ID,
        "url": f"http://127.0.0.1:{FORMGRADER_PORT}",
        "command": [f"{COURSE_CLONE}/.venv/bin/jupyterhub-singleuser"],
        "user": GRADER,
        "cwd": GRADER_HOME,                  # not the clone: its nbgrader_config.py is for single-user use
        "environment": {"JUPYTERHUB_DEFAULT_URL": "/formgrader"},
    },
]

# --- nbgrader's exchange, on this machine -----------------------------------------------------------------
def nbgrader_settings() -> str:
    """Every user's nbgrader_config.py: the course and its exchange."""
    return (f"# Every user's nbgrader settings for the course (written by the hub: docs/jupyterhub_config.py).\n"
            f"c = get_config()  # noqa: F821\n"
            f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
            f"c.Exchange.root = {EXCHANGE!r}\n")


def prepare_exchange(spawner=None) -> None:
    """The exchange folder and every user's nbgrader settings, before a user's server starts (idempotent).

    The exchange is writable by all, and sticky like /tmp: no one can remove or rename another's files.
    """
    exchange = Path(EXCHANGE)
    exchange.mkdir(parents=True, exist_ok=True)
    exchange.chmod(0o1777)
    config, text = Path(STUDENT_NBGRADER_CONFIG), nbgrader_settings()
    if not config.exists() or config.read_text() != text:
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(text)
        config.chmod(0o644)


if PREPARE_EXCHANGE:
    c.Spawner.pre_spawn_hook = prepare_exchange

# Students' servers open JupyterLab; the Assignments tab is nbgrader's.
c.Spawner.default_url = "/lab"
