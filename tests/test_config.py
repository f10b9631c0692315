"""Every configuration key refuses what it cannot use when it is set, never later in a call (#36).

Found: ``kx.config_context(flops_per_second=float("inf"))`` was accepted and a later call failed
with "OverflowError: cannot convert float infinity to integer".
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import kernelxai as kx

#: (key, refused values, accepted values -> what is stored)
CASES = [
    ("flops_per_second", [math.inf, -math.inf, math.nan, 0, -1e9, 0.5, 5e-324, True, "1e9", [1e9]],
     [(1e9, 1e9), (1, 1.0), (np.float32(2e5), 2e5), (Fraction(3, 1), 3.0), (None, None)]),
    ("max_cost", [math.inf, math.nan, 0, -1, False, "60"],
     [(60, 60.0), (1e-12, 1e-12), (np.float64(5.0), 5.0), (None, None)]),
    ("progress_after", [math.inf, math.nan, 0, -2.0, None, True],
     [(1e-12, 1e-12), (2, 2.0)]),
    ("max_memory", [math.inf, math.nan, 2**16 - 1, 2**62 + 1, 2.0**28, True, None, "256MB"],
     [(2**16, 2**16), (np.int64(2**28), 2**28), (2**62, 2**62)]),
    ("progress", [1, 0, "yes", None, "Auto"],
     [("auto", "auto"), (True, True), (False, False), (np.True_, True)]),
]


@pytest.mark.parametrize(("key", "refused", "accepted"), CASES, ids=[c[0] for c in CASES])
def test_each_key_refuses_what_it_cannot_use_when_set(key, refused, accepted):
    before = kx.get_config()
    for value in refused:
        for setter in (kx.set_config, lambda **kw: kx.config_context(**kw).__enter__()):
            with pytest.raises(ValueError) as error:
                setter(**{key: value})
            message = str(error.value)
            assert message.startswith(f"{key}=") and "must be" in message, message   # names the key ...
            assert kx.get_config() == before                                           # ... and changes nothing
    for value, stored in accepted:
        with kx.config_context(**{key: value}):
            got = kx.get_config()[key]
            assert got == stored and type(got) is type(stored), (value, got)
    assert kx.get_config() == before


def test_refusals_say_what_is_accepted():
    with pytest.raises(ValueError, match=r"flops_per_second=inf .* must be a finite rate of at least 1 "
                                         r"operation a second, or None"):
        kx.config_context(flops_per_second=float("inf")).__enter__()
    with pytest.raises(ValueError, match=r"max_cost=inf .* None never to refuse"):
        kx.set_config(max_cost=float("inf"))
    with pytest.raises(ValueError, match=r"progress_after=inf .* \(progress=False never shows a bar\)"):
        kx.set_config(progress_after=float("inf"))
    with pytest.raises(ValueError, match=r"max_memory=1 .* from 65536 \(64 KiB\) to 2\*\*62"):
        kx.set_config(max_memory=1)
    with pytest.raises(ValueError, match="unknown configuration key 'flops'; accepted: flops_per_second"):
        kx.set_config(flops=1e9)


def test_a_call_under_the_extreme_accepted_rates_runs():
    """The bounds keep every estimate finite: the call that overflowed now runs (or is refused by its cost)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    model = kx.models.KernelExpansion(X, rng.normal(size=30), kx.kernels.RBF(1.0))
    for rate in (1.0, 1e300):
        with kx.config_context(flops_per_second=rate, max_cost=None):
            e = kx.explain_interactions(model, X[:3], value="functional_baseline")
        assert np.isfinite(np.asarray(e.values, dtype=float)).all()
