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

from typing import TYPE_CHECKING

import numpy as np

from .._calibration import Work, kernel_factors
from .._config import working_elements
from .._validation import check_positive_int, feature_names_of
from ..games import HasUnitGames, LinearInCoefficients, ProductGame, UnitAbsentGame
from ..kernels._product_kernels import gram_block_elements
from ..models import as_expansion
from ._base import SMALL_TERMS, ValueFunction, register
from ._interventional import SumOfKernelGames, split_sum_expansion

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any

__all__ = ["FunctionalBaseline", "FunctionalBaselineGame"]


class FunctionalBaselineGame(UnitAbsentGame, LinearInCoefficients, HasUnitGames):
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
        self._kx_term_cache = None

    def _extra_terms(self):
        """(w, a) of the terms beside the kernel's: the intercept b (a = c = 1) unless it is 0, and,
        when normalised, -sum(alpha) on the empty coalition (a = 0, c = 1); None when there are none.

        A zero intercept adds nothing to any coalition's worth, so it is not a term (most kernel
        models have none: a one-point call would spend a tenth of its fixed cost on it, #25).
        """
        d = self.n_players
        b = self.model.intercept
        w = ([b] if b != 0.0 else []) + ([-float(self.model.alpha.sum())] if self.normalize else [])
        if not w:
            return None
        a = np.ones((1, len(w), d))
        if self.normalize:
            a[0, -1] = 0.0
        return np.asarray(w)[None, :], a

    def n_terms(self) -> int:
        return len(self.model.X_train) + (self.model.intercept != 0.0) + self.normalize

    def term_work(self) -> Work:
        """Kernel factors k(x_j, x_ij) of every point, training point and feature (elementwise)."""
        return Work(flops=kernel_factors(float(self.n_instances) * len(self.model.X_train) * self.n_players))

    def iter_terms(self, max_elements=None) -> Iterator[tuple[slice, np.ndarray, np.ndarray, np.ndarray]]:
        if max_elements is None:
            max_elements = working_elements(8)
        alpha = self.model.alpha[None, :]
        numbers = self.n_instances * len(self.model.X_train) * self.n_players
        if numbers <= min(SMALL_TERMS, gram_block_elements(max_elements)):
            # one block (as iter_feature_grams would yield it), computed once: the product
            # route's node-count probe reads these terms before the route sums them
            if self._kx_term_cache is None:
                G = self.model.kernel.feature_grams(self.X, self.model.X_train, check=False)   # both checked
                G.flags.writeable = False
                self._kx_term_cache = G
            G = self._kx_term_cache
            yield slice(0, self.n_instances), alpha, G, self.absent_ones(G.shape)
        else:
            for rows, G in self.model.kernel.iter_feature_grams(self.X, self.model.X_train,
                                                                max_elements=max_elements):
                yield rows, alpha, G, self.absent_ones(G.shape)
        extra = self._extra_terms()
        if extra is not None:
            w, a = extra
            yield slice(0, self.n_instances), w, a, self.absent_ones(a.shape)

    def coefficient_matrices(self, coalitions, weights=None) -> np.ndarray:
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
        budget = max(1, working_elements(8) // max(1, len(z)))
        for rows, G in self.model.kernel.iter_feature_grams(self.X, Xt, max_elements=budget):
            P = np.ones((len(z),) + G.shape[:2])
            for l in range(self.n_players):
                sel = z[:, l]
                if sel.any():
                    P[sel] *= G[None, :, :, l]
            out[:, rows] = np.einsum("cai,cq->qai", P, W)
        return out

    def unit_game(self) -> ProductGame:
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

    def n_terms(self):
        return 2 if self.source.normalize else 1

    def iter_terms(self, max_elements=None):
        if max_elements is None:
            max_elements = working_elements(8)
        g = self.source
        kernel, Xt, X, d, nx = g.model.kernel, g.model.X_train, g.X, g.n_players, g.n_instances
        r = 2 if g.normalize else 1
        w = np.array([[1.0, -1.0][:r]])
        for rows, G in kernel.iter_feature_grams(Xt, X, max_elements=max(d, max_elements // r)):
            k = rows.stop - rows.start
            a = np.zeros((k * nx, r, d))
            a[:, 0] = G.reshape(k * nx, d)
            yield slice(rows.start * nx, rows.stop * nx), w, a, np.ones((1, r, d))



@register("functional_baseline")
class FunctionalBaseline(ValueFunction):
    r"""PKeX-Shapley's functional baseline value function (PKeX Def. 1; Prop. 10 if normalised).

    .. math::
        v_x(S) = \sum_i \alpha_i \prod_{l \in S} k_l(x_l, x_{il}) + b:

    absent features have their kernel factor set to 1. Defined for product kernels and for
    sums of them (a :class:`~kernelxai.kernels.SumKernel` :math:`\sum_r c_r k_r`: the
    sum of the summands' games,
    :math:`v_x(S) = \sum_i \alpha_i \sum_r c_r \prod_{l \in S} k_{r,l}(x_l, x_{il}) + b`, a
    :class:`~kernelxai.games.SumOfProductGames`).

    Parameters
    ----------
    model : KernelExpansion or supported model
        Anything :func:`kernelxai.models.as_expansion` accepts, with a product
        kernel.
    normalize : bool, default False
        False: base value :math:`b + \sum_i \alpha_i`, :math:`\sum_j \phi_j = f(x) - b - \sum_i \alpha_i`
        (PKeX Lemma 4). True: base value :math:`b`, :math:`\sum_j \phi_j = f(x) - b`; each :math:`\phi_j`
        grows by :math:`\sum_i \alpha_i / d` (PKeX Prop. 10).
    groups, group_names : optional
        Explain groups of features as single players (still a product game).

    Raises
    ------
    TypeError
        If the model's kernel is neither a product kernel nor a sum of them,
        or ``normalize`` is not a bool.
    ValueError
        If the model has no features (``n_features`` < 1), or ``groups`` /
        ``group_names`` are malformed.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 3)); y = X[:, 0] + X[:, 1] * X[:, 2]
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y)
    >>> expl = kx.explain(model, X[:2], value="functional_baseline")
    >>> expl = kx.explain(model, X[:2], value="functional_baseline", method="stable")
    >>> bool(np.allclose(expl.values.sum(axis=1) + expl.base_values, model.predict(X[:2])))
    True

    The value function on its own, normalised (base value b = 0 here):

    >>> vf = kx.values.FunctionalBaseline(model, normalize=True)
    >>> np.round(kx.shapley_values(vf.game(X[:1])).values, 4)
    array([[ 1.0496, -1.1594,  0.113 ]])
    """

    name = "functional baseline (PKeX Def. 1)"

    def __init__(self, model: Any, normalize: bool = False, groups: Sequence[Sequence[int | str]] | None = None,
                 group_names: Sequence[str] | None = None) -> None:
        self.model = as_expansion(model)
        kernel = self.model.kernel
        if not (getattr(kernel, "is_product", False) or getattr(kernel, "is_sum_of_products", False)):
            raise TypeError(
                "the functional baseline value function (PKeX Def. 1) sets kernel factors of "
                "absent features to 1, so it needs a product kernel k = prod_j k_j (RBF, "
                "Laplace, Cauchy, Categorical, Product, ProductOf) or a sum of them (SumKernel); "
                f"the model's kernel is {kernel!r}; use value='interventional' (model calls) instead"
            )
        # d = 1 is allowed: the one Shapley value is f(x) - b - sum(alpha) (f(x) - b normalised)
        check_positive_int(self.model.n_features, "number of features", minimum=1)
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
        if getattr(self.model.kernel, "is_sum_of_products", False):
            # each summand's factors of absent features set to 1; a Constant summand stays a
            # game of its own (normalised, it leaves the empty coalition like the others)
            parts, scales, _ = split_sum_expansion(self.model, fold_constants=False, return_scales=True)
            games = [FunctionalBaselineGame(part, X, normalize=self.normalize, player_names=names,
                                            meta=meta)
                     for part in parts]
            meta = dict(meta, route="sum of product games (one per product kernel of the sum)")
            return SumOfKernelGames(games, scales, 0.0, player_names=names, data=X, meta=meta)
        return FunctionalBaselineGame(self.model, X, normalize=self.normalize,
                                      player_names=names, meta=meta)

    def __repr__(self):
        return f"FunctionalBaseline(normalize={self.normalize})"
