"""Every instructor notebook runs top to bottom: its demonstrations assert each claim the course makes
(error messages included), so a PyTorch that behaves differently fails here."""

import time

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.engine import notebooks

SOURCES = notebooks.sources()


@pytest.mark.slow
@pytest.mark.parametrize("source", SOURCES, ids=[s.name for s in SOURCES])
def test_solution_notebook_runs_clean(source, tmp_path):
    nb = nbformat.read(source.path, as_version=4)
    # run where the notebook lives, as a learner would (the self-check cell grades the saved file)
    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(source.path.parent)}})
    start = time.monotonic()
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, errors[0].get("evalue")
    print(f"{source.name}: {time.monotonic() - start:.1f} s")
