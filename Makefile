# kernelxai: two commands on a fresh machine.
#   make run      set up .venv, execute every notebook, render HTML, print the results
#                 (writes only under build/)
#   make test     set up .venv with the test extras and run the whole suite
#   make lab      JupyterLab on notebooks/
#   make figures  like make run, and also refresh the README's figures in docs/figures/
# run, smoke, figures and lab install only the notebooks extra (no test tools).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# Run the test suite on both cores; PYTEST_ARGS adds options (e.g. -k banana).
PYTEST_ARGS ?=
NOTEBOOK_ARGS ?=

.PHONY: run test lab notebooks smoke figures clean help

help:
	@echo "make run    execute all notebooks (default settings) into build/ and print a summary"
	@echo "make test   run unit, property-based and notebook smoke tests"
	@echo "make lab    open JupyterLab on notebooks/"
	@echo "make smoke  execute all notebooks in smoke mode (quick)"
	@echo "make figures  make run, and refresh docs/figures/ (the README's figures)"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# The stamps reinstall only when pyproject.toml changes.
$(VENV)/.run-stamp: pyproject.toml | $(PY)
	$(PIP) install -e ".[notebooks]"
	touch $@

$(VENV)/.test-stamp: pyproject.toml | $(PY)
	$(PIP) install -e ".[test]"
	touch $@

run: $(VENV)/.run-stamp
	$(PY) scripts/run_notebooks.py $(NOTEBOOK_ARGS)

smoke: $(VENV)/.run-stamp
	$(PY) scripts/run_notebooks.py --smoke $(NOTEBOOK_ARGS)

figures: $(VENV)/.run-stamp
	$(PY) scripts/run_notebooks.py --figures $(NOTEBOOK_ARGS)

test: $(VENV)/.test-stamp
	$(PY) -m pytest -n 2 --dist loadgroup $(PYTEST_ARGS)

lab: $(VENV)/.run-stamp
	$(VENV)/bin/jupyter lab notebooks

# Rebuild notebooks/*.ipynb from their percent-format sources in notebooks/src/.
notebooks:
	$(PYTHON) scripts/build_notebooks.py

clean:
	rm -rf build .pytest_cache
