# nbgrader reads this file (formgrader in JupyterLab, the `nbgrader` command): the course's folders.
from autograder.classroom.nbgrader_setup import configure

configure(get_config())  # noqa: F821 - get_config is provided by traitlets when nbgrader loads this file
