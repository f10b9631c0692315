"""Large temporary arrays without a page fault per 4 KiB: glibc's threshold raised, when the user asks.

glibc's ``malloc`` maps every request above its threshold (128 KiB at start) afresh from the
operating system and unmaps it when freed, so each such NumPy temporary pays a page fault per
4 KiB page when first written: ~3 us a page on a virtual machine, ~5 ns a number against ~0.4 ns
for an operation on it. The allocator raises its threshold by itself, to the size of the
largest mapped block freed so far (up to 32 MiB, keeping freed memory up to twice that size),
and from then on serves smaller arrays from memory it keeps and reuses. A process that has not
yet freed a large array pays the faults on every call: the HSIC permutation test of
``benchmarks/bench_cost_model.py`` took 370 ms a call in such a process and 104 ms after one
24 MiB array had been freed (120,000 page faults a call against 200, #25).

:func:`prime_allocator` (``kx.prime_allocator()``) frees one such block -- what any NumPy
program does the first time it frees a large array, done early. It changes the allocator of
the whole process (a Jupyter kernel, a Dask worker, a web server), so kernelxai never calls it
by itself: importing kernelxai changes nothing in the process, and priming is the user's
choice, made once per process. Memory stays with the process only as glibc would keep it
anyway (freed blocks up to 48 MiB at the top of its heap). Other C libraries (musl, macOS,
Windows) have no such threshold to raise; there it does nothing.

The cost estimates price memory by what is true at the time (:func:`reused`, used by
``kernelxai._calibration.fresh_numbers``): glibc is asked, without changing its state, whether
an array of a given size would now come from memory it keeps -- after ``kx.prime_allocator()``,
or after the process (kernelxai, NumPy, the user's code) freed a large array -- or be mapped
afresh. Other allocators are taken to map every array above :data:`DEFAULT_THRESHOLD` afresh.
"""

from __future__ import annotations

import ctypes
import os
import threading

__all__ = ["DEFAULT_THRESHOLD", "PRIMED_BYTES", "glibc", "prime_allocator", "primed", "reused"]

#: The block freed: under glibc's 32 MiB ceiling for its adaptive threshold, so the threshold
#: becomes this size (and the heap's trim threshold twice that).
PRIMED_BYTES = 24 * 2**20

#: glibc's threshold before the process has freed a mapped block (M_MMAP_THRESHOLD's default):
#: arrays above it are taken to come fresh from the operating system in a process not primed.
DEFAULT_THRESHOLD = 128 * 2**10

_lock = threading.Lock()
_state = {"primed": False, "reused_up_to": DEFAULT_THRESHOLD}


def glibc() -> bool:
    """Whether this process's C library is glibc (the allocator :func:`prime_allocator` tunes).

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(glibc(), bool)
    True
    """
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):   # not a POSIX system, or no such name here
        return False
    return bool(version) and version.startswith("glibc")


class _MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (2.33 and later): counts of the allocator, in size_t."""

    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
        "keepcost")]


class _MallInfo(ctypes.Structure):
    """glibc's older ``struct mallinfo`` (int fields): enough for the count of mapped blocks."""

    _fields_ = [(name, ctypes.c_int) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
        "keepcost")]


def _libc() -> tuple:
    """(malloc, free, mapped_blocks, realloc, mapped_bytes) of glibc through ctypes."""
    libc = ctypes.CDLL(None)
    malloc, free, realloc = libc.malloc, libc.free, libc.realloc
    malloc.restype, malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    free.restype, free.argtypes = None, [ctypes.c_void_p]
    realloc.restype, realloc.argtypes = ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_size_t]
    info = getattr(libc, "mallinfo2", None)
    info_type = _MallInfo2
    if info is None:   # glibc < 2.33
        info, info_type = libc.mallinfo, _MallInfo
    info.restype, info.argtypes = info_type, []

    def mapped_blocks() -> int:
        return int(info().hblks)

    def mapped_bytes() -> int:
        return int(info().hblkhd)

    return malloc, free, mapped_blocks, realloc, mapped_bytes


def prime_allocator() -> bool:
    """Let glibc serve arrays up to 24 MiB from memory it keeps, for the rest of this process.

    Allocates and frees one 24 MiB block (its pages never written). glibc then raises its mmap
    threshold to that size (and its trim threshold to twice that): NumPy temporaries up to 24 MiB
    come from memory the allocator reuses instead of fresh pages from the operating system, which
    cost a page fault per 4 KiB the first time they are written (on a virtual machine a large
    share of a call on arrays of a few MiB: 370 ms against 104 ms a call for the HSIC permutation
    test, see ``kernelxai._memory``). This is what any NumPy program does the first time it
    frees a large array, done early.

    It changes the allocator of the whole process, so kernelxai never does it by itself
    (importing kernelxai changes nothing): call it once, at the start of a program or notebook
    that explains repeatedly on arrays of a few MiB. Memory stays with the process only as glibc
    would keep it anyway (freed blocks up to 48 MiB at the top of its heap). With another C
    library (musl, macOS, Windows) it does nothing. The cost estimates take it into account
    (arrays up to 24 MiB are then priced without page faults).

    Returns
    -------
    bool
        True when the allocator was primed now; False when it had been primed before in this
        process, when the C library is not glibc, or when glibc's threshold could not be raised
        (it is fixed when ``MALLOC_MMAP_THRESHOLD_`` or ``mallopt`` set it).

    Examples
    --------
    >>> import kernelxai as kx
    >>> first = kx.prime_allocator()     # True under glibc, the first time in a process
    >>> kx.prime_allocator()             # done once per process
    False
    """
    with _lock:
        if _state["primed"] or not glibc():
            return False
        malloc, free, mapped_blocks, _, _ = _libc()
        before = mapped_blocks()
        block = malloc(PRIMED_BYTES)
        if not block:   # no memory: nothing done
            return False
        free(block)   # unmapped when it was mapped: the threshold is now its size
        # the same size again comes from the heap when the threshold rose (glibc's dynamic
        # threshold is off when the environment or mallopt fixed it)
        probe = malloc(PRIMED_BYTES)
        if not probe:
            return False
        reused = mapped_blocks() == before
        free(probe)
        _state["primed"] = reused
        if reused:
            _state["reused_up_to"] = max(_state["reused_up_to"], PRIMED_BYTES)
        return reused


def primed() -> bool:
    """Whether :func:`prime_allocator` raised glibc's threshold in this process.

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(primed(), bool)
    True
    """
    return _state["primed"]


def reused(nbytes: float) -> bool:
    """Whether an array of ``nbytes`` would now come from memory the allocator keeps (no page faults).

    Under glibc the allocator is asked, without changing its state: one block of that size is
    allocated (its pages never written); when glibc maps it afresh, the block is shrunk to one
    page in place (``realloc``) before it is freed, so that freeing it does not raise glibc's
    threshold as freeing a large mapped block would. The answer holds for the rest of the
    process once it is yes (glibc's threshold only rises), so sizes up to the largest answered
    yes are not asked again. Under another C library, arrays above :data:`DEFAULT_THRESHOLD`
    are taken to be mapped afresh.

    Parameters
    ----------
    nbytes : float
        Size of the array in bytes.

    Returns
    -------
    bool

    Examples
    --------
    >>> reused(1024)                     # small arrays come from the heap
    True
    >>> reused(2**40)                    # 1 TiB: mapped afresh (when it can be had at all)
    False
    """
    nbytes = float(nbytes)
    if nbytes <= _state["reused_up_to"]:
        return True
    if not glibc() or nbytes > 2**40:
        return False
    with _lock:
        malloc, free, mapped_blocks, realloc, mapped_bytes = _libc()
        before = mapped_blocks()
        block = malloc(int(nbytes))
        if not block:
            return False
        if mapped_blocks() == before:   # from the heap: glibc's threshold is above this size
            free(block)
            _state["reused_up_to"] = nbytes
            return True
        held = mapped_bytes()
        small = realloc(block, 1)       # the mapping shrunk to one page, still mapped
        if small and mapped_bytes() < held:
            free(small)                 # a one-page block: below the threshold, which stays
        else:                           # could not shrink: freed as it is (what any large free does)
            free(small or block)
        return False
