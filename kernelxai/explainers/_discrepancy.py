"""Shapley attributions of kernel discrepancies: MMD (two samples) and HSIC (dependence).

PKeX-Shapley §4 (Mohammadi et al. 2025) removes a feature from a kernel
statistic the way its functional baseline removes it from a model: the
feature's kernel factor is set to 1. With a product kernel every entry of a
kernel matrix is then a multiplicative game, and the statistic -- a weighted
sum of entries -- is a :class:`~kernelxai.games.ProductGame` with one term per
pair of points:

* MMD (PKeX Def. 5, Prop. 6): v(S) = sum_{i != j} k_S(x_i, x_j) / (n(n-1))
  + sum_{i != j} k_S(z_i, z_j) / (m(m-1)) - 2 sum_{i, j} k_S(x_i, z_j) / (nm);
  v(empty) = 0 and v(D) = MMD^2_u, so sum_j phi_j = MMD^2_u (PKeX Lemma 11).
* HSIC (PKeX Def. 7, Prop. 8): v(S) = tr(K_S H L H) / (n-1)^2; v(empty) = 0
  (H 1 = 0), so sum_j phi_j = HSIC (PKeX Lemma 12). With a multivariate Y and
  a product kernel on it (PKeX App. G), the same game with the roles swapped
  attributes HSIC to Y's features.

The games (:class:`MMDGame`, :class:`HSICGame`, in
``kernelxai.values._kernel_statistics``) stream their terms in blocks of pairs
(memory O((n + m) d) per block), and any estimator of
:func:`kernelxai.shapley_values` works on them; the default is the exact
quadrature route. Each function here checks the inputs, builds the game,
estimates its Shapley values and also reports the statistic's permutation-test
p-value.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import numpy as np
from pandas.api.types import is_complex_dtype, is_float_dtype

from .._calibration import Work, kernel_factors
from .._config import config_context, progress_enabled, working_elements
from .._params import Boolean, Data, Either, InstanceOf, Integer, OneOf, Seed, Text, parameters
from .._validation import (
    as_real_array,
    check_columns,
    check_matrix,
    check_positive_int,
    check_rng,
    feature_names_of,
)
from ..estimators._common import progress_bar, progress_iter
from ..estimators._registry import Estimator, check_cost
from ..estimators._shapley import option_takers, resolve_method, run_resolved
from ..explanation import Explanation
from ..kernels import RBF, Categorical, Kernel, Matern, ProductKernel, median_heuristic
from ..values._kernel_statistics import BLOCK_ELEMENTS, HSICGame, MMDGame

if TYPE_CHECKING:
    from collections.abc import Iterator

    from numpy.typing import ArrayLike

__all__ = ["explain_mmd", "explain_hsic", "MMDGame", "HSICGame", "mmd_permutation_test",
           "hsic_permutation_test", "mmd_test_work", "hsic_test_work"]


# --------------------------------------------------------------------------- #
# input checks
# --------------------------------------------------------------------------- #
def _check_product_kernel(kernel, name, d):
    if not isinstance(kernel, Kernel):
        raise TypeError(f"{name} must be a kernelxai kernel (e.g. kx.kernels.RBF) or None; "
                        f"got {type(kernel).__name__}")
    if not getattr(kernel, "is_product", False):
        raise TypeError(
            f"{name} must be a product kernel k = prod_j k_j (RBF, Laplace, Cauchy, Categorical, "
            f"Product): the attribution sets the factors of absent features to 1; got {kernel!r}"
        )
    if kernel.n_features is not None and kernel.n_features != d:
        raise ValueError(f"{name} has parameters for {kernel.n_features} features; the data have {d}")
    return kernel


def _check_not_constant(A, names, what):
    constant = np.flatnonzero(np.ptp(A, axis=0) == 0)
    if len(constant):
        shown = [names[j] for j in constant[:10]]
        raise ValueError(
            f"feature(s) {shown} are constant in {what}: their kernel factor is 1 for every pair, "
            "so they carry no information (their Shapley value would be 0 and a median-heuristic "
            "bandwidth is undefined); drop them first"
        )


def _check_features(d, what):
    if d < 2:
        raise ValueError(
            f"{what} attribution needs at least 2 features to share the statistic among; got d = 1 "
            "(the single feature's Shapley value is the whole statistic)"
        )


def _budget(max_elements, share=1):
    """``max_elements`` if given (checked), else the share of ``kx.config_context(max_memory=...)``."""
    if max_elements is None:
        return working_elements(share)
    return check_positive_int(max_elements, "max_elements")


def _gram_rows(kernel, A, B, max_elements):
    """kernel.gram(A, B), with the kernel's own work arrays held to ``max_elements`` where it can."""
    if isinstance(kernel, (ProductKernel, Matern)):
        return kernel.gram(A, B, max_elements=max_elements)
    return kernel.gram(A, B)


# --------------------------------------------------------------------------- #
# MMD
# --------------------------------------------------------------------------- #
def _mmd_from_sums(s_xx, s_zz, s_xz, diag_x, diag_z, n, m, unbiased):
    if unbiased:
        return (s_xx - diag_x) / (n * (n - 1)) + (s_zz - diag_z) / (m * (m - 1)) - 2 * s_xz / (n * m)
    return s_xx / n**2 + s_zz / m**2 - 2 * s_xz / (n * m)


def mmd_test_work(N, d, B) -> Work:
    """The work of :func:`mmd_permutation_test` on a pooled sample of ``N`` rows, ``d`` features, ``B`` permutations.

    Parameters
    ----------
    N : int
        Rows of the pooled sample (n + m).
    d : int
        Features.
    B : int
        Permutations.

    Returns
    -------
    kernelxai._calibration.Work
        The Gram matrix's kernel evaluations, built in row blocks (elementwise), and its product
        with the (N, B + 1) group indicators (BLAS).

    Examples
    --------
    >>> work = mmd_test_work(200, 6, 100)
    >>> bool(work.flops > 0) and work.blas_flops == 2.0 * 200 * 200 * 101
    True
    """
    # steps measured (#25): ~35 per call (checks, blocks) and ~1.5 per permutation (its draw)
    return Work(flops=kernel_factors(float(N) * N * d), blas_flops=2.0 * N * N * (B + 1), steps=40.0 + 1.5 * B)


def hsic_test_work(n, dx, dy, B) -> Work:
    """The work of :func:`hsic_permutation_test` on ``n`` rows, ``B`` permutations.

    Parameters
    ----------
    n : int
        Rows.
    dx, dy : int
        Features of X and of Y.
    B : int
        Permutations.

    Returns
    -------
    kernelxai._calibration.Work
        K's kernel evaluations (twice: its row means, then its centred rows) and, per
        permutation, the permuted L's kernel evaluations and their product with K (elementwise).

    Examples
    --------
    >>> hsic_test_work(100, 6, 1, 50).flops > 0
    True
    """
    # per permutation and block of rows: a permuted Gram block and its product (~8 steps beyond
    # their arithmetic, measured at n = 120: 65 us a permutation, #25), ~80 steps a call
    return Work(flops=float(n) * n * (kernel_factors(2 * dx + (B + 1) * dy) + 2.0 * (B + 1)),
                steps=80.0 + 8.0 * (B + 1))


def _check_mmd_test(N, d, B):
    return check_cost(mmd_test_work(N, d, B),
                      f"the MMD permutation test (n + m = {N}, {B} permutations)",
                         ["fewer permutations (n_permutations=...)", "subsamples of both samples"])


def _check_hsic_test(n, dx, dy, B):
    return check_cost(hsic_test_work(n, dx, dy, B),
                      f"the HSIC permutation test (n = {n}, {B} permutations)",
                      ["fewer permutations (n_permutations=...)", "a subsample of the rows"])


@parameters("kx.explainers.mmd_permutation_test", X=Data(), Z=Data(),
            kernel=InstanceOf((Kernel,), "a kernelxai kernel"), unbiased=Boolean(), n_permutations=Integer(0),
            seed=Seed(), max_elements=Integer(1))
def mmd_permutation_test(X: ArrayLike, Z: ArrayLike, kernel: Kernel, *, unbiased: bool = True,
                         n_permutations: int = 200, seed: int | np.random.Generator | None = None,
                         max_elements: int = BLOCK_ELEMENTS) -> tuple[float, float]:
    r""":math:`\mathrm{MMD}^2` and its permutation-test p-value (Gretton et al. 2012).

    The pooled sample is split at random into groups of sizes :math:`n` and :math:`m`,
    ``n_permutations`` times;
    :math:`p = \big(1 + \#\{\mathrm{MMD}^2_{\mathrm{perm}} \ge \mathrm{MMD}^2\}\big) / (1 + B)`. All
    permutations are scored together: with :math:`S` the :math:`(N, B)` matrix of X-group
    indicators, the within- and across-group sums are read off :math:`K S`, computed
    from row blocks of the Gram matrix (memory :math:`O(N B + \text{max\_elements})`). Needs a
    product kernel (its Gram matrix is built in blocks of the per-feature tensor).

    Parameters
    ----------
    X : ndarray (n, d)
        Sample from P (already checked: finite floats).
    Z : ndarray (m, d)
        Sample from Q, with the same d features.
    kernel : ProductKernel
        Kernel whose ``gram`` takes ``max_elements`` (a product kernel).
    unbiased : bool, default True
        Score the U-statistic :math:`\mathrm{MMD}^2_u` (within-sample diagonals left out) or the
        biased V-statistic :math:`\mathrm{MMD}^2_b`.
    n_permutations : int, default 200
        Number B of random splits of the pooled sample; 0 skips the test.
    seed : None, int or Generator
        Randomness of the splits.
    max_elements : int, default ``BLOCK_ELEMENTS`` (2**22)
        float64 numbers one block of the per-feature Gram tensor may hold.

    Returns
    -------
    statistic : float
        :math:`\mathrm{MMD}^2` of X against Z.
    p_value : float
        The permutation p-value, in [1 / (1 + B), 1]; NaN when
        ``n_permutations`` is 0.

    Raises
    ------
    CostLimitError
        When the test's estimated cost exceeds ``kx.config_context(max_cost=...)``.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from kernelxai.explainers import mmd_permutation_test
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 2)); Z = rng.normal(size=(20, 2)) + [1.0, 0.0]
    >>> stat, p = mmd_permutation_test(X, Z, kx.kernels.RBF(1.0), n_permutations=50, seed=0)
    >>> round(stat, 4), round(p, 4)
    (0.2728, 0.0196)
    """
    check_columns(Z, "Z", sample=X, sample_name="X")   # DataFrames: the same columns, in order
    X, Z = check_matrix(X, "X"), check_matrix(Z, "Z", n_features=np.shape(X)[1])
    rng = check_rng(seed)
    U = np.vstack([X, Z])
    N, n, m = len(U), len(X), len(Z)
    B = int(n_permutations)
    show = _check_mmd_test(N, U.shape[1], B)
    S = np.zeros((N, B + 1))
    S[:n, 0] = 1.0
    for b in range(1, B + 1):
        S[rng.permutation(N)[:n], b] = 1.0
    KS = np.empty_like(S)
    rowsum = np.empty(N)
    diag = np.empty(N)
    d = U.shape[1]
    step = max(1, int(max_elements) // max(1, N * d))   # a block of the per-feature Gram tensor
    for r0 in progress_iter(range(0, N, step), "MMD permutation test", "block", progress=show):
        r1 = min(N, r0 + step)
        Kb = kernel.gram(U[r0:r1], U, max_elements=max_elements)
        KS[r0:r1] = Kb @ S
        rowsum[r0:r1] = Kb.sum(axis=1)
        diag[r0:r1] = Kb[np.arange(r1 - r0), np.arange(r0, r1)]
    total = rowsum.sum()
    s_xx = np.einsum("ib,ib->b", S, KS)
    x_rows = S.T @ rowsum                      # sum_{i in X} sum_j K_ij
    s_xz = x_rows - s_xx
    s_zz = total - 2 * x_rows + s_xx
    diag_x = S.T @ diag
    diag_z = diag.sum() - diag_x
    stats = _mmd_from_sums(s_xx, s_zz, s_xz, diag_x, diag_z, n, m, unbiased)
    observed = float(stats[0])
    if B == 0:
        return observed, float("nan")
    return observed, float((1 + np.sum(stats[1:] >= observed)) / (1 + B))


#: what both discrepancy explainers declare (besides their samples and kernels)
_PARAMETERS = dict(method=Either(Text(), InstanceOf((Estimator,), "an Estimator")), n_permutations=Integer(0),
                   seed=Seed(), max_elements=Integer(1, none=True), progress=Boolean(none=True))
_KERNEL = InstanceOf((Kernel,), "a kernelxai kernel (e.g. kx.kernels.RBF)", none=True)


@parameters("kx.explain_mmd", consumers=option_takers, X=Data(), Z=Data(), kernel=_KERNEL, unbiased=Boolean(),
            **_PARAMETERS)
def explain_mmd(X: ArrayLike, Z: ArrayLike, kernel: Kernel | None = None, unbiased: bool = True, *,  # noqa: PLR0913 - keyword options of a public entry point, as scikit-learn's
                method: str | Estimator = "product", n_permutations: int = 200,
                seed: int | np.random.Generator | None = None, max_elements: int | None = None,
                progress: bool | None = None, **options: Any) -> Explanation:
    r"""Shapley values of the MMD between two samples over their features (PKeX Prop. 6).

    Parameters
    ----------
    X : array (n, d) or DataFrame
        Sample from P. DataFrame columns become feature names.
    Z : array (m, d) or DataFrame
        Sample from Q, with the same features.
    kernel : ProductKernel, optional
        Default: RBF with one lengthscale, the median heuristic on the pooled
        full-dimensional distances (as the PKeX reference code). Standardise
        features of different scales first, or pass a per-feature kernel
        such as ``RBF(kx.kernels.median_heuristic(pooled))``.
    unbiased : bool, default True
        Explain the U-statistic :math:`\mathrm{MMD}^2_u` (PKeX's estimator) or the biased
        V-statistic.
    method : str
        Any estimator of :func:`kernelxai.shapley_values`; default the exact
        quadrature (``"stable"``, ``"newton"``, ``"exact"`` reproduce it).
    n_permutations : int, default 200
        Permutations for the p-value of :math:`\mathrm{MMD}^2` (0 skips the test).
    seed : int or Generator, optional
        Randomness of the permutation test (and of sampling estimators).
    max_elements : int, optional
        float64 numbers one block of pair terms or Gram rows may hold; default
        a quarter of ``kx.config_context(max_memory=...)`` (256 MiB by default).
    progress : bool, optional
        Show one progress bar for the call (its stages report into it);
        ``False`` silences them all. Default: ``kx.config_context(progress=...)``.
    **options
        Passed to the estimator (e.g. ``n_samples`` of a sampling method).

    Returns
    -------
    Explanation
        One signed explanation of the statistic: values of shape (d,) with
        base value 0 and ``values.sum() == MMD^2``, so ``kx.plots.bar(e)``
        draws each feature's push up or pull down. ``e.statistic`` and
        ``e.p_value`` are the statistic and its permutation p-value (shown in
        the repr, e.g. ``MMD^2_u = 0.031, p = 0.005``); ``meta`` holds them as
        ``statistic`` and ``p_value`` too, with ``statistic_name``,
        ``n_permutations``, ``kernel``, ``unbiased``, ``n`` and ``m``.

    Raises
    ------
    ValueError
        When X and Z have different columns or numbers of features, fewer
        than 2 rows or 2 features, non-finite entries, a feature constant in
        the pooled sample, or ``n_permutations`` < 0.
    TypeError
        When ``kernel`` is not a kernelxai product kernel.
    CostLimitError
        When the permutation test would exceed ``kx.config_context(max_cost=...)``
        (checked before any work).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> P = rng.normal(size=(50, 2))
    >>> Q = rng.normal(size=(50, 2)) + [1.0, 0.0]   # shifted in feature 0 only
    >>> e = kx.explain_mmd(P, Q)
    >>> bool(np.isclose(e.values.sum(), e.statistic)), int(np.argmax(e.values))
    (True, 0)
    """
    max_elements = _budget(max_elements, share=4)
    names = feature_names_of(X) or feature_names_of(Z)
    try:  # the same check scikit-learn makes on feature names, with Z held to X's columns
        check_columns(Z, "Z", sample=X, sample_name="X")
    except ValueError as err:
        raise ValueError(f"X and Z have different columns: {err}") from None
    X = check_matrix(X, "X", min_rows=2)
    Z = check_matrix(Z, "Z", min_rows=2)
    if X.shape[1] != Z.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Z has {Z.shape[1]}; the two samples must have the "
            "same features (columns) in the same order"
        )
    d = X.shape[1]
    _check_features(d, "MMD")
    names = names or [f"x{j}" for j in range(d)]
    pooled = np.vstack([X, Z])
    _check_not_constant(pooled, names, "the pooled sample")
    if kernel is None:
        kernel = RBF(median_heuristic(pooled, pooled=True))
    kernel = _check_product_kernel(kernel, "kernel", d)
    rng = check_rng(seed)
    _check_mmd_test(len(X) + len(Z), d, n_permutations)   # cheap to price: refused before the game is built
    game = MMDGame(X, Z, kernel, unbiased=unbiased, player_names=names,
                   meta={"value_function": "MMD functional baseline (PKeX Def. 5)"})
    # the whole call priced before any work: the attribution and the permutation test
    [plan] = _plan_call([game], method, max_elements, progress, options,
                        mmd_test_work(len(X) + len(Z), d, n_permutations),
                        f"explain_mmd (n = {len(X)}, m = {len(Z)}, d = {d}: the attribution and the "
                        f"permutation test, {n_permutations} permutations)",
                        ["fewer permutations (n_permutations=...)", "subsamples of both samples"])
    with _call_progress(progress, 2, "explain_mmd") as (bar, _):
        expl = _run(game, plan, rng)
        bar.update(1)
        statistic, p_value = mmd_permutation_test(X, Z, kernel, unbiased=unbiased,
                                                  n_permutations=n_permutations, seed=rng,
                                                  max_elements=max_elements)
        bar.update(1)
    # the call's estimate: the attribution's and the permutation test's
    seconds = expl.meta.get("estimated_seconds", 0.0) + mmd_test_work(len(X) + len(Z), d, n_permutations).seconds
    meta = {**expl.meta, "estimated_seconds": seconds, "statistic": statistic,
            "statistic_name": "MMD^2_u" if unbiased else "MMD^2_b", "p_value": p_value,
            "n_permutations": n_permutations, "kernel": repr(kernel), "unbiased": bool(unbiased),
            "n": len(X), "m": len(Z)}
    # v(empty) = 0 exactly (PKeX Lemma 11); the estimator's sum of weights is 0 up to rounding.
    # One signed explanation of the statistic: values (d,), base value 0.
    return _statistic_explanation(expl, meta)


def _plan_call(games, method, max_elements, progress, options, test_work, what, advice) -> list[tuple]:
    """Each game's (estimator, why, resolved options, cost); the whole call refused before any work over ``max_cost``.

    The plans are what the attributions then run with (``run_resolved``): the options resolved
    once, with the route's node-count probes of the cost estimate kept for the run.
    """
    work, plans = test_work, []
    show = None if progress is None else progress_enabled(progress)
    for game in games:
        opts = {**options, "max_elements": max_elements}
        if method in _PRODUCT_METHODS:   # the product routes report into the call's bar
            opts = {"progress": show, **opts}
        est, why, resolved, cost = resolve_method(game, method, opts)
        cost = est.cost(game, resolved) if cost is None else cost
        work = work + cost.work
        advice = advice + [a for a in est.advice(game, resolved) if a not in advice]
        plans.append((est, why, resolved, cost))
    check_cost(work, what, advice)
    return plans


def _run(game, plan, rng) -> Explanation:
    """One game's attribution as :func:`_plan_call` planned it."""
    est, why, resolved, cost = plan
    return run_resolved(game, est, why, resolved, rng, cost)


def _statistic_explanation(expl, meta):
    """The game's single row as one signed explanation of the statistic (values (d,), base 0).

    Intervals and standard errors of a sampled estimator come along.
    """
    row = {name: (None if getattr(expl, name) is None else np.asarray(getattr(expl, name))[0])
           for name in ("stderr", "lower", "upper")}
    return Explanation(np.asarray(expl.values)[0], 0.0, feature_names=expl.feature_names,
                       meta=meta, **row)


_PRODUCT_METHODS = ("product", "quadrature", "stable", "newton")


@contextlib.contextmanager
def _call_progress(progress, stages, desc) -> Iterator[tuple[Any, bool | None]]:
    """One bar for the whole call (its stages report into it); ``progress=False`` silences them all.

    Yields the bar and the ``progress`` to hand the stages (None: from the config).
    """
    show = None if progress is None else progress_enabled(progress)
    with progress_bar(stages, desc, "stage", progress) as bar:
        if show is None:
            yield bar, None
        else:
            with config_context(progress=show):
                yield bar, show


# --------------------------------------------------------------------------- #
# HSIC
# --------------------------------------------------------------------------- #
def _is_labels(Y):
    """Class labels: integer, boolean, string, object or categorical data."""
    if hasattr(Y, "columns"):  # DataFrame
        return all(_kind_is_label(dt) for dt in Y.dtypes)
    dtype = getattr(Y, "dtype", None)
    if dtype is None:
        dtype = np.asarray(Y).dtype
    return _kind_is_label(dtype)


def _kind_is_label(dtype):
    """Anything but floating point (integers, booleans, strings, objects, categories).

    Complex numbers are not labels: they go the numeric way, which refuses them.
    """
    return not (is_float_dtype(dtype) or is_complex_dtype(dtype))


def _encode_labels(Y):
    """Integer codes per column (the delta kernel only compares for equality)."""
    arr = np.asarray(Y, dtype=object)
    if arr.ndim == 1:
        arr = arr[:, None]
    out = np.empty(arr.shape, dtype=float)
    for j in range(arr.shape[1]):
        col = arr[:, j]
        if any(x is None or (isinstance(x, float) and np.isnan(x)) for x in col):
            raise ValueError("the class labels contain missing values (None/NaN)")
        _, codes = np.unique(col.astype(str), return_inverse=True)
        out[:, j] = codes
    return out


def _prepare_target(Y, n, kernel_y):
    """(Y as a float matrix, its kernel, its feature names, whether labels)."""
    if Y is None:
        raise ValueError("Y is None; pass the target (n,) or (n, d_y)")
    names = feature_names_of(Y)
    series_name = getattr(Y, "name", None)
    length = len(Y) if hasattr(Y, "__len__") else np.asarray(Y).shape[0]
    if length != n:
        raise ValueError(
            f"Y has {length} rows but X has {n}; HSIC needs one target value per row of X"
        )
    Ym, labels = _target_matrix(Y, n, kernel_y)
    dy = Ym.shape[1]
    if names is None:
        names = [str(series_name)] if (series_name is not None and dy == 1) else \
            (["y"] if dy == 1 else [f"y{j}" for j in range(dy)])
    if np.all(np.ptp(Ym, axis=0) == 0):
        raise ValueError("Y is constant: HSIC with a constant target is 0 and there is nothing to attribute")
    return Ym, _target_kernel(Ym, kernel_y, labels), list(names), labels


def _target_matrix(Y, n, kernel_y):
    """(Y as an (n, d_y) float matrix, whether labels): class labels as integer codes, numbers checked."""
    labels = isinstance(kernel_y, str) and kernel_y in ("delta", "categorical")
    if kernel_y is None:
        labels = _is_labels(Y)
    if isinstance(kernel_y, str) and not labels:
        raise ValueError(f"kernel_y must be None, 'delta' or a kernelxai kernel; got {kernel_y!r}")
    if labels:
        return _encode_labels(Y), labels
    return check_matrix(as_real_array(Y, "Y").reshape(n, -1) if np.ndim(Y) == 1 else Y, "Y"), labels


def _target_kernel(Ym, kernel_y, labels):
    """The kernel on Y: delta for labels, the one given, or RBF by the median heuristic."""
    if labels:
        return Categorical()
    if kernel_y is None:
        return RBF(median_heuristic(Ym, pooled=True))
    if not isinstance(kernel_y, Kernel):
        raise TypeError(f"kernel_y must be None, 'delta' or a kernelxai kernel; got "
                        f"{type(kernel_y).__name__}")
    return kernel_y


@parameters("kx.explainers.hsic_permutation_test", X=Data(), Y=Data(),
            kernel_x=InstanceOf((Kernel,), "a kernelxai kernel"), kernel_y=InstanceOf((Kernel,), "a kernelxai kernel"),
            n_permutations=Integer(0), seed=Seed(), max_elements=Integer(1, none=True))
def hsic_permutation_test(X: ArrayLike, Y: ArrayLike, kernel_x: Kernel, kernel_y: Kernel, *,
                          n_permutations: int = 200, seed: int | np.random.Generator | None = None,
                          max_elements: int | None = None) -> tuple[float, float]:
    r""":math:`\mathrm{HSIC}` and its permutation-test p-value (Gretton et al. 2007).

    The statistic is :math:`\mathrm{HSIC} = \operatorname{tr}(K H L H) / (n-1)^2`.
    The rows of Y are shuffled against X ``n_permutations`` times;
    :math:`p = \big(1 + \#\{\mathrm{HSIC}_{\mathrm{perm}} \ge \mathrm{HSIC}\}\big) / (1 + B)`. Neither
    :math:`n \times n` Gram matrix is held whole: with :math:`\bar k` the row means of :math:`K`,
    :math:`\operatorname{tr}(K H L H)` is the sum of
    :math:`(K_{ij} - \bar k_i - \bar k_j + \operatorname{mean}(\bar k))\, L_{ij}`, accumulated over row blocks of
    :math:`K` and :math:`L` (the permuted :math:`L`'s rows are those of ``Y[p]``). Memory is
    :math:`O(\text{max\_elements} + n B)`; time :math:`O(n^2 (B + 2))` kernel evaluations.

    Parameters
    ----------
    X : ndarray (n, d)
    Y : ndarray (n, d_y)
    kernel_x, kernel_y : Kernel
        ``kernel_x`` must be symmetric (every kernel in kernelxai is).
    n_permutations : int, default 200
    seed : int or Generator, optional
    max_elements : int, optional
        float64 numbers one block of Gram rows may hold; default a quarter of
        ``kx.config_context(max_memory=...)`` (four such blocks are alive at once).

    Returns
    -------
    statistic : float
        HSIC of X and Y (the biased estimate with the :math:`1/(n-1)^2` scaling).
    p_value : float
        The permutation p-value, in [1 / (1 + B), 1]; NaN when
        ``n_permutations`` is 0.

    Raises
    ------
    CostLimitError
        When the test's estimated cost exceeds ``kx.config_context(max_cost=...)``.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from kernelxai.explainers import hsic_permutation_test
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 2)); Y = X[:, :1] ** 2 + 0.1 * rng.normal(size=(20, 1))
    >>> k = kx.kernels.RBF(1.0)
    >>> stat, p = hsic_permutation_test(X, Y, k, k, n_permutations=50, seed=0)
    >>> round(stat, 4), round(p, 4)
    (0.0156, 0.0196)
    """
    X = check_matrix(X, "X")
    Y = check_matrix(as_real_array(Y, "Y").reshape(len(X), -1), "Y")
    rng = check_rng(seed)
    n = len(X)
    B = int(n_permutations)
    show = _check_hsic_test(n, X.shape[1], Y.shape[1], B)
    perms = [rng.permutation(n) for _ in range(B)]
    budget = _budget(max_elements, share=4)
    step = max(1, budget // n)
    blocks = [(r0, min(n, r0 + step)) for r0 in range(0, n, step)]
    kbar = np.empty(n)                              # row (= column) means of K
    for r0, r1 in blocks:
        kbar[r0:r1] = _gram_rows(kernel_x, X[r0:r1], X, budget).mean(axis=1)
    kgrand = float(kbar.mean())
    sums = np.zeros(B + 1)
    for r0, r1 in progress_iter(blocks, "HSIC permutation test", "block", progress=show):
        Kc = _gram_rows(kernel_x, X[r0:r1], X, budget)   # rows r0:r1 of H K H
        Kc -= kbar[r0:r1, None]
        Kc -= kbar[None, :]
        Kc += kgrand
        sums[0] += np.einsum("ij,ij->", Kc, _gram_rows(kernel_y, Y[r0:r1], Y, budget))
        for b, p in enumerate(perms, start=1):      # L permuted: k(Y[p_i], Y[p_j])
            Yp = Y[p]
            sums[b] += np.einsum("ij,ij->", Kc, _gram_rows(kernel_y, Yp[r0:r1], Yp, budget))
    stats = sums / (n - 1) ** 2
    observed = float(stats[0])
    if B == 0:
        return observed, float("nan")
    return observed, float((1 + np.sum(stats[1:] >= observed)) / (1 + B))


@parameters("kx.explain_hsic", consumers=option_takers, X=Data(), Y=Data(), kernel_x=_KERNEL,
            kernel_y=Either(OneOf("delta", "categorical"), InstanceOf((Kernel,), "a kernelxai kernel"), none=True),
            attribute=OneOf("auto", "x", "y", "both"), **_PARAMETERS)
def explain_hsic(X: ArrayLike, Y: ArrayLike, kernel_x: Kernel | None = None, kernel_y: Kernel | str | None = None, *,  # noqa: PLR0913 - keyword options of a public entry point, as scikit-learn's
                 attribute: str = "auto", method: str | Estimator = "product", n_permutations: int = 200,
                 seed: int | np.random.Generator | None = None, max_elements: int | None = None,
                 progress: bool | None = None, **options: Any) -> Explanation:
    r"""Shapley values of HSIC(X, Y) over the features of X (PKeX Prop. 8; App. G for Y).

    Parameters
    ----------
    X : array (n, d) or DataFrame
    Y : array (n,) or (n, d_y), Series or DataFrame
        Target. Integer, boolean, string or categorical data are class labels
        and get the delta kernel k(y, y') = [y == y'] (as in PKeX §5.3);
        floats get an RBF kernel.
    kernel_x : ProductKernel, optional
        Default: RBF with one lengthscale by the pooled median heuristic on X.
        Standardise features of different scales first, or pass a per-feature
        kernel.
    kernel_y : Kernel, "delta", optional
        Default: delta for class labels, else RBF by the median heuristic.
        Attributing to Y's features needs a product kernel.
    attribute : {"auto", "x", "y", "both"}
        Whose features share HSIC: X's (PKeX Prop. 8), Y's (App. G, :math:`L_S` with
        :math:`K` fixed), or both -- two rows, one per game, each summing to HSIC,
        with the other side's columns 0. "auto": "x" for a single target
        column, "both" for a multivariate Y.
    method : str
        Estimator of :func:`kernelxai.shapley_values` (default exact quadrature).
    n_permutations : int, default 200
        Permutations for the p-value (0 skips the test). Each costs :math:`n^2`
        kernel evaluations; memory stays bounded by ``max_elements``.
    seed : int or Generator, optional
    max_elements : int, optional
        float64 numbers one block of pair terms or Gram rows may hold; default
        a quarter of ``kx.config_context(max_memory=...)`` (256 MiB by default).
        Nothing of size n x n is ever formed, so any n fits in memory.
    progress : bool, optional
        Show one progress bar for the call (one stage per game and one for
        the test); ``False`` silences them all. Default:
        ``kx.config_context(progress=...)``.
    **options
        Passed to the estimator (e.g. ``n_samples`` of a sampling method).

    Returns
    -------
    Explanation
        With one side ("x" or "y"): one signed explanation of HSIC, values
        of shape (d,) (or (d_y,)) with base value 0 and ``values.sum() ==
        HSIC``, so ``kx.plots.bar(e)`` draws signs. With ``attribute="both"``:
        two rows, one per game (``meta["rows"] == ["x", "y"]``), over X's
        features followed by Y's, the other side's entries 0; each row sums
        to HSIC. Plot one side with ``kx.plots.bar(e[0])`` (X) or
        ``e[1]`` (Y): the two rows are two splits of the same statistic, not
        two instances, so a global (mean ``|phi|``) plot of both is not meaningful.
        ``e.statistic`` and ``e.p_value`` are HSIC and its permutation
        p-value (shown in the repr, e.g. ``HSIC = 0.012, p = 0.005``);
        ``meta`` holds them as ``statistic`` and ``p_value`` too, with
        ``n_permutations``, ``kernel_x``, ``kernel_y``, ``labels``, ``rows``
        (which game each row is; one entry with one side) and ``n``.

    Raises
    ------
    ValueError
        When ``attribute`` is not one of the four choices, Y is None, constant,
        has a row count other than X's or missing labels, X has fewer than 3
        rows, an attributed side has fewer than 2 features or a constant
        feature, ``kernel_y`` is an unknown string, or ``n_permutations`` < 0.
    TypeError
        When a kernel is not a kernelxai kernel, or the attributed side's
        kernel is not a product kernel.
    CostLimitError
        When the permutation test would exceed ``kx.config_context(max_cost=...)``
        (checked before any work).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 3))
    >>> y = X[:, 0] + 0.1 * rng.normal(size=30)     # y depends on feature 0 only
    >>> e = kx.explain_hsic(X, y, seed=0)
    >>> bool(np.isclose(e.values.sum(), e.statistic)), int(np.argmax(e.values)), e.p_value < 0.05
    (True, 0, True)
    """
    max_elements = _budget(max_elements, share=4)
    x_names = feature_names_of(X)
    X = check_matrix(X, "X", min_rows=3)
    n, d = X.shape
    x_names = x_names or [f"x{j}" for j in range(d)]
    Ym, kernel_y, y_names, labels = _prepare_target(Y, n, kernel_y)
    if attribute == "auto":
        attribute = "x" if Ym.shape[1] == 1 else "both"
    sides = {"x": ["x"], "y": ["y"], "both": ["x", "y"]}[attribute]
    kernel_x, kernel_y = _hsic_kernels(X, Ym, kernel_x, kernel_y, sides, x_names, y_names)
    rng = check_rng(seed)
    _check_hsic_test(n, d, Ym.shape[1], n_permutations)   # cheap to price: refused before the games are built
    games = {side: _hsic_game(side, X, Ym, kernel_x, kernel_y, x_names if side == "x" else y_names, max_elements)
             for side in sides}
    test_work = hsic_test_work(len(X), X.shape[1], Ym.shape[1], n_permutations)
    # the whole call priced before any work: each side's attribution and the permutation test
    plans = _plan_call(list(games.values()), method, max_elements, progress, options, test_work,
                       f"explain_hsic (n = {n}, attribute={attribute!r}: the attribution and the HSIC "
                       f"permutation test, {n_permutations} permutations)",
                       ["fewer permutations (n_permutations=...)", "a subsample of the rows"])
    rows, row_names = [], []
    meta = {}
    seconds = test_work.seconds
    with _call_progress(progress, len(sides) + 1, "explain_hsic") as (bar, _):
        for side in sides:
            game = games[side]
            e = _run(game, plans[sides.index(side)], rng)
            meta.update(e.meta)
            seconds += e.meta.get("estimated_seconds", 0.0)
            rows.append((side, e))
            row_names.append(side)
            bar.update(1)
        statistic, p_value = hsic_permutation_test(X, Ym, kernel_x, kernel_y,
                                                   n_permutations=n_permutations, seed=rng,
                                                   max_elements=max_elements)
        bar.update(1)
    meta.update({"estimated_seconds": seconds, "statistic": statistic, "statistic_name": "HSIC", "p_value": p_value,
                 "n_permutations": n_permutations, "kernel_x": repr(kernel_x),
                 "kernel_y": repr(kernel_y), "labels": bool(labels), "rows": row_names, "n": n,
                 "value_function": "HSIC functional baseline (PKeX Def. 7 / App. G)"})
    if len(sides) == 1:   # one signed explanation of HSIC: values (d,), base value 0
        return _statistic_explanation(rows[0][1], meta)
    return _both_sides_explanation(rows, d, Ym.shape[1], x_names + y_names, meta)


def _hsic_kernels(X, Ym, kernel_x, kernel_y, sides, x_names, y_names):
    """(kernel_x, kernel_y) checked for the attributed sides: a product kernel and two features or more each."""
    d = X.shape[1]
    if "x" in sides:
        _check_features(d, "HSIC")
    _check_not_constant(X, x_names, "X")
    if kernel_x is None:
        kernel_x = RBF(median_heuristic(X, pooled=True))
    if "x" in sides:
        kernel_x = _check_product_kernel(kernel_x, "kernel_x", d)
    elif not isinstance(kernel_x, Kernel):
        raise TypeError(f"kernel_x must be a kernelxai kernel or None; got {type(kernel_x).__name__}")
    if "y" in sides:
        _check_features(Ym.shape[1], "HSIC (Y side)")
        _check_not_constant(Ym, y_names, "Y")
        kernel_y = _check_product_kernel(kernel_y, "kernel_y", Ym.shape[1])
    return kernel_x, kernel_y


def _hsic_game(side, X, Ym, kernel_x, kernel_y, names, max_elements):
    """The HSIC game over X's features (``side="x"``, PKeX Def. 7) or over Y's (``"y"``, App. G)."""
    if side == "x":
        return HSICGame(X, Ym, kernel_x, kernel_y, player_names=names,
                        meta={"value_function": "HSIC functional baseline (PKeX Def. 7)"},
                        max_elements=max_elements)
    return HSICGame(Ym, X, kernel_y, kernel_x, player_names=names,
                    meta={"value_function": "HSIC functional baseline, Y side (PKeX App. G)"},
                    max_elements=max_elements)


def _both_sides_explanation(rows, dx, dy, names, meta):
    """Two rows (one per game), X's features then Y's, the other side's entries 0.

    ``rows`` is ``[("x", explanation of X's game), ("y", explanation of Y's game)]``; intervals and
    standard errors come along when both games have them.
    """
    widths = {"x": dx, "y": dy}
    cols = {"x": slice(0, dx), "y": slice(dx, dx + dy)}
    parts = {}
    for name in ("values", "stderr", "lower", "upper"):
        if all(getattr(e, name) is not None for _, e in rows):
            block = np.zeros((2, dx + dy))
            for r, (side, e) in enumerate(rows):
                block[r, cols[side]] = np.asarray(getattr(e, name))[0, :widths[side]]
            parts[name] = block
    return Explanation(parts.pop("values"), np.zeros(2), feature_names=names, meta=meta, **parts)
