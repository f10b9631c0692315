"""Large temporary arrays without a page fault per 4 KiB: the allocator's threshold raised once.

glibc's ``malloc`` maps every request above its threshold (128 KiB at start) afresh from the
operating system and unmaps it when freed, so each such NumPy temporary pays a page fault per
4 KiB page when first written: ~3 us a page on a virtual machine, ~5 ns a number against ~0.4 ns
for an operation on it. The allocator raises its threshold by itself, to the size of the
largest mapped block freed so far (up to 32 MiB, keeping freed memory up to twice that size),
and from then on serves smaller arrays from memory it keeps and reuses. A process that has not
yet freed a large array pays the faults on every call: the HSIC permutation test of
``benchmarks/bench_cost_model.py`` took 370 ms a call in such a process and 104 ms after one
24 MiB array had been freed (120,000 page faults a call against 200, #25).

:func:`prime_allocator` frees one such array when kernelxai is imported -- what any NumPy
program does the first time it frees a large array, done early. Memory stays with the process
only as glibc would keep it anyway (freed blocks up to 48 MiB at the top of its heap). Set the
environment variable ``KERNELXAI_PRIME_ALLOCATOR=0`` to skip it; on other allocators (macOS,
Windows, musl) it is one allocation and its release, nothing more.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["PRIMED_BYTES", "prime_allocator"]

#: The block freed: under glibc's 32 MiB ceiling for its adaptive threshold, so the threshold
#: becomes this size (and the heap's trim threshold twice that).
PRIMED_BYTES = 24 * 2**20

_primed = False


def prime_allocator() -> bool:
    """Free one 24 MiB array (never written) so that glibc serves smaller arrays from reused memory.

    Returns
    -------
    bool
        True when it was done now; False when already done in this process or switched off by
        ``KERNELXAI_PRIME_ALLOCATOR=0``.

    Examples
    --------
    >>> prime_allocator()          # done when kernelxai was imported
    False
    """
    global _primed
    if _primed or os.environ.get("KERNELXAI_PRIME_ALLOCATOR", "1").strip().lower() in ("0", "false", "no"):
        return False
    block = np.empty(PRIMED_BYTES // 8)   # mapped by the allocator, its pages never touched
    del block                             # unmapped: the allocator's threshold is now its size
    _primed = True
    return True
