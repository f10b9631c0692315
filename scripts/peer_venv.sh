#!/usr/bin/env bash
# The peer tests against shapiq >= 1.8, which needs Python >= 3.12 (the project's .venv is 3.11,
# where pip resolves an older shapiq): a venv of its own, .venv-peer, made with Python 3.12, the
# project installed editable with "shapiq>=1.8" pytest hypothesis mpmath, then
# tests/test_interactions_peer.py (every index and order against shapiq's ExactComputer) and
# tests/test_interaction_orders.py (the routes against each other, the axioms).
#
#   scripts/peer_venv.sh      (make peer; .ci/run calls it before make test)
#
# PEER_PYTHON (default python3.12) and PEER_PYENV_VERSION (default 3.12.1, for pyenv's shims)
# choose the interpreter; without one the step says so and exits 0 (the peer tests are skipped,
# never failed, on a machine that has no Python 3.12). The venv is reused while pyproject.toml
# is older than its stamp; PEER_VENV moves it. Prints the install and test times.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${PEER_VENV:-.venv-peer}"
PEER_PYTHON="${PEER_PYTHON:-python3.12}"
export PYENV_VERSION="${PEER_PYENV_VERSION:-3.12.1}"

if ! command -v "$PEER_PYTHON" >/dev/null 2>&1 || ! "$PEER_PYTHON" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then
  echo "peer: $PEER_PYTHON (Python >= 3.12) is not available here: skipping the tests against shapiq >= 1.8"
  echo "peer: (make test still runs tests/test_interactions_peer.py with the shapiq of .venv)"
  exit 0
fi

if [ ! -f "$VENV/.peer-stamp" ] || [ pyproject.toml -nt "$VENV/.peer-stamp" ]; then
  start=$(date +%s)
  rm -rf "$VENV"
  "$PEER_PYTHON" -m venv "$VENV"
  echo '*' > "$VENV/.gitignore"              # git ignores the venv (as Python 3.13's venv does)
  # mpmath: the 80-digit reference of tests/test_interaction_orders.py (skipped without it);
  # the filter drops pip's notes on this machine's unreachable extra index, nothing else
  "$VENV/bin/python" -m pip install -q -e . "shapiq>=1.8" pytest hypothesis mpmath \
    2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  touch "$VENV/.peer-stamp"
  echo "peer: $VENV made and installed in $(( $(date +%s) - start )) s"
fi
unset PYENV_VERSION

"$VENV/bin/python" - <<'EOF'
import importlib.metadata as md
import sys

version = md.version("shapiq")
print(f"peer: Python {sys.version.split()[0]}, shapiq {version}, numpy {md.version('numpy')}")
if tuple(int(p) for p in version.split(".")[:2]) < (1, 8):
    sys.exit(f"peer: shapiq {version} was installed; the peer step needs shapiq >= 1.8")
EOF
start=$(date +%s)
"$VENV/bin/python" -m pytest -p no:cacheprovider -q tests/test_interactions_peer.py tests/test_interaction_orders.py
echo "peer: tests ran in $(( $(date +%s) - start )) s"
