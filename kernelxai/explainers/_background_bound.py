"""How far replacing a background by a summary can move a kernel model's interventional Shapley values.

Takes a kernel model with a product kernel, a summary (a
:class:`~kernelxai.explainers.BackgroundSummary` or any
smaller sample) and the full background; hands on a :class:`SummaryBound`:
||f||_H times Shapley-weighted MMDs of the marginals, per feature (the
Cauchy-Schwarz step of RKHS-SHAP Theorem 6), computed as reductions over pairs
of rows (:func:`kernelxai.parallel.reduce_rows`). Public as
``kx.explainers.summary_bound``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._config import working_elements
from .._params import Checked, Data, Either, InstanceOf, Integer, parameters
from .._validation import check_columns, check_positive_int
from ..estimators._gauss_legendre import gauss_legendre_01, leave_one_out_product
from ..estimators._registry import check_cost
from ..models.convert import as_expansion
from ..parallel import reduce_rows
from ..parallel._chunking import check_n_jobs
from ..parallel._reductions import reduction_jobs
from ..values._agnostic import check_background
from ._background_summaries import BackgroundSummary

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["summary_bound", "SummaryBound"]


@dataclass
class SummaryBound:
    r"""Bounds on how far interventional Shapley values move when a background is replaced.

    From :func:`summary_bound`. For every explained point :math:`x` and feature :math:`i`,
    :math:`|\phi_i(x; \text{full}) - \phi_i(x; \text{summary})| \le` ``bound[i]`` and the base values
    (:math:`v(\emptyset)`) differ by at most ``base_bound``.

    Attributes
    ----------
    bound : ndarray (d,)
        Per feature: ``norm * feature_mmd``.
    base_bound : float
        ``norm * mmd``: the bound on the change of the base value :math:`\mathbb{E}_b f(b)`.
    norm : float
        :math:`\|f - b\|_{\mathcal{H}} = \sqrt{\alpha^\top K \alpha}`, the RKHS norm of the model
        without its intercept (which the change of background does not touch).
    mmd : float
        MMD between the two backgrounds in the model's kernel (all features).
    feature_mmd : ndarray (d,)
        Per feature :math:`i`: :math:`r_{1,i} + r_{2,i}`, the Shapley-weighted root-mean-square
        marginal MMDs of the derivation in :func:`summary_bound`.
    feature_names : list of str
        The model's feature names.
    n_summary, n_background : int
        Rows of the summary and of the full background.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> X = np.random.default_rng(0).normal(size=(60, 3)); y = X[:, 0] * X[:, 1]
    >>> model = kx.models.KernelRidge(lam=1e-2).fit(X, y)
    >>> s = kx.explainers.summarize(X, 10, method="herding")
    >>> b = kx.explainers.summary_bound(model, s, X)
    >>> b
    SummaryBound(max bound 0.7176, base 0.4669; ||f|| = 3.369, MMD = 0.1386; 10 of 60 rows)
    >>> moved = kx.explain(model, X[:3], background=X).values - kx.explain(model, X[:3], background=s.points).values
    >>> bool(np.all(np.abs(moved) <= b.bound))
    True
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


@parameters("kx.explainers.summary_bound",
            summary=Either(InstanceOf((BackgroundSummary,), "a BackgroundSummary"), Data()), background=Data(),
            max_elements=Integer(1, none=True), n_jobs=Checked(check_n_jobs))
def summary_bound(model: Any, summary: BackgroundSummary | ArrayLike, background: ArrayLike, *,
                  max_elements: int | None = None, n_jobs: int | None = None) -> SummaryBound:
    r"""Bound the change of interventional Shapley values when ``background`` is replaced by ``summary``.

    The interventional value function averages the model over a background
    sample; with a product kernel it is a kernel mean embedding (RKHS-SHAP
    Prop. 3), so changing the background moves every value by at most
    :math:`\|f\|_{\mathcal{H}}` times a maximum mean discrepancy -- the Cauchy-Schwarz step of
    RKHS-SHAP Theorem 6 (there applied to a change of :math:`x`, here to a change of
    the background). Which MMD takes some care; the derivation:

    Let :math:`k = \prod_l k_l` with :math:`k_l(x, x) = 1` (RBF, Laplace, Cauchy,
    Categorical and products of these), :math:`\mathcal{H} = \bigotimes_l \mathcal{H}_l` its RKHS,
    :math:`f = \sum_j \alpha_j k(\cdot, x_j) + b`, and :math:`P, Q` the two backgrounds (uniform
    on their rows). For a coalition :math:`S` with complement :math:`S^c`,

    .. math::
        \nu_P(x, S) = \mathbb{E}_{z \sim P} f(x_S, z_{S^c})
                    = \big\langle f - b,\ k_S(\cdot, x_S) \otimes \mu^P_{S^c} \big\rangle_{\mathcal{H}} + b,

    with :math:`\mu^P_{S^c} = \mathbb{E}_{z \sim P}\, k_{S^c}(\cdot, z_{S^c})` the embedding of :math:`P`'s
    marginal on :math:`S^c`. Hence, by Cauchy-Schwarz and :math:`\|k_S(\cdot, x_S)\| = 1`,

    .. math::
        |\nu_P(x, S) - \nu_Q(x, S)| \le \|f - b\|_{\mathcal{H}}\, M(S^c),

    where :math:`M(T) = \|\mu^P_T - \mu^Q_T\|` is the MMD of the marginals on the
    features :math:`T` (:math:`M(\emptyset) = 0`; :math:`M(D)` is the ordinary MMD). The Shapley value
    :math:`\phi_i = \sum_{S \subseteq D \setminus i} \mu(|S|)\, \big(\nu(S + i) - \nu(S)\big)` with Shapley weights
    :math:`\mu(s) = s!\,(d-s-1)!\,/\,d!`, which sum to 1 over :math:`S \subseteq D \setminus i`, so

    .. math::
        |\phi_i^P(x) - \phi_i^Q(x)|
            &\le \|f - b\| \sum_S \mu(|S|) \big(M(D \setminus (S + i)) + M(D \setminus S)\big)
             \le \|f - b\|\, (r_{1,i} + r_{2,i}), \\
        r_{1,i}^2 &= \sum_S \mu(|S|)\, M(D \setminus (S + i))^2, \qquad
        r_{2,i}^2 = \sum_S \mu(|S|)\, M(D \setminus S)^2

    (Jensen's inequality for the square root, the weights summing to 1). Each
    :math:`M(T)^2 = \mathbb{E}_{PP} k_T - 2\, \mathbb{E}_{PQ} k_T + \mathbb{E}_{QQ} k_T` is an average of the product
    kernel restricted to :math:`T`, and the Shapley-weighted sums over coalitions
    collapse by the Beta integral :math:`\mu(s) = \int_0^1 t^s (1 - t)^{d-1-s}\, dt`
    (as in :func:`~kernelxai.estimators.product_shapley`): for a pair :math:`(z, z')` with
    :math:`\kappa_l = k_l(z_l, z'_l)`,

    .. math::
        \sum_S \mu(|S|)\, k_{D \setminus (S + i)}(z, z')
            &= \int_0^1 \prod_{l \ne i} \big(t + (1 - t)\, \kappa_l\big)\, dt =: A_i, \\
        \sum_S \mu(|S|)\, k_{D \setminus S}(z, z') &= \kappa_i A_i,

    a polynomial of degree :math:`d - 1` in :math:`t`, integrated exactly by :math:`\lceil d/2 \rceil`
    Gauss-Legendre nodes. So :math:`r_{1,i}^2` and :math:`r_{2,i}^2` are :math:`\mathrm{MMD}^2`-like averages of
    :math:`A_i` and :math:`\kappa_i A_i` over pairs of rows -- :math:`O(d \lceil d/2 \rceil)` per pair, no
    enumeration of the :math:`2^d` coalitions. The base value :math:`v(\emptyset) = \mathbb{E}_P f` moves
    by at most :math:`\|f - b\|\, M(D)`.

    The MMD of all features alone does *not* bound the Shapley values: a
    marginal :math:`M(T)` can exceed :math:`M(D)` by a large factor (two samples that differ
    only in feature 2 but are spread out in feature 1 have a small joint MMD
    when feature 1's lengthscale is short, and a marginal MMD on feature 2
    up to :math:`\sqrt{n}` times larger), which is why the marginals enter.

    Parameters
    ----------
    model : kernel model
        Anything :func:`kernelxai.models.as_expansion` converts, with a
        product kernel whose factors satisfy :math:`k_l(x, x) = 1` (RBF, Laplace,
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

    Raises
    ------
    TypeError
        If the model's kernel is not a product kernel, or one of its factors
        has :math:`k_l(x, x) \ne 1` (so that :math:`\|k_S(\cdot, x_S)\| = 1` fails).
    ValueError
        If a sample has fewer than 2 rows, the wrong number of features or
        columns other than the model's, or ``max_elements`` is not positive.
    CostLimitError
        If the pair sums exceed ``kx.config_context(max_cost=...)``.

    Notes
    -----
    The cost is :math:`O\big((N + n)^2 d \lceil d/2 \rceil\big)` kernel evaluations: the full
    background enters through its own pairs (:math:`\mathbb{E}_{PP}`), as in every MMD against
    it (:func:`mmd`, :func:`summarize`). N = 20 000 at d = 5 takes tens of
    seconds; the ``max_cost`` guard of :func:`kernelxai.config_context`
    refuses much larger problems before starting (compare against a large
    uniform subsample of the full background then -- an estimate, no longer
    a bound).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> X = np.random.default_rng(0).normal(size=(60, 3)); y = X[:, 0] * X[:, 1]
    >>> model = kx.models.KernelRidge(lam=1e-2).fit(X, y)
    >>> s = kx.explainers.summarize(X, 10, method="herding")
    >>> b = kx.explainers.summary_bound(model, s, X)
    >>> b.bound.shape, bool(np.all(b.bound >= 0))
    ((3,), True)
    """

    expansion = as_expansion(model)
    kernel = expansion.kernel
    if not getattr(kernel, "is_product", False):
        raise TypeError(f"summary_bound needs a product kernel (RBF, Laplace, Cauchy, Categorical, "
                        f"Product of these): the interventional game factorises through mean "
                        f"embeddings only then; the model's kernel is {kernel!r}")
    d = expansion.n_features
    points = summary.points if isinstance(summary, BackgroundSummary) else summary
    # DataFrames must have the model's columns (or, for an unnamed model, the same columns), in order
    check_columns(points, "summary", model=expansion, sample=background)
    check_columns(background, "background", model=expansion)

    Q = check_background(points, d, "summary")
    P = check_background(background, d, "background")
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

    with reduction_jobs(n_jobs):
        PP = _pair_sums(_PairJob(kernel, P, P, t, s, w, budget, symmetric=True), progress=show)
        QQ = _pair_sums(_PairJob(kernel, Q, Q, t, s, w, budget, symmetric=True))
        PQ = _pair_sums(_PairJob(kernel, P, Q, t, s, w, budget, symmetric=False), progress=show)
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


def _pair_sums(job, *, progress=False):
    """Sums over all pairs (u, v) of prod_l kappa_l, A_i and kappa_i A_i (see :func:`summary_bound`).

    kappa_l = k_l(u_l, v_l), A_i = sum_r w_r prod_{l != i} (t_r + s_r kappa_l) (s = 1 - t), for
    u in ``job.U`` and v in ``job.V`` (a :class:`_PairJob`).
    Blocks of pairs hold about ``budget`` numbers (times a small constant);
    with ``symmetric`` (U is V) only blocks on and above the diagonal are
    formed, pairs above the diagonal counted twice. A reduction over the rows
    of U (:func:`kernelxai.parallel.reduce_rows`): parts run on the workers of
    ``n_jobs`` or a Dask cluster, with the same result wherever they run.
    """
    d = job.U.shape[1]
    index = np.arange(len(job.U))[:, None]
    out = reduce_rows(_pair_part, index, shared=job, row_flops=len(job.V) * d * (20 + 6 * len(job.t)),
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
