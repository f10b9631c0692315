"""Plots of Explanations (matplotlib): attributions, interactions, uncertainty.

Takes Explanations only.
"""

from .core import (
    NEGATIVE,
    POSITIVE,
    bar,
    beeswarm,
    correlation,
    dependence,
    dependence_band,
    interaction_heatmap,
    interaction_network,
    kde,
    strongest_interaction,
    waterfall,
)

__all__ = ["bar", "waterfall", "beeswarm", "dependence", "kde", "correlation", "dependence_band",
           "interaction_heatmap", "interaction_network", "strongest_interaction", "POSITIVE",
           "NEGATIVE"]
