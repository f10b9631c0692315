r"""Interaction indices of a Gaussian process, with their posterior standard deviations and covariances.

Takes a fitted GP (``kernelxai.explainers._gp_posterior.FittedGP``), the points, the value
function and the background, an interaction index (SV, BV, SII, BII, CHII, k-SII, STII,
FSII, FBII, Moebius, Co-Moebius, SGV, BGV, CHGV, IGV, EGV) at an order k, and ``sets=`` or
``top=``; hands on to :func:`~kernelxai.explain_gp` an
:class:`~kernelxai.Explanation` whose ``interaction_orders`` hold the posterior mean of each
set's index (what :func:`~kernelxai.explain_interactions` gives for the posterior mean), its
posterior standard deviation (``interaction_orders[t].stderr``) and, on request, the
posterior covariance between all the sets of a point (``interaction_orders.covariance``).

Every index value of a set T is linear in the worths, :math:`I_T(x) = \sum_S a_T(S) v_x(S)`, and
every worth is linear in f, :math:`v_x(S) = \sum_b \beta_b f(x_S, b_{S^c})`; so under the GP
posterior the index values of a point are jointly Gaussian with mean the index of the
posterior-mean game and covariance :math:`A_I C A_I^\top`. Two routes compute the covariance:

``"exact"``
    any kernel, both value functions, small d: the posterior covariance of the :math:`2^d`
    worths of the point (``kernelxai.explainers._gp_route_base.CellCovariance``, the exact
    first-order route's machinery) and the index's weights on the worths, built from its
    Moebius weights (``kernelxai.estimators._interaction_indices.from_moebius``) -- an
    independent route from the definitions the tests enumerate.
``"product"``
    interventional values of product kernels (and sums of them), in time polynomial in d:
    ``kernelxai.explainers._gp_interaction_product`` (the derivation is in its docstring).

The sampled covariance route of first-order Shapley values is not offered here (its
permutation estimates are of first-order values only).
"""

from __future__ import annotations

import math

import numpy as np

from .._calibration import Work
from .._config import working_elements
from .._threads import small_blas
from ..estimators._interaction_enumeration import MAX_ENUMERATION_PLAYERS
from ..estimators._interaction_indices import all_sets, get_index, lex_rank, moebius_transform
from ..estimators._interaction_indices import from_moebius as _from_moebius
from ..estimators._interaction_orders import check_memory
from ..estimators._interaction_product_orders import product_interaction_orders, product_orders_work
from ..estimators._registry import CALL_STEPS, check_cost
from ..explanation import Explanation, InteractionBlock, Interactions
from ._gp_interaction_product import Side, prior_cross, prior_pairs, prior_variances, training_games
from ._gp_posterior import Z95, check_rows, efficiency_variance, gp_background
from ._gp_product import product_terms
from ._gp_route_base import MAX_POINTS, CellCovariance, observational_weights, uniform_weights
from ._gp_route_exact import Exact, coalition_masks
from ._gp_route_product import Product
from ._interactions import explain_interactions

__all__ = ["GPInteractionCall", "interaction_route", "refuse_interaction_options"]


def refuse_interaction_options(order, sets, top, set_covariance) -> None:
    """Without ``index=``: refuse the options that only an interaction index gives a meaning."""
    given = [name for name, v, default in (("order", order, 1), ("sets", sets, None), ("top", top, None),
                                           ("set_covariance", set_covariance, False)) if v != default]
    if given:
        raise ValueError(f"{', '.join(f'{g}=' for g in given)} of kx.explain_gp apply with index=... (an "
                         "interaction index, e.g. index='k-SII', order=2); without index= explain_gp gives "
                         "first-order Shapley values")


def interaction_route(method, value, terms, d, m) -> str:
    """The covariance route of interaction indices ("exact" or "product") for ``method`` ("auto" resolved).

    ``"auto"``: ``"product"`` for interventional values of a product kernel, else ``"exact"``
    while the :math:`2^d m` evaluation points fit ``MAX_POINTS`` (and d the enumeration).

    Raises
    ------
    ValueError
        ``"sampled"`` (first-order only), ``"product"`` where it does not apply, ``"exact"``
        (or ``"auto"`` without a product kernel) beyond enumeration.

    Examples
    --------
    >>> interaction_route("auto", "observational", None, d=3, m=5)
    'exact'
    >>> interaction_route("sampled", "interventional", None, d=3, m=5)
    Traceback (most recent call last):
    ...
    ValueError: method='sampled' estimates the covariance of first-order Shapley values only ...
    """
    if method == "sampled":
        raise ValueError("method='sampled' estimates the covariance of first-order Shapley values only (its "
                         "permutations give first-order estimates); for an interaction index use "
                         "method='product' (interventional values of a product kernel) or 'exact' (small d), "
                         "or drop index= for the sampled first-order values")
    if method == "auto" and value == "interventional" and terms is not None:
        return "product"
    if method == "product":
        Product().check(value, terms, d, m, 1, False)
        return "product"
    points = 2**d * m if d <= 30 else math.inf
    if points > MAX_POINTS or d > MAX_ENUMERATION_PLAYERS:
        raise ValueError(
            f"the exact covariance of an interaction index enumerates the 2^d coalitions: 2^{d} x {m} "
            f"background rows = {points:.0f} evaluation points per point, above the limit of {MAX_POINTS}"
            + (f" (or d above {MAX_ENUMERATION_PLAYERS})" if d > MAX_ENUMERATION_PLAYERS else "")
            + ". Use fewer background rows (kx.explainers.subsample / summarize), method='product' "
            "(interventional values of a product kernel: RBF, ARD or not, their products and sums), or "
            "drop index= for first-order Shapley values (method='sampled' reaches any d)")
    return "exact"


class GPInteractionCall:
    """One :func:`kernelxai.explain_gp` call with ``index=``: checks, cost, mean, covariance, Explanation.

    Made from the checked arguments; then :meth:`check_cost` (the cost guard, before any
    work), :meth:`mean` (``kx.explain_interactions`` of the posterior mean),
    :meth:`covariance` (the route's variances, or covariances, of every set of every point,
    checked) and :meth:`explanation`. Offers the attributes ``kernelxai.explainers._gp_shap``
    chunks rows with (``joint``, ``n``, ``per``, ``route``, ``value``, ``B``, ``eta``,
    ``budget``, ``options``).
    """

    joint = False
    budget = None

    def __init__(self, fitted, X, value, background, *, request, method, eta):
        index, order, sets, top, set_covariance = request
        post = fitted.post
        d = post.X_train.shape[1]
        self.fitted, self.post, self.value, self.eta = fitted, post, value, eta
        self.Xa = check_rows(X, d, model=fitted.mean_model, sample=background)
        self.B = gp_background(background, post.X_train, d, model=fitted.mean_model)
        self.n, self.m, self.d = self.Xa.shape[0], self.B.shape[0], d
        self.idx = get_index(index)
        self.k = self.idx.check_order(order, d)
        self.sets, self.top, self.full = sets, top, bool(set_covariance)
        if top is not None and set_covariance:
            raise ValueError("set_covariance=True gives the covariance between the same sets at every point; "
                             "top= picks different sets per point: ask for sets=[...] (or all sets of the "
                             "order) with set_covariance=True, or top= without it (standard deviations only)")
        self.terms = product_terms(post.kernel, d) if value == "interventional" else None
        name = interaction_route(method, value, self.terms, d, self.m)
        self.route = _ROUTES[name](self)
        self.options = {"index": self.idx.name, "order": order, "sets": sets, "top": top,
                        "set_covariance": set_covariance}
        self.per = self.route.cost(self._counts())
        self.work = self.per * self.n + self.route.once(self._counts()) + Work(steps=CALL_STEPS + 150.0 * self.n)

    def weights(self):
        """The value function's cell weights (the exact route's)."""
        if self.value != "observational":
            return lambda rows, masks: uniform_weights(rows, masks, self.m)
        terms = product_terms(self.post.kernel, self.d)
        if terms is None or len(terms) != 1:
            raise ValueError(
                "value='observational' in explain_gp uses RKHS-SHAP's conditional mean embedding of a product "
                f"kernel (RBF, ARD or not, times a constant, plus a WhiteKernel); this GP's kernel "
                f"{self.post.kernel} is not one. Use value='interventional'.")
        return observational_weights(self.fitted.regressor, self.B, self.eta)

    def _counts(self) -> dict[int, int]:
        """Sets per size and point the call will return (before the mean names them)."""
        d, k = self.d, self.k
        if self.sets is not None:
            counts: dict[int, int] = {}
            for s in self.sets:
                size = len((s,) if isinstance(s, (str, int, np.integer)) else tuple(s))
                counts[size] = counts.get(size, 0) + 1
            return counts
        sizes = self.idx.sizes(k, d)
        return {t: math.comb(d, t) if self.top is None else min(self.top, math.comb(d, t)) for t in sizes}

    def check_cost(self) -> None:
        """The cost guard: refuse (CostLimitError) a call above ``max_cost`` seconds or ``max_memory`` bytes."""
        counts = self._counts()
        M = sum(counts.values())
        what = (f"the {self.route.name} GP posterior covariance of {self.idx.name} (order {self.k}; "
                f"{M} sets per point{', with their covariances' if self.full else ''}; "
                f"{self.n} points, d = {self.d}, m = {self.m} background rows, {self.post.n_train} training points)")
        advice = ["sets=[...] or top=... (fewer sets)", "a smaller order",
                  "a smaller background (kx.explainers.subsample / summarize)",
                  "fewer explained points"] + (["set_covariance=False"] if self.full else [])
        # the result (means, sds, covariances of every point) and one point's work arrays
        check_memory(8.0 * self.n * M * (2 + (M if self.full else 0)) + self.route.nbytes(counts), what, advice)
        check_cost(self.work, what, advice)

    def mean(self, X) -> Explanation:
        """The posterior mean's index values, exactly as ``kx.explain_interactions`` gives them."""
        options = dict(self.fitted.mean_options, **({"eta": self.eta} if self.value == "observational" else {}))
        return explain_interactions(self.fitted.mean_model, X if np.ndim(X) == 2 else self.Xa, value=self.value,
                                    background=self.B, index=self.idx.name, order=self.k, sets=self.sets,
                                    top=self.top, **options)

    def covariance(self, mean) -> tuple[list, np.ndarray, np.ndarray | None]:
        """(blocks, variances (n, M), covariances (n, M, M) or None) of the mean's sets at every point."""
        orders = mean.interaction_orders
        blocks = list(orders.blocks.values())
        M = sum(b.sets.shape[-2] for b in blocks)
        var = np.empty((self.n, M))
        cov = np.empty((self.n, M, M)) if self.full else None
        dense = all(b.layout == "dense" for b in blocks)
        # one BLAS thread for small training systems, as the first-order routes (and every chunk of rows)
        with small_blas(self.post.n_train):
            for i in range(self.n):
                sets = [(b.size, b.sets[i] if b.layout == "top" else b.sets) for b in blocks]
                v, c = self.route.point(self.Xa[i], sets, dense, self.full)
                var[i] = v
                if self.full:
                    cov[i] = c
                    self._check_efficiency(i, c, blocks)
        return blocks, var, cov

    def _check_efficiency(self, i, cov, blocks) -> None:
        """Draw by draw the efficient sizes sum to f(x) - v_x(empty): 1^T C 1 over them is its variance."""
        sizes = self.idx.efficient_sizes(self.k, self.d)
        if sizes is None:
            return
        start, take = 0, []
        for b in blocks:
            if b.size in sizes and b.layout == "dense":
                take.append(np.arange(start, start + len(b.sets)))
            start += len(b.sets)
        held = {b.size for b in blocks if b.layout == "dense"}
        if not set(sizes) <= held:
            return
        where = np.concatenate(take)
        got = cov[np.ix_(where, where)].sum()
        target, size = efficiency_variance(self.post, self.Xa[i], self.B)
        if abs(got - target) > 1e-8 * max(size, np.finfo(float).tiny) + 1e-10 * np.abs(cov[np.ix_(where, where)]).sum():
            raise RuntimeError(f"efficiency violated at row {i} of X: the variance of the sum of the efficient "
                               f"{self.idx.name} sets is {got!r} but Var(f(x) - v_x(empty)) = {target!r}; "
                               "please report this")

    def explanation(self, mean, covariance) -> Explanation:
        """The Explanation: the mean's values and sets, each set's posterior sd, the covariance, ``meta``."""
        blocks, var, cov = covariance
        orders = mean.interaction_orders
        sd = np.sqrt(np.clip(var, 0.0, None))
        new, start = [], 0
        for b in blocks:
            m = b.sets.shape[-2]
            new.append(InteractionBlock(b.size, b.sets, b.values, b.layout, b.certified, b.evaluated,
                                        stderr=sd[:, start:start + m]))
            start += m
        held = Interactions(new, orders.feature_names, index=orders.index, order=orders.order, axes=orders.axes,
                            covariance=cov)
        values = np.asarray(mean.values, dtype=float)
        stderr = lower = upper = point_cov = None
        one = held.blocks.get(1)
        if one is not None and one.layout == "dense" and np.allclose(one.values, values, rtol=1e-12, atol=0.0):
            stderr = one.stderr
            lower, upper = values - Z95 * stderr, values + Z95 * stderr
            if cov is not None:
                first = sum(len(b.sets) for b in blocks if b.size < 1)
                point_cov = cov[:, first:first + self.d, first:first + self.d]
        meta = dict(mean.meta)
        meta.update({
            "value_function": self.value, "method": self.route.name, "mean_method": mean.meta.get("method"),
            "estimated_seconds": self.work.seconds + mean.meta.get("estimated_seconds", 0.0),
            "covariance": (self.fitted.what.replace("of the Shapley values", f"of the {self.idx.name} values")
                           + "; " + self.route.describe()),
            "n_background": self.m, "credible_level": 0.95,
            "interaction_stderr": "posterior standard deviations in interaction_orders[t].stderr"
                                  + ("; the covariance between the sets in interaction_orders.covariance"
                                     if cov is not None else ""),
        })
        if self.value == "observational":
            meta["eta"] = self.eta
        return Explanation(values, base_values=mean.base_values, data=mean.data, feature_names=mean.feature_names,
                           stderr=stderr, lower=lower, upper=upper, meta=meta, interactions=mean.interactions,
                           covariance=point_cov, interaction_orders=held)


# --------------------------------------------------------------------------- #
# the routes
# --------------------------------------------------------------------------- #
def _members(sets, d) -> np.ndarray:
    mem = np.zeros((len(sets), d), dtype=bool)
    if sets.shape[1]:
        mem[np.arange(len(sets))[:, None], sets] = True
    return mem


def _check_variances(var, scale, what) -> np.ndarray:
    """Variances not below zero beyond rounding (``scale``: the size of their terms); zero but for rounding -> 0."""
    tol = 1e-8 * scale + 1e-300
    if np.any(var < -tol):
        j = int(np.argmin(var + tol))
        raise RuntimeError(f"a negative posterior variance {var[j]!r} of {what} (beyond rounding, {tol[j]:.3g}); "
                           "please report this")
    return np.where(var < 0, 0.0, var)


class _ExactInteractions:
    """``method="exact"``: the covariance of the 2^d worths of the point and the index's weights on them."""

    name = "exact"

    def __init__(self, call):
        self.call = call
        self.post, self.B, self.idx, self.k, self.d = call.post, call.B, call.idx, call.k, call.d
        self.weights_fn = call.weights()
        self.masks = coalition_masks(self.d)
        self._cache: dict[int, np.ndarray] = {}

    def _coefficients(self, t, sets) -> np.ndarray:
        """(m_t, 2^d): the weight of each worth (bitmask order) in the index of each set (rows of ``sets``)."""
        if t not in self._cache:       # all C(d, t) sets of the size, once per call
            n, dense = 2**self.d, all_sets(self.d, t)
            out = np.empty((len(dense), n))
            step = max(1, min(n, working_elements(8) // n))
            for c0 in range(0, n, step):
                cols = np.arange(c0, min(n, c0 + step))
                E = np.zeros((n, len(cols)))
                E[cols, np.arange(len(cols))] = 1.0
                out[:, cols] = _from_moebius(moebius_transform(E), self.idx, dense, self.k).T
            self._cache[t] = out
        return self._cache[t][lex_rank(np.asarray(sets).reshape(len(sets), t), self.d)]

    def point(self, x, sets, dense, full):
        A = np.concatenate([self._coefficients(t, s) for t, s in sets])          # (M, 2^d)
        rows = x[None, :]
        cells = CellCovariance(self.post, rows, self.masks, self.weights_fn(rows, self.masks), self.B)
        Cv = cells.blocks(1)[0, :, 0, :]                                         # (2^d, 2^d)
        AC = A @ Cv
        var = np.einsum("ij,ij->i", AC, A)
        scale = np.abs(A).sum(axis=1) ** 2 * max(float(np.max(np.diag(Cv))), 0.0)
        var = _check_variances(var, scale, f"a {self.idx.name} value")
        if not full:
            return var, None
        C = AC @ A.T
        C = 0.5 * (C + C.T)
        C[np.diag_indices_from(C)] = var
        return var, C

    def cost(self, counts) -> Work:
        d, m, nt = self.d, self.B.shape[0], self.post.n_train
        M = sum(counts.values())
        base = Exact().cost(d, m, nt, 2**d)
        return base + Work(blas_flops=2.0 * M * 4.0**d + (2.0 * M * M * 2**d if self.call.full else 0.0))

    def once(self, counts) -> Work:
        d = self.d
        return Work(flops=sum(2.0 * (d + math.comb(d, t)) * 4.0**d for t in counts))

    def nbytes(self, counts) -> float:
        """The worths' covariance of a point (and its cells), the index weights on the worths, A C."""
        n, M = 2**self.d, sum(counts.values())
        return 8.0 * (2.0 * n * n + sum(math.comb(self.d, t) for t in counts) * n + 2.0 * M * n)

    def describe(self) -> str:
        return (f"C is the posterior covariance of the 2^{self.d} worths of each point (over "
                f"{self.B.shape[0]} background rows each) and A the index's weights on them")


class _ProductInteractions:
    """``method="product"``: interventional values of a product kernel, in time polynomial in d."""

    name = "product"

    def __init__(self, call):
        self.call = call
        self.post, self.B, self.idx, self.k, self.d, self.terms = \
            call.post, call.B, call.idx, call.k, call.d, call.terms
        self._sides: dict[int, Side] = {}

    def side(self, t) -> Side:
        if t not in self._sides:
            self._sides[t] = Side(self.idx, t, self.d, self.k)
        return self._sides[t]

    def _data(self, x, sets, dense):
        """G (n_train, M): the whitened index values of the training points' games."""
        if self.post.L is None:
            return np.zeros((0, sum(len(s) for _, s in sets)))
        game = training_games(self.terms, x, self.B, self.post.X_train)
        if dense:
            res = product_interaction_orders(game, self.idx, self.k, sizes=[t for t, _ in sets], progress=False)
        else:
            res = product_interaction_orders(game, self.idx, self.k, progress=False,
                                             sets=[tuple(int(p) for p in row) for _, s in sets for row in s])
        psi = np.concatenate([res["values"][t].values for t, _ in sets], axis=1)   # (n_train, M)
        return self.post.solve(psi)

    def point(self, x, sets, dense, full):
        d = self.d
        prior = []
        for t, s in sets:
            side = self.side(t)
            p = prior_variances(self.terms, x, self.B, side, None if dense else s)
            if side.taylor:
                mem = _members(s, d)
                p = p + prior_pairs(self.terms, x, self.B, (side, side), (mem, mem), values=False)
            prior.append(p)
        prior = np.concatenate(prior)
        G = self._data(x, sets, dense)
        data = np.einsum("ij,ij->j", G, G)
        s2 = self.post.scale2
        var = _check_variances(s2 * (prior - data), s2 * (np.abs(prior) + data + 1e-4 * np.max(np.abs(prior))),
                               f"a {self.idx.name} value")
        if not full:
            return var, None
        P = self._prior_pairs(x, sets)
        C = s2 * (P - G.T @ G)
        C = 0.5 * (C + C.T)
        C[np.diag_indices_from(C)] = var
        return var, C

    def _prior_pairs(self, x, sets):
        """(M, M): the prior term between every two sets (blocks of sizes a <= b computed, mirrored).

        The value nodes by matrix products (``prior_cross``), the Taylor points (and rows with a
        factor too small to divide by) by the direct recursion (``prior_pairs``).
        """
        d = self.d
        offsets = np.cumsum([0] + [len(s) for _, s in sets])
        M = offsets[-1]
        P = np.zeros((M, M))
        for a, (ta, sa) in enumerate(sets):
            for b, (tb, sb) in enumerate(sets[a:], start=a):
                sides = (self.side(ta), self.side(tb))
                block = prior_cross(self.terms, x, self.B, sides, (sa, sb))
                ia, ib = (g.ravel() for g in np.meshgrid(np.arange(len(sa)), np.arange(len(sb)), indexing="ij"))
                direct = block is None
                if direct or sides[0].taylor or sides[1].taylor:
                    extra = prior_pairs(self.terms, x, self.B, sides, (_members(sa, d)[ia], _members(sb, d)[ib]),
                                        values=direct).reshape(len(sa), len(sb))
                    block = extra if direct else block + extra
                P[offsets[a]:offsets[a + 1], offsets[b]:offsets[b + 1]] = block
                P[offsets[b]:offsets[b + 1], offsets[a]:offsets[a + 1]] = block.T
        return P

    def cost(self, counts) -> Work:
        """The work per explained point: variances (rows x d to form the rows, the product engine on
        them), the data term (the engine on the training points' games, the triangular solve) and,
        with ``set_covariance``, every pair of sizes (:meth:`_pair_cost`). Coefficients measured on
        this route (single-threaded BLAS, d = 10-40, m = 10-20)."""
        d, m, nt = self.d, self.B.shape[0], self.post.n_train
        K = len(self.terms)
        M = sum(counts.values())
        flops, blas, steps = 0.0, float(nt) * nt * M + 2.0 * nt * M, 600.0
        for t, m_t in counts.items():
            side = self.side(t)
            q = len(side.nodes[0])
            rows = K * m * m * q * q * len(side.members) ** 2
            flops += 100.0 * rows * d + 0.6 * product_orders_work(
                d, max(rows, 1), 1, "Moebius", max(t, 1), n_sets_by_size={t: m_t})["multiply_adds"]
            steps += 400.0 * K
            if side.taylor:
                flops += self._taylor_flops(side, side, m_t)
        if nt:
            q = max(len(self.side(t).nodes[0]) for t in counts)
            flops += 0.6 * product_orders_work(d, K * m, nt, self.idx.name, self.k,
                                               n_sets_by_size=dict(counts))["multiply_adds"] + 30.0 * nt * K * m * q * d
        if self.call.full:
            blas += 2.0 * nt * M * M
            sizes = sorted(counts)
            for a, ta in enumerate(sizes):
                for tb in sizes[a:]:
                    f, b_, st = self._pair_cost(ta, counts[ta], tb, counts[tb])
                    flops, blas, steps = flops + f, blas + b_, steps + st
        return Work(flops=flops, blas_flops=blas, steps=steps)

    def _taylor_flops(self, A, Bs, pairs) -> float:
        """The direct recursion over the cells with a Taylor point, for ``pairs`` pairs of sets."""
        d, m, K = self.d, self.B.shape[0], len(self.terms)
        cells = (len(A.nodes[0]) + len(A.taylor)) * (len(Bs.nodes[0]) + len(Bs.taylor)) \
            - len(A.nodes[0]) * len(Bs.nodes[0])
        states = (1 + max([i for _, i, _ in A.taylor], default=0)) * (1 + max([j for _, j, _ in Bs.taylor], default=0))
        return 2.0 * pairs * K * m * m * cells * d * (3.0 + 4.0 * states)

    def _pair_cost(self, ta, ma, tb, mb):
        """(flops, blas flops, steps) of the prior term between ma sets of size ta and mb of size tb
        (:func:`~kernelxai.explainers._gp_interaction_product.prior_cross`: J = {} and every shared J)."""
        d, m, K = self.d, self.B.shape[0], len(self.terms)
        A, Bs = self.side(ta), self.side(tb)
        rows = K * m * m * len(A.nodes[0]) * len(Bs.nodes[0]) * len(A.members) * len(Bs.members)
        top = min(ta, tb)
        shared = sum(math.comb(ta, s) * math.comb(tb, s) / math.comb(d, s) for s in range(1, top + 1))
        gathers = sum(ma * math.comb(ta, s) * ta + mb * math.comb(tb, s) * tb for s in range(top + 1))
        flops = rows * (100.0 * d + 6.0 * gathers)
        blas = 2.0 * rows * ma * mb * (1.0 + shared)
        if A.taylor or Bs.taylor:
            flops += self._taylor_flops(A, Bs, ma * mb)
        return flops, blas, 50.0 * K * (1 + top) * len(A.members) * len(Bs.members)

    def once(self, counts) -> Work:
        return Work()

    def nbytes(self, counts) -> float:
        """The training points' index values and their whitened copy, and the prior term between the sets."""
        M = sum(counts.values())
        return 8.0 * (2.0 * self.post.n_train * M + (2.0 * M * M if self.call.full else 0.0))

    def describe(self) -> str:
        return ("computed without enumerating coalitions: the prior term as a double index transform of the "
                "two-argument product game by a 2-D Gauss-Legendre rule (its variances as the Moebius "
                "coefficients of one product game), the data term from the index of the training points' "
                "product games (exact to rounding)")


_ROUTES = {"exact": _ExactInteractions, "product": _ProductInteractions}
