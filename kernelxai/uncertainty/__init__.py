"""How uncertain is an explanation? Three answers (thesis ch. 2.3).

* **Sampling uncertainty** -- :func:`single_reference` (Merrick & Taly 2020):
  the attribution against a background is the mean of the
  attributions of *single-reference games*, so the spread of those
  per-reference attributions gives a standard error and a t-interval.
  (Permutation sampling, and KernelSHAP with ``bootstrap=``, report
  intervals the same way through :func:`kernelxai.shapley_values`.)
* **What the Shapley value leaves out** -- :func:`shapley_residuals` (Kumar et
  al. 2020): each player's Shapley value is read off the
  closest *inessential* (additive) game along that player's edges of the
  coalition hypercube; the residual edge vector measures the interaction the
  single number hides.
* **Regression uncertainty of KernelSHAP** -- :func:`bayes_shap` (Slack et al.
  2021): a Bayesian weighted linear regression over coalitions, with a
  conjugate posterior, Student-t credible intervals, a forecast of the
  perturbations still needed for a target width, and focused sampling. The
  estimator is ``method="bayes_shap"`` of :func:`kernelxai.shapley_values`,
  which states a design-based (sandwich) interval instead: the credible
  intervals are a statement of the surrogate model and do not cover the exact
  values at their level.

Everything here is model-agnostic: the functions take a
:class:`~kernelxai.games.Game` or a predict function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._params import Boolean, Integer, Real, Seed, parameters
from ..estimators._bayes import (
    BayesPosterior,
    bayes_linear_posterior,
    coalition_second_moment,
    perturbations_to_go,
)
from ..estimators._registry import get_estimator
from ..estimators._shapley import PARAMETERS, shapley_values
from ._reference import ReferenceSamplingGame, single_reference, single_reference_game
from ._residuals import MAX_RESIDUAL_PLAYERS, ShapleyResiduals, shapley_residuals, walsh_hadamard

if TYPE_CHECKING:
    from typing import Any

    import numpy as np

    from ..explanation import Explanation
    from ..games import Game

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
    "perturbations_to_go",
    "MAX_RESIDUAL_PLAYERS",
]


def _bayes_options(arguments) -> list[tuple]:
    """What takes bayes_shap's ``**options``: the ``"bayes_shap"`` estimator."""
    est = get_estimator("bayes_shap")
    return [("method='bayes_shap'", [*est.accepted_options(), *est.option_aliases])]


@parameters("kx.uncertainty.bayes_shap", consumers=_bayes_options, game=PARAMETERS["game"],
            n_samples=Integer(1, none=True), level=Real(0.0, 1.0), seed=Seed(), focused=Boolean(),
            target_width=Real(0.0, none=True))
def bayes_shap(game: Game, n_samples: int | None = None, level: float = 0.95,
               seed: int | np.random.Generator | None = None, focused: bool = False, target_width: float | None = None,
               **options: Any) -> Explanation:
    r"""Bayesian SHAP: Shapley values with credible intervals (Slack et al. 2020).

    Coalitions :math:`z` are drawn from the game's Shapley kernel (sizes :math:`s` with
    probability proportional to :math:`(d-1)/\big(s(d-s)\big)`, then uniformly; the empty and
    full coalitions are not drawn). Because they are drawn *from* the kernel,
    they enter with equal weight. The worths :math:`y = v(z) - v(\emptyset)` are modelled
    as :math:`y \mid z, \phi, \sigma^2 \sim \mathcal{N}\big(z^\top \phi,\ \sigma^2 / \pi(z)\big)` (Slack et al. 2020,
    thesis §2.3.3) with the conjugate prior below; the posterior is the closed form of
    :func:`bayes_linear_posterior`, and each :math:`\phi_j` has a Student-t marginal
    whose equal-tailed interval at ``level`` is reported (``interval="credible"``, the default here).
    These credible intervals are a statement of the linear-Gaussian model, not confidence
    intervals for the Shapley values: scored against exact values (``kx.compare_estimators``) they
    did not cover at their level (0.87-0.98 at a stated 0.9, 0.73-0.99 at 0.95). For an interval
    that does, pass ``interval="sandwich"`` -- the design-based t-interval of the posterior mean,
    which ``method="bayes_shap"`` of :func:`kx.shapley_values <kernelxai.shapley_values>` and
    :func:`kx.explain <kernelxai.explain>` state by default.

    Prior. Slack et al. use :math:`\phi \mid \sigma^2 \sim \mathcal{N}(0, \sigma^2 I)`, whose strength
    relative to the data changes when the weights :math:`\pi` are rescaled. Here the
    weights are normalised to mean one and the prior precision is
    ``prior_strength`` times :math:`M_d = \mathbb{E}[z z^\top]` under the Shapley kernel
    (:func:`coalition_second_moment`): the information about :math:`\phi` in one
    coalition drawn from the kernel ("unit information"). Rescaling the
    weights, or relabelling the players, leaves the posterior unchanged, and
    the prior's pull fades like :math:`1/N`. On an additive game the prior's shrinkage
    is then at most :math:`1/t` of the interval half-width (Cauchy-Schwarz), so the
    intervals contain the exact values. With ``efficiency=True`` (default)
    the exact worths :math:`v(\emptyset)` and :math:`v(N)` (all players) enter as the constraint
    :math:`\sum_j \phi_j = v(N) - v(\emptyset)` (an observation of infinite weight), so the
    values add up like every other Explanation.

    Parameters
    ----------
    game : Game
    n_samples : int, optional
        Coalitions to draw (default 2d + 2048; with ``target_width``, the
        initial batch, default max(4d, 64)).
    level : float in (0, 1)
        Level of the intervals (credibility of the credible ones).
    seed : None, int or Generator
    focused : bool
        Focused sampling (Slack et al. 2020; thesis §2.3.3, Alg. 2): after an initial half,
        batches are drawn from a pool of candidates from the kernel with
        probability proportional to :math:`\exp(h(z)/T)`, :math:`h(z) = z^\top V z` the predictive
        variance factor (computed with log-sum-exp, so it cannot overflow;
        :math:`T` = mean :math:`h` unless ``temperature`` is given), and enter with importance
        weights :math:`1/\big(A\, q(z)\big)` so that the regression still targets the Shapley
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
        e.g. for tests), ``interval`` (``"credible"``, default here, or ``"sandwich"``),
        ``max_elements``, ``progress``.

    Returns
    -------
    Explanation
        ``values`` (posterior means), ``stderr`` (scales of the t marginals),
        ``lower``/``upper``; ``meta`` holds ``s2`` (noise scale per instance),
        ``dof``, ``posterior_cov``, ``n_samples`` and, with ``target_width``,
        ``perturbations_to_go`` and ``converged``.

    Examples
    --------
    With the efficiency constraint (default) the posterior means add up to
    v(all) - v(empty) (the exact Shapley values are 1.5, 2.5 and 3):

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> game = kx.FunctionGame(lambda z: z @ np.array([1.0, 2.0, 3.0]) + z[:, 0] * z[:, 1], 3)
    >>> expl = kx.uncertainty.bayes_shap(game, n_samples=256, seed=0)
    >>> round(float(expl.values.sum()), 6), expl.meta["n_samples"]
    (7.0, 256)
    >>> np.round(expl.values, 1), bool(np.all(expl.lower < expl.upper))
    (array([1.6, 2.4, 3. ]), True)
    """
    if n_samples is not None:
        options["n_samples"] = n_samples
    options.setdefault("interval", "credible")   # the posterior's own intervals: what this function is for
    return shapley_values(game, "bayes_shap", seed=seed, level=level, focused=focused,
                          target_width=target_width, **options)

