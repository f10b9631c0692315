"""Shapley regression: decomposing R^2 of a linear model over its covariates (lecture, §"Shapley regression").

The players are the covariates x_1..x_d; the worth of a coalition S is the
coefficient of determination of the least-squares fit of y on the covariates
in S (with an intercept), v(S) = R^2_S, v(empty) = 0. The Shapley values then
split the R^2 of the full model among the covariates -- a global importance
measure also known as the LMG / dominance decomposition.

All 2**d fits are batched per coalition size: R^2_S is the squared norm of
the projection of the standardised, centred response on the column space of
the centred covariates in S, taken from the SVD of that design (accurate to
rounding relative to its condition number; normal equations would square it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._config import working_elements
from .._params import Data, Either, Groups, InstanceOf, Names, Seed, Text, check_groups, parameters, resolve_groups
from .._validation import as_real_array, check_matrix, feature_names_of
from ..estimators._registry import Estimator
from ..estimators._shapley import option_takers, shapley_values
from ..games import Game

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from ..explanation import Explanation

__all__ = ["R2Game", "explain_r2"]


class R2Game(Game):
    """The Shapley-regression game :math:`v(S) = R^2` of the least-squares fit of :math:`y` on :math:`X_S`.

    Parameters
    ----------
    X : array (n, d) or DataFrame
        Covariates (DataFrame columns become player names).
    y : array (n,)
        Response.
    feature_names : list of str, optional
        Player names; default the DataFrame's columns, else ``x0``, ``x1``, ...

    Raises
    ------
    ValueError
        If X has fewer than 2 rows or non-finite entries, y is not 1-D with
        one value per row of X, y has NaN or inf, or y is constant (R^2 is
        then undefined).

    Notes
    -----
    Collinear or constant covariates are fine: the fit is the orthogonal
    projection of y on the span of the columns in S (singular values below
    1e-10 of the largest are dropped), so a duplicated covariate adds nothing
    and a constant one is a null player.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from kernelxai.explainers import R2Game
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 3)); y = X @ [1.0, 0.5, 0.0] + rng.normal(size=50)
    >>> game = R2Game(X, y, feature_names=["a", "b", "c"])
    >>> round(float(game.full_value), 4), round(float(game([True, False, False])), 4)   # R^2 of all, of "a"
    (0.6819, 0.6502)
    >>> np.round(kx.shapley_values(game).values, 4)
    array([0.6181, 0.0493, 0.0144])
    """

    def __init__(self, X: ArrayLike, y: ArrayLike, feature_names: Sequence[str] | None = None) -> None:
        names = feature_names or feature_names_of(X)
        X = check_matrix(X, "X", min_rows=2)
        y = as_real_array(y, "y")
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1 or len(y) != X.shape[0]:
            raise ValueError(
                f"y must be 1-D with one value per row of X ({X.shape[0]}); got shape {y.shape}"
            )
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or inf; remove or impute them first")
        super().__init__(X.shape[1], names, meta={"value_function": "R^2 (Shapley regression)"})
        Xc = X - X.mean(axis=0)
        yc = y - y.mean()
        syy = float(yc @ yc)
        if not syy > 0:
            raise ValueError("y is constant, so R^2 is undefined; Shapley regression needs a "
                             "response that varies")
        # standardise so that the rank tolerance is scale-free
        scale = np.sqrt((Xc**2).sum(axis=0))
        keep = scale > 1e-12 * max(1.0, float(np.abs(X).max()))
        self._Xs = np.where(keep, Xc / np.where(keep, scale, 1.0), 0.0)
        self._ys = yc / np.sqrt(syy)
        self.n_samples = X.shape[0]

    def _evaluate(self, z):
        # R^2 of coalition S = squared norm of the projection of the standardised
        # response on the column space of X_S, from the SVD of X_S itself (not of
        # the normal equations, which would square its condition number)
        out = np.zeros(len(z))
        sizes = z.sum(axis=1)
        n = self.n_samples
        for s in np.unique(sizes):
            if s == 0:
                continue
            rows = np.flatnonzero(sizes == s)
            idx = np.nonzero(z[rows])[1].reshape(len(rows), s)   # members of each coalition, sorted
            step = max(1, working_elements(4) // (n * s))
            for start in range(0, len(rows), step):
                block = idx[start:start + step]
                A = self._Xs[:, block].transpose(1, 0, 2)          # (k, n, s)
                U, sv, _ = np.linalg.svd(A, full_matrices=False)
                rank = sv > 1e-10 * sv[:, :1]                      # a duplicated covariate adds nothing
                proj = np.einsum("kns,n->ks", U, self._ys)
                out[rows[start:start + step]] = (proj**2 * rank).sum(axis=1)
        return np.clip(out, 0.0, 1.0)


@parameters("kx.explain_r2", consumers=option_takers, X=Data(), y=Data(),
            method=Either(Text(), InstanceOf((Estimator,), "an Estimator")), groups=Groups(none=True),
            group_names=Names(none=True), feature_names=Names(none=True), seed=Seed())
def explain_r2(X: ArrayLike, y: ArrayLike, method: str | Estimator = "exact", *,
               groups: Sequence[Sequence[int | str]] | None = None, group_names: Sequence[str] | None = None,
               feature_names: Sequence[str] | None = None, seed: int | np.random.Generator | None = None,
               **options: Any) -> Explanation:
    """Shapley regression: the :math:`R^2` of a linear model split over covariates (or groups of them).

    Parameters
    ----------
    X : array (n, d) or DataFrame
    y : array (n,)
    method : str
        Any estimator of :func:`kernelxai.shapley_values`; ``"exact"``
        enumerates the 2**d (or 2**G) regressions.
    groups : list of lists of int or str, optional
        Decompose over groups of covariates (group Shapley): each group
        enters or leaves the regression as a whole. Members are positions or
        feature names (the DataFrame's columns, or ``feature_names``), as in
        :func:`kernelxai.explain`; an unknown name is refused with the names
        there are.
    group_names : list of str, optional
    feature_names : list of str, optional
    seed : None, int or Generator
        For sampling estimators (``random_state=``, scikit-learn's name, is accepted too).
    **options
        Passed to the estimator.

    Returns
    -------
    Explanation
        ``values`` (d,) or (G,) summing to the full model's R^2
        (``base_values`` = 0); ``meta["r2"]`` holds that R^2.

    Raises
    ------
    ValueError
        If ``group_names`` is given without ``groups``, a group names a
        feature X does not have, the groups do not partition the features, or
        X and y are refused by :class:`R2Game` (mismatched lengths, non-finite
        values, a constant y).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = X @ [1.0, 0.5, 0.0] + rng.normal(size=200)
    >>> e = kx.explain_r2(X, y)
    >>> bool(np.isclose(e.values.sum(), e.meta["r2"]))
    True

    Groups by feature name:

    >>> import pandas as pd
    >>> df = pd.DataFrame(X, columns=["u", "v", "w"])
    >>> g = kx.explain_r2(df, y, groups=[["u", "v"], ["w"]])
    >>> g.feature_names, bool(np.isclose(g.values.sum(), e.meta["r2"]))
    (['u+v', 'w'], True)
    """
    groups = check_groups(groups, group_names)
    game = R2Game(X, y, feature_names=feature_names)
    if groups is not None:
        game = game.grouped(resolve_groups(groups, game.player_names), names=group_names)
    r2 = float(game.full_value)
    expl = shapley_values(game, method=method, seed=seed, **options)
    expl.meta.update(r2=r2, n_samples=game.n_samples if isinstance(game, R2Game) else game.game.n_samples)
    return expl
