#!/usr/bin/env bash
# The fast suite under the newer Pythons users have (the project's .venv and `make test` are Python 3.11):
# for each of Python 3.12 and 3.13 that this machine offers, a venv of its own with the newest releases
# resolvable there (numpy, scipy, scikit-learn, pandas, matplotlib, ... as pyproject.toml allows them), shap
# >= 0.54 and shapiq >= 1.8 (both need Python >= 3.12), then the fast suite, which under these Pythons
# includes the interop tests (to_shap, to_shapiq, the plots of a shap.Explanation) and the peer tests
# against shapiq's ExactComputer (tests/test_interactions_peer.py, under the first of them; and
# tests/test_interaction_orders.py, the routes against each other).
#
#   scripts/newer_pythons.sh          every newer Python (make pythons; .ci/run calls it before make test)
#   scripts/newer_pythons.sh 3.12     only Python 3.12 (make peer)
#
# The fast suite is the library's unit and property tests and its docstring examples (pytest's testpaths,
# tests/ and kernelxai/), less the tests marked slow, notebook, browser or timing, the files of FAST_IGNORE
# below (the repository's own checks -- notebook catalogue, packaging, slides, import-graph and style rules
# -- and the checks of a fresh interpreter's state) and the long tests of FAST_DESELECT; the files of ONCE
# (the peer tests, the heaviest studies, the docstring examples) run under the first newer Python only.
# On 2 idle cores: about 3.5 minutes under 3.12, under 2 under 3.13; PYTEST_ARGS adds options.
#
# Python 3.12 uses .venv-peer (the venv benchmarks/bench_estimators.py runs shapiq in), 3.13
# .venv-py3.13. A venv is reused while its stamp is newer than pyproject.toml and this script, so a
# clean clone (CI) builds it: installs go through uv (installed into the venv with pip; 3-10x faster than
# pip here), without it through pip. Without an interpreter (pyenv's shims refuse one whose version is not
# selected: PYENV_VERSION is set to the newest 3.12.x / 3.13.x pyenv has), the step says so, skips
# that Python and exits 0. Exits 1 when a Python's suite failed or when shap or shapiq resolved older
# than required. Prints the versions resolved and the install and test times per Python.
set -euo pipefail
cd "$(dirname "$0")/.."

# minor version and venv of each newer Python
PYTHONS=("3.12 .venv-peer" "3.13 .venv-py3.13")
# the project with its shap and shapiq extras (pyproject.toml asks for shap >= 0.54 and shapiq >= 1.8 under
# Python >= 3.12); what was resolved is checked against these lower bounds after the install
EXTRAS="shap,shapiq"
MINIMUMS=("shap 0.54" "shapiq 1.8")
# mpmath: the 80-digit references of the quadrature and interaction-order tests (skipped without it)
TOOLS=(pytest pytest-xdist hypothesis mpmath)
FAST_MARKERS="not slow and not notebook and not browser and not timing"
# the repository's own checks (they read notebooks, docs, the README and the source tree, build slides or
# run make; none depends on the Python or the releases installed, and `make test` runs them under 3.11)
FAST_IGNORE=(
  tests/test_baselines.py tests/test_docs_site.py tests/test_exercises.py tests/test_fresh_machine.py
  tests/test_function_length.py tests/test_guards.py tests/test_layers.py tests/test_nbrun_retry.py
  tests/test_notebook_catalogue.py tests/test_notebook_parameters.py tests/test_packaging.py
  tests/test_private_imports.py tests/test_public_api.py tests/test_routes_table.py tests/test_slides.py
  # ... and the checks of a fresh interpreter's state (glibc's allocator, what importing loads, which threads
  # wake), each starting Python processes: a quarter of the suite's time for few tests
  tests/test_import_side_effects.py tests/test_lazy_imports.py tests/test_memory.py tests/test_thin_door.py
)
# single tests of 10-30 s each on an idle machine (a report notebook run by papermill, process pools' start,
# 80-digit mpmath references), a sixth of the suite's time; make test runs them (a renamed one is run here)
FAST_DESELECT=(
  "tests/test_entry_contract.py::test_random_state_is_another_name_of_seed[report]"
  "tests/test_gp_shap.py::test_chunks_and_workers_do_not_change_the_result[product]"
  tests/test_gp_interactions.py::test_workers_give_the_numbers_of_one_process
  tests/test_product_routes.py::test_gauss_legendre_nodes_match_mpmath
  tests/test_product_routes.py::test_mpmath_reference_is_the_shapley_value
)
# under the first newer Python only (3.12 here; 3.12 and 3.13 resolve the same releases): every index and
# order against shapiq's ExactComputer, the heaviest studies (sampled estimators' bias and coverage, the
# arena, the Shapley regulariser's fits, GP SHAP and interactions, the product routes' quadrature, large
# backgrounds, the widgets) and the docstring examples: half the suite's time
ONCE=(
  tests/test_interactions_peer.py tests/test_arena.py tests/test_background.py tests/test_gp_interactions.py
  tests/test_gp_shap.py tests/test_interactions_any_order.py tests/test_large_background.py tests/test_oddshap.py
  tests/test_plots_gp.py tests/test_product_kernel.py tests/test_product_routes.py tests/test_regression.py
  tests/test_regularised.py tests/test_sampled_estimators.py tests/test_uncertainty.py tests/test_values_rkhs.py
  tests/test_widgets.py kernelxai
)

only=("$@")
requirements=(-e ".[$EXTRAS]")
for minimum in "${MINIMUMS[@]}"; do requirements+=("${minimum% *}>=${minimum#* }"); done
requirements+=("${TOOLS[@]}")
eval "extra_args=(${PYTEST_ARGS:-})"   # PYTEST_ARGS as make test reads it: shell words, quotes allowed
ignores=()
for path in "${FAST_IGNORE[@]}"; do ignores+=("--ignore=$path"); done
for test in "${FAST_DESELECT[@]}"; do ignores+=("--deselect=$test"); done
failed=()

# pip's notes on this machine's unreachable extra index are dropped, nothing else
quiet_pip() { "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }

interpreter() {   # the command that runs Python $1 here, or nothing
  local minor=$1 version=""
  if command -v pyenv >/dev/null 2>&1; then
    version=$(pyenv versions --bare 2>/dev/null | grep -E "^${minor//./\\.}\.[0-9]+$" | sort -V | tail -n 1 || true)
  fi
  if command -v "python$minor" >/dev/null 2>&1 && PYENV_VERSION="$version" "python$minor" -c \
      "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$minor'.split('.'))))" 2>/dev/null; then
    echo "PYENV_VERSION=$version python$minor"
  fi
}

build() {   # build (or bring up to date) venv $2 with Python $1
  local minor=$1 venv=$2 command=$3 start
  start=$(date +%s)
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c \
      "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$minor'.split('.'))))" 2>/dev/null; then
    rm -rf "$venv"
    env $command -m venv "$venv"
    echo '*' > "$venv/.gitignore"              # git ignores the venv (as Python 3.13's venv does)
  fi
  if quiet_pip "$venv/bin/python" -m pip install -q uv; then
    "$venv/bin/uv" pip install -q --compile-bytecode --python "$venv/bin/python" --upgrade "${requirements[@]}"
  else
    echo "python $minor: uv could not be installed; installing with pip (slower)"
    quiet_pip "$venv/bin/python" -m pip install -q --upgrade "${requirements[@]}"
  fi
  touch "$venv/.pythons-stamp"
  echo "python $minor: $venv made and installed in $(( $(date +%s) - start )) s"
}

versions() {   # print what was resolved; fail when shap or shapiq is older than required
  "$1/bin/python" - "${MINIMUMS[@]}" <<'EOF'
import importlib.metadata as md
import re
import sys

names = ["numpy", "scipy", "scikit-learn", "pandas", "matplotlib", "seaborn", "shap", "shapiq", "hypothesis",
         "pytest"]
print(f"python {sys.version.split()[0]}: " + ", ".join(f"{name} {md.version(name)}" for name in names))
for minimum in sys.argv[1:]:
    name, least = minimum.split()
    got = md.version(name)
    if tuple(int(p) for p in re.findall(r"\d+", got)[:2]) < tuple(int(p) for p in least.split(".")):
        sys.exit(f"python {sys.version.split()[0]}: {name} {got} was installed; the interop tests need "
                 f"{name} >= {least} (an older release was resolved: see the install above)")
EOF
}

for entry in "${PYTHONS[@]}"; do
  minor=${entry% *} venv=${entry#* }
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $minor "* ]]; then continue; fi
  command=$(interpreter "$minor")
  if [ -z "$command" ]; then
    echo "python $minor: not available on this machine: skipping its fast suite"
    continue
  fi
  if [ ! -f "$venv/.pythons-stamp" ] || [ pyproject.toml -nt "$venv/.pythons-stamp" ] \
      || [ scripts/newer_pythons.sh -nt "$venv/.pythons-stamp" ]; then
    build "$minor" "$venv" "$command"
  fi
  if ! versions "$venv"; then failed+=("$minor (versions)"); continue; fi
  workers=()
  "$venv/bin/python" -c "import xdist" 2>/dev/null && workers=(-n 2 --dist loadgroup)
  start=$(date +%s)
  if ! "$venv/bin/python" -m pytest -p no:cacheprovider -q "${workers[@]}" -m "$FAST_MARKERS" "${ignores[@]}" \
      "${extra_args[@]}"; then
    failed+=("$minor")
  fi
  echo "python $minor: fast suite ran in $(( $(date +%s) - start )) s"
  for path in "${ONCE[@]}"; do ignores+=("--ignore=$path"); done   # they ran under this Python: not again
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "newer Pythons: failed under Python ${failed[*]}"
  exit 1
fi
