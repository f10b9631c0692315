"""Stochastic Shapley values of Gaussian process regression (GP-SHAP).

A fitted Gaussian process gives a posterior distribution over functions f.
Every Shapley value is a linear functional of f: for the interventional value
function v_x(S) = (1/m) sum_b f(x_S, b_{S^c}), the Shapley values of the point
x are ``phi_x = A f(Z_x)`` where ``Z_x`` holds the evaluation points
(x_S, b_{S^c}) over all coalitions S and background rows b, and A combines
the Shapley weights with the factor 1/m (the observational value function
replaces 1/m by the conditional-mean-embedding weights beta_b(x_S)). So phi is
jointly Gaussian with mean ``A m(Z_x)`` (the Shapley values of the posterior
mean, which :func:`kernelxai.explain` computes) and covariance
``A c(Z_x, Z_x') A^T`` with c the posterior covariance of the latent function
(Chau, Muandet & Sejdinovic, NeurIPS 2023).

Three routes compute the covariance:

``"exact"``
    enumerates the 2^d coalitions: the cells (x_S, b_{S^c}) of every
    coalition, their weights, and the Shapley weight matrix. Any kernel, both
    value functions; 2^d * m evaluation points per explained point.
``"product"``
    for product kernels (and sums of them) and the interventional value
    function, without enumerating coalitions: the cross term
    ``Psi K^-1 Psi^T`` has ``Psi`` = Shapley values of the product games
    S -> mean_b k((x_S, b_{S^c}), x_i), and the prior term
    ``A k(Z_x, Z_x') A^T`` is, per pair of background rows, a double Shapley
    transform of a product of 2 x 2 factors, which the Beta-integral identity
    turns into a 2-D Gauss-Legendre integral with ceil(d/2)^2 nodes (exact).
    O(m^2 d^4 / 4) per point instead of O((2^d m)^2 d).
``"sampled"``
    permutation sampling of coalitions for the cases no exact route reaches:
    each permutation gives an unbiased linear estimate W_p f(Z) of phi, and the
    covariance is the U-statistic ``sum_{p != q} W_p C W_q^T / (P (P - 1))``,
    unbiased for ``A C A^T`` (the products of independent permutations), with
    jackknife standard errors of every entry.

With ``index=`` the same holds for interaction indices of any order:
``kernelxai.explainers._gp_interactions`` computes their posterior covariances (exactly, by
enumeration or by the product maths of ``kernelxai.explainers._gp_interaction_product``).

The fitted GP is taken in ``kernelxai.explainers._gp_posterior``, the routes
live in ``kernelxai.explainers._gp_routes`` (the product maths in
``kernelxai.explainers._gp_product``), and :class:`ShapleyPrior`
(``kernelxai.explainers._shapley_prior``, re-exported here) turns the same covariance, taken under the GP *prior*,
into a matrix-valued kernel over explanation functions and predicts Shapley
values (with credible bands) at new points from values computed at others.

>>> import numpy as np, kernelxai as kx
>>> from sklearn.gaussian_process import GaussianProcessRegressor
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(20, 2)); y = X[:, 0] - X[:, 1] ** 2
>>> gp = GaussianProcessRegressor().fit(X, y)
>>> e = explain_gp(gp, X[:3])
>>> e.covariance.shape
(3, 2, 2)
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .._calibration import Work
from .._params import Anything, Boolean, Checked, Data, Integer, OneOf, Real, Seed, parameters
from .._threads import small_blas
from ..estimators._interaction_orders import check_index_name
from ..estimators._registry import CALL_STEPS, check_cost
from ..explanation import Explanation, Interactions
from ..parallel import plan_rows, run_rows
from ..parallel._chunking import check_n_jobs, check_rows_per_chunk
from ..parallel._merging import concat_results
from ..parallel._runner import execution
from ..parallel._seeding import shared_seed
from ._explain import explain
from ._gp_interactions import GPInteractionCall, refuse_interaction_options
from ._gp_posterior import Z95, check_rows, efficiency_variance, fitted_gp, gp_background, one_vs_rest
from ._gp_product import product_terms
from ._gp_routes import CovarianceProblem, choose_route, get_route, observational_weights, uniform_weights
from ._shapley_prior import ShapleyPrior

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from numpy.typing import ArrayLike

__all__ = ["explain_gp", "ShapleyPrior"]

_METHODS = ("auto", "exact", "product", "sampled")

_VALUES = ("interventional", "observational")


def _check_index(index):
    """An interaction index (SV, BV, SII, BII, CHII, k-SII, STII, FSII, FBII, Moebius, Co-Moebius, SGV, BGV,
    CHGV, IGV, EGV, or an alias) or None (first-order Shapley values)."""
    return None if index is None else check_index_name(index)


@parameters("kx.explain_gp", gp=Anything(), X=Data(), value=OneOf(*_VALUES), background=Data(none=True),
            index=Checked(_check_index), order=Integer(1), sets=Anything(none=True), top=Integer(1, none=True),
            set_covariance=Boolean(), joint=Boolean(), method=OneOf(*_METHODS), eta=Real(0.0),
            budget=Integer(1, none=True), seed=Seed(), n_jobs=Checked(check_n_jobs),
            rows_per_chunk=Checked(check_rows_per_chunk))
def explain_gp(gp: Any, X: ArrayLike, value: str = "interventional", background: ArrayLike | None = None, *,  # noqa: PLR0913 - the GP, its points and value function, then keyword options as scikit-learn's
               index: str | None = None, order: int = 1, sets: Iterable[Sequence[str | int]] | None = None,
               top: int | None = None, set_covariance: bool = False, joint: bool = False, method: str = "auto",
               eta: float = 1e-3, budget: int | None = None, seed: int | np.random.Generator | None = None,
               n_jobs: int | None = None, rows_per_chunk: int | None = None) -> Explanation:
    r"""Shapley values (or interactions of any order) of a Gaussian process posterior, with their exact covariance.

    Under the posterior, the function f is random, and so are its Shapley
    values. They are jointly Gaussian: their mean is the Shapley values of the
    posterior mean (exactly ``kx.explain(gp, X, value=value,
    background=background)``), and their covariance is :math:`A C A^\top` with :math:`C` the
    posterior covariance of the *latent* function at the evaluation points
    :math:`(x_S, b_{S^c})` and :math:`A` the Shapley weights times the value function's
    weights of the background rows.

    With ``index=`` (any interaction index, any order) the same holds for every set's index
    value, :math:`I_T(x) = \sum_S a_T(S)\, v_x(S)`: the mean is
    ``kx.explain_interactions(gp, X, value, background, index=..., order=...)`` and the
    covariance :math:`A_I C A_I^\top`, with :math:`A_I` the index's weights on the coalitions
    times the value function's weights.

    Parameters
    ----------
    gp : sklearn.gaussian_process.GaussianProcessRegressor
        Fitted, single output, any kernel :func:`kernelxai.models.as_expansion`
        converts. ``normalize_y=True`` is taken into account (values and
        covariances are in the units of y). A ``WhiteKernel`` is treated as
        observation noise: the covariance is that of the latent function f,
        not of noisy observations y. Or a fitted binary
        ``GaussianProcessClassifier``: its latent function (the log-odds of
        the second class) under scikit-learn's Laplace approximation, whose
        posterior is Gaussian with covariance :math:`k - k_X W^{1/2} B^{-1} W^{1/2} k_X`
        (the one ``predict_proba`` integrates over); the mean
        is ``kx.explain(gp, X, output="latent")``. Or a fitted multi-class
        ``GaussianProcessClassifier`` (one-vs-rest): scikit-learn fits one
        binary Laplace classifier per class c (``gp.base_estimator_.estimators_``),
        whose latent function is the log-odds of c against the rest; each is
        explained as the binary case, and the classes form the outputs axis.
    X : array (n, d) or DataFrame
        Points to explain.
    value : {"interventional", "observational"}
        ``"interventional"``: :math:`v_x(S) = \frac{1}{m} \sum_b f(x_S, b_{S^c})`.
        ``"observational"``: :math:`v_x(S) = \sum_b \beta_b(x_S)\, f(x_S, b_{S^c})` with the
        conditional-mean-embedding weights of RKHS-SHAP (product kernels,
        regularisation ``eta``), as ``kx.explain(gp, X, "observational")``.
    background : array (m, d), optional
        Background rows :math:`b`; defaults to the GP's training inputs. The work
        grows as :math:`m^2`: keep :math:`m` modest (``kx.explainers.subsample`` or
        ``kx.explainers.summarize``).
    index : str, optional
        An interaction index, as in :func:`kernelxai.explain_interactions`: SV, BV, SII, BII,
        CHII, k-SII, STII, FSII, FBII, Moebius, Co-Moebius, SGV, BGV, CHGV, IGV, EGV
        (case-insensitive, aliases such as ``"ksii"`` work). None (the default): first-order
        Shapley values, as without it (``order``, ``sets``, ``top`` and ``set_covariance``
        are then refused).
    order : int
        With ``index``: k, meaning what it means in :func:`kernelxai.explain_interactions`
        (every size 1..k for k-SII, STII, FSII, FBII; the sets of size k otherwise).
    sets : list of sets, optional
        With ``index``: only these sets (tuples of feature names or positions).
    top : int, optional
        With ``index``: per point and size the ``top`` sets of largest absolute posterior
        mean, with their posterior standard deviations (not with ``set_covariance``).
    set_covariance : bool
        With ``index``: also the posterior covariance between all the sets returned, per
        point (``interaction_orders.covariance``, (n, M, M)).
    joint : bool
        Also return the covariance across points and features,
        ``joint_covariance`` of shape (n*d, n*d), ordered point-major
        (index ``i * d + j``). First-order Shapley values only (with ``index`` ask for
        ``set_covariance``).
    method : {"auto", "exact", "product", "sampled"}
        How the covariance is computed: ``"exact"`` enumerates the :math:`2^d` coalitions
        (any kernel, either value function), ``"product"`` integrates the interventional
        values of product kernels in polynomial time, ``"sampled"`` estimates it from random
        permutations (with jackknife standard errors; first-order Shapley values only).
        ``"auto"``: ``"product"`` for interventional values of a product
        kernel (or a sum of them), else ``"exact"`` while :math:`2^d m` evaluation
        points are affordable, else ``"sampled"`` (with ``index``: refused, with the
        reason).
    eta : float
        CME regularisation of the observational value function.
    budget : int, optional
        Sampled route: game evaluations per explained point, turned into
        ``ceil(budget / (d - 1))`` permutations (default 64 permutations).
    seed : int or Generator, optional
        Seed of the sampled route (``random_state=``, scikit-learn's name, is accepted too).
    n_jobs : int, optional
        Workers over chunks of rows with joblib, as in :func:`kernelxai.explain`
        (``joint=False`` only); the result does not depend on it (:mod:`kernelxai.parallel`).
    rows_per_chunk : int, optional
        Rows per chunk; default from the cost model.

    Returns
    -------
    Explanation
        ``values`` (n, d) the posterior-mean Shapley values, ``base_values``
        as ``kx.explain`` gives them, ``covariance`` (n, d, d) the posterior
        covariance of each point's Shapley values, ``stderr`` their posterior
        standard deviations and ``lower`` / ``upper`` the 95% credible bounds
        ``values -/+ 1.96 stderr``; ``joint_covariance`` (n*d, n*d) when
        ``joint=True``. ``meta["method"]`` names the route; the sampled route
        adds ``meta["covariance_mc_stderr"]`` (n, d, d), the jackknife
        standard errors of the covariance entries. For a multi-class
        classifier every array gains a trailing outputs axis of length k (one
        per class, ``output_names`` the class labels): ``values`` (n, d, k),
        ``covariance`` (n, d, d, k), ``joint_covariance`` (n*d, n*d, k);
        output c equals ``explain_gp`` of class c's binary classifier, whose
        latent GP is fitted separately (no covariance across classes is
        given), and the sampled route uses the same permutations for every
        class. ``meta["outputs"]`` says so.

        With ``index``: ``interaction_orders`` (:class:`~kernelxai.explanation.Interactions`)
        holds, per set size t, the sets and the posterior mean of each set's index
        (``interaction_orders[t].values``, as ``kx.explain_interactions`` gives them) and its
        posterior standard deviation (``interaction_orders[t].stderr``, same shape, same
        layout: dense, ``sets=`` or ``top=``); with ``set_covariance=True``
        ``interaction_orders.covariance`` (n, M, M) is the posterior covariance between the
        M sets of each point, in the order of ``interaction_orders.covariance_labels()``
        (sizes ascending, each block's sets in order). ``values`` are the index's values of
        the single features (as ``kx.explain_interactions``); where the sets of size 1 are
        returned, ``stderr``, ``lower`` and ``upper`` are theirs (95% credible bounds) and,
        with ``set_covariance``, ``covariance`` (n, d, d) too. ``interaction_orders.to_frame()``
        has a ``stderr`` column; JSON round-trips it all. ``meta["method"]`` is the
        covariance route (``"exact"`` or ``"product"``), ``meta["mean_method"]`` the mean's.

    Raises
    ------
    TypeError
        If ``gp`` is not a GaussianProcessRegressor or GaussianProcessClassifier.
    ValueError
        If ``gp`` is unfitted, a multi-output regressor or a one-vs-one
        classifier, if ``value`` or ``method`` is
        not accepted or not applicable, if the shapes do not match, or if the
        evaluation points exceed the exact route's limit. With ``index``: an order the
        index does not have, ``method="sampled"``, ``budget``, ``joint=True``, ``top`` with
        ``set_covariance=True``; without it, any of ``order``, ``sets``, ``top``,
        ``set_covariance``.
    CostLimitError
        The estimated time exceeds ``kx.get_config()["max_cost"]``.
    RuntimeError
        If the computed covariance violates efficiency (the variance of the
        sum of the Shapley values must equal :math:`\mathrm{Var}\big(f(x) - v_x(\emptyset)\big)`).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> y = np.sin(X[:, 0]) + 0.1 * X[:, 1]
    >>> gp = GaussianProcessRegressor(RBF(1.0), alpha=1e-2, optimizer=None).fit(X, y)
    >>> e = kx.explain_gp(gp, X[:3], background=X)
    >>> e.values.shape, e.covariance.shape   # posterior means and (d, d) covariances per point
    ((3, 2), (3, 2, 2))

    Interactions of any order with their posterior standard deviations (k-SII of order 2:
    the single features and the pair):

    >>> e = kx.explain_gp(gp, X[:3], background=X[:10], index="k-SII", order=2, set_covariance=True)
    >>> pair = e.interaction_orders[2]
    >>> pair.values.shape, pair.stderr.shape, e.interaction_orders.covariance.shape
    ((3, 1), (3, 1), (3, 3, 3))
    >>> e.interaction_orders.covariance_labels()
    ['x0', 'x1', 'x0 × x1']
    >>> list(e.interaction_orders.to_frame().columns)
    ['point', 'order', 'set', 'value', 'stderr']
    """
    binaries = one_vs_rest(gp)
    if binaries is not None:
        return _explain_classes(binaries, X, value, background, joint=joint, method=method, eta=eta,
                                budget=budget, seed=seed, n_jobs=n_jobs, rows_per_chunk=rows_per_chunk,
                                index=index, order=order, sets=sets, top=top, set_covariance=set_covariance)
    fitted = fitted_gp(gp)
    # value, method, joint, budget, seed, X and background (sparse densified): declared above
    if index is None:
        refuse_interaction_options(order, sets, top, set_covariance)
        call = _GPCall(fitted, X, value, background, joint=joint, method=method, eta=eta, budget=budget)
    else:
        _refuse_first_order_options(joint, budget)
        call = GPInteractionCall(fitted, X, value, background, request=(index, order, sets, top, set_covariance),
                                 method=method, eta=eta)
    call.check_cost()
    chunked = _in_chunks(call, gp, X, n_jobs=n_jobs, rows_per_chunk=rows_per_chunk, seed=seed)
    if chunked is not None:
        return chunked
    if index is None:
        return call.explanation(call.mean(X), call.covariance(seed))
    mean = call.mean(X)
    return call.explanation(mean, call.covariance(mean))


def _refuse_first_order_options(joint, budget) -> None:
    """With ``index=``: refuse the options of first-order Shapley values only."""
    if joint:
        raise ValueError("joint=True gives the covariance of first-order Shapley values across points; with "
                         "index= ask for set_covariance=True (per point, the covariance between the sets "
                         "returned)")
    if budget is not None:
        raise ValueError("budget applies to method='sampled', which estimates first-order Shapley values only; "
                         "an interaction index's covariance is exact (method='product' or 'exact')")


class _Covariance(NamedTuple):
    """The covariance stage's result: per point (n, d, d), across points (n*d, n*d) or None, and
    the sampled route's Monte Carlo standard errors (n, d, d) or None."""

    per_point: np.ndarray
    joint: np.ndarray | None
    mc_stderr: np.ndarray | None


class _GPJob(NamedTuple):
    """What every chunk of rows of one :func:`explain_gp` call shares (:func:`_explain_gp_rows`)."""

    gp: object
    value: str
    background: np.ndarray
    method: str
    eta: float
    budget: int | None
    seed: object
    options: dict


class _GPCall:
    """One :func:`explain_gp` call of one GP (a binary classifier or a regressor), stage by stage.

    Made from the checked arguments: the points and background rows, the
    covariance route (a plug-in of ``kernelxai.explainers._gp_routes``),
    the value function's cell weights and the work the route prices. Then
    :meth:`check_cost` (the cost guard, before any work), ``_in_chunks``
    (the rows in chunks with joblib), :meth:`mean` (``kx.explain`` of the
    posterior mean), :meth:`covariance` (the route's blocks, checked against
    efficiency) and :meth:`explanation` (the result and its ``meta``).
    """

    def __init__(self, fitted, X, value, background, *, joint, method, eta, budget):
        post = fitted.post
        d = post.X_train.shape[1]
        self.fitted, self.post, self.value, self.joint, self.eta, self.budget = \
            fitted, post, value, joint, eta, budget
        # the columns kx.explain requires: those the GP was fitted with (else the background's)
        self.Xa = check_rows(X, d, model=fitted.mean_model, sample=background)
        self.B = gp_background(background, post.X_train, d, model=fitted.mean_model)
        self.n, self.m, self.d = self.Xa.shape[0], self.B.shape[0], d
        terms = product_terms(post.kernel, d) if value == "interventional" else None
        self.route = get_route(choose_route(method, value, terms, d, self.m, self.n, joint))
        self.problem = CovarianceProblem(post, self.B, terms, self._weights(),
                                         self.route.permutations(budget, d))
        self.per = self.route.cost(d, self.m, post.n_train, self.route.cells(d, self.problem.n_permutations))
        # plus the call's own steps (checks, the posterior, the Explanation) and each point's
        # efficiency check (a small posterior covariance)
        self.work = self.per * (self.n * self.n if joint else self.n) + Work(steps=CALL_STEPS + 150.0 * self.n)

    def _weights(self):
        """The value function's cell weights; observational values need a kernel of one product term."""
        if self.value != "observational":
            return functools.partial(uniform_weights, m=self.m)
        kernel = self.post.kernel
        terms = product_terms(kernel, self.d)
        if terms is None or len(terms) != 1:
            raise ValueError(
                "value='observational' in explain_gp uses RKHS-SHAP's conditional mean embedding of "
                "a product kernel (RBF, ARD or not, times a constant, plus a WhiteKernel); this GP's "
                f"kernel {kernel} is not one. Use value='interventional'."
            )
        return observational_weights(self.fitted.regressor, self.B, self.eta)

    def check_cost(self) -> None:
        """The cost guard: refuse (CostLimitError) a call above ``max_cost`` before any work."""
        check_cost(self.work,
                   f"the {self.route.name} GP-SHAP covariance ({self.n} points, d = {self.d}, m = {self.m} "
                   f"background rows, {self.post.n_train} training points{', jointly' if self.joint else ''})",
                   ["a smaller background (kx.explainers.subsample / summarize)", "fewer explained points",
                    "joint=False"])

    options: dict = {}

    def mean(self, X) -> Explanation:
        """The Shapley values of the posterior mean, exactly as ``kx.explain`` gives them."""
        options = dict(self.fitted.mean_options, **({"eta": self.eta} if self.value == "observational" else {}))
        return explain(self.fitted.mean_model, X if np.ndim(X) == 2 else self.Xa, value=self.value,
                       background=self.B, **options)

    def covariance(self, seed) -> _Covariance:
        """The route's covariance of the points' Shapley values, symmetrised and checked against efficiency."""
        n, d = self.n, self.d
        # solves and products with the training system on one BLAS thread when it is small (as
        # the cost guard prices them; two threads were measured slower, idle or busy)
        with small_blas(self.post.n_train):
            computation = self.route.computation(self.problem, seed)
            joint_cov = mc_err = None
            if self.joint:
                joint_cov = computation.block(self.Xa).transpose(0, 2, 1, 3).reshape(n * d, n * d)  # (n, n, d, d)
                joint_cov = 0.5 * (joint_cov + joint_cov.T)
                cov = np.stack([joint_cov[i * d:(i + 1) * d, i * d:(i + 1) * d] for i in range(n)])
                if self.route.estimated:
                    _, mc_err = computation.per_point(self.Xa)
            else:
                cov, mc_err = computation.per_point(self.Xa)
            cov = 0.5 * (cov + np.transpose(cov, (0, 2, 1)))
            self._check_efficiency(cov)
        return _Covariance(cov, joint_cov, mc_err)

    def _check_efficiency(self, cov) -> None:
        """Efficiency draw by draw: 1^T Cov(phi_x) 1 == Var(f(x) - v_x(empty)); variances not below zero.

        Exact for every route (each permutation's estimate is efficient, so the
        U-statistic is too). A variance that is zero but for rounding (a point the GP
        interpolates) can come out a hair below zero: it is set to zero, to the
        same tolerance.
        """
        for i in range(self.n):
            target, size = efficiency_variance(self.post, self.Xa[i], self.B)
            got = cov[i].sum()
            tol = 1e-8 * max(size, np.finfo(float).tiny)
            if abs(got - target) > tol:
                raise RuntimeError(
                    f"efficiency violated at row {i} of X: 1^T Cov(phi) 1 = {got!r} but "
                    f"Var(f(x) - v_x(empty)) = {target!r}; please report this"
                )
            diag = np.einsum("jj->j", cov[i])
            if diag.min() < -tol:
                raise RuntimeError(f"a negative posterior variance {diag.min()!r} of a Shapley value at row {i} "
                                   f"of X (beyond rounding, {tol:.3g}); please report this")
            diag[diag < 0] = 0.0

    def explanation(self, mean, covariance) -> Explanation:
        """The Explanation: the mean's values, the covariance, the credible bounds and ``meta``."""
        cov = covariance.per_point
        stderr = np.sqrt(np.clip(np.diagonal(cov, axis1=1, axis2=2), 0.0, None))
        values = np.asarray(mean.values, dtype=float)
        meta = {
            "value_function": self.value,
            "method": self.route.name,
            "estimated_seconds": self.work.seconds + mean.meta.get("estimated_seconds", 0.0),
            "covariance": self.fitted.what + "; " + self.route.describe(self.problem),
            "n_background": self.m,
            "credible_level": 0.95,
        }
        if self.value == "observational":
            meta["eta"] = self.eta
        meta.update(self.route.extra_meta(self.problem, covariance.mc_stderr))
        return Explanation(
            values,
            base_values=mean.base_values,
            data=mean.data,
            feature_names=mean.feature_names,
            stderr=stderr,
            lower=values - Z95 * stderr,
            upper=values + Z95 * stderr,
            meta=meta,
            covariance=cov,
            joint_covariance=covariance.joint,
        )


def _explain_classes(binaries, X, *args, seed=None, **options) -> Explanation:
    """explain_gp of a multi-class classifier: each class's binary classifier, on the outputs axis."""
    import copy

    pieces = []
    for j, (_, binary) in enumerate(binaries):
        # every class starts from the same random state (a Generator is copied for all but the last)
        first = copy.deepcopy(seed) if isinstance(seed, np.random.Generator) and j < len(binaries) - 1 else seed
        pieces.append(explain_gp(binary, X, *args, seed=first, **options))

    def stack(arrays):
        return None if arrays[0] is None else np.stack(arrays, axis=-1)

    first = pieces[0]
    label = binaries[0][1].classes_[1]
    meta = dict(first.meta)
    meta["covariance"] = "per class c (the outputs axis), the " + first.meta["covariance"].replace(
        f"log-odds of class {label!r}", "log-odds of class c against the rest")
    meta["output"] = "latent"
    meta["outputs"] = ("one-vs-rest latent functions: output c is the latent function (the log-odds of c "
                       "against the rest) of the binary Laplace classifier scikit-learn fitted for class c "
                       "(gp.base_estimator_.estimators_), explained as explain_gp explains a binary "
                       "classifier; the classes' latent GPs are fitted separately, so no covariance "
                       "across classes is given")
    if "covariance_mc_stderr" in meta:
        meta["covariance_mc_stderr"] = stack([p.meta["covariance_mc_stderr"] for p in pieces])
    held = [p._interaction_orders for p in pieces]  # noqa: SLF001 - the pieces are Explanations
    return Explanation(
        stack([p.values for p in pieces]),
        base_values=stack([np.asarray(p.base_values, dtype=float) for p in pieces]),
        data=first.data,
        feature_names=first.feature_names,
        stderr=stack([p.stderr for p in pieces]),
        lower=stack([p.lower for p in pieces]),
        upper=stack([p.upper for p in pieces]),
        meta=meta,
        output_names=[name for name, _ in binaries],
        covariance=stack([p.covariance for p in pieces]),
        joint_covariance=stack([p.joint_covariance for p in pieces]),
        interactions=stack([p.interactions for p in pieces]),
        interaction_orders=None if held[0] is None else Interactions.stack_outputs(held),
    )


def _in_chunks(call, gp, X, *, n_jobs, rows_per_chunk, seed) -> Explanation | None:
    """The call's rows in chunks with joblib (:mod:`kernelxai.parallel`), or None: one chunk.

    ``call`` is a ``_GPCall`` or a ``GPInteractionCall`` (``kernelxai.explainers._gp_interactions``):
    its ``joint``, ``n``, ``per`` (work per point), ``route``, ``value``, ``B``, ``eta``,
    ``budget`` and ``options`` (the interaction request, passed on to every chunk).
    """
    if check_n_jobs(n_jobs) not in (None, 1) and call.joint:
        raise ValueError("joint=True couples the rows (their cross-covariances): it runs in one "
                         "process; n_jobs= applies to joint=False")
    n, per = call.n, call.per
    if call.joint or n < 2:
        return None
    rows = check_rows_per_chunk(rows_per_chunk) or plan_rows(n, per.ops * n, per.ops)
    if rows >= n:
        return None
    name = call.route.name
    job = _GPJob(gp, call.value, call.B, name, call.eta, call.budget,
                 shared_seed(seed) if getattr(call.route, "uses_rng", False) else None, dict(call.options))
    pieces = run_rows(_explain_gp_rows, X, n_jobs=n_jobs, rows_per_chunk=rows, shared=job,
                      desc=f"kx.explain_gp ({name})")
    backend, workers = execution(n_jobs, len(pieces))
    estimated = sum(piece.meta.get("estimated_seconds", 0.0) for piece in pieces) / workers
    return concat_results(pieces, {"estimated_seconds": estimated}, n_jobs=workers,
                          rows_per_chunk=rows, backend=backend)


def _explain_gp_rows(job, X):
    """One chunk of :func:`explain_gp`'s rows: the serial call on them (kernelxai.parallel)."""
    import copy

    gp, value, B, method, eta, budget, seed, options = job
    return explain_gp(gp, X, value, B, method=method, eta=eta, budget=budget,
                      seed=copy.deepcopy(seed), rows_per_chunk=len(X), **options)
