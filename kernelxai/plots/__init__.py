"""Plots of Explanations (matplotlib): attributions, interactions, uncertainty; and of the arena.

Takes Explanations only. Three families: attributions (:func:`bar`, :func:`waterfall`,
:func:`beeswarm`, :func:`dependence`), uncertainty (:func:`kde`, :func:`correlation`,
:func:`dependence_band`) and interactions (:func:`interaction_heatmap`, :func:`interaction_network`,
:func:`strongest_interaction`; of any order: :func:`interaction_bar`, :func:`interaction_upset`); they
share a style (the colours :data:`POSITIVE` and :data:`NEGATIVE`, axes, feature order). The
arena's result (:func:`kx.compare_estimators <kernelxai.compare_estimators>`) has two of its own:
:func:`estimator_errors` (error against budget) and :func:`estimator_coverage` (coverage of the
stated intervals).

Every function takes an :class:`~kernelxai.Explanation` -- or a ``shap.Explanation``, converted
with :meth:`Explanation.from_shap` (values, base values, data, feature names, bounds) -- draws on
``ax`` (a new figure when None) and returns the Axes. Plots know nothing about models, kernels or
value functions. An Explanation with an output axis (multi-class, multi-output) is drawn one output
at a time: pass ``output="a"`` (a name or a position) to any plot, or pick it first, ``e[..., "a"]``.

matplotlib.pyplot (and seaborn) are imported only when a figure is drawn, so importing this
package is cheap and leaves the matplotlib backend alone.
"""

from ._arena_plots import estimator_coverage, estimator_errors
from ._attribution_plots import bar, beeswarm, dependence, waterfall
from ._interaction_plots import interaction_heatmap, interaction_network, strongest_interaction
from ._interaction_sets_plots import interaction_bar, interaction_upset
from ._plot_style import NEGATIVE, POSITIVE
from ._uncertainty_plots import correlation, dependence_band, kde

__all__ = ["bar", "waterfall", "beeswarm", "dependence", "kde", "correlation", "dependence_band",
           "interaction_heatmap", "interaction_network", "strongest_interaction", "interaction_bar",
           "interaction_upset", "estimator_errors", "estimator_coverage", "POSITIVE", "NEGATIVE"]
