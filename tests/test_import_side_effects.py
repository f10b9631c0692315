"""Importing kernelxai defines things and changes nothing in the process (#36).

A library may tune what it runs, never its host (a Jupyter kernel, a Dask worker, a web server).
Each test imports kernelxai in a fresh Python process and compares the process's state before
and after: the allocator's thresholds, the environment, the BLAS libraries' thread limits, the
warning filters, matplotlib's backend (read raw, without resolving it), and more that a library
could change behind the user's back (NumPy's error handling, print options and global random
state, Python's random state, the recursion limit, signal handlers, exception hooks, logging, the
garbage collector, sys.path, the working directory, the process's threads).

kernelxai's third-party dependencies (scikit-learn, SciPy, NumPy, ...) change some of that when
*they* are imported: scikit-learn sets two ``KMP_*`` environment variables, SciPy and NumPy add
warning filters, each OpenBLAS starts its threads. The process therefore imports every module
that ``import kernelxai`` would bring in from outside kernelxai first (their list is taken from
another fresh process), then records the state, imports kernelxai, and records it again: the two
records must be equal.

The allocator is observed, not timed: glibc maps a request above its mmap threshold with mmap
(counted by ``mallinfo2().hblks``) and serves smaller ones from its heap. Before and after the
import, blocks of 1 MiB to 30 MiB are requested with ``malloc`` and kept (never freed, so the
probe itself changes no threshold); which of them were mapped must not change. A process that
freed a 24 MiB block -- as ``kx.prime_allocator()`` does -- serves them all from its heap
afterwards, which the last test checks the probe sees.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kernelxai import _memory

#: Prints the names of the modules from outside kernelxai that importing the targets brings in.
_LIST_MODULES = """
import json, sys
before = set(sys.modules)
import importlib
for target in sys.argv[1:]:
    importlib.import_module(target)
print(json.dumps([name for name in sys.modules
                  if name not in before and not name.startswith(("kernelxai", "__"))]))
"""

#: Imports the dependencies, records the state, imports the targets, records it again (JSON).
_RECORD = r'''
import ctypes, gc, hashlib, importlib, json, logging, os, random, signal, sys, threading, warnings

for name in json.loads(sys.argv[1]):      # the dependencies first: what they change is theirs
    try:
        importlib.import_module(name)
    except Exception:                      # a submodule that cannot be imported on its own
        pass

import matplotlib
import numpy as np
import threadpoolctl

SIZES = [2**20, 2**21, 2**22, 2**23, 2**24, 30 * 2**20]   # 1 MiB .. 30 MiB (above what reading a source
                                                        # file or a small array frees)
kept = []                                           # the probes' blocks: never freed


def allocator():
    """Which of SIZES glibc maps (above its mmap threshold) rather than serves from its heap."""
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        version = ""
    if not version.startswith("glibc"):
        return None
    libc = ctypes.CDLL(None)
    fields = [(f, ctypes.c_size_t) for f in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                            "fsmblks", "uordblks", "fordblks", "keepcost")]
    info = type("MallInfo2", (ctypes.Structure,), {"_fields_": fields})
    mallinfo = libc.mallinfo2
    mallinfo.restype, mallinfo.argtypes = info, []
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    mapped = []
    for size in SIZES:
        before = mallinfo().hblks
        kept.append(libc.malloc(size))
        mapped.append(mallinfo().hblks > before)
    return mapped


def threads():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def state():
    numpy_random = np.random.get_state()
    signals = {}
    for name in ("SIGINT", "SIGTERM", "SIGCHLD", "SIGPIPE", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGALRM"):
        number = getattr(signal, name, None)
        if number is not None:
            signals[name] = repr(signal.getsignal(number))
    root = logging.getLogger()
    return {
        "allocator (which of 1 MiB..30 MiB glibc maps)": allocator(),
        # each variable's value by a digest: what changed is seen, no value leaves the process
        "environment": {k: hashlib.sha256(v.encode()).hexdigest()[:12] for k, v in sorted(os.environ.items())},
        "BLAS/OpenMP thread limits": sorted((lib["filepath"], lib["num_threads"])
                                            for lib in threadpoolctl.threadpool_info()),
        "warning filters": [repr(f) for f in warnings.filters],
        "matplotlib backend (raw rcParams value)": repr(dict.__getitem__(matplotlib.rcParams, "backend")),
        "matplotlib.pyplot imported": "matplotlib.pyplot" in sys.modules,
        "numpy error handling": np.geterr(),
        "numpy print options": repr(sorted(np.get_printoptions().items())),
        "numpy global random state": [numpy_random[0], numpy_random[1][:8].tolist(), int(numpy_random[2])],
        "python random state": hash(random.getstate()),
        "recursion limit": sys.getrecursionlimit(),
        "switch interval": sys.getswitchinterval(),
        "signal handlers": signals,
        "exception hooks": [repr(sys.excepthook), repr(threading.excepthook), repr(sys.displayhook)],
        "logging (root level, handlers, disabled)": [root.level, repr(root.handlers), logging.root.manager.disable],
        "garbage collector": [gc.isenabled(), list(gc.get_threshold())],
        "sys.path": list(sys.path),
        "working directory": os.getcwd(),
        "threads": threads(),
    }


records = {"before": state()}
for target in sys.argv[2:]:             # kernelxai first, then its lazily imported stages
    importlib.import_module(target)
    records[target] = state()
memory = importlib.import_module("kernelxai._memory")
records["primed at import"] = memory.primed()
memory.prime_allocator()                # the probe's own check: a primed process differs
records["after kx.prime_allocator()"] = state()
records["primed"] = memory.primed()
print(json.dumps(records))
'''


#: What the test imports, in this order: kernelxai, then the stages it imports on first use.
TARGETS = ["kernelxai", "kernelxai.plots", "kernelxai.widgets"]
ALLOCATOR = "allocator (which of 1 MiB..30 MiB glibc maps)"


@pytest.fixture(scope="module")
def records():
    """One fresh process: the dependencies, then each target in turn, the state recorded after each."""
    listed = subprocess.run([sys.executable, "-c", _LIST_MODULES, *TARGETS], capture_output=True, text=True,
                            check=True)
    out = subprocess.run([sys.executable, "-c", _RECORD, listed.stdout.strip(), *TARGETS],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _changes(before, after):
    """What differs, key by key (for a dict, such as the environment, only its entries that differ)."""
    changes = {}
    for key in before:
        was, now = before[key], after[key]
        if was == now:
            continue
        if isinstance(was, dict) and isinstance(now, dict):
            changes[key] = {name: {"before": was.get(name, "(unset)"), "after": now.get(name, "(unset)")}
                            for name in sorted(set(was) | set(now)) if was.get(name) != now.get(name)}
        else:
            changes[key] = {"before": was, "after": now}
    return changes


@pytest.mark.parametrize("target", TARGETS)
def test_importing_kernelxai_changes_nothing_in_the_process(records, target):
    changes = _changes(records["before"], records[target])
    assert not changes, f"importing {target} changed the process:\n" + json.dumps(
        changes, indent=1, default=str)[:4000]


def test_importing_kernelxai_does_not_prime_the_allocator(records):
    assert records["primed at import"] is False   # only when the user calls kx.prime_allocator()


@pytest.mark.skipif(not _memory.glibc(), reason="glibc's mmap threshold")
def test_the_allocator_probe_sees_priming(records):
    """The observable the tests above rely on: priming at import would be caught."""
    before, after = records["before"][ALLOCATOR], records["after kx.prime_allocator()"][ALLOCATOR]
    assert records["primed"] is True
    assert any(before[:5]), "no probe size was mapped before: the probe would see nothing"
    assert after[:5] == [False] * 5 and after != before   # up to 16 MiB now served from the heap
