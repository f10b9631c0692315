"""Bayesian SHAP (Slack et al. 2020; thesis §2.3.3): the posterior mean of a Bayesian regression over coalitions.

``method="bayes_shap"`` (alias ``"bayes"``): a weighted Bayesian linear
regression over coalitions drawn from the Shapley kernel, with a conjugate
posterior, a forecast of the perturbations still needed for a target width,
and focused sampling. The interval it states is design-based
(:func:`sandwich_interval`: the sandwich variance of the posterior mean over
the independent draws, which covered at its level against exact values);
the posterior's own Student-t credible intervals, which did not, are given
only when asked for (``interval="credible"``, the default of
:func:`kx.uncertainty.bayes_shap <kernelxai.uncertainty.bayes_shap>`). The
posterior algebra (:func:`bayes_linear_posterior`) is exposed for reuse;
``kx.uncertainty`` re-exports it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import logsumexp

from .._validation import check_level, check_positive_int
from ..games import coalition_size_distribution, sample_coalitions
from ..games._game_types import check_coalitions
from ._common import as_instances, block_elements, evaluate_blocks, progress_bar
from ._kernelshap import _sandwich
from ._registry import Cost, Estimator, EstimatorResult, InvalidOptionError, Option, register

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["BayesSHAP", "BayesPosterior", "bayes_linear_posterior", "coalition_second_moment",
           "perturbations_to_go"]

#: perturbations_to_go saturates here (a forecast, not a plan: far beyond any budget).
MAX_FORECAST = 2**53
#: Fewest independent draws (coalitions, or complementary pairs when paired) per unknown (d - 1) for
#: which the design-based interval is stated (infinite below): measured on three product-kernel models,
#: at 5 draws per unknown (5d) it covered 0.876-0.878 at a stated 0.9 at d = 200 (and over-covered
#: slightly, up to 0.921, at d = 10), at 10 per unknown (10d) 0.895-0.907 at d = 10 and 200.
MIN_DRAWS_PER_UNKNOWN = 10


def coalition_second_moment(d: int) -> np.ndarray:
    r""":math:`M = \mathbb{E}[z z^\top]` for coalitions :math:`z` drawn from the Shapley kernel (sizes 1..d-1).

    The diagonal is :math:`\mathbb{E}[s]/d = 1/2`, every off-diagonal entry
    :math:`\mathbb{E}[s(s-1)] / \big(d(d-1)\big)`. Bayesian SHAP's default prior precision is this
    matrix: the information about :math:`\phi` carried by one coalition drawn from the kernel.

    Parameters
    ----------
    d : int
        Number of players, at least 2.

    Returns
    -------
    ndarray (d, d)
        Symmetric, with 1/2 on the diagonal.

    Raises
    ------
    ValueError
        ``d`` is not an integer >= 2.

    Examples
    --------
    >>> import kernelxai as kx
    >>> kx.uncertainty.coalition_second_moment(3).round(4)   # off-diagonal E[s(s-1)] / 6 = 1/6
    array([[0.5   , 0.1667, 0.1667],
           [0.1667, 0.5   , 0.1667],
           [0.1667, 0.1667, 0.5   ]])
    """
    d = check_positive_int(d, "number of players", minimum=2)
    s, p = coalition_size_distribution(d)
    diag = float(p @ s) / d
    off = float(p @ (s * (s - 1))) / (d * (d - 1))
    return np.full((d, d), off) + np.eye(d) * (diag - off)


class BayesPosterior:
    r"""The normal-scaled-inverse-:math:`\chi^2` posterior of a weighted Bayesian linear regression.

    Attributes
    ----------
    mean : ndarray (p, n)
        Posterior mean :math:`\hat\phi` of each of the n response columns.
    V : ndarray (p, p)
        :math:`\phi \mid \sigma^2 \sim \mathcal{N}(\text{mean}, \sigma^2 V)` (shared by all columns).
    s2 : ndarray (n,)
        Posterior scale of :math:`\sigma^2`: :math:`\sigma^2 \sim \text{scaled-Inv-}\chi^2(\text{dof}, s^2)`.
    dof : float
        Degrees of freedom of the Student-t marginals.
    n_obs : int
        Observations the posterior is conditioned on (the rows of Z, plus one
        for an exact constraint).

    The constructor takes these five, in this order; the posterior is made by
    :func:`bayes_linear_posterior`.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> Z = rng.normal(size=(40, 2))
    >>> post = kx.uncertainty.bayes_linear_posterior(Z, Z @ [1.0, -2.0] + 0.1 * rng.normal(size=40))
    >>> post.mean.shape, post.V.shape, post.dof, post.n_obs
    ((2, 1), (2, 2), 40.0, 40)
    >>> lower, upper = post.interval(0.95)                 # Student-t credible intervals
    >>> lower.ravel().round(2), upper.ravel().round(2)
    (array([ 0.84, -2.06]), array([ 1.07, -1.82]))
    """

    def __init__(self, mean: np.ndarray, V: np.ndarray, s2: np.ndarray, dof: float, n_obs: int) -> None:
        self.mean, self.V, self.s2, self.dof, self.n_obs = mean, V, s2, dof, n_obs

    @property
    def scale(self) -> np.ndarray:
        r"""Scale :math:`\sqrt{s^2 V_{jj}}` of each coefficient's Student-t marginal, shape (p, n)."""
        return np.sqrt(np.maximum(np.diag(self.V), 0.0)[:, None] * self.s2[None, :])

    def interval(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Equal-tailed credible interval of each coefficient at ``level``: (lower, upper), (p, n)."""
        from scipy import stats  # deferred: scipy.stats takes ~0.5 s to import

        level = check_level(level)
        half = stats.t.ppf(0.5 + level / 2, self.dof) * self.scale
        return self.mean - half, self.mean + half


def bayes_linear_posterior(Z: ArrayLike, y: ArrayLike, weights: ArrayLike | None = None,
                           prior_precision: ArrayLike | None = None, *,
                           constraint: tuple[ArrayLike, ArrayLike] | None = None, prior_dof: float = 0.0,
                           prior_scale: float = 0.0) -> BayesPosterior:
    r"""Conjugate posterior of :math:`y \mid Z, \phi, \sigma^2 \sim \mathcal{N}(Z\phi, \sigma^2 / w)`
    (Slack et al. 2020; thesis §2.3.3).

    Prior :math:`\phi \mid \sigma^2 \sim \mathcal{N}(0, \sigma^2 \Lambda_0^{-1})` and
    :math:`\sigma^2 \sim \text{scaled-Inv-}\chi^2(n_0, s_0^2)`. Posterior (conjugate update):

    .. math::
        V &= (Z^\top W Z + \Lambda_0)^{-1}, \qquad \hat\phi = V Z^\top W y, \\
        s^2 &= \frac{n_0 s_0^2 + (y - Z\hat\phi)^\top W (y - Z\hat\phi) + \hat\phi^\top \Lambda_0 \hat\phi}{n_0 + N},

    with Student-t marginals of :math:`n_0 + N` degrees of freedom. Slack et al. use
    :math:`\Lambda_0 = I` and :math:`n_0 = 0`.

    Parameters
    ----------
    Z : array (N, p)
    y : array (N,) or (N, n)
        One or several response columns sharing the design.
    weights : array (N,), optional
        Positive observation weights (the proximity :math:`\pi(z)`); default all ones.
    prior_precision : array (p, p), optional
        :math:`\Lambda_0`; default the identity.
    constraint : (a, b), optional
        An exact linear observation :math:`a^\top \phi = b` (``b`` scalar or (n,)): the limit
        of one more observation with infinite weight. It conditions the
        Gaussian on the constraint and adds one degree of freedom.
    prior_dof, prior_scale : float
        :math:`n_0` and :math:`s_0^2` of the prior on :math:`\sigma^2` (default 0: the improper
        :math:`1/\sigma^2` prior).

    Returns
    -------
    BayesPosterior
        Posterior mean (p, n), :math:`V` (p, p), scale :math:`s^2` (n,) and degrees of freedom.

    Raises
    ------
    ValueError
        ``y`` has not the rows of ``Z``; ``weights`` are not N finite positive
        numbers; ``prior_precision`` is not (p, p); or :math:`Z^\top W Z + \Lambda_0` is not
        positive definite (the coalitions do not identify every coefficient
        and the prior is too weak).

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> Z = rng.normal(size=(40, 2))
    >>> y = Z @ [1.0, -2.0] + 0.1 * rng.normal(size=40)
    >>> kx.uncertainty.bayes_linear_posterior(Z, y).mean.ravel().round(3)
    array([ 0.954, -1.939])
    >>> post = kx.uncertainty.bayes_linear_posterior(Z, y, constraint=([1.0, 1.0], -1.0))  # sum(phi) = -1 exactly
    >>> post.mean.ravel().round(3), post.dof
    (array([ 0.946, -1.946]), 41.0)
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


def sandwich_interval(z, w, y, mean, prior, total, unit, max_elements, level):  # noqa: PLR0913 - the fitted regression (design, weights, worths, estimate, prior, constraint) and the interval asked for
    r"""Design-based t-interval of Bayesian SHAP's posterior mean: its sandwich variance over the draws.

    The posterior mean is the penalised weighted least-squares estimate
    :math:`\hat\phi = \arg\min \sum_k w_k (y_k - z_k^\top\phi)^2 + \phi^\top \Lambda_0 \phi` (with
    :math:`\sum_j \phi_j` fixed under efficiency), a smooth function of sample means over the
    independently drawn coalitions; its delta-method variance is the sandwich
    :math:`B \big(\sum_u X_u^\top W_u A_u e_u e_u^\top A_u W_u X_u\big) B`,
    :math:`B = (X^\top W X + \Lambda_0)^{-1}`, with KernelSHAP's small-sample corrections (CR2
    residuals and Satterthwaite degrees of freedom; :func:`kernelxai.estimators._kernelshap._sandwich`).
    This is the "sandwich posterior" of a misspecified Gaussian model (Müller 2013, Econometrica):
    the coalitions' worths are not a linear function plus independent noise, so the posterior's own
    spread :math:`s^2 V` is not the estimate's sampling spread, and its credible intervals did not
    cover.

    The prior pulls the estimate away from the regression without it by a known amount,
    :math:`\delta = -(X^\top W X)^{-1}(\Lambda_c \hat c + q)` in the coordinates left after the
    constraint (:math:`\Lambda_c`, :math:`q` the prior's quadratic and linear parts there); the
    half-width is :math:`t\,\mathrm{se} + |\delta|`, so the interval holds both the posterior mean's
    and the prior-free estimate's t-interval (on an additive game, where the regression is exact and
    its spread zero, the pull is the whole error). Infinite where the coalitions alone do not
    identify every value.

    Parameters
    ----------
    z : bool array (N, d)
        The coalitions, in draws of ``unit`` consecutive rows.
    w : array (N,)
        Their weights (normalised here to mean one, as the posterior is).
    y : array (N, n)
        Their worths minus v(empty).
    mean : array (d, n)
        The posterior mean.
    prior : array (d, d)
        The prior precision :math:`\Lambda_0`.
    total : array (n,) or None
        :math:`v(N) - v(\emptyset)` where :math:`\sum_j \phi_j` was fixed to it (efficiency), else None.
    unit : int
        Rows per independent draw (2: complementary pairs).
    max_elements : int
        Largest block of float64 elements.
    level : float

    Returns
    -------
    (stderr, lower, upper, degrees of freedom)
        Each (n, d) but the degrees of freedom, (d,).
    """
    from scipy import stats  # deferred: scipy.stats takes ~0.5 s to import

    d = z.shape[1]
    zf = z.astype(float)
    sw = np.sqrt(np.asarray(w, dtype=float) / np.mean(w))[:, None]
    residual = y - zf @ mean
    if total is not None:   # eliminate the last player: phi = E c + (v(N) - v(empty)) e_d
        E = np.vstack([np.eye(d - 1), -np.ones((1, d - 1))])
        X = zf[:, :-1] - zf[:, -1:]
        pull = E.T @ prior @ (E @ mean[:-1]) + np.outer(E.T @ prior[:, -1], total)
    else:
        E, X = np.eye(d), zf
        pull = prior @ mean
    ridge = E.T @ prior @ E
    stderr, df = _sandwich(sw * X, sw * residual, unit, max_elements, ridge=ridge, contrast=E)
    gram = (sw * X).T @ (sw * X)
    if np.linalg.matrix_rank(gram) < len(gram):   # the coalitions alone do not identify every value
        shift = np.full_like(stderr, np.inf)
    else:
        shift = np.abs(E @ np.linalg.solve(gram, pull)).T               # |delta| per instance and player
    half = stats.t.ppf(0.5 + level / 2, df) * stderr + shift
    return stderr, mean.T - half, mean.T + half, df


def _interval_text(kind, dof, unit, n_rows, d):
    """``meta["interval"]``: which interval was stated."""
    if kind == "credible":
        return (f"Student-t credible interval ({dof:g} dof) of the Bayesian SHAP posterior: a statement of the "
                "linear-Gaussian model, not a confidence interval for the Shapley values (it did not cover at its "
                "level when scored against exact values; docs: estimators, 'Intervals that cover')")
    draws = f"{n_rows // unit} {'complementary pairs' if unit == 2 else 'coalitions'}"
    if n_rows // unit < MIN_DRAWS_PER_UNKNOWN * (d - 1):
        return (f"infinite: {draws} are too few for the design-based interval (it needs "
                f"{MIN_DRAWS_PER_UNKNOWN} independent draws per unknown, {MIN_DRAWS_PER_UNKNOWN * (d - 1)}; "
                "with fewer it did not cover at its level) -- a larger budget")
    return (f"design-based t-interval of the posterior mean: sandwich (CR2) variance over {draws}, "
            "Satterthwaite degrees of freedom; half-width t * stderr + the prior's pull on the estimate")


def _leverage(z, V):
    zf = z.astype(float)
    return np.einsum("ni,ij,nj->n", zf, V, zf)


def perturbations_to_go(widths: ArrayLike, target_width: float, n_current: int) -> np.ndarray | np.int64:
    r"""Extra coalitions needed to shrink every interval to ``target_width``.

    ``widths`` has shape (d,) or (d, n) (players first); the result is an int
    or one int per instance.

    Interval widths of the posterior fall like :math:`1/\sqrt{N}` once the data
    dominate the prior, so :math:`N_\text{needed} = N\, (\max \text{width} / \text{target})^2`; never
    negative, and saturating at ``MAX_FORECAST`` (2**53) so that an
    unreachable target cannot overflow the integer type. (Slack et al. 2020
    write :math:`4 s^2 / \big(\bar\pi\, (W/z)^2\big)`, the same rule for an orthogonal design of
    unit-weight coalitions; this version uses the current posterior and so
    accounts for the actual design.)

    Parameters
    ----------
    widths : array (d,) or (d, n)
        Current interval widths, players first (one column per instance).
    target_width : float
        The widest interval wanted.
    n_current : int
        Coalitions the current posterior is based on.

    Returns
    -------
    numpy.int64 or ndarray (n,) of int64
        Further coalitions needed, per instance (0 where every interval is
        already narrow enough; ``MAX_FORECAST`` when unreachable).

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> int(kx.uncertainty.perturbations_to_go([0.2, 0.1], 0.1, 100))   # 100 * 2**2 - 100
    300
    >>> kx.uncertainty.perturbations_to_go([[0.2, 0.05], [0.1, 0.04]], 0.1, 100)   # two instances
    array([300,   0])
    """
    widest = np.max(np.asarray(widths, dtype=float), axis=0)   # the widest player, per instance
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        needed = float(n_current) * (widest / float(target_width)) ** 2 - float(n_current)
    needed = np.where(np.isnan(needed), MAX_FORECAST, needed)
    return np.ceil(np.clip(needed, 0, MAX_FORECAST)).astype(np.int64)


def _check_prior_strength(prior_strength):
    if not (isinstance(prior_strength, (int, float)) and not isinstance(prior_strength, bool)
            and prior_strength >= 0 and math.isfinite(prior_strength)):
        raise InvalidOptionError(f"prior_strength must be a finite number >= 0; got {prior_strength!r}")
    return prior_strength


class _BayesRun:
    """One run of Bayesian SHAP: the game, the random stream and the options it draws and fits with."""

    def __init__(self, game, rng, options, v_empty, total, prior_strength):
        self.game, self.rng, self.options = game, rng, options
        self.d = game.n_players
        self.v_empty, self.total, self.prior_strength = v_empty, total, prior_strength
        self.paired, self.efficiency = options["paired"], options["efficiency"]
        self.max_elements = block_elements(options["max_elements"])
        #: rows that form one independent draw: a complementary pair when paired (not focused, not given)
        self.unit = 2 if (self.paired and not options["focused"] and options["coalitions"] is None) else 1

    def draw(self, k):
        if self.paired and k % 2:
            k += 1
        return sample_coalitions(self.d, k, self.rng, paired=self.paired)

    def evaluate(self, z):
        return evaluate_blocks(self.game, z, self.max_elements, False) - self.v_empty

    def fit(self, z, y, w):
        return _fit_bayes(z, y, w, self.total, self.prior_strength, self.efficiency)

    def interval(self, z, w, y, post):
        """(stderr, lower, upper, degrees of freedom), each (n, d): the interval asked for (``interval=``)."""
        level = self.options["level"]
        if self.options["interval"] == "credible":
            lower, upper = post.interval(level)
            return post.scale.T, lower.T, upper.T, np.full(post.mean.T.shape, post.dof)
        if len(z) // self.unit < MIN_DRAWS_PER_UNKNOWN * (self.d - 1):   # too few draws: no interval
            inf = np.full(post.mean.T.shape, np.inf)
            return inf, -inf, inf, np.full(self.d, np.nan)
        prior = self.prior_strength * coalition_second_moment(self.d)
        total = self.total if self.efficiency else None
        return sandwich_interval(z, w, y, post.mean, prior, total, self.unit, self.max_elements, level)

    def fixed_design(self):
        """``(z, w, y, posterior)`` of the coalitions (and weights) the caller gave."""
        options, d = self.options, self.d
        if options["focused"] or options["target_width"] is not None:
            raise InvalidOptionError("a fixed design (coalitions=...) cannot be combined with "
                                     "focused sampling or target_width")
        z = check_coalitions(np.asarray(options["coalitions"]), d)[0]
        inner = (z.sum(axis=1) > 0) & (z.sum(axis=1) < d)
        if not inner.all():
            raise ValueError("coalitions must exclude the empty and the full coalition (their "
                             "worths enter exactly, as v(empty) and the efficiency constraint)")
        weights = options["weights"]
        w = np.ones(len(z)) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (len(z),):
            raise ValueError(f"weights must have one entry per coalition ({len(z)}); got {w.shape}")
        y = self.evaluate(z)
        return z, w, y, self.fit(z, y, w)

    def sampled(self, n_samples):
        """``(z, w, y, posterior)`` of coalitions drawn from the Shapley kernel, in rounds until done."""
        options = self.options
        if options["weights"] is not None:
            raise InvalidOptionError("weights are only accepted with a fixed design (coalitions=...)")
        focused = options["focused"]
        max_samples = options["max_samples"] or max(n_samples, 100_000)
        batch = options["batch_size"] or max(2 * self.d, n_samples // 4)
        n_cand = options["n_candidates"] or 10 * batch
        first = max(2, n_samples // 2) if (focused and options["target_width"] is None) else n_samples
        z = self.draw(min(first, max_samples))
        w = np.ones(len(z))
        y = self.evaluate(z)
        post = self.fit(z, y, w)
        # every round adds at least one coalition and at most max_samples are drawn, so the
        # loop is bounded; with a target width a round at least doubles the sample when the
        # forecast is far off, so it takes at most ~log2(max_samples) rounds
        with progress_bar(None, "Bayesian SHAP", "coalition", options["progress"]) as bar:
            while len(z) < max_samples:
                k = self._round_size((z, w, y, post), n_samples, batch, max_samples)
                if k == 0:
                    break
                if focused:
                    z_new, w_new = self._focused(post, k, n_cand)
                else:
                    z_new = self.draw(k)
                    w_new = np.ones(len(z_new))
                z = np.concatenate([z, z_new])
                w = np.concatenate([w, w_new])
                y = np.concatenate([y, self.evaluate(z_new)])
                post = self.fit(z, y, w)
                bar.update(len(z_new))
        return z, w, y, post

    def _round_size(self, fitted, n_samples, batch, max_samples):
        """Coalitions to draw in the next round after the ``m`` of ``fitted`` = (z, w, y, posterior) (0: done)."""
        target_width = self.options["target_width"]
        m = len(fitted[0])
        if target_width is not None:
            _, lo, hi, _ = self.interval(*fitted)
            to_go = int(perturbations_to_go((hi - lo).T, target_width, m).max())
            if to_go == 0:
                return 0
            return min(max(to_go, 2), max(batch, m), max_samples - m)
        if m >= n_samples:
            return 0
        return min(batch, n_samples - m)

    def _focused(self, post, k, n_cand):
        """``k`` coalitions picked by leverage from ``n_cand`` candidates, with their importance weights."""
        cand = self.draw(n_cand)
        h = _leverage(cand, post.V)
        T = float(np.mean(h)) if self.options["temperature"] is None else self.options["temperature"]
        if not T > 0:
            T = 1.0
        with np.errstate(over="ignore", under="ignore"):
            logits = (h - h.max()) / T              # <= 0: exp cannot overflow
            logq = logits - logsumexp(logits)       # stable softmax (log-sum-exp)
            q = np.exp(logq)
        pick = self.rng.choice(len(cand), size=k, p=q / q.sum())
        # importance weights keep the Shapley kernel as the regression's target
        return cand[pick], np.exp(-logq[pick]) / len(cand)


@register
class BayesSHAP(Estimator):
    """Bayesian SHAP: the posterior mean of a Bayesian regression over coalitions (Slack et al. 2020).

    Coalitions z are drawn from the game's Shapley kernel (sizes with
    probability proportional to (d-1)/(s(d-s)), then uniformly; the empty and
    full coalitions are not drawn). Because they are drawn *from* the kernel,
    they enter with equal weight. The worths y = v(z) - v(empty) are modelled
    as y | z, phi, sigma^2 ~ N(z^T phi, sigma^2 / pi(z)) with a conjugate
    prior; the values are the posterior mean.

    Intervals (at ``level``). ``interval="sandwich"`` (default): a design-based
    t-interval of the posterior mean -- its sandwich (CR2) variance over the
    independently drawn coalitions (complementary pairs when ``paired``), with
    Satterthwaite degrees of freedom, as KernelSHAP's (:func:`sandwich_interval`;
    Müller 2013's "sandwich posterior" of a misspecified model), widened by
    the prior's known pull on the estimate; infinite (no interval) with fewer
    than 10 independent draws per unknown (:data:`MIN_DRAWS_PER_UNKNOWN`),
    where it did not cover. It is the interval the arena holds to its level. ``interval="credible"``: the
    posterior's own equal-tailed Student-t credible interval, a statement of
    the linear-Gaussian model; the worths of a game are not a linear function
    plus independent noise, and scored against exact values these intervals did
    not cover at their level (0.87-0.98 at a stated 0.9, 0.73-0.99 at 0.95;
    docs: estimators). Kept for teaching and for games whose worths really are
    noisy (``kx.uncertainty.bayes_shap`` gives them by default); not stated
    unless asked for.

    Prior. Slack et al. use phi | sigma^2 ~ N(0, sigma^2 I), whose strength
    relative to the data changes when the weights pi are rescaled. Here the
    weights are normalised to mean one and the prior precision is
    ``prior_strength`` times M_d = E[z z^T] under the Shapley kernel
    (:func:`coalition_second_moment`): the information about phi in one
    coalition drawn from the kernel. With ``efficiency=True`` (default) the
    exact worths v(empty) and v(all) enter as the constraint
    sum(phi) = v(all) - v(empty).

    Options: ``budget`` (game evaluations: coalitions drawn + 2; default
    2d + 2050, or with ``target_width`` the initial batch, default
    max(4d, 64) + 2), the old ``n_samples`` (coalitions drawn), ``level``,
    ``interval``, ``focused`` (leverage-weighted, importance-reweighted batches after an
    initial half; the sandwich then treats the draws as independent, an
    approximation), ``target_width`` (keep sampling until every stated interval is at
    most this wide, or ``max_samples`` coalitions are drawn; the sample at
    least doubles per round, so the loop ends after at most
    log2(max_samples) rounds), ``batch_size``, ``max_samples``,
    ``n_candidates``, ``temperature``, ``efficiency``, ``prior_strength``,
    ``paired``, and a fixed design ``coalitions``/``weights``.
    """

    name = "bayes_shap"
    aliases = ("bayes",)
    exact = False
    description = "Bayesian SHAP: Bayesian regression over coalitions, design-based (sandwich) t-intervals"
    options = {
        "budget": Option(None, "int", 3, doc="game evaluations: coalitions drawn + 2"),
        "level": Option(0.95, "level"),
        "interval": Option("sandwich", "choice", choices=("sandwich", "credible"),
                           doc="the interval stated: design-based (sandwich) t, or the posterior's credible one"),
        "focused": Option(False, "bool"),
        "target_width": Option(None, "float", 0.0),
        "batch_size": Option(None, "int", 1),
        "max_samples": Option(None, "int", 1),
        "n_candidates": Option(None, "int", 1),
        "temperature": Option(None, "float", 0.0),
        "efficiency": Option(True, "bool"),
        "prior_strength": Option(1.0, "any"),
        "paired": Option(False, "bool"),
        "coalitions": Option(None, "any", doc="a fixed design (bool array)"),
        "weights": Option(None, "any", doc="weights of a fixed design"),
    }
    option_aliases = {"n_samples": "budget"}

    def _from_alias(self, old, value):
        return self._alias_int(old, value, 1) + 2

    def min_budget(self, n_players) -> int:
        return 2 * n_players + 2

    def _n_first(self, game, options):
        d = game.n_players
        if options["budget"] is not None:
            return options["budget"] - 2
        return 2 * d + 2048 if options["target_width"] is None else max(4 * d, 64)

    def cost(self, game, options) -> Cost:
        d, n = game.n_players, game.n_instances or 1
        if options["coalitions"] is not None:
            N = len(options["coalitions"])
        else:
            N = self._n_first(game, options)
            if options["target_width"] is not None:
                N = options["max_samples"] or max(N, 100_000)
        rounds = (1 if options["target_width"] is None and not options["focused"]
                  else max(1, int(math.log2(max(N, 2)))))
        flops = rounds * (2.0 * N * d * d + N * n * d)
        cost = Cost.of(game.evaluation_work(N + 2), 8.0 * N * (n + d), N + 2,
                       f"up to {N} coalitions x {n} instance(s)", flops=flops)
        if options["interval"] == "sandwich":   # per round stated: the sandwich, Satterthwaite's p x p products
            widths = rounds if options["target_width"] is not None else 1
            cost.blas_flops += widths * (2.0 * N * d ** 3 + 6.0 * N * d * (n + d))
        return cost

    def run(self, game, rng, options) -> EstimatorResult:
        d = game.n_players
        level = options["level"]
        v_empty = as_instances(game.empty_value, game)
        v_full = as_instances(game.full_value, game)
        total = v_full - v_empty
        if d == 1:
            zero = np.zeros((len(total), 1))
            return EstimatorResult(total[:, None], v_empty, zero, total[:, None], total[:, None],
                                   budget=2, meta={"sampling": "one player: phi = v(all) - v(empty)",
                                                   "level": level})
        prior_strength = _check_prior_strength(options["prior_strength"])
        target_width = options["target_width"]
        focused, paired, efficiency = options["focused"], options["paired"], options["efficiency"]
        sampler = _BayesRun(game, rng, options, v_empty, total, prior_strength)
        if options["coalitions"] is not None:  # a fixed design
            z, w, y, post = sampler.fixed_design()
            sampling = "fixed design"
        else:
            z, w, y, post = sampler.sampled(self._n_first(game, options))
            sampling = ("focused (leverage-weighted, importance-reweighted) samples from the Shapley "
                        "kernel" if focused else
                        ("paired samples" if paired else "independent samples") + " from the Shapley kernel")
        stderr, lower, upper, df = sampler.interval(z, w, y, post)
        meta = {
            "n_samples": int(len(z)), "sampling": sampling,
            "level": level, "dof": post.dof, "s2": post.s2, "efficiency": bool(efficiency),
            "prior": f"phi | sigma^2 ~ N(0, sigma^2 ({prior_strength:g} M_d)^-1), "
                     "M_d = E[z z^T] under the Shapley kernel; weights normalised to mean 1",
            "interval": _interval_text(options["interval"], post.dof, sampler.unit, len(z), d),
            "posterior_cov": post.V,
            "focused": bool(focused),
        }
        if options["interval"] == "sandwich":
            meta["degrees_of_freedom"] = df
        if target_width is not None:
            to_go = perturbations_to_go((upper - lower).T, target_width, len(z))
            meta.update(target_width=float(target_width), perturbations_to_go=int(to_go.max()),
                        converged=bool(to_go.max() == 0))
        return EstimatorResult(post.mean.T, v_empty, stderr, lower, upper, budget=int(len(z)) + 2, meta=meta)
