"""Sampling uncertainty of an explanation from single-reference games (Merrick & Taly 2020; thesis §2.3.2).

The attribution against a background is the mean of the attributions of
*single-reference games*, so the spread of those per-reference attributions
gives a standard error and a t-interval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._config import config_context, progress_enabled, working_elements
from .._params import Anything, Boolean, Data, Integer, Names, OneOf, Real, Seed, parameters
from .._validation import (
    check_columns,
    check_level,
    check_matrix,
    check_positive_int,
    check_rng,
    feature_names_of,
)
from ..estimators import t_interval
from ..estimators._common import progress_bar, progress_iter
from ..estimators._shapley import shapley_values
from ..explanation import Explanation
from ..games import FunctionGame, Game
from ..models import as_expansion
from ..values import Interventional
from ..values._agnostic import as_predict

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["single_reference", "single_reference_game", "ReferenceSamplingGame",
           "SINGLE_REFERENCE_EXACT_PLAYERS"]

#: Up to this many features :func:`single_reference` solves each game exactly.
SINGLE_REFERENCE_EXACT_PLAYERS = 10


# =========================================================================== #
# helpers
# =========================================================================== #
def _composite(x, references, z):
    """Composite inputs z(x, r, S): x on S, r elsewhere; shape (m, n, K, d)."""
    return np.where(z[:, None, None, :], x[None, :, None, :], references[None, None, :, :])


def _check_points(x, references, feature_names, model=None, name="references"):
    # DataFrames: x holds the model's columns (if it has names), the references x's (as kx.explain refuses)
    check_columns(x, "x", model=model)
    check_columns(references, name, model=model, sample=x, sample_name="x")
    single = np.ndim(x) == 1
    names = feature_names or feature_names_of(x) or feature_names_of(references)
    x = check_matrix(x, "x", allow_1d=True)
    if references is None or np.size(references) == 0:
        raise ValueError(
            "references is empty: single-reference games need reference points (K, d), "
            "e.g. a sample of the training data"
        )
    references = check_matrix(references, "references", n_features=x.shape[1], allow_1d=True)
    d = x.shape[1]
    if names is not None and len(names) != d:
        raise ValueError(f"feature_names has {len(names)} entries for {d} features")
    return x, references, (list(names) if names is not None else None), single




# =========================================================================== #
# 1. single-reference games (Merrick & Taly 2020)
# =========================================================================== #
@parameters("kx.uncertainty.single_reference_game", predict=Anything(), x=Data(), reference=Data(),
            feature_names=Names(none=True))
def single_reference_game(predict: Any, x: ArrayLike, reference: ArrayLike,
                          feature_names: Sequence[str] | None = None) -> FunctionGame:
    r"""The single-reference game :math:`v_{x,r}(S) = f(x_S, r_{S^c}) - f(r)` (Merrick & Taly 2020; thesis §2.3.2).

    Parameters
    ----------
    predict : callable or fitted model
        ``f``, a function of an array (m, d) (or an object with ``predict``).
    x : array (d,) or (n, d)
        Point(s) to explain; the game is vectorised over them.
    reference : array (d,)
        The reference r that "absent" features take their values from.
    feature_names : list of str, optional
        Player names (default: the columns of a DataFrame ``x`` or ``reference``, else
        ``x0, x1, ...``).

    Returns
    -------
    FunctionGame
        With ``v(empty) = 0`` and ``v(all) = f(x) - f(r)``; one instance per row of a 2-D
        ``x``.

    Raises
    ------
    ValueError
        When ``reference`` is empty or holds more than one point, its number of features
        differs from ``x``'s, or ``feature_names`` has the wrong length.

    Examples
    --------
    Against one reference, the exact Shapley values add up to f(x) - f(r):

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> def f(X):
    ...     return X[:, 0] + X[:, 1] * X[:, 2]
    >>> game = kx.uncertainty.single_reference_game(f, np.array([1.0, 2.0, 3.0]), np.zeros(3))
    >>> phi = kx.shapley_values(game).values
    >>> np.round(phi, 4), round(float(phi.sum()), 4)
    (array([1., 3., 3.]), 7.0)
    """
    f = as_predict(predict)
    xs, refs, names, single = _check_points(x, reference, feature_names, predict, "reference")
    if refs.shape[0] != 1:
        raise ValueError(f"one reference point is needed; got {refs.shape[0]}")
    f_ref = f(refs)[0]
    d, n = xs.shape[1], xs.shape[0]

    def worths(z):
        comp = _composite(xs, refs, z).reshape(-1, d)
        return f(comp).reshape(len(z), n) - f_ref

    game = FunctionGame(worths, d, names, n_instances=n, data=xs,
                        meta={"value_function": "single reference"})
    if single:
        return FunctionGame(lambda z: worths(z)[:, 0], d, names, data=xs[0],
                            meta={"value_function": "single reference"})
    return game


@parameters("kx.uncertainty.single_reference", predict=Anything(), x=Data(), references=Data(),
            level=Real(0.0, 1.0), method=OneOf("auto", "exact", "permutation"), n_permutations=Integer(1), seed=Seed(),
            feature_names=Names(none=True), max_elements=Integer(1, none=True), progress=Boolean(none=True))
def single_reference(predict: Any, x: ArrayLike, references: ArrayLike, level: float = 0.95, *, method: str = "auto",  # noqa: PLR0913 - keyword options of a public entry point, as scikit-learn's
                     n_permutations: int = 1, seed: int | np.random.Generator | None = None,
                     feature_names: Sequence[str] | None = None, max_elements: int | None = None,
                     progress: bool | None = None) -> Explanation:
    r"""Attributions with standard errors from single-reference games (Merrick & Taly 2020).

    For each reference :math:`r_k` the single-reference game
    :math:`v_{x,r_k}(S) = f(x_S, r_{k,S^c}) - f(r_k)` is solved; the attribution is the
    mean over the :math:`K` references (an unbiased estimate of the interventional
    Shapley value with background distribution of the references; Merrick &
    Taly 2020; thesis §2.3.2, :math:`\phi = \mathbb{E}_R[\phi(v_{x,R})]`), its standard error
    :math:`s/\sqrt{K}` (ddof 1) and the interval
    :math:`\bar\phi \pm t_{K-1}\, \text{stderr}` at ``level`` (thesis §2.3.2, with the t quantile
    instead of 1.96).

    With ``method="exact"`` (default up to 10 features) each game's Shapley
    values are computed exactly from its :math:`2^d` coalitions; for a kernel model
    (anything :func:`kernelxai.models.as_expansion` accepts) each single-reference
    game is the interventional game with the one-point background :math:`\{r\}`, and
    its exact values come from :class:`kernelxai.values.Interventional`
    (mean embeddings or the polynomial-time product route). With
    ``method="permutation"`` (default above) each reference is paired with
    ``n_permutations`` independent random orderings of its own; the
    per-reference estimate is still unbiased and i.i.d. across references, so
    the same interval covers both the reference sampling and the ordering
    sampling (thesis §2.3.2, the combined estimator over references and orderings).

    Parameters
    ----------
    predict : callable or fitted model
        f(X) for an array (m, d); or an object with ``predict``.
    x : array (d,) or (n, d), or DataFrame
        Point(s) to explain.
    references : array (K, d)
        Reference points, e.g. a sample of the training data. K >= 2.
    level : float in (0, 1)
    method : {"auto", "exact", "permutation"}
    n_permutations : int
        Orderings per reference for ``method="permutation"``.
    seed : None, int or Generator
        Randomness of the orderings (``random_state=``, scikit-learn's name, is accepted too).
    feature_names : list of str, optional
    max_elements : int
        Memory budget (float64 elements) of one block of composite inputs.
    progress : bool or None
        One progress bar for the call: None (default) when it is estimated to run
        longer than ``kx.get_config()["progress_after"]``, True always, False never.

    Returns
    -------
    Explanation
        ``values`` (n, d) (or (d,) for a single x): the mean attribution;
        ``base_values`` the mean f(r_k), so values sum to f(x) - base;
        ``stderr``, ``lower``, ``upper``; ``meta["reference_values"]`` holds
        the per-reference attributions, shape (n, K, d) (or (K, d)).

    Raises
    ------
    ValueError
        For fewer than 2 references, an unknown ``method``, ``level`` outside (0, 1),
        ``references`` with another number of features than ``x``, or ``feature_names``
        of the wrong length.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> def f(X):
    ...     return X[:, 0] + X[:, 1] * X[:, 2]
    >>> references = np.random.default_rng(0).normal(size=(8, 3))
    >>> expl = kx.uncertainty.single_reference(f, np.array([1.0, 2.0, 3.0]), references)
    >>> np.round(expl.values, 4), np.round(expl.stderr, 4)
    (array([1.1262, 3.0677, 3.044 ]), array([0.4468, 0.4742, 0.5053]))
    >>> expl.meta["reference_values"].shape  # one attribution per reference
    (8, 3)
    """
    level = check_level(level)
    f = as_predict(predict)
    xs, refs, names, single = _check_points(x, references, feature_names, predict)
    n, d = xs.shape
    K = refs.shape[0]
    if K < 2:
        raise ValueError(
            "a single reference gives one exact attribution and no spread, so there is no "
            "interval; pass at least 2 references (kx.uncertainty.single_reference_game(f, x, r) "
            "gives the attribution of one reference)"
        )
    if method == "auto":
        kernel_route = d <= 64 and _kernel_value_function(predict) is not None
        method = "exact" if d <= SINGLE_REFERENCE_EXACT_PLAYERS or kernel_route else "permutation"
    if method not in ("exact", "permutation"):
        raise ValueError(f"unknown method {method!r}; accepted: 'auto', 'exact', 'permutation'")
    max_elements = working_elements(8) if max_elements is None else \
        check_positive_int(max_elements, "max_elements")
    f_ref = f(refs)
    value_function = _kernel_value_function(predict) if method == "exact" else None
    if value_function is not None:
        per_ref = _single_reference_kernel(value_function, xs, refs, progress)
        sampling = ("exact Shapley values of every single-reference game, through the "
                    "interventional value function of the kernel model (one-point background)")
    elif method == "exact":
        per_ref = _single_reference_exact(f, xs, refs, f_ref, max_elements, progress)
        sampling = "exact Shapley values of every single-reference game"
    else:
        n_permutations = check_positive_int(n_permutations, "n_permutations")
        rng = check_rng(seed)
        per_ref = _single_reference_permutation(f, xs, refs, n_permutations, rng, max_elements,
                                                progress)
        sampling = (f"{n_permutations} random ordering(s) per reference, independent across "
                    "references")
    mean, stderr, lower, upper = t_interval(per_ref, level, axis=1)
    base = np.full(n, f_ref.mean())
    meta = {"value_function": "single-reference games (Merrick & Taly)", "method": method,
            "n_references": K, "level": level, "sampling": sampling,
            "interval": f"t-interval over {K} references (K-1 = {K - 1} dof)",
            "reference_values": per_ref[0] if single else per_ref}
    if single:
        return Explanation(mean[0], float(base[0]), data=xs[0], feature_names=names,
                           stderr=stderr[0], lower=lower[0], upper=upper[0], meta=meta)
    return Explanation(mean, base, data=xs, feature_names=names, stderr=stderr, lower=lower,
                       upper=upper, meta=meta)


def _kernel_value_function(model):
    """The interventional value function of ``model`` when it is a kernel model, else None."""
    try:
        as_expansion(model)
    except (TypeError, ValueError):
        return None
    return lambda background: Interventional(model, background)


def _single_reference_kernel(value_function, xs, refs, progress):
    """Per-reference exact values, shape (n, K, d), via a value function with background {r}.

    The interventional game with the one-point background {r} is
    f(x_S, r_{S^c}) = v_{x,r}(S) + f(r): the same Shapley values, computed by the
    value function's own exact route (mean embeddings or product quadrature for
    product kernels) instead of 2**d calls of the model per reference.
    """
    n, d = xs.shape
    out = np.empty((n, len(refs), d))
    show = progress_enabled(progress)
    # one bar for the call: each game's stages (and its estimator) report into its postfix
    with progress_bar(len(refs), "single-reference games", "game", progress) as bar, \
            config_context(progress=show):
        for k in range(len(refs)):
            vf = value_function(np.vstack([refs[k], refs[k]]))
            game = vf.game(xs)
            out[:, k] = shapley_values(game, method="auto", progress=show).values.reshape(n, d)
            bar.update(1)
    return out


def _single_reference_exact(f, xs, refs, f_ref, max_elements, progress):
    """Per-reference exact Shapley values, shape (n, K, d)."""
    n, d = xs.shape
    K = refs.shape[0]

    def worths(z):
        out = np.empty((len(z), n, K))
        rows = max(1, max_elements // max(n * K * d, 1))
        for start in range(0, len(z), rows):
            block = z[start:start + rows]
            comp = _composite(xs, refs, block).reshape(-1, d)
            out[start:start + len(block)] = f(comp).reshape(len(block), n, K)
        return (out - f_ref[None, None, :]).reshape(len(z), n * K)

    game = FunctionGame(worths, d, n_instances=n * K)
    # the exact estimator evaluates about max_elements / (n K) coalitions per block
    phi = shapley_values(game, "exact", max_elements=max(d + 1, max_elements // d), progress=progress).values
    return phi.reshape(n, K, d)


def _single_reference_permutation(f, xs, refs, n_perm, rng, max_elements, progress):
    """Per-reference permutation estimates (independent orderings), shape (n, K, d)."""
    n, d = xs.shape
    K = refs.shape[0]
    pairs = n * K * n_perm
    ix = np.repeat(np.arange(n), K * n_perm)
    kx_ = np.tile(np.repeat(np.arange(K), n_perm), n)
    out = np.empty((pairs, d))
    step = max(1, max_elements // ((d + 1) * d))
    steps = np.arange(d + 1)
    for start in progress_iter(range(0, pairs, step), "single-reference games", "block", progress):
        stop = min(pairs, start + step)
        b = stop - start
        pos = np.argsort(np.argsort(rng.random((b, d)), axis=1), axis=1)  # position of each player
        prefix = pos[:, None, :] < steps[None, :, None]                   # (b, d+1, d)
        comp = np.where(prefix, xs[ix[start:stop], None, :], refs[kx_[start:stop], None, :])
        worth = f(comp.reshape(-1, d)).reshape(b, d + 1)
        gains = np.diff(worth, axis=1)                                    # gain at each position
        out[start:stop] = np.take_along_axis(gains, pos, axis=1)
    return out.reshape(n, K, n_perm, d).mean(axis=2)


class ReferenceSamplingGame(Game):
    r"""A noisy game: each evaluated coalition uses one reference drawn at random.

    :math:`v(S) = f(x_S, r_{S^c})` with :math:`r` drawn uniformly from ``references`` afresh
    for every coalition row (and every call), except that the empty coalition
    gets the exact mean of :math:`f` over all references and the full coalition :math:`f(x)`.
    Its expectation is the interventional game with the references as
    background; Bayesian SHAP fitted to it sees the reference-sampling noise as
    regression noise -- the perturbation set :math:`Z = \{z(x, r_i, S_i)\}` of the
    thesis (ch. 3).

    Parameters
    ----------
    predict : callable or fitted model
        ``f``, a function of an array (m, d) (or an object with ``predict``).
    x : array (d,) or (n, d)
        Point(s) to explain; the game is vectorised over the rows of a 2-D ``x``.
    references : array (K, d)
        The references drawn from.
    seed : None, int or Generator
        Randomness of the reference draws.
    feature_names : list of str, optional
        Player names (default: the columns of a DataFrame ``x`` or ``references``, else
        ``x0, x1, ...``).

    Raises
    ------
    ValueError
        When ``references`` is empty or has another number of features than ``x``, or
        ``feature_names`` has the wrong length.

    Examples
    --------
    Bayesian SHAP on the noisy game: its intervals cover the reference sampling too.

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> def f(X):
    ...     return X[:, 0] + X[:, 1] * X[:, 2]
    >>> references = np.random.default_rng(0).normal(size=(8, 3))
    >>> game = kx.uncertainty.ReferenceSamplingGame(f, np.array([1.0, 2.0, 3.0]), references, seed=0)
    >>> expl = kx.uncertainty.bayes_shap(game, n_samples=200, seed=0)
    >>> game.n_players, expl.values.shape, bool(np.all(expl.lower <= expl.upper))
    (3, (3,), True)
    """

    @parameters("kx.uncertainty.ReferenceSamplingGame", predict=Anything(), x=Data(), references=Data(), seed=Seed(),
                feature_names=Names(none=True))
    def __init__(self, predict: Any, x: ArrayLike, references: ArrayLike, seed: int | np.random.Generator | None = None,
                 feature_names: Sequence[str] | None = None) -> None:
        self._f = as_predict(predict)
        xs, refs, names, single = _check_points(x, references, feature_names, predict)
        super().__init__(xs.shape[1], names, None if single else xs.shape[0],
                         data=xs[0] if single else xs,
                         meta={"value_function": "interventional, one random reference per coalition"})
        self._x, self._refs, self._single = xs, refs, single
        self._rng = check_rng(seed)
        self._empty = self._f(refs).mean()
        self._full = self._f(xs)

    def _evaluate(self, z):
        m, n, d = len(z), self._x.shape[0], self.n_players
        r = self._refs[self._rng.integers(len(self._refs), size=m)]
        comp = np.where(z[:, None, :], self._x[None, :, :], r[:, None, :])
        out = self._f(comp.reshape(-1, d)).reshape(m, n)
        size = z.sum(axis=1)
        out[size == 0] = self._empty
        out[size == d] = self._full
        return out[:, 0] if self._single else out


