# One command each: `make demo`, `make test`, `make lab`. Every target sets up .venv first if needed.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup demo test test-more test-all test-fast test-torch matrix test-browser test-postgres test-classroom lab release bench site-assets site test-site clean help

help:
	@echo "make demo          release the course, grade a sample class, print grades, write feedback"
	@echo "make test          the test tier a newcomer runs: units, every check in process, the sandbox end to end"
	@echo "make test-more     everything else of the suite (the real grader on every answer, red team, classroom)"
	@echo "make test-all      both tiers"
	@echo "make test-fast     the checks alone: reference answers and zoo, in-process (under a minute)"
	@echo "make test-torch TORCH=2.14.1  the course on another torch release, in .venv-torch-2.14.1, with a report"
	@echo "make matrix        re-run the compatibility matrix on the pinned torch; rewrite its tables"
	@echo "make lab           open JupyterLab on course/"
	@echo "make test-browser  run every notebook in JupyterLab in headless Chromium"
	@echo "make test-classroom  the nbgrader course flow on a real JupyterHub with Linux accounts (as root)"
	@echo "make test-postgres the gradebook on a real PostgreSQL server (installs Debian's postgresql if missing)"
	@echo "make release       regenerate course/ from solutions/"
	@echo "make bench         time plain nbgrader against our grader on a synthetic class (BENCH_ARGS=...)"
	@echo "make site          build the course site (Jupyter Book) into .site/_build/html/"
	@echo "make test-site     build the course site and check it (offline, in headless Chromium too)"

setup: $(STAMP)

# The venv is requirements/dev.lock (hashed; tools/lock.sh writes it from pyproject.toml), then the package with
# --no-deps: torch's CPU build from PyTorch's CPU index, every other package from PyPI.
$(STAMP): pyproject.toml requirements/dev.lock
	@$(PYTHON) tools/python_version.py
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PYTHON) tools/requirements.py --lock requirements/dev.lock --package torch > $(VENV)/torch.lock
	$(PYTHON) tools/requirements.py --lock requirements/dev.lock --without torch > $(VENV)/rest.lock
	$(PY) -m pip install --quiet --require-hashes --no-deps -r $(VENV)/torch.lock \
	    --index-url https://download.pytorch.org/whl/cpu
	$(PY) -m pip install --quiet --require-hashes --no-deps -r $(VENV)/rest.lock
	$(PY) -m pip install --quiet --no-deps -e .
	bash tools/install-compiler.sh
	$(PY) -m autograder.kernels   # notebook 16's C++ kernel, built before any grading (about a minute, once)
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m autograder demo

# The README's test command: units, every check in process, the sandbox end to end: tests/core/.
test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup -q --tier test

# Everything else: the references, zoo and honest answers through the real grader, the red team, faults, every
# notebook run, the classroom, Gradescope, LMS, release. `make test-all` is both tiers (what CI runs).
test-more: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup -q --tier more

test-all: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup -q

# Every check against the reference answers and every zoo entry, in one process, no sandbox (under a minute).
test-fast: $(STAMP)
	$(PY) -m pytest tests/core/test_fast.py tests/core/test_zoo_ledger.py -n 2 -q

# The course on another torch release (any version pip can take): a venv of its own, .venv-torch-$(TORCH)
# (git-ignored), with every package of requirements/dev.lock but torch (hashed), then torch $(TORCH)'s CPU build
# from PyTorch's CPU index (where that index cannot be reached, PyPI's build, which is CUDA's: it says so), then
# the package with --no-deps. Runs every
# instructor notebook on both releases, grades the references through the real grader, runs the fast tier,
# the upstream-bug sentinels and the compatibility matrix there, and writes .grading/torch-$(TORCH)-report.md.
TORCH       ?= 2.14.1
TORCH_VENV  := .venv-torch-$(TORCH)
TORCH_PY    := $(TORCH_VENV)/bin/python
TORCH_STAMP := $(TORCH_VENV)/.installed

$(TORCH_STAMP): pyproject.toml requirements/dev.lock tools/requirements.py
	test -d $(TORCH_VENV) || $(PYTHON) -m venv $(TORCH_VENV)
	$(TORCH_PY) -m pip install --quiet --upgrade pip
	$(PYTHON) tools/requirements.py --lock requirements/dev.lock --without torch > $(TORCH_VENV)/requirements.txt
	$(TORCH_PY) -m pip install --quiet --require-hashes --no-deps -r $(TORCH_VENV)/requirements.txt
	$(TORCH_PY) -m pip install --quiet "torch==$(TORCH)+cpu" --extra-index-url https://download.pytorch.org/whl/cpu \
	  || { echo "torch $(TORCH)+cpu could not be installed (PyTorch's CPU index unreachable, or no such build): torch $(TORCH) from PyPI, its CUDA build"; \
	       $(TORCH_PY) -m pip install --quiet "torch==$(TORCH)"; }
	$(TORCH_PY) -m pip install --quiet --no-deps -e .
	$(TORCH_PY) -c 'import torch; print("$(TORCH_VENV): torch", torch.__version__)'
	touch $(TORCH_STAMP)

test-torch: $(STAMP) $(TORCH_STAMP)
	bash tools/test_torch.sh $(TORCH) $(PY) $(TORCH_PY)

# The compatibility matrix (autograder/maintain/matrix.py): re-run on this venv's torch, then README.md's table and
# docs/site/compatibility.md from every release's committed record (docs/compat/torch-*.json).
# `make matrix PY=.venv-torch-2.14.1/bin/python` records that release's column group.
matrix: $(STAMP)
	$(PY) -m autograder.maintain.matrix run
	$(PY) -m autograder.maintain.matrix render

test-browser: $(STAMP)
	bash tests/browser/install-chromium.sh
	BROWSER_TESTS=1 $(PY) -m pytest tests/browser -q -m browser -p no:xdist

test-postgres: $(STAMP)
	bash tests/install-postgresql.sh
	POSTGRES_TESTS=1 $(PY) -m pytest tests/more/test_postgres.py -q -m postgres -n 0

# The whole nbgrader course flow on a real JupyterHub: it creates (and removes) Linux accounts, so it runs as
# root. Installs the classroom extra, Chromium and PostgreSQL (apt, for the gradebook) and
# configurable-http-proxy (npm, into .classroom/). CLASSROOM_GRADEBOOK=sqlite grades into SQLite instead.
CLASSROOM_STAMP := $(VENV)/.installed-classroom

$(CLASSROOM_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[test,classroom]'
	touch $(CLASSROOM_STAMP)

test-classroom: $(CLASSROOM_STAMP)
	bash tests/browser/install-chromium.sh
	bash tests/install-postgresql.sh
	bash tests/classroom_hub/install.sh
	CLASSROOM_TESTS=1 $(PY) -m pytest tests/classroom_hub -q -m classroom -p no:xdist

# Jupyter refuses to run as root unless told (containers and CI machines often are root).
lab: $(STAMP)
	bash tools/lab.sh   # the course's notebooks, without nbgrader's instructor tools (tools/learner-lab)

release: $(STAMP)
	$(PY) -m autograder release

# The issue's full class (24 students x 12 notebooks) takes about an hour, nearly all of it plain
# nbgrader: `make bench BENCH_ARGS="--students 6"` gives the same figures in a quarter of that.
BENCH_ARGS ?= --students 4 --second-class 12 --record docs/bench/last-run.json

bench: $(STAMP)
	$(PY) -m autograder.maintain.bench $(BENCH_ARGS)

# The course site: course/'s notebooks executed with the exercises empty, as a Jupyter Book in
# .site/_build/html/ (git-ignored). Warnings are errors. Unchanged notebooks are not re-executed.
SITE_STAMP := $(VENV)/.site-installed

$(SITE_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[site]'
	touch $(SITE_STAMP)

# What the pages load besides the theme, bundled into the site so it needs no CDN: MathJax, the widget manager
# and RequireJS, from pinned npm packages checked against their pinned integrity (autograder/site/assets.py),
# into .site/assets/. npm comes from apt if missing; a rebuild fetches again only when a pin changes.
site-assets: $(SITE_STAMP)
	bash tools/install-npm.sh
	$(PY) -m autograder.site.assets

site: site-assets
	$(PY) -m autograder.site.build

# The site's tests, among them pages opened in headless Chromium with every other host refused.
test-site: site-assets
	bash tests/browser/install-chromium.sh
	SITE_TESTS=1 $(PY) -m pytest tests/more/test_site.py -q -m site -p no:xdist

clean:
	rm -rf .grading artifacts
