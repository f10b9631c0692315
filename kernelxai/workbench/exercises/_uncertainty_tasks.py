"""Checks of the exercise notebook 07 (how sure an explanation is: a t-interval from per-sample
estimates, attributions with standard errors from single-reference games).

Takes nothing; registers its tasks with ``_grading.register`` when imported.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ...estimators import t_interval
from ...uncertainty import single_reference
from ._grading import Fail, answer_array, call_answer, fmt, register, type_name

# =========================================================================== #
# 07 how sure an explanation is
# =========================================================================== #
_NB7 = "07-how-sure"


@register("t-interval", "a t-interval from i.i.d. per-sample estimates",
          "t_interval(samples, level) -> (lower, upper)", _NB7)
def _check_t_interval(fn, rng):
    for k, d, level in ((4, 3, 0.95), (int(rng.integers(5, 30)), 5, float(rng.choice([0.8, 0.9, 0.99])))):
        samples = rng.normal(size=(k, d)) * rng.uniform(0.5, 3, size=d) + rng.normal(size=d)
        context = f"{k} samples of {d} values, level={level}"
        out = call_answer(fn, (samples.copy(), level), context)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise Fail(f"return a pair (lower, upper); got {type_name(out)} ({context})")
        lo = answer_array(out[0], (d,), "one lower end per column", context)
        hi = answer_array(out[1], (d,), "one upper end per column", context)
        mean, se, t_lo, t_hi = t_interval(samples, level)
        if np.allclose(lo, t_lo, atol=1e-9) and np.allclose(hi, t_hi, atol=1e-9):
            continue
        if not np.allclose((lo + hi) / 2, mean, atol=1e-9):
            raise Fail(f"the interval is centred on the sample mean of each column ({context})")
        half = (hi - lo) / 2
        t = stats.t.ppf(0.5 + level / 2, k - 1)
        z = stats.norm.ppf(0.5 + level / 2)
        sd0 = samples.std(axis=0, ddof=0) / np.sqrt(k)
        if np.allclose(half, z * se, atol=1e-9):
            raise Fail(f"you used the normal quantile; with {k} samples use Student's t with "
                       f"{k - 1} degrees of freedom ({context})")
        if np.allclose(half, t * sd0, atol=1e-9):
            raise Fail(f"the standard deviation needs ddof=1 (the sample standard deviation) ({context})")
        if np.allclose(half, t * se * np.sqrt(k), atol=1e-9):
            raise Fail(f"the half-width is t times the standard *error* sd / sqrt(K) ({context})")
        raise Fail(f"the half-width should be t_(K-1) * sd / sqrt(K) at the requested level ({context})")
    return "equal to kernelxai's t-interval (kx.estimators._shapley.t_interval) on 2 random samples"


@register("single-reference", "attributions with standard errors from single-reference games",
          "single_reference_values(predict, x, references) -> (values, stderr)", _NB7)
def _check_single_reference(fn, rng):
    d = 3
    w = rng.normal(size=d)

    def predict(A):
        A = np.asarray(A, dtype=float)
        return A @ w + A[:, 1] * A[:, 2] - 0.5 * np.sin(A[:, 0])

    for K in (5, int(rng.integers(6, 20))):
        refs = rng.normal(size=(K, d))
        x = rng.normal(size=d)
        context = f"x, {K} random references and f(x) = w.x + x1 x2 - sin(x0)/2"
        out = call_answer(fn, (predict, x.copy(), refs.copy()), context)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise Fail(f"return a pair (values, stderr); got {type_name(out)} ({context})")
        vals = answer_array(out[0], (d,), "one value per feature", context)
        se = answer_array(out[1], (d,), "one standard error per feature", context)
        e = single_reference(predict, x, refs, method="exact")
        truth, truth_se = np.ravel(e.values), np.ravel(e.stderr)
        ok_v = np.allclose(vals, truth, atol=1e-9)
        ok_s = np.allclose(se, truth_se, atol=1e-9)
        if ok_v and ok_s:
            continue
        if not ok_v:
            total = float(predict(x[None])[0] - predict(refs).mean())
            if abs(vals.sum() - total) > 1e-8:
                raise Fail(f"the mean values must add up to f(x) - mean_k f(r_k) = {fmt(total)}; yours "
                           f"add up to {fmt(vals.sum())} ({context})")
            raise Fail(f"the values are the mean over the references of the Shapley values of "
                       f"v_k(S) = f(x_S, r_k,(not S)) - f(r_k) ({context})")
        if np.allclose(se, truth_se * np.sqrt(K), atol=1e-9):
            raise Fail(f"that is the standard deviation; the standard error divides it by sqrt(K) ({context})")
        raise Fail(f"the values are right, the standard errors are not: sd over the K references "
                   f"(ddof=1) / sqrt(K) ({context})")
    return "equal to kx.uncertainty.single_reference on 2 random sets of references"
