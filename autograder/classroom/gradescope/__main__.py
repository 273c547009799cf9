"""`python -m autograder.classroom.gradescope run|check`: what the zip's scripts run (gradescope/scripts.py)."""

import sys

from autograder.classroom.gradescope import main

sys.exit(main())
