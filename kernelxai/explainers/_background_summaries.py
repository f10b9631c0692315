"""Background summaries and MMDs: smaller stand-ins for a large reference sample, with what they cost.

The implementation of :func:`subsample`, :func:`summarize` and :func:`mmd`, which
``kernelxai.explainers`` presents (what each is for, how the reductions run in blocks and
parts, and which summary to pass to the value functions are described there); the bound on how
far a summary can move the values is ``kernelxai.explainers._background_bound``. Takes a sample
(array or DataFrame) and hands on the smaller background, with DataFrame columns kept.

Example: a herding summary
--------------------------
>>> import numpy as np, kernelxai as kx
>>> X = np.random.default_rng(0).normal(size=(500, 3))
>>> s = kx.explainers.summarize(X, 20, method="herding", seed=0)
>>> s.points.shape, bool(s.mmd < kx.explainers.mmd(kx.explainers.subsample(X, 20, seed=0), X))
((20, 3), True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .._config import working_elements
from .._params import Anything, Checked, Data, Integer, OneOf, Seed, parameters
from .._validation import check_columns, check_matrix, check_positive_int, check_rng
from ..estimators._registry import check_cost
from ..kernels import RBF, Kernel
from ..models._estimation import resolve_kernel
from ..parallel import reduce_rows
from ..parallel._chunking import check_n_jobs
from ..parallel._reductions import reduction_jobs

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike

__all__ = ["subsample", "summarize", "mmd", "BackgroundSummary", "mean_embedding"]


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


#: operations per kernel value of a product RBF-type kernel over d features (cost guards)
def _pair_flops(d):
    return 3.0 * d + 10.0


class _RowSums:
    """What every part of a mean-embedding reduction needs (the reduced rows travel with the part)."""

    def __init__(self, kernel, A, budget):
        self.kernel, self.A, self.budget = kernel, A, budget


def _kernel_row_sums(job, X):
    """sum_j k(a, x_j) over the rows of X, for every row a of job.A, in blocks of both."""
    A, budget = job.A, job.budget
    cols = max(1, min(len(X), budget))
    rows = max(1, budget // cols)
    out = np.zeros(len(A))
    for c0 in range(0, len(X), cols):
        Xc = X[c0:c0 + cols]
        for r0 in range(0, len(A), rows):
            out[r0:r0 + rows] += _gram(job.kernel, A[r0:r0 + rows], Xc).sum(axis=1)
    return out


def mean_embedding(kernel: Kernel, A: np.ndarray, X: np.ndarray, max_elements: int | None = None,
                   progress: bool = False) -> np.ndarray:
    r""":math:`\frac{1}{N} \sum_j k(a, x_j)` for every row :math:`a` of A: a reduction over X in blocks of
    rows of A and of X.

    No block holds more than about ``max_elements`` kernel values (at least one
    row of A by one row of X), so nothing of size len(A) x N is formed however
    large N is. The rows of X are reduced in parts (:func:`kernelxai.parallel.reduce_rows`),
    on the workers of an enclosing ``n_jobs`` or a Dask cluster, with the same
    result wherever the parts run.

    Parameters
    ----------
    kernel : kernelxai Kernel
        The kernel k.
    A : ndarray (a, d)
        Points at which the embedding is evaluated.
    X : ndarray (N, d)
        The sample whose mean embedding it is.
    max_elements : int, optional
        Kernel values one block may hold; default a quarter of
        ``kx.config_context(max_memory=...)``.
    progress : bool, default False
        Show a progress bar over the parts of the reduction.

    Returns
    -------
    ndarray (a,)
        :math:`\mu_X(a) = \frac{1}{N} \sum_j k(a, x_j)` for each row :math:`a` of A.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> mu = kx.explainers.mean_embedding(kx.kernels.RBF(1.0), X[:2], X)
    >>> mu.shape, np.round(mu, 4)
    ((2,), array([0.311 , 0.3137]))
    """
    budget = working_elements(4) if max_elements is None else check_positive_int(max_elements,
                                                                                   "max_elements")
    job = _RowSums(kernel, A, budget)
    total = reduce_rows(_kernel_row_sums, X, shared=job, row_flops=len(A) * _pair_flops(X.shape[1]),
                        progress=progress, desc="mean embedding")
    return total / len(X)


def _check_mmd_cost(N, n, d, what, herding=False):
    """The cost guard of an MMD against N reference rows (its self-term has N^2 kernel values)."""
    pairs = float(N) * N + 2.0 * N * n + float(n) * n + (float(n) * N if herding else 0.0)
    return check_cost(pairs * _pair_flops(d), what,
                      [f"a smaller reference sample (kx.explainers.subsample(X, ...) of the {N} rows: "
                       "an estimate of the MMD rather than the MMD itself)",
                       "more workers: n_jobs=-1, or a Dask cluster (joblib.parallel_config("
                       "backend='dask')) and kx.config_context(max_cost=None)"])


#: what the background helpers declare besides their samples
_MAX_ELEMENTS, _N_JOBS = Integer(1, none=True), Checked(check_n_jobs)


@parameters("kx.explainers.mmd", sample=Data(), reference=Data(), weights=Data(none=True), kernel=Anything(),
            max_elements=_MAX_ELEMENTS, n_jobs=_N_JOBS)
def mmd(sample: ArrayLike, reference: ArrayLike, weights: ArrayLike | None = None, kernel: Kernel | None = None, *,
        max_elements: int | None = None, n_jobs: int | None = None) -> float:
    r"""The maximum mean discrepancy between a (weighted) sample and a reference sample.

    .. math::
        \mathrm{MMD}^2 = w^\top K(S, S)\, w - \frac{2}{N}\, w^\top K(S, R)\, \mathbf{1}
                         + \frac{1}{N^2}\, \mathbf{1}^\top K(R, R)\, \mathbf{1}

    for the sample :math:`S` with
    weights :math:`w` (default uniform) and the reference :math:`R` of :math:`N` rows (uniform): the
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
    n_jobs : int, optional
        Workers for the reductions over the reference's rows (as in scikit-learn; inside
        ``joblib.parallel_config(backend="dask")`` they run on the cluster). The result
        does not depend on it.

    Returns
    -------
    float
        MMD (not squared), >= 0.

    Notes
    -----
    The reference's self-term costs N^2 kernel values: above
    ``kx.config_context(max_cost=...)`` the call refuses before starting, and says
    what would make it affordable; long runs show a progress bar.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> round(kx.explainers.mmd(X, X), 6)             # a sample against itself
    0.0
    >>> near, far = kx.explainers.mmd(X[:10], X), kx.explainers.mmd(X[:10] + 1.0, X)
    >>> round(near, 4), round(far, 4)                 # a shifted sample is farther away
    (0.2776, 0.4976)
    """
    R = _check_sample(reference, "reference", min_rows=2 if kernel is None else 1)
    # a DataFrame sample must have the reference's columns, in order (as kx.explain refuses)
    check_columns(sample, "sample", sample=reference, sample_name="the reference")
    S = check_matrix(sample, "sample", n_features=R.shape[1])
    w = _check_weights(weights, len(S))
    show = _check_mmd_cost(len(R), len(S), R.shape[1],
                           f"the MMD against a reference of {len(R)} rows")
    kernel = resolve_kernel(kernel, R)
    with reduction_jobs(n_jobs):
        return _mmd(kernel, S, w, R, mean_embedding(kernel, S, R, max_elements),
                    _self_term(kernel, R, max_elements, progress=show), max_elements)


def _check_weights(weights, m):
    if weights is None:
        return np.full(m, 1.0 / m)
    w = np.asarray(weights, dtype=float).ravel()
    if w.shape != (m,) or not np.all(np.isfinite(w)) or np.any(w < 0) or not np.isclose(w.sum(), 1.0):
        raise ValueError(f"weights must be {m} non-negative numbers summing to 1; got shape {w.shape}"
                         f"{'' if w.shape != (m,) else f' summing to {w.sum():.6g}'}")
    return w


def _self_term(kernel, R, max_elements=None, progress=False):
    """1'K(R, R)1 / N^2 in row blocks."""
    return float(mean_embedding(kernel, R, R, max_elements, progress=progress).mean())


def _mmd(kernel, S, w, R, mu_S, rr, max_elements=None):
    """MMD from the sample's mean-embedding values mu_S and the reference self-term rr."""
    ss = 0.0
    step = _row_step(len(S), max_elements)
    for start in range(0, len(S), step):
        ss += float(w[start:start + step] @ (_gram(kernel, S[start:start + step], S) @ w))
    sq = ss - 2.0 * float(w @ mu_S) + rr
    return float(np.sqrt(max(sq, 0.0)))


@parameters("kx.explainers.subsample", X=Data(), n=Integer(1), seed=Seed())
def subsample(X: ArrayLike, n: int, seed: int | np.random.Generator | None = None) -> np.ndarray | pd.DataFrame:
    """n rows of X drawn uniformly at random without replacement.

    Parameters
    ----------
    X : array (N, d) or DataFrame
    n : int, 1 <= n <= N
    seed : None, int or numpy Generator
        ``random_state=``, scikit-learn's name, is accepted too.

    Returns
    -------
    ndarray (n, d), or a DataFrame with X's columns (and the rows' index)
        The rows in their original order.

    Examples
    --------
    >>> import numpy as np, pandas as pd, kernelxai as kx
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> kx.explainers.subsample(X, 5, seed=0).shape
    (5, 3)
    >>> df = pd.DataFrame(X[:10], columns=["a", "b", "c"])
    >>> kx.explainers.subsample(df, 3, seed=0).index.tolist()   # rows keep their index
    [5, 6, 9]
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

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> s = kx.explainers.summarize(X, 10, method="herding")
    >>> s
    BackgroundSummary(herding, 10 of 200 rows, mmd=0.1244, weighted_mmd=0.1244)
    >>> len(s), s.points.shape, s.meta["rows"][:3].tolist()
    (10, (10, 3), [37, 171, 35])
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


@parameters("kx.explainers.summarize", X=Data(), n=Integer(1), method=OneOf("kmeans", "herding"), kernel=Anything(),
            seed=Seed(), max_elements=_MAX_ELEMENTS, n_jobs=_N_JOBS)
def summarize(X: ArrayLike, n: int, method: str = "kmeans", kernel: Kernel | None = None,
              seed: int | np.random.Generator | None = None, *, max_elements: int | None = None,
              n_jobs: int | None = None) -> BackgroundSummary:
    r"""n points that represent the sample X, and the MMD they cost.

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
        :math:`\mu(x) - \frac{1}{t+1} \sum_s k(x, x_s)` with :math:`\mu` the sample's mean embedding
        (vectorised over all N candidates); weights 1/n.
    kernel : kernelxai Kernel, optional
        The kernel of the MMD (and of herding). Default: product RBF with
        median-heuristic lengthscales (:func:`kernelxai.kernels.median_heuristic`).
    seed : None, int or numpy Generator
        Randomness of k-means' initialisation (herding is deterministic).
    max_elements : int, optional
        float64 numbers one block of kernel values may hold; nothing of size
        :math:`N \times N` is formed. Herding and the MMD cost :math:`O(N^2 d)` time: above
        ``kx.config_context(max_cost=...)`` the call refuses before starting.
    n_jobs : int, optional
        Workers for the mean embeddings over X (as in scikit-learn, or a Dask
        cluster inside ``joblib.parallel_config(backend="dask")``); the result does
        not depend on it.

    Returns
    -------
    BackgroundSummary
        ``points`` is what value functions use, as an unweighted background;
        its ``mmd`` is reported for exactly that use (``weighted_mmd`` for the
        points with their weights).

    Raises
    ------
    ValueError
        If X has fewer than 2 rows or non-finite entries, ``n`` is not in
        [1, N], or ``method`` is unknown.
    CostLimitError
        If the O(N^2 d) work exceeds ``kx.config_context(max_cost=...)``.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> s = kx.explainers.summarize(X, 10, method="herding")
    >>> s.points.shape, round(s.mmd, 4)
    ((10, 3), 0.1244)
    >>> e = kx.explain(lambda P: P[:, 0] * P[:, 1], X[:2], background=s.points)   # use it as a background
    """
    arr = _check_sample(X, min_rows=2)
    N = len(arr)
    n = _check_size(n, N)
    rng = check_rng(seed)
    show = _check_mmd_cost(N, n, arr.shape[1], f"summarize ({method}) of {N} rows",
                           herding=method == "herding")
    kernel = resolve_kernel(kernel, arr)

    with reduction_jobs(n_jobs):
        mu_all = mean_embedding(kernel, arr, arr, max_elements, progress=show)  # (N,)
        rr = float(mu_all.mean())                                                # the self-term
        rows = None
        if method == "herding":
            rows, mu_P = _herd(kernel, arr, n, mu_all)
            P, weights = arr[rows], np.full(n, 1.0 / n)
        else:
            P, weights = _kmeans(arr, n, rng)
            mu_P = mean_embedding(kernel, P, arr, max_elements)
    uniform = np.full(n, 1.0 / n)
    unweighted = _mmd(kernel, P, uniform, arr, mu_P, rr, max_elements)
    weighted = unweighted if method == "herding" else _mmd(kernel, P, weights, arr, mu_P, rr,
                                                           max_elements)
    return BackgroundSummary(_like(X, P, rows), weights, unweighted, weighted, method, kernel, N,
                             meta={} if rows is None else {"rows": rows})


def _herd(kernel, X, n, mu):
    """Kernel herding over the rows of X, mu its mean embedding at its rows: (chosen rows, mu at them)."""
    N = len(X)
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
