"""Linear algebra shared by the models and the value functions."""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["cholesky_jitter"]


def cholesky_jitter(A, what="the matrix", advice="increase the regularisation", max_tries=10) -> np.ndarray:
    """Lower Cholesky factors of a (batch of) symmetric positive-definite matrices.

    A matrix whose factorisation fails (or gives non-finite factors) gets
    jitter 1e-12 * mean(diag) * 10**k (k = 0, 1, ...) on its diagonal until it
    succeeds, with a RuntimeWarning naming ``what`` and the largest jitter;
    after ``max_tries`` a LinAlgError names ``what`` and gives ``advice``. The
    result is always finite -- never a silent NaN.
    """
    A = np.asarray(A)
    try:
        L = np.linalg.cholesky(A)
        if np.all(np.isfinite(L)):
            return L
    except np.linalg.LinAlgError:
        pass
    batch = A.reshape((-1,) + A.shape[-2:])
    out = np.empty_like(batch)
    worst = 0.0
    for k, M in enumerate(batch):
        try:
            out[k] = np.linalg.cholesky(M)
            if np.all(np.isfinite(out[k])):
                continue
        except np.linalg.LinAlgError:
            pass
        scale = float(np.mean(np.diag(M))) or 1.0
        for t in range(max_tries):
            jitter = scale * 1e-12 * 10.0**t
            try:
                out[k] = np.linalg.cholesky(M + jitter * np.eye(len(M)))
            except np.linalg.LinAlgError:
                continue
            if np.all(np.isfinite(out[k])):
                worst = max(worst, jitter)
                break
        else:
            raise np.linalg.LinAlgError(
                f"{what} is not positive definite even with jitter {jitter:.1e} on its diagonal; {advice}")
    if worst > 0:
        warnings.warn(f"{what} was numerically singular (ill-conditioned); added jitter up to "
                      f"{worst:.1e} to its diagonal", RuntimeWarning, stacklevel=3)
    return out.reshape(A.shape)
