"""KernelSHAP as constrained weighted least squares (``method="kernel"``).

Lecture slides; RKHS-SHAP Prop. 4. Minimises
sum_S w(S) (v(S) - v(empty) - sum_{j in S} phi_j)^2 subject to
sum_j phi_j = v(all) - v(empty), by eliminating the last player. With all
coalitions the weights are the Shapley-kernel weights and the solution is the
exact Shapley value. Sampled coalitions are drawn *from* the Shapley kernel
(paired with their complements) and then weighted equally -- not weighted by
the kernel a second time.
"""

from __future__ import annotations

import numpy as np

from .._threads import small_blas
from .._validation import check_level, check_positive_int
from ..games import (
    MAX_ENUMERATION_PLAYERS,
    all_coalitions,
    sample_coalitions,
    shapley_kernel_weights,
)
from ._common import as_instances, block_elements, evaluate_blocks
from ._odd_regression import paired_cost, run_paired
from ._registry import Cost, Estimator, EstimatorResult, InvalidOptionError, Option, register

__all__ = ["KernelSHAP", "KERNEL_ENUMERATION_PLAYERS"]

#: Up to this many players "kernel" uses all coalitions unless a budget is given.
KERNEL_ENUMERATION_PLAYERS = 14

#: Resamples of the percentile bootstrap when ``interval="percentile"`` is given without ``bootstrap``.
DEFAULT_RESAMPLES = 200


@register
class KernelSHAP(Estimator):
    """KernelSHAP with exact constraints; optional intervals.

    ``budget`` counts game evaluations: the sampled coalitions plus v(empty)
    and v(all). Default: all coalitions up to 14 players, else 2d + 2050.

    Intervals are asked for with ``interval=`` or ``bootstrap=B``; the values
    are the same either way. The sampled coalitions are i.i.d. draws from the
    Shapley kernel (a complementary pair is one draw when ``paired``), and the
    estimate is a smooth function of two sample means over those draws,
    A = mean z z^T and b = mean z (v(z) - v(empty)), with v(empty) and v(all)
    fixed (Covert & Lee, "Improving KernelSHAP: Practical Shapley Value
    Estimation via Linear Regression", AISTATS 2021). Two interval kinds:

    ``interval="sandwich"`` (the default when intervals are asked for)
        The delta-method covariance of that estimator (its central limit
        theorem), computed per draw as a cluster-robust sandwich with the
        small-sample leverage correction CR2 (Bell & McCaffrey 2002), and a
        t quantile with Satterthwaite degrees of freedom per player (Imbens &
        Kolesar 2016). No resampling; ``bootstrap=B`` alone asks for this
        interval and B is not used. The plain delta-method variance is
        biased low when draws are few relative to players (on random 4-8
        player games it covered about 0.65 at a stated 0.95), hence the correction.
        When some draw is the only one to inform a direction (e.g. the
        minimum budget) the spread cannot be estimated and the intervals are
        infinite. Each draw is its own cluster even when a pair is drawn
        twice: draws are i.i.d., so the variance of the sum over draws adds
        one term per draw (clustering repeated pairs together counts a pair
        drawn c times c^2 times and over-covers, 0.93-0.99 at a stated 0.9).
        Measured at d = 10 on three product-kernel models (200 seeds x 20
        points per cell; the points of one seed share its coalitions, so
        seeds, not points, set the noise: 20 seeds leave about 0.01): mean
        variance 1.00-1.04x the Monte Carlo variance, coverage 0.894-0.909 at
        a stated 0.9 and 0.942-0.956 at 0.95, budgets 5d-100d; at d = 50
        (40 seeds x 4 points) 0.885-0.902 and 0.945-0.950.
    ``interval="percentile"``
        The earlier B-fold nonparametric bootstrap over the draws (B =
        ``bootstrap``, 200 if not given), re-solving the regression per
        resample, with percentile bounds and the bootstrap standard deviation.
        Kept for comparison: it under-covers with few draws (about 0.88 at a stated
        0.95 on the same random games).

    ``stderr``, ``lower``/``upper`` are at ``level``; ``meta["interval"]``
    says which was used. With all coalitions enumerated the values are exact
    and the intervals have zero width.

    ``replace=False``: paired KernelSHAP without replacement. The budget is
    spread over coalition sizes by the Shapley kernel as above, but as distinct
    complementary pairs, stratified by size (sizes whose pairs all fit are taken
    whole), each weighted by the kernel over its inclusion probability; the
    same constrained regression, one equation per pair (the design and solve of
    ``method="leverage_shap"``, with the kernel's size distribution instead of
    the leverage scores). Intervals, when asked for, are stratified
    delta-method t-intervals (HC2, Satterthwaite degrees of freedom), infinite
    (no interval) with fewer than three pairs per unknown (measured to under-cover with fewer:
    0.86-0.87 at a stated 0.9 with 2.7 pairs per unknown, 5d at d = 10). ``budget`` is then spent exactly
    (an odd one leaves one evaluation unused); the default budget is as above.
    """

    name = "kernel"
    exact = False
    description = "KernelSHAP: weighted least squares over coalitions"
    options = {
        "budget": Option(None, "int", 3, doc="game evaluations (coalitions), v(empty) and v(all) included"),
        "paired": Option(True, "bool", doc="add each sampled coalition's complement"),
        "bootstrap": Option(None, "int", 2, doc="ask for intervals; resamples of the percentile bootstrap"),
        "interval": Option(None, "choice", choices=("sandwich", "percentile"),
                           doc="interval kind: delta-method t (sandwich) or percentile bootstrap"),
        "level": Option(0.95, "level", doc="interval level"),
        "replace": Option(True, "bool", doc="draw with replacement (True) or distinct complementary pairs "
                                             "stratified by size (False: paired KernelSHAP without replacement)"),
    }
    option_aliases = {"n_coalitions": "budget"}

    def _from_alias(self, old, value):
        return self._alias_int(old, value, 1) + 2

    def min_budget(self, n_players) -> int:
        return 2 * n_players + 2

    def _plan(self, game, options):
        d = game.n_players
        n_inner = 2**d - 2 if d <= MAX_ENUMERATION_PLAYERS else None
        budget = options["budget"]
        if budget is None:
            if d <= KERNEL_ENUMERATION_PLAYERS:
                return True, n_inner
            return False, 2 * d + 2048
        n_coalitions = budget - 2
        if n_inner is not None and n_coalitions >= n_inner:
            return True, n_inner
        if options["paired"] and n_coalitions % 2:
            n_coalitions += 1
        return False, n_coalitions

    def cost(self, game, options) -> Cost:
        d, n = game.n_players, game.n_instances or 1
        if not options["replace"]:
            return paired_cost(game, _without_replacement(options, d), 1, self.name)
        if d == 1:
            return Cost.of(game.evaluation_work(2), 0.0, 2)
        every, m = self._plan(game, options)
        kind = _interval_kind(options)
        boot = (options["bootstrap"] or DEFAULT_RESAMPLES) if kind == "percentile" else 0
        sandwich = 6.0 * m * d * (n + d) if kind == "sandwich" else 0.0
        flops = 2.0 * m * d * (d + n) + boot * (m * d * d + n * d * d) + sandwich
        cost = Cost.of(game.evaluation_work(m + 2), 8.0 * m * (n + d), m + 2, f"{m} coalitions x {n} instance(s)",
                       flops=flops)
        if kind == "sandwich" and not every:   # Satterthwaite's df: a p x p product over the draws per player
            cost.blas_flops += 2.0 * m * d ** 3
        return cost

    def advice(self, game, options) -> list[str]:
        return ["a smaller budget=...", "groups of features as players (groups=...)"]

    def run(self, game, rng, options) -> EstimatorResult:
        if not options["replace"]:
            return run_paired(game, rng, _without_replacement(options, game.n_players), target="kernel", order=1,
                              method=self.name, sampling="complementary pairs from the Shapley kernel, "
                                                         "without replacement, stratified by size")
        d = game.n_players
        n = game.n_instances or 1
        max_elements = block_elements(options["max_elements"])
        v_empty = as_instances(game.empty_value, game)
        v_full = as_instances(game.full_value, game)
        total = v_full - v_empty
        if d == 1:
            return EstimatorResult(total[:, None], v_empty, budget=2,
                                   meta={"sampling": "one player: phi = v(all) - v(empty)"})
        enumerate_all, n_coalitions = self._plan(game, options)
        paired = options["paired"]
        if enumerate_all:
            z = all_coalitions(d)[1:-1]
            weights = shapley_kernel_weights(d, z.sum(axis=1))
            sampling = "all coalitions"
        else:
            z = sample_coalitions(d, n_coalitions, rng, paired=paired)
            weights = np.ones(len(z))
            sampling = ("paired samples from the Shapley kernel" if paired
                        else "samples from the Shapley kernel")
        y = evaluate_blocks(game, z, max_elements, options["progress"], "KernelSHAP coalitions") - v_empty
        zf = z.astype(float)
        design = zf[:, :-1] - zf[:, -1:]
        target = y - zf[:, -1:] * total
        sw = np.sqrt(weights / weights.max())[:, None]
        coef, _, rank, _ = np.linalg.lstsq(sw * design, sw * target, rcond=None)
        if rank < d - 1:
            used, least = len(z) + 2, self.min_budget(d)
            advice = (f"at least {least} is a sensible minimum" if used < least else
                      f"at {used}, at or above the minimum of {least}, this sample repeated coalitions "
                      f"(drawn with replacement): try {2 * used}, or replace=False")
            raise ValueError(
                f"budget={used} is too small to identify {d} Shapley values: the sampled "
                f"coalitions span only {rank + 1} of {d} directions. Use a larger budget ({advice})")
        phi = np.empty((n, d))
        phi[:, :-1] = coef.T
        phi[:, -1] = total - coef.sum(axis=0)
        result = EstimatorResult(phi, v_empty, budget=len(z) + 2,
                                 meta={"n_coalitions": len(z), "sampling": sampling})
        kind = _interval_kind(options)
        if kind is not None:
            level = check_level(options["level"])
            result.meta["level"] = level
            if options["bootstrap"] is not None:
                result.meta["bootstrap"] = options["bootstrap"]
            if enumerate_all:
                result.stderr, result.lower, result.upper = np.zeros_like(phi), phi.copy(), phi.copy()
                result.meta["interval"] = "none needed: all coalitions enumerated, values exact"
            elif kind == "sandwich":
                unit = 2 if paired else 1
                target_fit = target - design @ coef
                result.stderr, df = _sandwich(design, target_fit, unit, max_elements)
                from scipy import stats  # deferred: scipy.stats takes ~0.5 s to import

                half = stats.t.ppf(0.5 + level / 2, df) * result.stderr
                result.lower, result.upper = phi - half, phi + half
                draws = f"{len(z) // unit} {'complementary pairs' if paired else 'coalitions'}"
                result.meta["interval"] = (
                    f"delta-method (sandwich, CR2) t-interval over {draws}; no bootstrap resamples needed")
                result.meta["degrees_of_freedom"] = df
                if not np.all(np.isfinite(result.stderr)):
                    result.meta["interval"] += (
                        "; infinite: a sampled draw is the only one to inform some direction, so the spread "
                        "cannot be estimated (use a larger budget)")
            else:
                n_boot = options["bootstrap"] or DEFAULT_RESAMPLES
                n_boot = check_positive_int(n_boot, "bootstrap", minimum=2)
                unit = 2 if paired else 1
                reps = _bootstrap(design, target, total, unit, n_boot, rng, max_elements)
                alpha = 1.0 - level
                result.stderr = reps.std(axis=0, ddof=1)
                result.lower = np.quantile(reps, alpha / 2, axis=0)
                result.upper = np.quantile(reps, 1 - alpha / 2, axis=0)
                result.meta.update(
                    bootstrap=n_boot,
                    interval=(f"percentile bootstrap over the sampled coalitions ({n_boot} resamples"
                              f"{' of complementary pairs' if paired else ''})"))
        return result


def _without_replacement(options, d):
    """The options of ``replace=False`` for the paired-regression run: intervals when asked for, as
    stratified delta-method t-intervals (a percentile bootstrap is not offered for this design)."""
    if not options["paired"]:
        raise InvalidOptionError("method='kernel' with replace=False draws distinct complementary pairs; "
                                 "it needs paired=True (the default)")
    kind = _interval_kind(options)
    if kind == "percentile":
        raise InvalidOptionError("method='kernel' with replace=False gives stratified delta-method intervals "
                                 "(interval='sandwich' or bootstrap=...); interval='percentile' is only "
                                 "offered with replace=True")
    budget = options["budget"]
    if budget is None:  # as with replacement: every coalition up to 14 players, else 2d + 2050
        budget = 2**d if d <= KERNEL_ENUMERATION_PLAYERS else None
    # three pairs per unknown for intervals: the kernel's allocation leaves the middle sizes two pairs each at
    # small budgets, and at 2.7 pairs per unknown (5d, d = 10) the intervals covered 0.86-0.87 at a stated 0.9
    return {**options, "intervals": kind is not None, "budget": budget, "pairs_per_unknown": 3}


def _interval_kind(options):
    """None (no intervals), "sandwich" or "percentile", from ``interval`` and ``bootstrap``."""
    if options["interval"] is not None:
        return options["interval"]
    return "sandwich" if options["bootstrap"] is not None else None


def _sandwich(design, residual, unit, max_elements, *, ridge=None, contrast=None):
    """Standard errors (n, k) and per-player degrees of freedom (k,) of a least-squares estimate.

    ``design`` (m, p) is the regression after eliminating the last player,
    ``residual`` (m, n) its residuals at the estimate; rows come in draws of
    ``unit`` consecutive rows. The coefficient covariance is the sandwich
    B (sum_u X_u' A_u e_u e_u' A_u X_u) B with B = (X'X + R)^-1 and
    A_u = (I - X_u B X_u')^(-1/2) (CR2), mapped to the k players by
    phi = E coef + const, E = [I; -1'] (``contrast``; k = p + 1). The degrees of freedom of player j
    are Satterthwaite's for the contrast l_j = B E_j': with c_u = A_u X_u l_j,
    the weights are the eigenvalues of D - W B W' (D = diag |c_u|^2, rows of
    W are c_u' X_u), whose sum and sum of squares need only p x p products.
    ``ridge`` R (p, p; default 0) is a fixed penalty of the estimate (a prior's precision:
    Bayesian SHAP's posterior mean), ``contrast`` E (k, p) another map to the players.
    """
    with small_blas(design.shape[1]):   # small products: threaded BLAS only synchronises on a busy machine
        return _sandwich_blocks(design, residual, unit, max_elements, ridge, contrast)


def _sandwich_blocks(design, residual, unit, max_elements, ridge, contrast):
    """:func:`_sandwich`'s arithmetic (under single-threaded BLAS for small p)."""
    m, p = design.shape
    n = residual.shape[1]
    n_units = m // unit
    Xu = design.reshape(n_units, unit, p)
    E = np.vstack([np.eye(p), -np.ones((1, p))]) if contrast is None else contrast
    k = E.shape[0]
    gram = design.T @ design if ridge is None else design.T @ design + ridge
    bread = np.linalg.inv(gram)
    bread = (bread + bread.T) / 2
    lev = np.einsum("uki,uli->ukl", Xu @ bread, Xu)
    w, Q = np.linalg.eigh(np.eye(unit) - lev)
    degenerate = w.min() <= 1e-9
    if degenerate:
        return np.full((n, k), np.inf), np.ones(k)
    adj = np.einsum("ukr,ur,ulr->ukl", Q, w ** -0.5, Q)             # A_u
    AX = np.einsum("ukl,ulp->ukp", adj, Xu)                          # A_u X_u
    L = E @ bread                                                    # (k, p): phi-contrasts on coef
    var = np.empty((n, k))
    cols = max(1, max_elements // max(n_units * max(k, p), 1))
    for start in range(0, n, cols):
        sl = slice(start, min(n, start + cols))
        eu = residual[:, sl].reshape(n_units, unit, -1)
        score = np.einsum("ukp,ukc->puc", AX, eu).reshape(p, -1)     # X_u' A_u e_u, (p, units x c)
        proj = (L @ score).reshape(k, n_units, -1)
        var[sl] = np.einsum("juc,juc->cj", proj, proj)
    return np.sqrt(var), _satterthwaite(Xu, AX, L, bread, max_elements)


def _satterthwaite(Xu, AX, L, bread, max_elements):
    """Satterthwaite's degrees of freedom (k,) of the CR2 variance of each contrast (row of ``L``).

    For contrast j, with c_u = A_u X_u l_j and w_u = c_u' X_u, the weights are the eigenvalues
    of D - W B W' (D = diag |c_u|^2): their sum is sum_u |c_u|^2 - w_u B w_u', the sum of their
    squares sum_u |c_u|^4 - 2 |c_u|^2 w_u B w_u' + ||R' W'W R||_F^2 with B = R R'. One p x p
    product per contrast (and per block of draws), never a (contrasts, draws, p) array.
    """
    n_units, unit, p = Xu.shape
    R = np.linalg.cholesky(bread)
    step = max(1, max_elements // max(p + unit, 1))
    df = np.empty(len(L))
    XR = Xu @ R                                                      # (u, unit, p)
    for j, lj in enumerate(L):
        total = squares = 0.0
        G = np.zeros((p, p))
        for start in range(0, n_units, step):
            c = AX[start:start + step] @ lj                          # (u, unit)
            WR = np.einsum("uk,ukp->up", c, XR[start:start + step])  # w_u R
            D = (c * c).sum(axis=1)
            quad = (WR * WR).sum(axis=1)                             # w_u B w_u'
            total += D.sum() - quad.sum()
            squares += (D ** 2).sum() - 2.0 * (D * quad).sum()
            G += WR.T @ WR
        df[j] = total ** 2 / max(squares + (G * G).sum(), 1e-300)
    return np.maximum(df, 1.0)


def _bootstrap(design, target, total, unit, n_boot, rng, max_elements):
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
