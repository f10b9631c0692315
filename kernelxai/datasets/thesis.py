r"""The uncertainty-pipeline design of the thesis (ch. 3, "Statement of the problem").

Two features drawn from a bivariate normal with correlation :math:`\alpha`,

.. math::
    X \sim \mathcal{N}\left(0, \begin{pmatrix} 1 & \alpha \\ \alpha & 1 \end{pmatrix}\right),

and a model with an interaction knob :math:`\beta` and a non-linearity knob :math:`\gamma`,

.. math::
    f(x) = (1 - \beta)(x_1 + x_2) + \beta x_1 x_2 + \gamma (x_1^2 + x_2^2).

The fourth knob, :math:`\sigma`, is the number of perturbation samples an explainer
draws; it lives in the notebook, not here.

Because the data are Gaussian and :math:`f` is quadratic, both value functions have
closed forms, used as ground truth:

* interventional, :math:`v(S) = \mathbb{E} f(x_S, X_{S^c})` with :math:`X_{S^c}` from its marginal:
  :math:`v(\{1\}) = (1 - \beta) x_1 + \gamma (x_1^2 + 1)`, and
  :math:`v(\emptyset) = \mathbb{E} f(X) = \beta\alpha + 2\gamma`;
* observational, :math:`v(S) = \mathbb{E}[f(X) \mid X_S = x_S]`, with
  :math:`\mathbb{E}[X_2 \mid x_1] = \alpha x_1` and :math:`\mathbb{E}[X_2^2 \mid x_1] = \alpha^2 x_1^2 + 1 - \alpha^2`:
  :math:`v(\{1\}) = (1 - \beta)(1 + \alpha) x_1 + \beta\alpha x_1^2 + \gamma
  \big((1 + \alpha^2) x_1^2 + 1 - \alpha^2\big)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._validation import check_matrix, check_positive_int, check_rng
from ..games import TabularGame

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike

__all__ = ["thesis_sample", "thesis_model", "thesis_game", "FEATURES"]

FEATURES = ["x1", "x2"]


def _check_alpha(alpha):
    alpha = float(alpha)
    if not -1.0 < alpha < 1.0:
        raise ValueError(f"alpha is a correlation and must lie strictly between -1 and 1; got {alpha}")
    return alpha


def thesis_sample(n: int, alpha: float, seed: int | np.random.Generator | None = None) -> np.ndarray:
    r""":math:`n` draws of :math:`X \sim \mathcal{N}\left(0, \left(\begin{smallmatrix} 1 & \alpha \\
    \alpha & 1 \end{smallmatrix}\right)\right)` (thesis ch. 3), shape (n, 2).

    Parameters
    ----------
    n : int
        Number of draws, at least 1.
    alpha : float
        The correlation of the two features, strictly between -1 and 1.
    seed : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    ndarray (n, 2)
        Columns ``x1`` and ``x2`` (:data:`FEATURES`).

    Raises
    ------
    ValueError
        If ``n`` is not a positive integer or ``alpha`` is not strictly between -1 and 1.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.datasets import thesis_sample
    >>> X = thesis_sample(2000, alpha=0.5, seed=0)
    >>> X.shape, bool(abs(np.corrcoef(X.T)[0, 1] - 0.5) < 0.05)
    ((2000, 2), True)
    """
    n = check_positive_int(n, "n")
    alpha = _check_alpha(alpha)
    rng = check_rng(seed)
    z = rng.standard_normal((n, 2))
    return np.column_stack([z[:, 0], alpha * z[:, 0] + np.sqrt(1 - alpha**2) * z[:, 1]])


def thesis_model(beta: float, gamma: float) -> Callable[[np.ndarray], np.ndarray]:
    r""":math:`f(x) = (1 - \beta)(x_1 + x_2) + \beta x_1 x_2 + \gamma (x_1^2 + x_2^2)` as a function of X (m, 2).

    Parameters
    ----------
    beta : float
        The interaction knob: 0 additive, 1 the pure product x1 x2.
    gamma : float
        The non-linearity knob: weight of the squares.

    Returns
    -------
    callable
        ``f(X)`` for X of shape (m, 2) (or one point (2,)), returning (m,); it
        raises ``ValueError`` for another number of columns. Its attributes
        ``beta`` and ``gamma`` hold the knobs.

    Raises
    ------
    ValueError
        If ``beta`` or ``gamma`` is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.datasets import thesis_model
    >>> f = thesis_model(beta=0.5, gamma=0.1)
    >>> f(np.array([[1.0, 2.0], [0.0, 0.0]]))   # 0.5 * 3 + 0.5 * 2 + 0.1 * 5
    array([3., 0.])
    """
    beta, gamma = float(beta), float(gamma)
    if not (np.isfinite(beta) and np.isfinite(gamma)):
        raise ValueError("beta and gamma must be finite numbers")

    def f(X):
        X = check_matrix(X, "X", n_features=2, allow_1d=True)
        x1, x2 = X[:, 0], X[:, 1]
        return (1 - beta) * (x1 + x2) + beta * x1 * x2 + gamma * (x1**2 + x2**2)

    f.beta, f.gamma = beta, gamma
    return f


def thesis_game(x: ArrayLike, alpha: float, beta: float, gamma: float, value: str = "interventional") -> TabularGame:
    """The exact (population) game of the thesis design at the rows of x.

    Parameters
    ----------
    x : array (n, 2) or (2,)
    alpha, beta, gamma : float
    value : {"interventional", "observational"}

    Returns
    -------
    TabularGame
        Worths indexed by bitmask (empty, {x1}, {x2}, both), vectorised over
        the rows of x (a single game for a 1-D x).

    Raises
    ------
    ValueError
        If ``value`` is unknown, ``alpha`` is not strictly between -1 and 1,
        or x does not have two columns.

    Examples
    --------
    >>> import kernelxai as kx
    >>> from kernelxai.datasets import thesis_game
    >>> g = thesis_game([1.0, 2.0], alpha=0.5, beta=0.5, gamma=0.1)
    >>> g, g.table   # v(empty) = beta alpha + 2 gamma; v(both) = f(x)
    (TabularGame(n_players=2), array([0.45, 0.7 , 1.5 , 3.  ]))
    >>> kx.shapley_values(g).values
    array([0.875, 1.675])
    >>> thesis_game([[1.0, 2.0], [0.0, 1.0]], 0.5, 0.5, 0.1, value="observational")
    TabularGame(n_players=2, n_instances=2)
    """
    single = np.ndim(x) == 1
    X = check_matrix(x, "x", n_features=2, allow_1d=True)
    alpha = _check_alpha(alpha)
    beta, gamma = float(beta), float(gamma)
    x1, x2 = X[:, 0], X[:, 1]
    empty = np.full(len(X), beta * alpha + 2 * gamma)
    full = thesis_model(beta, gamma)(X)
    if value == "interventional":
        one = lambda u: (1 - beta) * u + gamma * (u**2 + 1)                      # noqa: E731
    elif value == "observational":
        one = lambda u: ((1 - beta) * (1 + alpha) * u + beta * alpha * u**2      # noqa: E731
                         + gamma * ((1 + alpha**2) * u**2 + 1 - alpha**2))
    else:
        raise ValueError(f"unknown value {value!r}; accepted: 'interventional', 'observational'")
    table = np.stack([empty, one(x1), one(x2), full])
    game = TabularGame(table[:, 0] if single else table, player_names=FEATURES)
    game.data = X[0] if single else X
    game.meta["value_function"] = f"{value} (exact, Gaussian closed form)"
    return game
