"""Plots of Explanations (matplotlib): attributions, interactions, uncertainty.

Takes Explanations only. One module per family: :mod:`.attribution_plots` (bar, waterfall,
beeswarm, dependence), :mod:`.uncertainty_plots` (kde, correlation, dependence_band),
:mod:`.interaction_plots` (interaction_heatmap, interaction_network, strongest_interaction), and
:mod:`.plot_style`, what they share (the colours POSITIVE and NEGATIVE, axes, feature order).

Every function takes an :class:`~kernelxai.Explanation` -- or a ``shap.Explanation``, converted
with :meth:`Explanation.from_shap` (values, base values, data, feature names, bounds) -- draws on
``ax`` (a new figure when None) and returns the Axes. Plots know nothing about models, kernels or
value functions. An Explanation with an output axis (multi-class, multi-output) is drawn one output
at a time: pass ``output="a"`` (a name or a position) to any plot, or pick it first, ``e[..., "a"]``.

matplotlib.pyplot (and seaborn) are imported only when a figure is drawn, so importing this
package is cheap and leaves the matplotlib backend alone.
"""

from .attribution_plots import bar, beeswarm, dependence, waterfall
from .interaction_plots import interaction_heatmap, interaction_network, strongest_interaction
from .plot_style import NEGATIVE, POSITIVE
from .uncertainty_plots import correlation, dependence_band, kde

__all__ = ["bar", "waterfall", "beeswarm", "dependence", "kde", "correlation", "dependence_band",
           "interaction_heatmap", "interaction_network", "strongest_interaction", "POSITIVE",
           "NEGATIVE"]
