"""The entry points: from what the user passed to an Explanation.

Takes everything below (models, value functions, games, estimators, parallel,
Explanation). Hands Explanations to the user: ``explain``,
``explain_interactions``, ``explain_gp``, ``explain_mmd`` / ``explain_hsic``,
``explain_r2``, ``shapley_values``, the Shapley functionals and the background
summaries; ``compare_estimators`` (the arena) scores the sampled estimators against the exact
values on the game ``explain`` builds.
"""

from ._arena import EstimatorComparison, compare_estimators
from ._background_bound import SummaryBound, summary_bound
from ._background_summaries import BackgroundSummary, mean_embedding, mmd, subsample, summarize
from ._discrepancy import (
    HSICGame,
    MMDGame,
    explain_hsic,
    explain_mmd,
    hsic_permutation_test,
    mmd_permutation_test,
)
from ._explain import BackgroundRequiredError, explain
from ._gp_shap import explain_gp
from ._interactions import INDICES, explain_interactions, shapley_interactions
from ._regression import R2Game, explain_r2
from ._shapley_prior import ShapleyPrior

__all__ = [
    "explain",
    "explain_interactions",
    "shapley_interactions",
    "explain_gp",
    "ShapleyPrior",
    "explain_mmd",
    "explain_hsic",
    "explain_r2",
    "compare_estimators",
    "EstimatorComparison",
    "MMDGame",
    "HSICGame",
    "R2Game",
    "mmd_permutation_test",
    "hsic_permutation_test",
    "subsample",
    "summarize",
    "summary_bound",
    "mmd",
    "mean_embedding",
    "BackgroundSummary",
    "SummaryBound",
    "BackgroundRequiredError",
    "INDICES",
]
