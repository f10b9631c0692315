"""Background samples: smaller stand-ins for a large reference sample, with what they cost.

The interventional, observational and model-call value functions average over
a background sample, at a cost proportional to its size (and for the
observational game, its cube). A large sample can be replaced by

* :func:`subsample` -- n rows drawn uniformly without replacement;
* :func:`summarize` -- n points chosen to represent the whole sample: k-means
  centres (``method="kmeans"``) or kernel herding (``method="herding"``,
  greedy minimisation of the MMD to the sample). The summary reports the
  maximum mean discrepancy (MMD) between itself and the full sample, so the
  reader knows how far the smaller background is from the one it replaces;
* :func:`summary_bound` -- how far that can move a model's interventional
  Shapley values: ||f||_H times Shapley-weighted MMDs of the marginals, per
  feature (the Cauchy-Schwarz step of RKHS-SHAP Theorem 6).

Mean embeddings over a background are reductions computed in blocks of at
most ``max_elements`` numbers: a background of 10^6 rows is reduced block by
block, never held as a kernel matrix larger than that budget. The blocks are
grouped in parts that run on ``n_jobs`` workers, or on a Dask cluster inside
``joblib.parallel_config(backend="dask")``, with the same result wherever they
run (:func:`kernelxai.parallel.reduce_rows`). An MMD against N rows costs N^2
kernel values; above ``kx.config_context(max_cost=...)`` it refuses before
starting.

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

import math
from dataclasses import dataclass, field

import numpy as np

from .._config import working_elements
from .._validation import check_choice, check_matrix, check_positive_int, check_rng
from ..kernels.core import RBF, Kernel
from ..models.core import _resolve_kernel

__all__ = ["subsample", "summarize", "mmd", "BackgroundSummary", "summary_bound", "SummaryBound"]


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


def _mean_embedding(kernel, A, X, max_elements=None, progress=False):
    """(1/N) sum_j k(a, x_j) for every row a of A: a reduction over X in blocks of rows of A and of X.

    No block holds more than about ``max_elements`` kernel values (at least one
    row of A by one row of X), so nothing of size len(A) x N is formed however
    large N is. The rows of X are reduced in parts (:func:`kernelxai.parallel.reduce_rows`),
    on the workers of an enclosing ``n_jobs`` or a Dask cluster, with the same
    result wherever the parts run.
    """
    from ..parallel.core import reduce_rows

    budget = working_elements(4) if max_elements is None else check_positive_int(max_elements,
                                                                                   "max_elements")
    job = _RowSums(kernel, A, budget)
    total = reduce_rows(_kernel_row_sums, X, shared=job, row_flops=len(A) * _pair_flops(X.shape[1]),
                        progress=progress, desc="mean embedding")
    return total / len(X)


def _check_mmd_cost(N, n, d, what, herding=False):
    """The cost guard of an MMD against N reference rows (its self-term has N^2 kernel values)."""
    from ..estimators.registry import check_cost

    pairs = float(N) * N + 2.0 * N * n + float(n) * n + (float(n) * N if herding else 0.0)
    return check_cost(pairs * _pair_flops(d), what,
                      [f"a smaller reference sample (kx.background.subsample(X, ...) of the {N} rows: "
                       "an estimate of the MMD rather than the MMD itself)",
                       "more workers: n_jobs=-1, or a Dask cluster (joblib.parallel_config("
                       "backend='dask')) and kx.config_context(max_cost=None)"])


def mmd(sample, reference, weights=None, kernel=None, *, max_elements=None, n_jobs=None):
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
    """
    from ..parallel.core import reduction_jobs

    R = _check_sample(reference, "reference", min_rows=2 if kernel is None else 1)
    S = check_matrix(sample, "sample", n_features=R.shape[1])
    w = _check_weights(weights, len(S))
    show = _check_mmd_cost(len(R), len(S), R.shape[1],
                           f"the MMD against a reference of {len(R)} rows")
    kernel = _resolve_kernel(kernel, R)
    with reduction_jobs(n_jobs):
        return _mmd(kernel, S, w, R, _mean_embedding(kernel, S, R, max_elements),
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
    return float(_mean_embedding(kernel, R, R, max_elements, progress=progress).mean())


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


def summarize(X, n, method="kmeans", kernel=None, seed=None, *, max_elements=None, n_jobs=None):
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
        N x N is formed. Herding and the MMD cost O(N^2 d) time: above
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
    """
    arr = _check_sample(X, min_rows=2)
    N = len(arr)
    n = _check_size(n, N)
    method = check_choice(method, "method", ("kmeans", "herding"))
    rng = check_rng(seed)
    show = _check_mmd_cost(N, n, arr.shape[1], f"summarize ({method}) of {N} rows",
                           herding=method == "herding")
    kernel = _resolve_kernel(kernel, arr)
    from ..parallel.core import reduction_jobs

    with reduction_jobs(n_jobs):
        mu_all = _mean_embedding(kernel, arr, arr, max_elements, progress=show)  # (N,)
        rr = float(mu_all.mean())                                                # the self-term
        rows = None
        if method == "herding":
            rows, mu_P = _herd(kernel, arr, n, mu_all)
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


# --------------------------------------------------------------------------- #
# how much a summary can move the Shapley values
# --------------------------------------------------------------------------- #
@dataclass
class SummaryBound:
    """Bounds on how far interventional Shapley values move when a background is replaced.

    From :func:`summary_bound`. For every explained point x and feature i,
    ``|phi_i(x; full) - phi_i(x; summary)| <= bound[i]`` and the base values
    (v(empty)) differ by at most ``base_bound``.

    Attributes
    ----------
    bound : ndarray (d,)
        Per feature: ``norm * feature_mmd``.
    base_bound : float
        ``norm * mmd``: the bound on the change of the base value E_b f(b).
    norm : float
        ||f - b||_H = sqrt(alpha' K alpha), the RKHS norm of the model
        without its intercept (which the change of background does not touch).
    mmd : float
        MMD between the two backgrounds in the model's kernel (all features).
    feature_mmd : ndarray (d,)
        Per feature i: r1_i + r2_i, the Shapley-weighted root-mean-square
        marginal MMDs of the derivation in :func:`summary_bound`.
    feature_names : list of str
    n_summary, n_background : int
    """

    bound: np.ndarray
    base_bound: float
    norm: float
    mmd: float
    feature_mmd: np.ndarray
    feature_names: list
    n_summary: int
    n_background: int

    def __repr__(self):
        return (f"SummaryBound(max bound {float(np.max(self.bound)):.4g}, base {self.base_bound:.4g}; "
                f"||f|| = {self.norm:.4g}, MMD = {self.mmd:.4g}; {self.n_summary} of "
                f"{self.n_background} rows)")


def summary_bound(model, summary, background, *, max_elements=None, n_jobs=None):
    """Bound the change of interventional Shapley values when ``background`` is replaced by ``summary``.

    The interventional value function averages the model over a background
    sample; with a product kernel it is a kernel mean embedding (RKHS-SHAP
    Prop. 3), so changing the background moves every value by at most
    ||f||_H times a maximum mean discrepancy -- the Cauchy-Schwarz step of
    RKHS-SHAP Theorem 6 (there applied to a change of x, here to a change of
    the background). Which MMD takes some care; the derivation:

    Let k = prod_l k_l with k_l(x, x) = 1 (RBF, Laplace, Cauchy,
    Categorical and products of these), H = tensor_l H_l its RKHS,
    f = sum_j alpha_j k(., x_j) + b, and P, Q the two backgrounds (uniform
    on their rows). For a coalition S with complement S^c,

        nu_P(x, S) = E_{z~P} f(x_S, z_{S^c}) = < f - b, k_S(., x_S) (x) mu^P_{S^c} >_H + b,

    with mu^P_{S^c} = E_{z~P} k_{S^c}(., z_{S^c}) the embedding of P's
    marginal on S^c. Hence, by Cauchy-Schwarz and ||k_S(., x_S)|| = 1,

        |nu_P(x, S) - nu_Q(x, S)| <= ||f - b||_H M(S^c),

    where M(T) = ||mu^P_T - mu^Q_T|| is the MMD of the marginals on the
    features T (M(empty) = 0; M(D) is the ordinary MMD). The Shapley value
    phi_i = sum_{S ⊆ D \\ i} mu(|S|) (nu(S + i) - nu(S)) with Shapley weights
    mu(s) = s!(d-s-1)!/d!, which sum to 1 over S ⊆ D \\ i, so

        |phi_i^P(x) - phi_i^Q(x)| <= ||f - b|| sum_S mu(|S|) (M(D \\ (S + i)) + M(D \\ S))
                                  <= ||f - b|| (r1_i + r2_i),
        r1_i^2 = sum_S mu(|S|) M(D \\ (S + i))^2,   r2_i^2 = sum_S mu(|S|) M(D \\ S)^2

    (Jensen's inequality for the square root, the weights summing to 1). Each
    M(T)^2 = E_PP k_T - 2 E_PQ k_T + E_QQ k_T is an average of the product
    kernel restricted to T, and the Shapley-weighted sums over coalitions
    collapse by the Beta integral mu(s) = int_0^1 t^s (1 - t)^(d-1-s) dt
    (:mod:`kernelxai.product`): for a pair (z, z') with kappa_l = k_l(z_l, z'_l),

        sum_S mu(|S|) k_{D \\ (S + i)}(z, z') = int_0^1 prod_{l != i} (t + (1 - t) kappa_l) dt =: A_i,
        sum_S mu(|S|) k_{D \\ S}(z, z')       = kappa_i A_i,

    a polynomial of degree d - 1 in t, integrated exactly by ceil(d/2)
    Gauss-Legendre nodes. So r1_i^2 and r2_i^2 are MMD^2-like averages of
    A_i and kappa_i A_i over pairs of rows -- O(d ceil(d/2)) per pair, no
    enumeration of the 2^d coalitions. The base value v(empty) = E_P f moves
    by at most ||f - b|| M(D).

    The MMD of all features alone does *not* bound the Shapley values: a
    marginal M(T) can exceed M(D) by a large factor (two samples that differ
    only in feature 2 but are spread out in feature 1 have a small joint MMD
    when feature 1's lengthscale is short, and a marginal MMD on feature 2
    up to sqrt(n) times larger), which is why the marginals enter.

    Parameters
    ----------
    model : kernel model
        Anything :func:`kernelxai.models.as_expansion` converts, with a
        product kernel whose factors satisfy k_l(x, x) = 1 (RBF, Laplace,
        Cauchy, Categorical, Product of these; a Nystroem pipeline with an
        RBF or Laplacian kernel).
    summary : BackgroundSummary or array (n, d) or DataFrame
        The background used instead (a summary's ``points``, unweighted, as
        the value functions use them).
    background : array (N, d) or DataFrame
        The full background. Any two backgrounds can be compared; the bound
        is symmetric in them.
    max_elements : int, optional
        float64 numbers one block of pairs may hold; default a quarter of
        ``kx.config_context(max_memory=...)``. Nothing of size N x N or N x n
        is formed.
    n_jobs : int, optional
        Workers for the sums over pairs of rows (as in scikit-learn, or a Dask
        cluster inside ``joblib.parallel_config(backend="dask")``); the result does
        not depend on it.

    Returns
    -------
    SummaryBound
        ``bound`` (d,) per feature, ``base_bound``, ``norm``, ``mmd``,
        ``feature_mmd``.

    Notes
    -----
    The cost is O((N + n)^2 d ceil(d/2)) kernel evaluations: the full
    background enters through its own pairs (E_PP), as in every MMD against
    it (:func:`mmd`, :func:`summarize`). N = 20 000 at d = 5 takes tens of
    seconds; the ``max_cost`` guard of :func:`kernelxai.config_context`
    refuses much larger problems before starting (compare against a large
    uniform subsample of the full background then -- an estimate, no longer
    a bound).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> X = np.random.default_rng(0).normal(size=(400, 3)); y = X[:, 0] * X[:, 1]
    >>> model = kx.models.KernelRidge(lam=1e-3).fit(X, y)
    >>> s = kx.background.summarize(X, 20, method="herding")
    >>> b = kx.background.summary_bound(model, s, X)
    >>> b.bound.shape, bool(np.all(b.bound >= 0))
    ((3,), True)
    """
    from .._validation import feature_names_in
    from ..estimators.registry import check_cost
    from ..models.core import as_expansion
    from ..estimators.product import gauss_legendre_01

    expansion = as_expansion(model)
    kernel = expansion.kernel
    if not getattr(kernel, "is_product", False):
        raise TypeError(f"summary_bound needs a product kernel (RBF, Laplace, Cauchy, Categorical, "
                        f"Product of these): the interventional game factorises through mean "
                        f"embeddings only then; the model's kernel is {kernel!r}")
    d = expansion.n_features
    points = summary.points if isinstance(summary, BackgroundSummary) else summary
    names = feature_names_in(expansion)
    from ..values.agnostic import check_background

    Q = check_background(points, d, "summary", feature_names=names)
    P = check_background(background, d, "background", feature_names=names)
    for what, A in (("summary", Q), ("background", P)):
        diag = kernel.feature_grams(A[:8], A[:8])[np.arange(min(8, len(A))), np.arange(min(8, len(A)))]
        if not np.allclose(diag, 1.0, rtol=0, atol=1e-12):
            raise TypeError(f"summary_bound needs k_l(x, x) = 1 for every factor of the kernel "
                            f"(the norm of k_S(., x_S) is then 1); {kernel!r} has k_l(x, x) = "
                            f"{float(diag.ravel()[np.argmax(np.abs(diag - 1.0))]):.6g} on the {what}")
    budget = working_elements(4) if max_elements is None else check_positive_int(max_elements,
                                                                                   "max_elements")
    N, n, m = len(P), len(Q), len(expansion.X_train)
    q = max(1, math.ceil(d / 2))
    show = check_cost(float((N + n) ** 2 / 2 + m * m) * d * (20 + 6 * q),
                      f"summary_bound (full background of {N} rows, summary of {n}, d = {d})",
                      ["a smaller full background (a large uniform subsample: an estimate of the "
                       "bound rather than a bound)"])
    t, s, w = gauss_legendre_01(q)
    from ..parallel.core import reduction_jobs

    with reduction_jobs(n_jobs):
        PP = _pair_sums(kernel, P, P, t, s, w, budget, symmetric=True, progress=show)
        QQ = _pair_sums(kernel, Q, Q, t, s, w, budget, symmetric=True)
        PQ = _pair_sums(kernel, P, Q, t, s, w, budget, symmetric=False, progress=show)
    sq = [PP[k] / N**2 + QQ[k] / n**2 - 2.0 * PQ[k] / (N * n) for k in range(3)]
    mmd_joint = float(np.sqrt(max(float(sq[0]), 0.0)))
    feature = np.sqrt(np.maximum(sq[1], 0.0)) + np.sqrt(np.maximum(sq[2], 0.0))
    norm = _rkhs_norm(expansion, budget)
    return SummaryBound(norm * feature, norm * mmd_joint, norm, mmd_joint, feature,
                        list(expansion.feature_names), n, N)


class _PairJob:
    """What every part of a pair-sum reduction needs: both samples, the nodes, the block plan."""

    def __init__(self, kernel, U, V, t, s, w, budget, symmetric):
        self.kernel, self.U, self.V, self.t, self.s, self.w = kernel, U, V, t, s, w
        self.symmetric = symmetric
        d = U.shape[1]
        per_pair = 3 * d
        if symmetric:  # square blocks, so that those below the diagonal can be skipped
            self.rows = self.cols = max(1, min(len(V), math.isqrt(max(1, budget // per_pair))))
        else:
            self.cols = max(1, min(len(V), budget // per_pair))
            self.rows = max(1, budget // (per_pair * self.cols))


def _pair_part(job, index):
    """[total, s1 (d), s2 (d)] over the pairs whose first row is one of ``index`` (consecutive rows of U)."""
    from ..estimators.product import leave_one_out_product

    U, V, rows, cols, symmetric = job.U, job.V, job.rows, job.cols, job.symmetric
    d = U.shape[1]
    lo, hi = int(index[0, 0]), int(index[-1, 0]) + 1
    total, s1, s2 = 0.0, np.zeros(d), np.zeros(d)
    starts = [(r0, c0) for r0 in range(lo, hi, rows) for c0 in range(0, len(V), cols)
              if not symmetric or c0 + cols > r0]
    for r0, c0 in starts:
        r1 = min(hi, r0 + rows)
        G = job.kernel.feature_grams(U[r0:r1], V[c0:c0 + cols])              # (a, b, d)
        a, b = G.shape[:2]
        G = G.reshape(a * b, d)
        if symmetric and c0 < r0 + a:  # a diagonal block: pair (j, k) counts 2 if k > j, 1 if k == j
            r = np.arange(r0, r0 + a)[:, None]
            c = np.arange(c0, c0 + b)[None, :]
            weight = np.where(c > r, 2.0, np.where(c == r, 1.0, 0.0)).ravel()
        else:
            weight = np.full(a * b, 2.0 if symmetric else 1.0)
        total += float(weight @ G.prod(axis=-1))
        WG = weight[:, None] * G
        F = np.empty_like(G)
        loo = np.empty_like(G)
        for tr, sr, wr in zip(job.t, job.s, job.w):
            np.multiply(G, sr, out=F)
            F += tr
            leave_one_out_product(F, out=loo)                                  # prod_{l != i}
            s1 += wr * (weight @ loo)
            s2 += wr * np.einsum("pl,pl->l", WG, loo)
    return np.concatenate([[total], s1, s2])


def _pair_sums(kernel, U, V, t, s, w, budget, *, symmetric, progress=False):
    """Sums over all pairs (u, v) of prod_l kappa_l, A_i and kappa_i A_i (see :func:`summary_bound`).

    kappa_l = k_l(u_l, v_l), A_i = sum_r w_r prod_{l != i} (t_r + s_r kappa_l) (s = 1 - t).
    Blocks of pairs hold about ``budget`` numbers (times a small constant);
    with ``symmetric`` (U is V) only blocks on and above the diagonal are
    formed, pairs above the diagonal counted twice. A reduction over the rows
    of U (:func:`kernelxai.parallel.reduce_rows`): parts run on the workers of
    ``n_jobs`` or a Dask cluster, with the same result wherever they run.
    """
    from ..parallel.core import reduce_rows

    d = U.shape[1]
    job = _PairJob(kernel, U, V, t, s, w, budget, symmetric)
    index = np.arange(len(U))[:, None]
    out = reduce_rows(_pair_part, index, shared=job, row_flops=len(V) * d * (20 + 6 * len(t)),
                      progress=progress, desc="summary bound")
    return float(out[0]), out[1:1 + d], out[1 + d:]


def _rkhs_norm(expansion, budget):
    """||f - b||_H = sqrt(alpha' K alpha) in row blocks of K."""
    X, alpha = expansion.X_train, expansion.alpha
    step = max(1, budget // max(1, len(X)))
    sq = 0.0
    for r0 in range(0, len(X), step):
        sq += float(alpha[r0:r0 + step] @ (expansion.kernel.gram(X[r0:r0 + step], X) @ alpha))
    return float(np.sqrt(max(sq, 0.0)))
