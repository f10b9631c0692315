"""Large temporaries from reused memory: the allocator's threshold raised at import (#25)."""

import os
import platform
import subprocess
import sys

import pytest

import kernelxai as kx
from kernelxai._memory import prime_allocator

_FAULTS = """
import resource, numpy as np
import kernelxai
x = np.random.default_rng(0).random(2**19)          # 4 MiB
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    a = x * 2.0; b = a + 1.0; c = b * a              # three 4 MiB temporaries alive at once
    del a, b, c
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


def _faults_per_round(prime):
    env = dict(os.environ, KERNELXAI_PRIME_ALLOCATOR="1" if prime else "0")
    out = subprocess.run([sys.executable, "-c", _FAULTS], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                    reason="glibc's adaptive mmap threshold")
def test_importing_kernelxai_lets_large_temporaries_reuse_memory():
    primed, unprimed = _faults_per_round(True), _faults_per_round(False)
    # unprimed: every 4 MiB temporary is mapped afresh (~1,000 faults each, fewer with huge pages)
    assert primed * 5 < unprimed and unprimed > 500, (primed, unprimed)


def test_priming_is_done_once_and_can_be_switched_off(monkeypatch):
    assert prime_allocator() is False                       # done when kernelxai was imported
    import kernelxai._memory as memory
    monkeypatch.setattr(memory, "_primed", False)
    monkeypatch.setenv("KERNELXAI_PRIME_ALLOCATOR", "0")
    assert memory.prime_allocator() is False
    monkeypatch.setenv("KERNELXAI_PRIME_ALLOCATOR", "1")
    assert memory.prime_allocator() is True and memory.prime_allocator() is False
    assert kx.calibrate()["touch_seconds"] > 0
