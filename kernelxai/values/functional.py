"""The functional baseline value function of PKeX-Shapley (Mohammadi et al. 2025).

For a model f(x) = sum_i alpha_i k(x, x_i) + b with a product kernel
k = prod_l k_l, PKeX Def. 1 removes a feature by setting its kernel factor to
one, its least informative value:

    v_x(S) = sum_i alpha_i prod_{l in S} k_l(x_l, x_il) + b.

Per explained point this is a :class:`~kernelxai.games.ProductGame` with one
term per training point (present factor a_l = k_l(x_l, x_il), absent factor
c_l = 1, weight alpha_i); the intercept is a term with a = c = 1, in every
v(S), so it cancels from the Shapley values. Efficiency (PKeX Lemma 4):
sum_j phi_j = f(x) - b - sum_i alpha_i. The normalised variant (PKeX Prop. 10)
sets v(empty) = b instead of b + sum(alpha); that is one more multiplicative
term (weight -sum(alpha), a = 0, c = 1), which adds sum(alpha)/d to every
phi_j, so that sum_j phi_j = f(x) - b. (The paper prints sum(alpha)/n; the
efficiency axiom gives /d, the number of players.)

The Shapley values are available exactly in polynomial time with
``method="product"`` (the default, alias ``"quadrature"``), ``"stable"``
(PKeX Alg. 2) or ``"newton"`` (PKeX Alg. 1); ``"exact"`` (alias ``"brute"``),
``"kernel"`` and ``"permutation"`` work on the same game.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int, feature_names_of
from ..games import ProductGame, _GroupedProductGame
from .base import ValueFunction, register

__all__ = ["FunctionalBaseline", "FunctionalBaselineGame", "UnitAbsentGame", "unit_product_worths"]


def unit_product_worths(coalitions, blocks, n_instances, max_elements=2**22):
    """Worths sum_r w_r prod_{l in S} a_rl of product games whose absent factors are 1.

    Evaluated as exp(Z log a) by one matrix product per block (a zero factor
    is tracked separately, so exact zeros stay exact), which is what makes
    sampling estimators affordable on these games.

    Parameters
    ----------
    coalitions : bool array (m, d)
    blocks : iterable of (rows, w, a)
        ``rows`` a slice of instances, ``w`` (K or 1, R), ``a`` (K or 1, R, d)
        with K = the number of instances in ``rows`` (or 1: the same terms for
        all of them).
    n_instances : int

    Returns
    -------
    ndarray (m, n_instances)
    """
    Z = np.asarray(coalitions, dtype=float)
    m = len(Z)
    out = np.zeros((m, n_instances))
    for rows, w, a in blocks:
        a = np.asarray(a, dtype=float)
        w = np.broadcast_to(np.asarray(w, dtype=float), a.shape[:2])
        K, R = a.shape[:2]
        if np.any(a < 0):
            raise ValueError("unit_product_worths needs non-negative factors (kernel values)")
        positive = a > 0
        has_zero = not positive.all()
        log_a = np.log(np.where(positive, a, 1.0)).transpose(0, 2, 1)   # (K, d, R)
        zeros = (~positive).astype(float).transpose(0, 2, 1) if has_zero else None
        step = max(1, max_elements // max(1, K * R))
        for lo in range(0, m, step):
            z = Z[lo:lo + step]
            prod = np.exp(np.matmul(z, log_a))                                # (K, m_c, R)
            if has_zero:
                prod[np.matmul(z, zeros) > 0] = 0.0
            # (m_c, K); K = 1 broadcasts over the instances in rows
            out[lo:lo + step, rows] += np.einsum("kmr,kr->mk", prod, w)
    return out


class UnitAbsentGame(ProductGame):
    """A :class:`ProductGame` whose absent factors are all 1 (c = 1).

    Subclasses only generate terms; worths come from :func:`unit_product_worths`
    (one matrix product per block), and grouping keeps both the product
    structure and the fast worths. The grouped game has no ``data`` (explained
    points have one column per feature, not per group).
    """

    def _evaluate(self, coalitions):
        return _unit_worths(self, coalitions)

    def grouped(self, groups, names=None):
        return _GroupedUnitGame(self, groups, names)


class FunctionalBaselineGame(UnitAbsentGame):
    """The game v_x(S) = alpha^T k_S(X_S, x_S) + b of PKeX Def. 1, for many x at once.

    Terms are generated block by block from the per-feature Gram tensor
    between the explained points and the training points; nothing of size
    n_explained x n_train x d is held at once beyond ``max_elements``.

    Parameters
    ----------
    model : KernelExpansion
        With a product kernel.
    X : ndarray (n, d)
        Validated points to explain.
    normalize : bool
        PKeX Prop. 10: v(empty) = b, so that the values sum to f(x) - b.
    """

    def __init__(self, model, X, normalize=False, player_names=None, meta=None):
        super().__init__(n_players=X.shape[1], n_instances=X.shape[0],
                         player_names=player_names, data=X, meta=meta)
        self.model = model
        self.X = X
        self.normalize = bool(normalize)

    def _extra_terms(self):
        """The intercept (a = c = 1) and, when normalised, -sum(alpha) on the empty coalition."""
        d = self.n_players
        b, total = self.model.intercept, float(self.model.alpha.sum())
        w = [b] + ([-total] if self.normalize else [])
        a = np.ones((1, len(w), d))
        if self.normalize:
            a[0, 1] = 0.0
        return np.asarray(w)[None, :], a

    def iter_terms(self, max_elements=2**22):
        alpha = self.model.alpha[None, :]
        for rows, G in self.model.kernel.iter_feature_grams(self.X, self.model.X_train,
                                                            max_elements=max_elements):
            yield rows, alpha, G, np.broadcast_to(1.0, G.shape)
        w, a = self._extra_terms()
        yield slice(0, self.n_instances), w, a, np.ones_like(a)

    def coefficient_matrices(self, coalitions, weights=None):
        """The worths as linear maps of alpha: v(S)(x_a) = (M_S @ alpha)[a] + b.

        PKeX Def. 1: M_S = K_S(X, X_train) (all ones for the empty coalition);
        normalised (Prop. 10), M_empty = 0 since v(empty) = b. Weighted sums
        of these matrices are the Shapley representers of
        :mod:`kernelxai.functionals`.

        Parameters
        ----------
        coalitions : bool array (c, d)
        weights : array (c, q), optional
            If given, return sum_k weights[k, r] M_{S_k} for each column r.

        Returns
        -------
        ndarray (c, n_x, n_train), or (q, n_x, n_train) with ``weights``
        """
        z, _ = self._check_coalitions(coalitions)
        W = np.eye(len(z)) if weights is None else np.asarray(weights, dtype=float)
        if W.ndim != 2 or W.shape[0] != len(z) or not np.all(np.isfinite(W)):
            raise ValueError(f"weights must be a finite array of shape ({len(z)}, q); got shape {W.shape}")
        if self.normalize:
            W = np.where(~z.any(axis=1)[:, None], 0.0, W)
        Xt = self.model.X_train
        out = np.empty((W.shape[1], self.n_instances, len(Xt)))
        budget = max(1, 2**22 // max(1, len(z)))
        for rows, G in self.model.kernel.iter_feature_grams(self.X, Xt, max_elements=budget):
            P = np.ones((len(z),) + G.shape[:2])
            for l in range(self.n_players):
                sel = z[:, l]
                if sel.any():
                    P[sel] *= G[None, :, :, l]
            out[:, rows] = np.einsum("cai,cq->qai", P, W)
        return out

    def unit_game(self):
        """The games of the unit models k(., x_i), one per (training point, explained point).

        A product game with n_train * n_x instances, instance i * n_x + a being
        the game of f = k(., x_i) at x_a (one term a = k(x_a, x_i), c = 1; plus
        the term -1 on the empty coalition when normalised). Its Shapley
        values are the representer entries R_j[a, i], in polynomial time.
        """
        return _UnitFunctionalBaselineGame(self)


class _UnitFunctionalBaselineGame(ProductGame):
    def __init__(self, game):
        n, nx = len(game.model.X_train), game.n_instances
        super().__init__(n_players=game.n_players, n_instances=n * nx, player_names=game.player_names,
                         meta={"value_function": "functional baseline unit models"})
        self.source = game

    def iter_terms(self, max_elements=2**22):
        g = self.source
        kernel, Xt, X, d, nx = g.model.kernel, g.model.X_train, g.X, g.n_players, g.n_instances
        r = 2 if g.normalize else 1
        w = np.array([[1.0, -1.0][:r]])
        for rows, G in kernel.iter_feature_grams(Xt, X, max_elements=max(d, max_elements // r)):
            k = rows.stop - rows.start
            a = np.zeros((k * nx, r, d))
            a[:, 0] = G.reshape(k * nx, d)
            yield slice(rows.start * nx, rows.stop * nx), w, a, np.ones((1, r, d))



def _unit_worths(game, coalitions):
    blocks = ((rows, w, a) for rows, w, a, _ in game.iter_terms())
    return unit_product_worths(coalitions, blocks, game.n_instances)


class _GroupedUnitGame(_GroupedProductGame):
    """A grouped product game whose absent factors are all 1: fast worths by exp(Z log a)."""

    def _evaluate(self, coalitions):
        return _unit_worths(self, coalitions)


@register("functional_baseline")
class FunctionalBaseline(ValueFunction):
    """PKeX-Shapley's functional baseline value function (PKeX Def. 1; Prop. 10 if normalised).

    v_x(S) = sum_i alpha_i prod_{l in S} k_l(x_l, x_il) + b: absent features
    have their kernel factor set to 1. Defined for product kernels only.

    Parameters
    ----------
    model : KernelExpansion or supported model
        Anything :func:`kernelxai.models.as_expansion` accepts, with a product
        kernel.
    normalize : bool, default False
        False: base value b + sum(alpha), sum_j phi_j = f(x) - b - sum(alpha)
        (PKeX Lemma 4). True: base value b, sum_j phi_j = f(x) - b; each phi_j
        grows by sum(alpha)/d (PKeX Prop. 10).
    groups, group_names : optional
        Explain groups of features as single players (still a product game).

    Examples
    --------
    >>> expl = kx.explain(model, X, value="functional_baseline")                  # doctest: +SKIP
    >>> expl = kx.explain(model, X, value="functional_baseline", method="stable") # doctest: +SKIP
    """

    name = "functional baseline (PKeX Def. 1)"

    def __init__(self, model, normalize=False, groups=None, group_names=None):
        from ..models import as_expansion

        self.model = as_expansion(model)
        kernel = self.model.kernel
        if not getattr(kernel, "is_product", False):
            raise TypeError(
                "the functional baseline value function (PKeX Def. 1) sets kernel factors of "
                "absent features to 1, so it needs a product kernel k = prod_j k_j (RBF, "
                f"Laplace, Cauchy, Categorical, Product); the model's kernel is {kernel!r}"
            )
        check_positive_int(self.model.n_features, "number of features", minimum=1)
        if self.model.n_features < 2:
            raise ValueError(
                "the functional baseline attributes a prediction among at least 2 features; "
                "this model has d = 1, whose only Shapley value is f(x) - b - sum(alpha)"
            )
        if not isinstance(normalize, (bool, np.bool_)):
            raise TypeError(f"normalize must be True or False; got {normalize!r}")
        self.normalize = bool(normalize)
        self._set_groups(groups, group_names)
        if self.normalize:
            self.name = "functional baseline, normalised (PKeX Prop. 10)"

    def _game(self, X):
        names = feature_names_of(X) or list(self.model.feature_names)
        X = self.model.check_X(X)
        meta = {"normalize": self.normalize}
        return FunctionalBaselineGame(self.model, X, normalize=self.normalize,
                                      player_names=names, meta=meta)

    def auto_method(self, game):
        """Exact polynomial-time values by quadrature at any d."""
        return "product"

    def __repr__(self):
        return f"FunctionalBaseline(normalize={self.normalize})"
