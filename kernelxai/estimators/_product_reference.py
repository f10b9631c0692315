"""A high-precision reference (mpmath) for checking the double-precision product routes.

Takes a small :class:`~kernelxai.games.ProductGame`; hands on its Shapley
values computed in mpmath arithmetic (:func:`reference_shapley`), sharing
nothing with the double-precision code but the input factors. mpmath is
imported when called.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..games import ProductGame

__all__ = ["reference_shapley"]


@lru_cache(maxsize=8)
def _mp_nodes(level, dps):
    import mpmath
    from mpmath.calculus.quadrature import GaussLegendre

    with mpmath.workdps(dps):
        raw = GaussLegendre(mpmath.mp).calc_nodes(level, mpmath.mp.prec)
        return tuple(((x + 1) / 2, (1 - x) / 2, w / 2) for x, w in raw)


def reference_shapley(game: ProductGame, *, dps: int = 40, max_work: int = 5 * 10**7) -> np.ndarray:
    """Shapley values of a small :class:`ProductGame` in high precision (mpmath).

    The Beta-integral identity evaluated with mpmath arithmetic at ``dps``
    digits, Gauss-Legendre nodes from mpmath's own routine (3 * 2^(k-1) of
    them, the fewest that are exact for degree d - 1) and leave-one-out
    products from prefix and suffix products -- nothing shared with the
    double-precision code but the input factors. Pure Python: meant for
    checking, on games with few terms (cost ~ terms x d x nodes operations).

    Parameters
    ----------
    game : ProductGame
        A small product game.
    dps : int, default 40
        Decimal digits of the mpmath arithmetic.
    max_work : int, default 5 * 10**7
        Refuse games that would take more mpmath operations (terms x d x nodes).

    Returns
    -------
    values : ndarray (n_instances, d)
        Rounded to double at the end.

    Raises
    ------
    ImportError
        mpmath is not installed.
    TypeError
        ``game`` is not a :class:`~kernelxai.games.ProductGame`.
    ValueError
        The game would take more than ``max_work`` operations.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from kernelxai.estimators import product_shapley, reference_shapley
    >>> g = kx.ProductGame([[0.5, 0.8, 0.9]], [[1.0, 1.0, 1.0]], [2.0])
    >>> reference_shapley(g).round(6)
    array([[-0.856667, -0.286667, -0.136667]])
    >>> float(np.abs(reference_shapley(g) - product_shapley(g)[0]).max()) < 1e-15
    True
    """
    try:
        import mpmath
    except ImportError:  # pragma: no cover - mpmath comes with the test extra
        raise ImportError("reference_shapley needs mpmath (pip install mpmath)") from None
    if not isinstance(game, ProductGame):
        raise TypeError(f"reference_shapley needs a ProductGame; got {type(game).__name__}")
    d, n = game.n_players, game.n_instances or 1
    level = 1
    while 3 * 2 ** (level - 1) < max(1, math.ceil(d / 2)):
        level += 1
    nodes = _mp_nodes(level, int(dps))
    n_terms = sum(np.broadcast_shapes(np.shape(a), np.shape(c))[1] * max(1, len(range(
        *rows.indices(n)))) for rows, _, a, c in game.iter_terms())
    if n_terms * d * len(nodes) > max_work:
        raise ValueError(
            f"reference_shapley would take ~{n_terms * d * len(nodes):.1e} mpmath operations "
            f"(limit max_work={max_work:.0e}); use a game with fewer terms or players"
        )
    with mpmath.workdps(int(dps)):
        zero = mpmath.mpf(0)
        phi = [[zero] * d for _ in range(n)]
        for rows, w, a, c in game.iter_terms():
            shape = np.broadcast_shapes(np.shape(a), np.shape(c), np.shape(w) + (1,))
            a, c = np.broadcast_to(a, shape), np.broadcast_to(c, shape)
            w = np.broadcast_to(w, shape[:2])
            instances = range(*rows.indices(n))
            for k, inst in enumerate(instances):
                kk = k if shape[0] > 1 else 0
                for r in range(shape[1]):
                    ar = [mpmath.mpf(float(v)) for v in a[kk, r]]
                    cr = [mpmath.mpf(float(v)) for v in c[kk, r]]
                    psi = _mp_psi(mpmath, ar, cr, nodes)
                    wr = mpmath.mpf(float(w[kk, r]))
                    for j in range(d):
                        phi[inst][j] += wr * (ar[j] - cr[j]) * psi[j]
        return np.array([[float(v) for v in row] for row in phi])


def _mp_psi(mpmath, ar, cr, nodes) -> list:
    """psi_j = int_0^1 prod_{l != j} (t a_l + (1 - t) c_l) dt of one term, by the quadrature ``nodes``, in mpmath."""
    d = len(ar)
    psi = [mpmath.mpf(0)] * d
    for t, s, omega in nodes:
        F = [t * al + s * cl for al, cl in zip(ar, cr)]
        prefix = [mpmath.mpf(1)] * d
        for l in range(1, d):
            prefix[l] = prefix[l - 1] * F[l - 1]
        suffix = mpmath.mpf(1)
        for j in range(d - 1, -1, -1):
            psi[j] += omega * prefix[j] * suffix
            suffix *= F[j]
    return psi
