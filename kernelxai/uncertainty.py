"""How uncertain is an explanation? Three answers (thesis ch. 2.3).

* **Sampling uncertainty** -- :func:`single_reference` (Merrick & Taly 2020):
  the attribution against a background is the mean of the attributions of
  *single-reference games*, so the spread of those per-reference attributions
  gives a standard error and a t-interval. (Permutation sampling, and
  KernelSHAP with ``bootstrap=``, report intervals the same way through
  :func:`kernelxai.shapley_values`.)
* **What the Shapley value leaves out** -- :func:`shapley_residuals` (Kumar et
  al. 2020): each player's Shapley value is read off the closest *inessential*
  (additive) game along that player's edges of the coalition hypercube; the
  residual edge vector measures the interaction the single number hides.
* **Regression uncertainty of KernelSHAP** -- :func:`bayes_shap` (Slack et al.
  2021): a Bayesian weighted linear regression over coalitions, with a
  conjugate posterior, Student-t credible intervals, a forecast of the
  perturbations still needed for a target width, and focused sampling.

Everything here is model-agnostic: the functions take a
:class:`~kernelxai.games.Game` or a predict function.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats
from scipy.special import logsumexp
from tqdm.auto import tqdm

from ._validation import (
    check_level,
    check_matrix,
    check_positive_int,
    check_rng,
    feature_names_of,
)
from .explanation import Explanation
from .games import (
    FunctionGame,
    Game,
    coalition_size_distribution,
    sample_coalitions,
    tabulate,
)
from .shapley import register_method, shapley_values, t_interval
from .values.agnostic import as_predict

__all__ = [
    "single_reference",
    "single_reference_game",
    "ReferenceSamplingGame",
    "shapley_residuals",
    "ShapleyResiduals",
    "walsh_hadamard",
    "bayes_shap",
    "bayes_linear_posterior",
    "BayesPosterior",
    "coalition_second_moment",
    "MAX_RESIDUAL_PLAYERS",
]

#: Largest number of players :func:`shapley_residuals` accepts (2**20 coalitions).
MAX_RESIDUAL_PLAYERS = 20

#: Up to this many features :func:`single_reference` solves each game exactly.
SINGLE_REFERENCE_EXACT_PLAYERS = 10


# =========================================================================== #
# helpers
# =========================================================================== #
def _composite(x, references, z):
    """Composite inputs z(x, r, S): x on S, r elsewhere; shape (m, n, K, d)."""
    return np.where(z[:, None, None, :], x[None, :, None, :], references[None, None, :, :])


def _check_points(x, references, feature_names):
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
def single_reference_game(predict, x, reference, feature_names=None):
    """The single-reference game v_{x,r}(S) = f(x_S, r_{S^c}) - f(r) (Merrick & Taly 2020; thesis §2.3.2).

    Parameters
    ----------
    predict : callable or fitted model
        ``f``, a function of an array (m, d) (or an object with ``predict``).
    x : array (d,) or (n, d)
        Point(s) to explain; the game is vectorised over them.
    reference : array (d,)
        The reference r that "absent" features take their values from.

    Returns
    -------
    FunctionGame
        With ``v(empty) = 0`` and ``v(all) = f(x) - f(r)``.
    """
    f = as_predict(predict)
    xs, refs, names, single = _check_points(x, reference, feature_names)
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


def single_reference(predict, x, references, level=0.95, *, method="auto", n_permutations=1,
                     seed=None, feature_names=None, max_elements=2**22, progress=False):
    """Attributions with standard errors from single-reference games (Merrick & Taly 2020).

    For each reference r_k the single-reference game
    v_{x,r_k}(S) = f(x_S, r_{k,S^c}) - f(r_k) is solved; the attribution is the
    mean over the K references (an unbiased estimate of the interventional
    Shapley value with background distribution of the references; Merrick &
    Taly 2020; thesis §2.3.2, phi = E_R[phi(v_{x,R})]), its standard error sd/sqrt(K) (ddof 1) and the interval
    mean +/- t_{K-1} * stderr at ``level`` (thesis §2.3.2, with the t quantile
    instead of 1.96).

    With ``method="exact"`` (default up to 10 features) each game's Shapley
    values are computed exactly from its 2**d coalitions; for a kernel model
    (anything :func:`kernelxai.models.as_expansion` accepts) each single-reference
    game is the interventional game with the one-point background {r}, and
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
        Randomness of the orderings.
    feature_names : list of str, optional
    max_elements : int
        Memory budget (float64 elements) of one block of composite inputs.
    progress : bool
        Show a progress bar.

    Returns
    -------
    Explanation
        ``values`` (n, d) (or (d,) for a single x): the mean attribution;
        ``base_values`` the mean f(r_k), so values sum to f(x) - base;
        ``stderr``, ``lower``, ``upper``; ``meta["reference_values"]`` holds
        the per-reference attributions, shape (n, K, d) (or (K, d)).
    """
    level = check_level(level)
    f = as_predict(predict)
    xs, refs, names, single = _check_points(x, references, feature_names)
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
    max_elements = check_positive_int(max_elements, "max_elements")
    f_ref = f(refs)
    value_function = _kernel_value_function(predict) if method == "exact" else None
    if value_function is not None:
        per_ref = _single_reference_kernel(value_function, xs, refs, progress)
        sampling = ("exact Shapley values of every single-reference game, through the "
                    "interventional value function of the kernel model (one-point background)")
    elif method == "exact":
        per_ref = _single_reference_exact(f, xs, refs, f_ref, max_elements)
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
    """The interventional value-function class when ``model`` is a kernel model, else None."""
    from .models import as_expansion
    from .values import get, registered

    if "interventional" not in registered():
        return None
    try:
        as_expansion(model)
    except (TypeError, ValueError):
        return None
    return lambda background: get("interventional")(model, background)


def _single_reference_kernel(value_function, xs, refs, progress):
    """Per-reference exact values, shape (n, K, d), via a value function with background {r}.

    The interventional game with the one-point background {r} is
    f(x_S, r_{S^c}) = v_{x,r}(S) + f(r): the same Shapley values, computed by the
    value function's own exact route (mean embeddings or product quadrature for
    product kernels) instead of 2**d calls of the model per reference.
    """
    n, d = xs.shape
    out = np.empty((n, len(refs), d))
    for k in tqdm(range(len(refs)), desc="single-reference games", disable=not progress, leave=False):
        vf = value_function(np.vstack([refs[k], refs[k]]))
        game = vf.game(xs)
        out[:, k] = shapley_values(game, method=vf.auto_method(game)).values.reshape(n, d)
    return out


def _single_reference_exact(f, xs, refs, f_ref, max_elements):
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
    phi = shapley_values(game, "exact", max_elements=max(d + 1, max_elements // d)).values
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
    for start in tqdm(range(0, pairs, step), desc="single-reference games", disable=not progress,
                      leave=False):
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
    """A noisy game: each evaluated coalition uses one reference drawn at random.

    v(S) = f(x_S, r_{S^c}) with r drawn uniformly from ``references`` afresh
    for every coalition row (and every call), except that the empty coalition
    gets the exact mean of f over all references and the full coalition f(x).
    Its expectation is the interventional game with the references as
    background; Bayesian SHAP fitted to it sees the reference-sampling noise as
    regression noise -- the perturbation set Z = {z(x, r_i, S_i)} of the
    thesis (ch. 3).

    Parameters
    ----------
    predict : callable or fitted model
    x : array (d,) or (n, d)
    references : array (K, d)
    seed : None, int or Generator
    """

    def __init__(self, predict, x, references, seed=None, feature_names=None):
        self._f = as_predict(predict)
        xs, refs, names, single = _check_points(x, references, feature_names)
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


# =========================================================================== #
# 2. Shapley residuals (Kumar et al. 2020)
# =========================================================================== #
def walsh_hadamard(a):
    """Unnormalised Walsh-Hadamard transform along axis 0 (length 2**d).

    â(T) = sum_S (-1)^{|S ∩ T|} a(S), with S and T bitmasks (bit j = player j);
    the inverse is the same transform divided by 2**d. O(d 2**d) per column.
    """
    a = np.array(a, dtype=float, copy=True)
    m = a.shape[0]
    d = m.bit_length() - 1
    if m < 1 or 2**d != m:
        raise ValueError(f"the first axis must have length 2**d; got {m}")
    rest = a.shape[1:]
    for h in range(d):
        view = a.reshape((m >> (h + 1), 2, 1 << h) + rest)
        low = view[:, 0].copy()
        view[:, 0] += view[:, 1]
        np.subtract(low, view[:, 1], out=view[:, 1])
    return a


def _popcount(d):
    size = np.zeros(1, dtype=np.int64)
    for _ in range(d):
        size = np.concatenate([size, size + 1])
    return size  # size[T] = |T| for T = 0 .. 2**d - 1


def _upper_half(a, j):
    """View of the rows of ``a`` (2**d, ...) whose bitmask contains bit j."""
    m = a.shape[0]
    return a.reshape((m >> (j + 1), 2, 1 << j) + a.shape[1:])[:, 1]


def _edge_differences(a, j):
    """a(S + j) - a(S) for every S without j, in increasing order of S: (2**(d-1), ...)."""
    m = a.shape[0]
    view = a.reshape((m >> (j + 1), 2, 1 << j) + a.shape[1:])
    return (view[:, 1] - view[:, 0]).reshape((m // 2,) + a.shape[1:])


class ShapleyResiduals:
    """Shapley values with their residuals (Kumar et al. 2020); see :func:`shapley_residuals`.

    Attributes
    ----------
    values : ndarray (d,) or (n, d)
        Shapley values phi_i = v_i(all) of the component games.
    residual_norms : ndarray like values
        ||r_i||, the Euclidean norm of each player's residual edge vector.
    relative : ndarray like values
        ||r_i|| / ||D v||: the share of the game's total variation along the
        hypercube edges that player i's value cannot represent (0 for a
        constant game).
    total_norm : float or ndarray (n,)
        ||D v||.
    partial_norms : ndarray like values
        ||D_i v||, the norm of player i's marginal contributions over its own edges.
    relative_to_player : ndarray like values
        ||r_i|| / ||D_i v|| in [0, 1]: the share of player i's own variation
        that no additive game reproduces (0 where the player never contributes).
    base_value : float or ndarray (n,)
        v(empty).
    player_names : list of str
    """

    def __init__(self, table, transform, player_names, single, meta):
        self._table = table            # (2**d, n)
        self._hat = transform          # (2**d, n)
        d = table.shape[0].bit_length() - 1
        self.n_players = d
        self.player_names = player_names
        self._single = single
        self.meta = meta
        size = _popcount(d)
        self._size = size
        m = 2**d
        inv = np.zeros(m)
        inv[1:] = 1.0 / size[1:]
        self._inv_size = inv
        hat2 = transform**2
        # phi_i = 2^-d sum_{T ∋ i} v̂(T) ((-1)^|T| - 1) / |T|;  ||r_i||^2 = 2^{1-d} sum_{T ∋ i} v̂(T)^2 (1 - 1/|T|)
        c_phi = transform * (((-1.0) ** size - 1.0) * inv)[:, None] / m
        c_res = hat2 * (2.0 * (1.0 - inv) * (size > 0))[:, None] / m
        c_par = hat2 * (2.0 / m)                                  # ||D_i v||^2 = 2^{1-d} sum_{T ∋ i} v̂(T)^2
        phi = np.stack([_upper_half(c_phi, j).sum(axis=(0, 1)) for j in range(d)], axis=-1)
        res2 = np.stack([_upper_half(c_res, j).sum(axis=(0, 1)) for j in range(d)], axis=-1)
        par2 = np.stack([_upper_half(c_par, j).sum(axis=(0, 1)) for j in range(d)], axis=-1)
        total2 = (hat2 * (2.0 * size)[:, None]).sum(axis=0) / m   # ||Dv||^2 = v^T L v
        norms = np.sqrt(np.maximum(res2, 0.0))
        total = np.sqrt(np.maximum(total2, 0.0))
        partial = np.sqrt(np.maximum(par2, 0.0))
        rel = np.where(total[:, None] > 0, norms / np.where(total > 0, total, 1.0)[:, None], 0.0)
        own = np.where(partial > 0, norms / np.where(partial > 0, partial, 1.0), 0.0)
        pick = (lambda a: a[0]) if single else (lambda a: a)
        self.values = pick(phi)
        self.residual_norms = pick(norms)
        self.relative = pick(rel)
        self.partial_norms = pick(partial)
        self.relative_to_player = pick(np.minimum(own, 1.0))
        self.total_norm = float(total[0]) if single else total
        self.base_value = float(table[0, 0]) if single else table[0].copy()
        self._components = None

    # --------------------------------------------------------------- games
    def component_game(self, i):
        """The inessential game v_i closest to v along player i's edges: (2**d,) or (2**d, n).

        v_i(empty) = 0; sum_i v_i = v - v(empty).
        """
        i = self._player(i)
        coef = np.zeros_like(self._hat)
        _upper_half(coef, i)[...] = _upper_half(self._hat * self._inv_size[:, None], i)
        vi = walsh_hadamard(coef) / coef.shape[0]
        vi -= vi[0]
        return vi[:, 0] if self._single else vi

    @property
    def component_games(self):
        """All component games, shape (d, 2**d) or (d, 2**d, n) (computed on first use)."""
        if self._components is None:
            self._components = np.stack([self.component_game(i) for i in range(self.n_players)])
        return self._components

    def residual(self, i):
        """Residual edge vector r_i = D_i v - D v_i, shape (d, 2**(d-1)) or (d, 2**(d-1), n).

        Entry [j, k] belongs to the edge from S to S + j, where S is the k-th
        coalition without j in increasing bitmask order.
        """
        i = self._player(i)
        vi = self.component_game(i)
        vi = vi[:, None] if self._single else vi
        out = np.stack([-_edge_differences(vi, j) for j in range(self.n_players)])
        out[i] += _edge_differences(self._table, i)
        return out[..., 0] if self._single else out

    @property
    def residuals(self):
        """All residual edge vectors, shape (d, d, 2**(d-1)[, n])."""
        return np.stack([self.residual(i) for i in range(self.n_players)])

    def _player(self, i):
        if isinstance(i, str):
            if i not in self.player_names:
                raise KeyError(f"unknown player {i!r}; players are {self.player_names}")
            return self.player_names.index(i)
        i = int(i)
        if not 0 <= i < self.n_players:
            raise IndexError(f"player index {i} out of range for {self.n_players} players")
        return i

    # --------------------------------------------------------------- output
    def to_explanation(self):
        """The Shapley values as an Explanation; residual norms ride along in ``meta``."""
        meta = {**self.meta, "residual_norms": self.residual_norms, "relative_residuals": self.relative}
        return Explanation(self.values, self.base_value, feature_names=self.player_names, meta=meta)

    def to_frame(self):
        """One row per player (single game) or per (instance, player)."""
        import pandas as pd

        if self._single:
            return pd.DataFrame({"value": self.values, "residual norm": self.residual_norms,
                                 "relative residual": self.relative}, index=self.player_names)
        n = len(self.values)
        return pd.DataFrame({
            "instance": np.repeat(np.arange(n), self.n_players),
            "player": self.player_names * n,
            "value": self.values.ravel(),
            "residual norm": self.residual_norms.ravel(),
            "relative residual": self.relative.ravel(),
        })

    def __repr__(self):
        return (f"ShapleyResiduals(n_players={self.n_players}, "
                f"max relative residual={np.max(self.relative):.3g})")


def shapley_residuals(game, *, max_players=MAX_RESIDUAL_PLAYERS):
    """Shapley values and Shapley residuals of a game (Kumar et al. 2020).

    View the game as a function v on the vertices of the hypercube {0,1}^d,
    with gradient D (edge S -> S+j carries v(S+j) - v(S)) and partial gradient
    D_i (only the i-edges). Player i's component game solves

        min ||D v_i - D_i v||^2  subject to  v_i(empty) = 0,

    i.e. the Laplace equation L v_i = L_i v with L = D^T D the hypercube
    Laplacian and L_i = D^T D_i; then phi_i = v_i(all) is the Shapley value and
    r_i = D_i v - D v_i the residual (zero for every player iff the game is
    inessential; Kumar et al. 2020, Prop. 1 as stated in thesis §2.3.1).

    Both Laplacians are diagonal in the Walsh-Hadamard basis: L has eigenvalue
    2|T| and L_i eigenvalue 2[i in T] on the character (-1)^{|S ∩ T|}. So
    v̂_i(T) = [i in T] v̂(T) / |T|, and the Shapley value and residual norm of
    every player follow from one transform in O(d 2**d) time:

        phi_i = 2^-d sum_{T ∋ i} v̂(T) ((-1)^|T| - 1) / |T|,
        ||r_i||^2 = 2^{1-d} sum_{T ∋ i} v̂(T)^2 (1 - 1/|T|).

    Component games and residual edge vectors are formed only on request.

    Parameters
    ----------
    game : Game
        Up to ``max_players`` players; vectorised games give one result per instance.
    max_players : int
        Refuse larger games (every one of the 2**d coalitions is evaluated).

    Returns
    -------
    ShapleyResiduals
    """
    if not isinstance(game, Game):
        raise TypeError(
            f"shapley_residuals needs a kernelxai Game; got {type(game).__name__}. Wrap a table "
            "with kx.TabularGame or a function with kx.FunctionGame"
        )
    d = game.n_players
    max_players = check_positive_int(max_players, "max_players")
    if d > max_players:
        n = game.n_instances or 1
        gib = 2**d * n * 8 * 3 / 2**30
        raise ValueError(
            f"Shapley residuals need the worth of every coalition: {d} players means "
            f"2**{d} = {2**d:,} game evaluations per instance and about {gib:,.1f} GiB of "
            f"working memory, more than the limit of {max_players} players "
            f"(2**{max_players} = {2**max_players:,} evaluations). Group the features "
            "(game.grouped(groups)) to reduce the number of players"
        )
    table = tabulate(game)
    single = table.ndim == 1
    table2 = table[:, None] if single else table
    hat = walsh_hadamard(table2)
    meta = {**game.meta, "method": "Shapley residuals (Walsh-Hadamard)"}
    return ShapleyResiduals(table2, hat, list(game.player_names), single, meta)


# =========================================================================== #
# 3. Bayesian SHAP (Slack et al. 2020)
# =========================================================================== #
def coalition_second_moment(d):
    """M = E[z z^T] for coalitions z drawn from the Shapley kernel (sizes 1..d-1).

    The diagonal is E[s]/d = 1/2, every off-diagonal entry E[s(s-1)]/(d(d-1)).
    Bayesian SHAP's default prior precision is this matrix: the information
    about phi carried by one coalition drawn from the kernel.
    """
    d = check_positive_int(d, "number of players", minimum=2)
    s, p = coalition_size_distribution(d)
    diag = float(p @ s) / d
    off = float(p @ (s * (s - 1))) / (d * (d - 1))
    return np.full((d, d), off) + np.eye(d) * (diag - off)


class BayesPosterior:
    """The normal-scaled-inverse-chi^2 posterior of a weighted Bayesian linear regression.

    Attributes
    ----------
    mean : ndarray (p, n)
        Posterior mean phi-hat of each of the n response columns.
    V : ndarray (p, p)
        phi | sigma^2 ~ N(mean, sigma^2 V) (shared by all columns).
    s2 : ndarray (n,)
        Posterior scale of sigma^2: sigma^2 ~ scaled-Inv-chi^2(dof, s2).
    dof : int
        Degrees of freedom of the Student-t marginals.
    n_obs : int
    """

    def __init__(self, mean, V, s2, dof, n_obs):
        self.mean, self.V, self.s2, self.dof, self.n_obs = mean, V, s2, dof, n_obs

    @property
    def scale(self):
        """Scale sqrt(s2 V_jj) of each coefficient's Student-t marginal, shape (p, n)."""
        return np.sqrt(np.maximum(np.diag(self.V), 0.0)[:, None] * self.s2[None, :])

    def interval(self, level=0.95):
        """Equal-tailed credible interval of each coefficient at ``level``: (lower, upper), (p, n)."""
        level = check_level(level)
        half = stats.t.ppf(0.5 + level / 2, self.dof) * self.scale
        return self.mean - half, self.mean + half


def bayes_linear_posterior(Z, y, weights=None, prior_precision=None, *, constraint=None,
                           prior_dof=0.0, prior_scale=0.0):
    """Conjugate posterior of y | Z, phi, sigma^2 ~ N(Z phi, sigma^2 / w) (Slack et al. 2020; thesis §2.3.3).

    Prior phi | sigma^2 ~ N(0, sigma^2 Lambda0^{-1}) and
    sigma^2 ~ scaled-Inv-chi^2(n0, s0^2). Posterior (conjugate update):

        V = (Z^T W Z + Lambda0)^{-1},  phi-hat = V Z^T W y,
        s^2 = [n0 s0^2 + (y - Z phi-hat)^T W (y - Z phi-hat) + phi-hat^T Lambda0 phi-hat] / (n0 + N),

    with Student-t marginals of n0 + N degrees of freedom. Slack et al. use
    Lambda0 = I and n0 = 0.

    Parameters
    ----------
    Z : array (N, p)
    y : array (N,) or (N, n)
        One or several response columns sharing the design.
    weights : array (N,), optional
        Positive observation weights (the proximity pi(z)); default all ones.
    prior_precision : array (p, p), optional
        Lambda0; default the identity.
    constraint : (a, b), optional
        An exact linear observation a^T phi = b (b scalar or (n,)): the limit
        of one more observation with infinite weight. It conditions the
        Gaussian on the constraint and adds one degree of freedom.
    prior_dof, prior_scale : float
        n0 and s0^2 of the prior on sigma^2 (default 0: the improper 1/sigma^2 prior).

    Returns
    -------
    BayesPosterior
    """
    Z = np.asarray(Z, dtype=float)
    y = np.asarray(y, dtype=float)
    one_col = y.ndim == 1
    y = y[:, None] if one_col else y
    N, p = Z.shape
    if y.shape[0] != N:
        raise ValueError(f"Z has {N} rows but y has {y.shape[0]}")
    w = np.ones(N) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (N,) or np.any(~np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("weights must be N finite positive numbers")
    L0 = np.eye(p) if prior_precision is None else np.asarray(prior_precision, dtype=float)
    if L0.shape != (p, p):
        raise ValueError(f"prior_precision must have shape ({p}, {p}); got {L0.shape}")
    P = Z.T @ (w[:, None] * Z) + L0
    try:
        C = np.linalg.cholesky(P)
    except np.linalg.LinAlgError:
        raise ValueError(
            "the posterior precision Z^T W Z + prior is not positive definite: the coalitions do "
            "not identify every Shapley value and the prior is too weak; sample more coalitions "
            "or use a positive prior_strength"
        ) from None
    Cinv = np.linalg.solve(C, np.eye(p))
    V = Cinv.T @ Cinv
    V = 0.5 * (V + V.T)
    mean = V @ (Z.T @ (w[:, None] * y))
    resid = y - Z @ mean
    Q = np.einsum("ni,n,ni->i", resid, w, resid) + np.einsum("pi,pq,qi->i", mean, L0, mean)
    n_obs = N
    if constraint is not None:
        a, b = constraint
        a = np.asarray(a, dtype=float).reshape(p)
        b = np.broadcast_to(np.asarray(b, dtype=float), (y.shape[1],))
        u = V @ a
        q = float(a @ u)
        gap = b - a @ mean
        mean = mean + np.outer(u, gap / q)
        V = V - np.outer(u, u) / q
        V = 0.5 * (V + V.T)
        Q = Q + gap**2 / q
        n_obs += 1
    dof = float(prior_dof) + n_obs
    s2 = (float(prior_dof) * float(prior_scale) + Q) / dof
    return BayesPosterior(mean, V, s2, dof, n_obs)


def _fit_bayes(z, y, weights, total, prior_strength, efficiency):
    d = z.shape[1]
    w = weights / weights.mean()              # the prior is measured in units of one mean-weight draw
    L0 = prior_strength * coalition_second_moment(d)
    constraint = (np.ones(d), total) if efficiency else None
    return bayes_linear_posterior(z.astype(float), y, w, L0, constraint=constraint)


def _leverage(z, V):
    zf = z.astype(float)
    return np.einsum("ni,ij,nj->n", zf, V, zf)


def perturbations_to_go(widths, target_width, n_current):
    """Extra coalitions needed to shrink every interval to ``target_width``.

    ``widths`` has shape (d,) or (d, n) (players first); the result is an int
    or one int per instance.

    Interval widths of the posterior fall like 1/sqrt(N) once the data
    dominate the prior, so N_needed = N * (max width / target)^2; never
    negative. (Slack et al. 2020 write 4 s^2 / (pi-bar (W/z)^2), the same
    rule for an orthogonal design of unit-weight coalitions; this version uses
    the current posterior and so accounts for the actual design.)
    """
    widest = np.max(np.asarray(widths, dtype=float), axis=0)   # the widest player, per instance
    needed = n_current * (widest / target_width) ** 2
    return np.maximum(0, np.ceil(needed - n_current)).astype(int)


@register_method("bayes_shap", aliases=("bayes",))
def _bayes_shap(game, rng, *, n_samples=None, level=0.95, focused=False, target_width=None,
                batch_size=None, max_samples=None, n_candidates=None, temperature=None,
                efficiency=True, prior_strength=1.0, paired=False, coalitions=None,
                weights=None, max_elements=2**25, progress=False):
    """Bayesian SHAP estimator registered as ``method="bayes_shap"``; see :func:`bayes_shap`."""
    from .shapley import _as_instances, _evaluate_blocks

    level = check_level(level)
    d = game.n_players
    if d < 2:
        raise ValueError("Bayesian SHAP needs at least 2 players (with one, phi = v(all) - v(empty))")
    if not (isinstance(prior_strength, (int, float)) and prior_strength >= 0
            and math.isfinite(prior_strength)):
        raise ValueError(f"prior_strength must be a finite number >= 0; got {prior_strength!r}")
    if target_width is not None and not (np.isfinite(target_width) and target_width > 0):
        raise ValueError(f"target_width must be a positive number; got {target_width!r}")
    v_empty = _as_instances(game.empty_value, game)
    v_full = _as_instances(game.full_value, game)
    total = v_full - v_empty

    def draw(k):
        if paired and k % 2:
            k += 1
        return sample_coalitions(d, k, rng, paired=paired)

    def evaluate(z):
        return _evaluate_blocks(game, z, max_elements) - v_empty

    if coalitions is not None:  # a fixed design
        if focused or target_width is not None:
            raise ValueError("a fixed design (coalitions=...) cannot be combined with focused "
                             "sampling or target_width")
        z = np.asarray(coalitions)
        z = game._check_coalitions(z)[0]
        inner = (z.sum(axis=1) > 0) & (z.sum(axis=1) < d)
        if not inner.all():
            raise ValueError("coalitions must exclude the empty and the full coalition (their "
                             "worths enter exactly, as v(empty) and the efficiency constraint)")
        w = np.ones(len(z)) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (len(z),):
            raise ValueError(f"weights must have one entry per coalition ({len(z)}); got {w.shape}")
        y = evaluate(z)
        post = _fit_bayes(z, y, w, total, prior_strength, efficiency)
        sampling = "fixed design"
    else:
        if weights is not None:
            raise ValueError("weights are only accepted with a fixed design (coalitions=...)")
        if n_samples is None:
            n_samples = 2 * d + 2048 if target_width is None else max(4 * d, 64)
        n_samples = check_positive_int(n_samples, "n_samples", minimum=1)
        if max_samples is None:
            max_samples = max(n_samples, 100_000)
        max_samples = check_positive_int(max_samples, "max_samples")
        batch = check_positive_int(batch_size, "batch_size") if batch_size is not None else \
            max(2 * d, n_samples // 4)
        n_cand = check_positive_int(n_candidates, "n_candidates") if n_candidates is not None else \
            10 * batch
        first = max(2, n_samples // 2) if (focused and target_width is None) else n_samples
        z = draw(first)
        w = np.ones(len(z))
        y = evaluate(z)
        post = _fit_bayes(z, y, w, total, prior_strength, efficiency)

        def widths_of(post):
            lo, hi = post.interval(level)
            return hi - lo

        bar = tqdm(total=None, desc="Bayesian SHAP", disable=not progress, leave=False)
        while True:
            if target_width is not None:
                to_go = int(perturbations_to_go(widths_of(post), target_width, len(z)).max())
                if to_go == 0 or len(z) >= max_samples:
                    break
                k = min(max(to_go, 2), batch, max_samples - len(z))
            else:
                if len(z) >= n_samples:
                    break
                k = min(batch, n_samples - len(z))
            if focused:
                cand = draw(n_cand)
                h = _leverage(cand, post.V)
                T = float(np.mean(h)) if temperature is None else float(temperature)
                if not T > 0:
                    T = 1.0
                with np.errstate(over="ignore", under="ignore"):
                    logits = (h - h.max()) / T              # <= 0: exp cannot overflow
                    logq = logits - logsumexp(logits)       # stable softmax (log-sum-exp)
                    q = np.exp(logq)
                pick = rng.choice(len(cand), size=k, p=q / q.sum())
                z_new = cand[pick]
                # importance weights keep the Shapley kernel as the regression's target
                w_new = np.exp(-logq[pick]) / len(cand)
            else:
                z_new = draw(k)
                w_new = np.ones(len(z_new))
            z = np.concatenate([z, z_new])
            w = np.concatenate([w, w_new])
            y = np.concatenate([y, evaluate(z_new)])
            post = _fit_bayes(z, y, w, total, prior_strength, efficiency)
            bar.update(len(z_new))
        bar.close()
        sampling = ("focused (leverage-weighted, importance-reweighted) samples from the Shapley kernel"
                    if focused else
                    ("paired samples" if paired else "independent samples") + " from the Shapley kernel")
    lower, upper = post.interval(level)
    widths = upper - lower
    meta = {
        "n_samples": int(len(z)), "budget": int(len(z)) + 2, "sampling": sampling,
        "level": level, "dof": post.dof, "s2": post.s2, "efficiency": bool(efficiency),
        "prior": f"phi | sigma^2 ~ N(0, sigma^2 ({prior_strength:g} M_d)^-1), "
                 "M_d = E[z z^T] under the Shapley kernel; weights normalised to mean 1",
        "interval": f"Student-t credible interval ({post.dof:g} dof) of the Bayesian SHAP posterior",
        "posterior_cov": post.V,
        "focused": bool(focused),
    }
    if target_width is not None:
        to_go = perturbations_to_go(widths, target_width, len(z))
        meta.update(target_width=float(target_width), perturbations_to_go=int(to_go.max()),
                    converged=bool(to_go.max() == 0))
    return {"values": post.mean.T, "stderr": post.scale.T, "lower": lower.T, "upper": upper.T,
            "base_values": v_empty, "meta": meta}


def bayes_shap(game, n_samples=None, level=0.95, seed=None, focused=False, target_width=None,
               **options):
    """Bayesian SHAP: Shapley values with credible intervals (Slack et al. 2020).

    Coalitions z are drawn from the game's Shapley kernel (sizes with
    probability proportional to (d-1)/(s(d-s)), then uniformly; the empty and
    full coalitions are not drawn). Because they are drawn *from* the kernel,
    they enter with equal weight. The worths y = v(z) - v(empty) are modelled
    as y | z, phi, sigma^2 ~ N(z^T phi, sigma^2 / pi(z)) (Slack et al. 2020,
    thesis §2.3.3) with the conjugate prior below; the posterior is the closed form of
    :func:`bayes_linear_posterior`, and each phi_j has a Student-t marginal
    whose equal-tailed interval at ``level`` is reported.

    Prior. Slack et al. use phi | sigma^2 ~ N(0, sigma^2 I), whose strength
    relative to the data changes when the weights pi are rescaled. Here the
    weights are normalised to mean one and the prior precision is
    ``prior_strength`` times M_d = E[z z^T] under the Shapley kernel
    (:func:`coalition_second_moment`): the information about phi in one
    coalition drawn from the kernel ("unit information"). Rescaling the
    weights, or relabelling the players, leaves the posterior unchanged, and
    the prior's pull fades like 1/N. On an additive game the prior's shrinkage
    is then at most 1/t of the interval half-width (Cauchy-Schwarz), so the
    intervals contain the exact values. With ``efficiency=True`` (default)
    the exact worths v(empty) and v(all) enter as the constraint
    sum(phi) = v(all) - v(empty) (an observation of infinite weight), so the
    values add up like every other Explanation.

    Parameters
    ----------
    game : Game
    n_samples : int, optional
        Coalitions to draw (default 2d + 2048; with ``target_width``, the
        initial batch, default max(4d, 64)).
    level : float in (0, 1)
        Credibility of the intervals.
    seed : None, int or Generator
    focused : bool
        Focused sampling (Slack et al. 2020; thesis §2.3.3, Alg. 2): after an initial half,
        batches are drawn from a pool of candidates from the kernel with
        probability proportional to exp(h(z)/T), h(z) = z^T V z the predictive
        variance factor (computed with log-sum-exp, so it cannot overflow;
        T = mean h unless ``temperature`` is given), and enter with importance
        weights 1/(A q(z)) so that the regression still targets the Shapley
        kernel.
    target_width : float, optional
        Keep sampling in batches until every interval is at most this wide
        (or ``max_samples`` is reached); ``meta["perturbations_to_go"]``
        forecasts how many more coalitions would be needed.
    **options
        ``batch_size``, ``max_samples``, ``n_candidates``, ``temperature``,
        ``efficiency`` (bool), ``prior_strength`` (float >= 0, default 1),
        ``paired`` (bool, default False: independent draws match the model's
        independent noise), ``coalitions`` / ``weights`` (a fixed design,
        e.g. for tests), ``max_elements``, ``progress``.

    Returns
    -------
    Explanation
        ``values`` (posterior means), ``stderr`` (scales of the t marginals),
        ``lower``/``upper``; ``meta`` holds ``s2`` (noise scale per instance),
        ``dof``, ``posterior_cov``, ``n_samples`` and, with ``target_width``,
        ``perturbations_to_go`` and ``converged``.
    """
    return shapley_values(game, "bayes_shap", seed=seed, n_samples=n_samples, level=level,
                          focused=focused, target_width=target_width, **options)
