"""A class: collect submissions, autograde them, export grades (LMS, Gradescope, nbgrader), report."""
