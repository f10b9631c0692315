# kernelxai: two commands on a fresh machine.
#   make run      set up .venv, execute every notebook, render HTML, print the results
#                 (writes only under build/)
#   make test     set up .venv with the test extras and run the whole suite
#   make lint     ruff check (configured in pyproject.toml) on kernelxai, tests, benchmarks, scripts
#   make lab      JupyterLab on notebooks/
#   make figures  like make run, and also refresh the README's figures in docs/figures/
# make run and make smoke compare each notebook's key numbers with notebooks/baselines/NAME.json
# and fail on drift; ACCEPT=1 re-records the baselines of the notebooks run and prints the diff.
# run, smoke, figures and lab install only the notebooks extra (no test tools).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# Installs go through uv where the registry offers it (5-10x faster than pip here: about 20 s instead of
# 2 minutes for the test extras on a fresh machine), through pip otherwise and whenever uv fails (uv does
# not read pip's configuration: a package only pip's find-links or extra indexes have falls back to pip).
# --compile-bytecode: as pip does; without it, where PYTHONDONTWRITEBYTECODE is set, every import compiles
# the sources again (importing kernelxai, scikit-learn, scipy, matplotlib and pandas took 12 s instead of 4-6 s).
INSTALL = $(if $(wildcard $(VENV)/bin/uv),$(VENV)/bin/uv pip install -q --compile-bytecode --python $(PY) $(1) || )$(PIP) install $(1)
# Run the test suite on both cores; PYTEST_ARGS adds options (e.g. -k banana).
PYTEST_ARGS ?=
NOTEBOOK_ARGS ?=
# make run ACCEPT=1 (or make smoke ACCEPT=1): re-record the baselines deliberately
ACCEPT ?=
ACCEPT_ARG := $(if $(filter 1 yes true,$(ACCEPT)),--accept)

.PHONY: run test lint lab notebooks smoke figures exercises slides docs doctest peer pythons clean help

help:
	@echo "make run    execute all notebooks (default settings) into build/ and print a summary"
	@echo "make test   run unit, property-based and notebook smoke tests"
	@echo "make lint   ruff check kernelxai, tests, benchmarks and scripts (rules in pyproject.toml)"
	@echo "make lab    open JupyterLab on notebooks/"
	@echo "make smoke  execute all notebooks in smoke mode (quick)"
	@echo "make figures  make run, and refresh docs/figures/ (the README's figures)"
	@echo "make run ACCEPT=1 / make smoke ACCEPT=1  re-record the notebooks' baselines (notebooks/baselines/)"
	@echo "make exercises  student versions of notebooks/exercises/ (solutions removed) into build/exercises/"
	@echo "make slides     offline reveal.js slides of the exercise notebooks into build/slides/ (SLIDES=name for one)"
	@echo "make docs       the documentation site into build/docs/ (offline; any Sphinx warning fails it)"
	@echo "make doctest    run every docstring Examples section of kernelxai as a test"
	@echo "make pythons    the fast suite under Python 3.12 and 3.13 (newest releases, shap >= 0.54, shapiq >= 1.8)"
	@echo "make peer       make pythons for Python 3.12 only (its venv, .venv-peer, runs the shapiq peer tests)"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	-$(PIP) install -q uv

# The stamps reinstall only when pyproject.toml changes.
$(VENV)/.run-stamp: pyproject.toml | $(PY)
	$(call INSTALL,-e ".[notebooks]")
	touch $@

$(VENV)/.test-stamp: pyproject.toml | $(PY)
	$(call INSTALL,-e ".[test]")
	touch $@

$(VENV)/.slides-stamp: pyproject.toml | $(PY)
	$(call INSTALL,-e ".[notebooks,slides]")
	touch $@

$(VENV)/.docs-stamp: pyproject.toml | $(PY)
	$(call INSTALL,-e ".[docs]")
	touch $@

run: $(VENV)/.run-stamp
	$(PY) scripts/run_notebooks.py $(ACCEPT_ARG) $(NOTEBOOK_ARGS)

smoke: $(VENV)/.run-stamp
	$(PY) scripts/run_notebooks.py --smoke $(ACCEPT_ARG) $(NOTEBOOK_ARGS)

figures: $(VENV)/.run-stamp
	$(PY) scripts/run_notebooks.py --figures $(ACCEPT_ARG) $(NOTEBOOK_ARGS)

# Tests marked timing compare wall time with the calibrated rates: skipped on the two workers
# (the other worker's load would fall on them), they run alone afterwards; exit code 5 is
# "none selected" (a PYTEST_ARGS -k that matches none of them)
test: $(VENV)/.test-stamp
	$(PY) -m pytest -n 2 --dist loadgroup $(PYTEST_ARGS)
	$(PY) -m pytest -p no:cacheprovider -m timing tests $(PYTEST_ARGS) || [ $$? -eq 5 ]

# ruff comes with the test extra; its rules are [tool.ruff] in pyproject.toml
lint: $(VENV)/.test-stamp
	$(VENV)/bin/ruff check kernelxai tests benchmarks scripts

lab: $(VENV)/.run-stamp
	$(VENV)/bin/jupyter lab notebooks

# Student versions of the exercise notebooks (nbgrader's solution stubs, hidden tests removed)
# into build/exercises/; needs only Python's standard library, installs nothing.
exercises:
	$(PYTHON) scripts/build_exercises.py

# reveal.js slides of the exercise notebooks, executed, one self-contained offline HTML file each,
# into build/slides/; SLIDES=03-kernelshap-wls builds one deck.
SLIDES ?=
slides: $(VENV)/.slides-stamp
	$(PY) scripts/build_slides.py $(SLIDES)

# The documentation site (docs/, Sphinx) into build/docs/, offline, with -W: a warning (a broken
# reference, a malformed docstring, a page that loads something from the network) fails it. The
# gallery renders the executed notebooks in $(DOCS_RUN)/notebooks/ (make run's or make smoke's);
# the missing ones are executed first in smoke mode. -E rereads every page, so -W sees every warning.
DOCS_RUN ?= build
docs: $(VENV)/.docs-stamp
	@missing=$$(for nb in notebooks/*.ipynb; do [ -f "$(DOCS_RUN)/notebooks/$$(basename $$nb)" ] || basename $$nb .ipynb; done); \
	if [ -n "$$missing" ]; then $(PY) scripts/run_notebooks.py --smoke --build $(DOCS_RUN) --only $$missing; fi
	@[ -f docs/_static/example-report.html ] || $(PY) scripts/example_report.py
	$(VENV)/bin/sphinx-build -E -W --keep-going -q -b html -D kx_executed_notebooks=$(abspath $(DOCS_RUN))/notebooks docs build/docs
	@echo "site: build/docs/index.html"

# Every Examples section of the library's docstrings, run by pytest's doctest collector.
doctest: $(VENV)/.test-stamp
	$(PY) -m pytest -p no:cacheprovider --doctest-modules kernelxai -q

# The fast suite (the library's unit and property tests and docstring examples, not the slow, notebook,
# browser and timing tests nor the repository's own checks) under every newer Python the machine offers
# (3.12 and 3.13, through pyenv), each in a venv of its own with the newest releases resolvable there,
# shap >= 0.54 and shapiq >= 1.8 (Python >= 3.12 only): the interop tests and the peer tests against
# shapiq's ExactComputer run there too. A missing Python is skipped with a line saying so. See
# scripts/newer_pythons.sh; .ci/run runs it before make test; PYTEST_ARGS adds options.
pythons:
	scripts/newer_pythons.sh

# Python 3.12 only (.venv-peer, the venv benchmarks/bench_estimators.py runs shapiq in)
peer:
	scripts/newer_pythons.sh 3.12

# Rebuild notebooks/*.ipynb from their percent-format sources in notebooks/src/.
notebooks:
	$(PYTHON) scripts/build_notebooks.py

clean:
	rm -rf build .pytest_cache
