"""Small calls wake no thread they cannot use (#36, item 7).

A call on a small problem after the process sat idle should run on the calling thread alone: an
OpenBLAS or OpenMP worker woken for it (or one of kernelxai's helper threads) costs more than the
arithmetic it would share. Observed, not timed: each call runs in a fresh process after a rest,
and the context switches of every other thread of the process (``/proc/self/task``) are read
before and after it -- a thread that ran during the call has more. ``benchmarks/bench_overhead.py``
times the same calls cold and warm.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads /proc/self/task (Linux)")

_CALLS = r'''
import json, os, threading, time
import numpy as np
from sklearn.svm import SVR
from sklearn.kernel_ridge import KernelRidge
import kernelxai as kx

rng = np.random.default_rng(0)
X = rng.normal(size=(50, 8))
y = np.sin(X[:, 0]) + X[:, 1]
svr = SVR().fit(X, y)
krr = KernelRidge(kernel="rbf", gamma=0.1, alpha=0.1).fit(X[:, :6], y)
CALLS = {
    # the call of the issue: the functional baseline on the product route
    "functional baseline, product": lambda: kx.explain(svr, X[:10], value="functional_baseline",
                                                       method="product"),
    # holds BLAS to one thread for its batched products (single_threaded_blas)
    "interventional, exact": lambda: kx.explain(svr, X[:3], value="interventional", method="exact",
                                                background=X[:20]),
    # one small Cholesky per coalition (small_blas)
    "observational, exact": lambda: kx.explain(krr, X[:2, :6], value="observational", method="exact",
                                               background=X[:, :6]),
}


def switches():
    me, counts = threading.get_native_id(), {}
    for task in os.listdir("/proc/self/task"):
        if int(task) != me:
            try:
                with open(f"/proc/self/task/{task}/status") as status:
                    counts[task] = sum(int(line.split()[1]) for line in status if "ctxt_switches" in line)
            except OSError:
                pass
    return counts


ran = {}
for name, call in CALLS.items():
    call(), call()
    time.sleep(0.3)            # idle: spinning BLAS workers go to sleep
    before = switches()
    call()
    after = switches()
    ran[name] = sorted(t for t in after if t in before and after[t] != before[t])
print(json.dumps(ran))
'''


def test_small_calls_after_a_rest_wake_no_other_thread():
    out = subprocess.run([sys.executable, "-c", _CALLS], capture_output=True, text=True, check=True)
    ran = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(ran) == {"functional baseline, product", "interventional, exact", "observational, exact"}
    woken = {name: threads for name, threads in ran.items() if threads}
    assert not woken, f"threads ran during small calls (thread ids by call): {woken}"
