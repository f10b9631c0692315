"""Background samples: smaller stand-ins for a large reference sample, with what they cost.

The interventional, observational and model-call value functions average over
a background sample, at a cost proportional to its size (and for the
observational game, its cube). A large sample can be replaced by

* :func:`subsample` -- n rows drawn uniformly without replacement;
* :func:`summarize` -- n points chosen to represent the whole sample: k-means
  centres (``method="kmeans"``) or kernel herding (``method="herding"``,
  greedy minimisation of the MMD to the sample). The summary reports the
  maximum mean discrepancy (MMD) between itself and the full sample, so the
  reader knows how far the smaller background is from the one it replaces.

The value functions take unweighted backgrounds: pass ``summary.points``.
``summary.mmd`` is the MMD of exactly that unweighted background;
``summary.weighted_mmd`` that of the points with their ``weights`` (the k-means
cluster sizes), which a weighted background would achieve.

Examples
--------
>>> import numpy as np, kernelxai as kx
>>> X = np.random.default_rng(0).normal(size=(500, 3))
>>> s = kx.background.summarize(X, 20, method="herding", seed=0)
>>> s.points.shape, bool(s.mmd < kx.background.mmd(kx.background.subsample(X, 20, seed=0), X))
((20, 3), True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._config import working_elements
from ._validation import check_choice, check_matrix, check_positive_int, check_rng
from .kernels import RBF, Kernel
from .models import _resolve_kernel

__all__ = ["subsample", "summarize", "mmd", "BackgroundSummary"]


def _check_sample(X, name="X", min_rows=1):
    return check_matrix(X, name, min_rows=min_rows)


def _check_size(n, N, name="n"):
    n = check_positive_int(n, name)
    if n > N:
        raise ValueError(f"{name} must be at most the number of rows of X ({N}); got {n}")
    return n


def _like(X, arr, rows=None):
    """``arr`` as a DataFrame with X's columns when X is one (index of ``rows`` if given)."""
    columns = getattr(X, "columns", None)
    if columns is None:
        return arr
    import pandas as pd

    index = X.index[rows] if rows is not None else None
    return pd.DataFrame(arr, columns=columns, index=index)



def _row_step(n_cols, max_elements):
    budget = working_elements(4) if max_elements is None else check_positive_int(max_elements,
                                                                                   "max_elements")
    return max(1, budget // max(1, n_cols))


def _gram(kernel, A, B):
    """K(A, B); for RBF by its one-matrix-product route (relative error ~1e-14, ~10x faster)."""
    if isinstance(kernel, RBF):
        return kernel.coalition_gram(A, B)
    return kernel.gram(A, B)


def _mean_embedding(kernel, A, X, max_elements=None):
    """(1/N) sum_j k(a, x_j) for every row a of A, in row blocks (no len(A) x N matrix)."""
    out = np.empty(len(A))
    step = _row_step(len(X), max_elements)
    for start in range(0, len(A), step):
        out[start:start + step] = _gram(kernel, A[start:start + step], X).mean(axis=1)
    return out


def mmd(sample, reference, weights=None, kernel=None, *, max_elements=None):
    """The maximum mean discrepancy between a (weighted) sample and a reference sample.

    MMD^2 = w'K(S, S)w - 2 w'K(S, R)1/N + 1'K(R, R)1/N^2 for the sample S with
    weights w (default uniform) and the reference R of N rows (uniform): the
    RKHS distance between the two kernel mean embeddings (a V-statistic, so it
    is 0 for a sample against itself). The Gram matrices are formed in row
    blocks of at most ``max_elements`` numbers: nothing of size N x N.

    Parameters
    ----------
    sample : array (m, d) or DataFrame
    reference : array (N, d) or DataFrame
    weights : array (m,), optional
        Non-negative, summing to 1. Default 1/m each.
    kernel : kernelxai Kernel, optional
        Default: a product RBF kernel with median-heuristic lengthscales of
        ``reference`` (:func:`kernelxai.kernels.median_heuristic`).
    max_elements : int, optional
        float64 numbers one block may hold; default a quarter of
        ``kx.config_context(max_memory=...)``.

    Returns
    -------
    float
        MMD (not squared), >= 0.
    """
    R = _check_sample(reference, "reference", min_rows=2 if kernel is None else 1)
    S = check_matrix(sample, "sample", n_features=R.shape[1])
    w = _check_weights(weights, len(S))
    kernel = _resolve_kernel(kernel, R)
    return _mmd(kernel, S, w, R, _mean_embedding(kernel, S, R, max_elements),
                _self_term(kernel, R, max_elements), max_elements)


def _check_weights(weights, m):
    if weights is None:
        return np.full(m, 1.0 / m)
    w = np.asarray(weights, dtype=float).ravel()
    if w.shape != (m,) or not np.all(np.isfinite(w)) or np.any(w < 0) or not np.isclose(w.sum(), 1.0):
        raise ValueError(f"weights must be {m} non-negative numbers summing to 1; got shape {w.shape}"
                         f"{'' if w.shape != (m,) else f' summing to {w.sum():.6g}'}")
    return w


def _self_term(kernel, R, max_elements=None):
    """1'K(R, R)1 / N^2 in row blocks."""
    return float(_mean_embedding(kernel, R, R, max_elements).mean())


def _mmd(kernel, S, w, R, mu_S, rr, max_elements=None):
    """MMD from the sample's mean-embedding values mu_S and the reference self-term rr."""
    ss = 0.0
    step = _row_step(len(S), max_elements)
    for start in range(0, len(S), step):
        ss += float(w[start:start + step] @ (_gram(kernel, S[start:start + step], S) @ w))
    sq = ss - 2.0 * float(w @ mu_S) + rr
    return float(np.sqrt(max(sq, 0.0)))


def subsample(X, n, seed=None):
    """n rows of X drawn uniformly at random without replacement.

    Parameters
    ----------
    X : array (N, d) or DataFrame
    n : int, 1 <= n <= N
    seed : None, int or numpy Generator

    Returns
    -------
    ndarray (n, d), or a DataFrame with X's columns (and the rows' index)
        The rows in their original order.
    """
    arr = _check_sample(X)
    n = _check_size(n, len(arr))
    rows = np.sort(check_rng(seed).choice(len(arr), n, replace=False))
    if getattr(X, "columns", None) is not None:
        return X.iloc[rows]
    return arr[rows]


@dataclass
class BackgroundSummary:
    """A small background standing in for a large sample (from :func:`summarize`).

    Attributes
    ----------
    points : ndarray (n, d) or DataFrame
        The summary; pass it as ``background=`` (value functions weight its
        rows equally). A DataFrame keeps the sample's columns.
    weights : ndarray (n,)
        Share of the sample each point stands for: cluster sizes / N for
        k-means, 1/n for herding.
    mmd : float
        MMD between the points, weighted equally (as value functions use
        them), and the full sample.
    weighted_mmd : float
        MMD between the points with ``weights`` and the full sample.
    method : str
    kernel : Kernel
        The kernel the MMDs (and herding) use.
    n_sample : int
        Rows of the full sample.
    meta : dict
        For herding, ``rows``: the positions in X of the chosen rows, in the
        order they were chosen.
    """

    points: object
    weights: np.ndarray
    mmd: float
    weighted_mmd: float
    method: str
    kernel: Kernel
    n_sample: int
    meta: dict = field(default_factory=dict)

    def __len__(self):
        return len(self.weights)

    def __repr__(self):
        return (f"BackgroundSummary({self.method}, {len(self)} of {self.n_sample} rows, "
                f"mmd={self.mmd:.4g}, weighted_mmd={self.weighted_mmd:.4g})")


def summarize(X, n, method="kmeans", kernel=None, seed=None, *, max_elements=None):
    """n points that represent the sample X, and the MMD they cost.

    Parameters
    ----------
    X : array (N, d) or DataFrame
        The full background sample (e.g. the training inputs).
    n : int, 1 <= n <= N
        Size of the summary.
    method : {"kmeans", "herding"}
        ``"kmeans"``: the centres of scikit-learn's k-means with n clusters
        (points that need not be rows of X; a binary feature's centre value is
        a fraction), weighted by cluster size. ``"herding"``: kernel herding --
        n distinct rows of X chosen greedily, each the candidate that most
        reduces the MMD between the rows chosen so far and X, i.e. maximising
        mu(x) - (1/(t+1)) sum_s k(x, x_s) with mu the sample's mean embedding
        (vectorised over all N candidates); weights 1/n.
    kernel : kernelxai Kernel, optional
        The kernel of the MMD (and of herding). Default: product RBF with
        median-heuristic lengthscales (:func:`kernelxai.kernels.median_heuristic`).
    seed : None, int or numpy Generator
        Randomness of k-means' initialisation (herding is deterministic).
    max_elements : int, optional
        float64 numbers one block of kernel values may hold; nothing of size
        N x N is formed. Herding and the MMD cost O(N^2 d) time.

    Returns
    -------
    BackgroundSummary
        ``points`` is what value functions use, as an unweighted background;
        its ``mmd`` is reported for exactly that use (``weighted_mmd`` for the
        points with their weights).
    """
    arr = _check_sample(X, min_rows=2)
    N = len(arr)
    n = _check_size(n, N)
    method = check_choice(method, "method", ("kmeans", "herding"))
    rng = check_rng(seed)
    kernel = _resolve_kernel(kernel, arr)
    rr = _self_term(kernel, arr, max_elements)
    rows = None
    if method == "herding":
        rows, mu_P = _herd(kernel, arr, n, max_elements)
        P, weights = arr[rows], np.full(n, 1.0 / n)
    else:
        P, weights = _kmeans(arr, n, rng)
        mu_P = _mean_embedding(kernel, P, arr, max_elements)
    uniform = np.full(n, 1.0 / n)
    unweighted = _mmd(kernel, P, uniform, arr, mu_P, rr, max_elements)
    weighted = unweighted if method == "herding" else _mmd(kernel, P, weights, arr, mu_P, rr,
                                                           max_elements)
    return BackgroundSummary(_like(X, P, rows), weights, unweighted, weighted, method, kernel, N,
                             meta={} if rows is None else {"rows": rows})


def _herd(kernel, X, n, max_elements=None):
    """Kernel herding over the rows of X: (chosen rows in order, mean-embedding values at them)."""
    N = len(X)
    mu = _mean_embedding(kernel, X, X, max_elements)    # (N,), in row blocks
    running = np.zeros(N)                                # sum over chosen s of k(x_c, x_s)
    chosen = np.empty(n, dtype=np.intp)
    free = np.ones(N, dtype=bool)
    for t in range(n):
        score = np.where(free, mu - running / (t + 1), -np.inf)
        c = int(np.argmax(score))
        chosen[t], free[c] = c, False
        running += _gram(kernel, X, X[c:c + 1])[:, 0]
    return chosen, mu[chosen]


def _kmeans(X, n, rng):
    """k-means centres and cluster shares (scikit-learn, seeded from ``rng``)."""
    from sklearn.cluster import KMeans

    km = KMeans(n_clusters=n, n_init=3, random_state=int(rng.integers(2**31 - 1))).fit(X)
    labels = km.labels_
    counts = np.bincount(labels, minlength=n).astype(float)
    # the means of the final clusters (scikit-learn's centres can lag the last assignment),
    # so that the weighted summary has exactly the sample's mean
    centres = np.asarray(km.cluster_centers_, dtype=float).copy()
    filled = counts > 0
    sums = np.zeros_like(centres)
    np.add.at(sums, labels, X)
    centres[filled] = sums[filled] / counts[filled, None]
    return centres, counts / counts.sum()
