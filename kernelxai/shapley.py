"""Shapley-value estimators: they know games, nothing about models or kernels.

``shapley_values(game, method=...)`` dispatches to a registered estimator. The
built-in ones are

``"exact"``
    enumeration of all ``2**d`` coalitions in one vectorised pass;
``"kernel"``
    KernelSHAP: weighted least squares over coalitions with v(empty) and v(all)
    as exact constraints (all coalitions, or paired samples from the Shapley
    kernel);
``"permutation"``
    the mean of marginal contributions over random orderings, with standard
    errors and t-intervals;
``"product"`` (alias ``"quadrature"``)
    exact values of a :class:`~kernelxai.games.ProductGame` in polynomial time
    (see :mod:`kernelxai.product`).

Other modules add estimators with :func:`register_method`.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ._validation import check_choice, check_level, check_positive_int, check_rng
from .explanation import Explanation
from .games import (
    MAX_ENUMERATION_PLAYERS,
    Game,
    all_coalitions,
    bitmasks_to_coalitions,
    sample_coalitions,
    shapley_kernel_weights,
    shapley_weights,
)

__all__ = ["shapley_values", "register_method", "available_methods", "t_interval",
           "DEFAULT_MAX_ELEMENTS"]

#: Default memory budget, in float64 elements, of a block of intermediate results (256 MB).
DEFAULT_MAX_ELEMENTS = 2**25

_METHODS: dict[str, callable] = {}
_ALIASES: dict[str, str] = {}


def register_method(name, *, aliases=()):
    """Register ``func(game, rng, **options) -> dict`` as estimator ``name``.

    The function returns a dict with ``values`` of shape (n, d) and optionally
    ``stderr``, ``lower``, ``upper`` (same shape), ``base_values`` (n,) and
    ``meta`` (a dict merged into the Explanation's metadata).
    """

    def decorator(func):
        _METHODS[name] = func
        for alias in aliases:
            _ALIASES[alias] = name
        return func

    return decorator


def available_methods():
    """Names accepted by :func:`shapley_values` (aliases included)."""
    return sorted(set(_METHODS) | set(_ALIASES))


def shapley_values(game, method="exact", *, seed=None, **options) -> Explanation:
    """Shapley values of every player of ``game``, for every instance.

    Parameters
    ----------
    game : Game
    method : str
        One of :func:`available_methods`: ``"exact"``, ``"kernel"``,
        ``"permutation"``, ``"product"``, ...
    seed : None, int or numpy.random.Generator
        Randomness of sampling methods.
    **options
        Passed to the estimator, e.g. ``n_coalitions`` for ``"kernel"``,
        ``n_permutations``/``antithetic``/``level`` for ``"permutation"``,
        ``max_elements`` (memory budget in float64 elements) for all.

    Returns
    -------
    Explanation
        ``values`` (n, d) -- or (d,) for a game with scalar worths -- and
        ``base_values`` = v(empty), so ``values.sum(-1) + base_values = v(all)``.
    """
    if not isinstance(game, Game):
        raise TypeError(
            f"shapley_values needs a kernelxai Game; got {type(game).__name__}. "
            "Wrap a function with kx.FunctionGame or a table with kx.TabularGame"
        )
    name = _ALIASES.get(method, method)
    check_choice(name if name in _METHODS else method, "method", available_methods())
    rng = check_rng(seed)
    result = _METHODS[name](game, rng, **options)
    values = np.asarray(result["values"], dtype=float)
    if not np.all(np.isfinite(values)):
        raise FloatingPointError(
            f"method {method!r} produced non-finite Shapley values; this is a bug or an "
            "overflow the method cannot handle -- try method='product' or 'exact'"
        )
    base = result.get("base_values")
    if base is None:
        base = _as_instances(game.empty_value, game)
    meta = {**game.meta, "method": name, **result.get("meta", {})}
    extras = {k: result.get(k) for k in ("stderr", "lower", "upper")}
    data = game.data
    if game.n_instances is None:  # a single game: one row, returned as 1-D
        values = values[0]
        base = float(np.asarray(base).reshape(-1)[0])
        extras = {k: (None if v is None else np.asarray(v)[0]) for k, v in extras.items()}
        data = None if data is None else np.asarray(data).reshape(-1)
    return Explanation(values, base, data=data, feature_names=game.player_names,
                       meta=meta, **extras)


def _as_instances(worths, game):
    """Worths of one coalition as an array (n,) (n = 1 for a single game)."""
    return np.atleast_1d(np.asarray(worths, dtype=float)).reshape(game.n_instances or 1)


def _evaluate_blocks(game, coalitions, max_elements):
    """Evaluate ``game`` on many coalitions in blocks; returns (m, n)."""
    n = game.n_instances or 1
    step = max(1, max_elements // max(n * game.n_players, 1))
    out = np.empty((len(coalitions), n))
    for start in range(0, len(coalitions), step):
        block = coalitions[start:start + step]
        out[start:start + len(block)] = game(block).reshape(len(block), n)
    return out


def t_interval(samples, level=0.95, axis=0):
    """Mean, standard error (sd/sqrt(K), ddof 1) and t-interval over ``axis``.

    Valid for i.i.d. unbiased per-sample estimates (permutation samples,
    single-reference games); the t quantile has K-1 degrees of freedom.
    """
    level = check_level(level)
    samples = np.asarray(samples, dtype=float)
    k = samples.shape[axis]
    if k < 2:
        raise ValueError(
            f"an interval needs at least 2 independent samples; got {k}. "
            "With one sample there is no estimate of the spread"
        )
    mean = samples.mean(axis=axis)
    stderr = samples.std(axis=axis, ddof=1) / np.sqrt(k)
    half = stats.t.ppf(0.5 + level / 2, k - 1) * stderr
    return mean, stderr, mean - half, mean + half


# --------------------------------------------------------------------------- #
# exact enumeration
# --------------------------------------------------------------------------- #
@register_method("exact", aliases=("brute",))
def _exact(game, rng, *, max_elements=DEFAULT_MAX_ELEMENTS):
    """phi_j = sum_S mu(|S|) (v(S+j) - v(S)) over all coalitions, in one pass.

    Written as phi = C^T v with C[S, j] = mu(|S|-1) if j in S else -mu(|S|), so
    each coalition is evaluated once for all players and all instances and the
    coalitions can be streamed in blocks.
    """
    d = game.n_players
    if d > MAX_ENUMERATION_PLAYERS:
        raise ValueError(
            f"method='exact' enumerates 2**{d} coalitions, more than the limit of "
            f"2**{MAX_ENUMERATION_PLAYERS}; use method='kernel' or 'permutation' "
            "(or 'product' for a ProductGame)"
        )
    n = game.n_instances or 1
    mu = shapley_weights(d)
    phi = np.zeros((d, n))
    step = max(1, max_elements // max(n + d, 1))
    base = None
    for start in range(0, 2**d, step):
        masks = np.arange(start, min(2**d, start + step), dtype=np.int64)
        z = bitmasks_to_coalitions(masks, d)
        v = game(z).reshape(len(z), n)
        if start == 0:
            base = v[0].copy()
        size = z.sum(axis=1)
        coef = np.where(z, mu[np.maximum(size - 1, 0)][:, None], -mu[np.minimum(size, d - 1)][:, None])
        phi += coef.T @ v
    return {"values": phi.T, "base_values": base, "meta": {"budget": 2**d}}


# --------------------------------------------------------------------------- #
# KernelSHAP as weighted least squares
# --------------------------------------------------------------------------- #
#: Up to this many players "kernel" uses all coalitions unless n_coalitions is given.
KERNEL_ENUMERATION_PLAYERS = 14


@register_method("kernel")
def _kernel(game, rng, *, n_coalitions=None, paired=True, bootstrap=None, level=0.95,
            max_elements=DEFAULT_MAX_ELEMENTS):
    """KernelSHAP (lecture slides; RKHS-SHAP Prop. 4) with exact constraints.

    Minimises sum_S w(S) (v(S) - v(empty) - sum_{j in S} phi_j)^2 subject to
    sum_j phi_j = v(all) - v(empty), by eliminating the last player. With all
    coalitions the weights are the Shapley-kernel weights and the solution is
    the exact Shapley value. Sampled coalitions are drawn *from* the Shapley
    kernel (paired with their complements) and then weighted equally -- they
    are not weighted by the kernel a second time.

    ``bootstrap=B`` adds intervals for sampled coalitions: the B-fold
    nonparametric bootstrap over the sampled coalitions (a complementary pair
    is one resampling unit), re-solving the constrained regression for each
    resample; ``stderr`` is the bootstrap standard deviation and
    ``lower``/``upper`` the percentile interval at ``level``. A regression
    estimate is not a mean of i.i.d. unbiased terms, so no t-interval is
    offered for it (see kernelxai.uncertainty). With all coalitions enumerated the values
    are exact and the intervals have zero width.
    """
    d = game.n_players
    n = game.n_instances or 1
    v_empty = _as_instances(game.empty_value, game)
    v_full = _as_instances(game.full_value, game)
    total = v_full - v_empty
    if d == 1:
        return {"values": total[:, None], "base_values": v_empty, "meta": {"budget": 2}}
    n_inner = 2**d - 2 if d <= MAX_ENUMERATION_PLAYERS else None
    if n_coalitions is None:
        enumerate_all = d <= KERNEL_ENUMERATION_PLAYERS
        n_coalitions = n_inner if enumerate_all else 2 * d + 2048
    else:
        n_coalitions = check_positive_int(n_coalitions, "n_coalitions")
        enumerate_all = n_inner is not None and n_coalitions >= n_inner
    if enumerate_all:
        z = all_coalitions(d)[1:-1]
        weights = shapley_kernel_weights(d, z.sum(axis=1))
        sampling = "all coalitions"
    else:
        if paired and n_coalitions % 2:
            n_coalitions += 1
        z = sample_coalitions(d, n_coalitions, rng, paired=paired)
        weights = np.ones(len(z))
        sampling = "paired samples from the Shapley kernel" if paired else "samples from the Shapley kernel"
    y = _evaluate_blocks(game, z, max_elements) - v_empty
    zf = z.astype(float)
    design = zf[:, :-1] - zf[:, -1:]
    target = y - zf[:, -1:] * total
    sw = np.sqrt(weights / weights.max())[:, None]
    coef, _, rank, _ = np.linalg.lstsq(sw * design, sw * target, rcond=None)
    if rank < d - 1:
        raise ValueError(
            f"n_coalitions={len(z)} is too small to identify {d} Shapley values: the sampled "
            f"coalitions span only {rank + 1} of {d} directions. Use more coalitions "
            f"(at least {2 * d} is a sensible minimum)"
        )
    phi = np.empty((n, d))
    phi[:, :-1] = coef.T
    phi[:, -1] = total - coef.sum(axis=0)
    result = {
        "values": phi,
        "base_values": v_empty,
        "meta": {"budget": len(z) + 2, "n_coalitions": len(z), "sampling": sampling},
    }
    if bootstrap is not None:
        level = check_level(level)
        n_boot = check_positive_int(bootstrap, "bootstrap", minimum=2)
        result["meta"]["level"] = level
        if enumerate_all:
            zero = np.zeros_like(phi)
            result.update(stderr=zero, lower=phi.copy(), upper=phi.copy())
            result["meta"]["interval"] = "none needed: all coalitions enumerated, values exact"
        else:
            unit = 2 if paired else 1
            reps = _bootstrap_kernel(design, target, total, unit, n_boot, rng, max_elements)
            alpha = 1.0 - level
            result.update(stderr=reps.std(axis=0, ddof=1),
                          lower=np.quantile(reps, alpha / 2, axis=0),
                          upper=np.quantile(reps, 1 - alpha / 2, axis=0))
            result["meta"].update(
                bootstrap=n_boot,
                interval=(f"percentile bootstrap over the sampled coalitions ({n_boot} resamples"
                          f"{' of complementary pairs' if paired else ''})"))
    return result


def _bootstrap_kernel(design, target, total, unit, n_boot, rng, max_elements):
    """Bootstrap replicates (B, n, d) of the constrained KernelSHAP regression.

    Rows are resampled in units of ``unit`` consecutive rows (complementary
    pairs); each replicate's normal equations are assembled from per-unit
    Gram blocks with one matrix product and solved in a batch.
    """
    m, p = design.shape
    n = target.shape[1]
    n_units = m // unit
    counts = rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=n_boot).astype(float)
    Du = design.reshape(n_units, unit, p)
    gram = np.einsum("uki,ukj->uij", Du, Du).reshape(n_units, p * p)
    G = (counts @ gram).reshape(n_boot, p, p)
    reps = np.empty((n_boot, n, p + 1))
    cols = max(1, max_elements // max(n_units * p, 1))
    for start in range(0, n, cols):
        sl = slice(start, min(n, start + cols))
        Tu = target[:, sl].reshape(n_units, unit, -1)
        rhs = np.einsum("uki,ukc->uic", Du, Tu).reshape(n_units, -1)
        R = (counts @ rhs).reshape(n_boot, p, -1)
        try:
            coef = np.linalg.solve(G, R)
        except np.linalg.LinAlgError:  # a resample that misses a direction: least squares
            coef = np.stack([np.linalg.lstsq(G[b], R[b], rcond=None)[0] for b in range(n_boot)])
        reps[:, sl, :-1] = coef.transpose(0, 2, 1)
        reps[:, sl, -1] = total[sl] - coef.sum(axis=1)
    return reps


# --------------------------------------------------------------------------- #
# permutation sampling
# --------------------------------------------------------------------------- #
@register_method("permutation")
def _permutation(game, rng, *, n_permutations=100, antithetic=False, level=0.95,
                 max_elements=DEFAULT_MAX_ELEMENTS):
    """Permutation sampling (Strumbelj & Kononenko; thesis Alg. 1).

    Each ordering gives one unbiased estimate of every phi_j (the marginal
    contribution of j when it joins the players before it). With
    ``antithetic=True`` each ordering is followed by its reverse and the pair's
    average counts as one sample. Standard errors are sd/sqrt(K) (ddof 1) over
    the K independent samples; the interval uses the t quantile with K-1 dof.
    """
    d = game.n_players
    n = game.n_instances or 1
    level = check_level(level)
    m = check_positive_int(n_permutations, "n_permutations", minimum=2)
    if antithetic and m % 2:
        raise ValueError(
            f"antithetic sampling pairs each ordering with its reverse, so n_permutations "
            f"must be even; got {m}"
        )
    n_base = m // 2 if antithetic else m
    orders = np.argsort(rng.random((n_base, d)), axis=1)
    if antithetic:
        orders = np.stack([orders, orders[:, ::-1]], axis=1).reshape(m, d)
    position = np.empty_like(orders)
    np.put_along_axis(position, orders, np.arange(d)[None, :].repeat(m, axis=0), axis=1)
    v_empty = _as_instances(game.empty_value, game)
    v_full = _as_instances(game.full_value, game)
    samples = np.empty((m, n, d))
    per_order = max(1, max_elements // max((d + 1) * (n + d), 1))
    for start in range(0, m, per_order):
        pos = position[start:start + per_order]
        k = np.arange(1, d)
        # prefix k of each ordering: the players whose position is < k
        prefix = pos[:, None, :] < k[None, :, None]  # (b, d-1, d)
        worths = np.empty((len(pos), d + 1, n))
        worths[:, 0] = v_empty
        worths[:, d] = v_full
        if d > 1:
            inner = _evaluate_blocks(game, prefix.reshape(-1, d), max_elements)
            worths[:, 1:d] = inner.reshape(len(pos), d - 1, n)
        gains = np.diff(worths, axis=1)  # (b, d, n): gain of the player at each position
        samples[start:start + len(pos)] = np.take_along_axis(
            gains, pos[:, :, None], axis=1
        ).transpose(0, 2, 1)
    if antithetic:
        samples = 0.5 * (samples[0::2] + samples[1::2])
    mean, stderr, lower, upper = t_interval(samples, level)
    return {
        "values": mean,
        "stderr": stderr,
        "lower": lower,
        "upper": upper,
        "base_values": v_empty,
        "meta": {"budget": m * (d - 1) + 2, "n_permutations": m, "antithetic": bool(antithetic),
                 "level": level, "interval": "t-interval over permutation samples"},
    }


# The product-game estimators register themselves on import.
from . import product as _product  # noqa: E402,F401
