"""What every plot shares: the colours of positive and negative attributions, checking the
Explanation it is given (a shap.Explanation is converted, one output picked), new axes, and the
order and labels of the features shown.

Takes an Explanation (or a shap.Explanation); hands the plot modules a checked kernelxai
Explanation and the helpers below. matplotlib.pyplot is imported only when a figure is drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..explanation import Explanation

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["POSITIVE", "NEGATIVE", "as_explanation", "new_axes", "largest_first", "check_max_display",
           "other_label", "feature_index", "row_position"]

#: colour of a positive attribution
POSITIVE = "#d6604d"
#: colour of a negative attribution
NEGATIVE = "#4393c3"

def as_explanation(expl, output=None) -> Explanation:
    """Our Explanation (a shap.Explanation is converted), reduced to one output if it has several."""
    if not isinstance(expl, Explanation):
        if not (hasattr(expl, "values") and hasattr(expl, "base_values")):
            raise TypeError(
                "expected a kernelxai Explanation or a shap.Explanation; got "
                f"{type(expl).__name__}"
            )
        expl = Explanation.from_shap(expl)
    if expl.has_outputs:
        names = list(expl.output_names)
        if output is None:
            raise ValueError(
                f"this Explanation has {len(names)} outputs {names}; pick one with e[..., {names[0]!r}] "
                f"(or output={names[0]!r})"
            )
        if isinstance(output, str) and output not in names:
            raise ValueError(f"unknown output {output!r}; outputs are {names}")
        expl = expl[..., output]
    elif output is not None:
        raise ValueError(f"output={output!r} given, but this Explanation has a single output")
    return expl


def new_axes(ax, size) -> Axes:
    """``ax``, or the Axes of a new figure of ``size`` (inches) when it is None."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=size)
    return ax


def largest_first(scores, max_display) -> np.ndarray:
    """Positions of the ``max_display`` largest ``|scores|``, largest first (ties keep their order)."""
    order = np.argsort(-np.abs(scores), kind="stable")
    return order[:max_display]


def check_max_display(max_display) -> int:
    """``max_display`` as a positive int, else a ValueError."""
    if isinstance(max_display, (bool, np.bool_)) or not isinstance(max_display, (int, np.integer)) \
            or max_display < 1:
        raise ValueError(f"max_display must be a positive integer; got {max_display!r}")
    return int(max_display)


def other_label(n_hidden) -> str:
    """The label of the row that pools ``n_hidden`` features: "N other features"."""
    return f"{n_hidden} other feature{'s' if n_hidden > 1 else ''}"


def feature_index(expl, feature) -> int:
    """Position of ``feature`` (a name or an integer position) among the Explanation's features."""
    names = list(expl.feature_names)
    if isinstance(feature, str):
        if feature not in names:
            raise ValueError(f"unknown feature {feature!r}; features are {names}")
        return names.index(feature)
    if isinstance(feature, (bool, np.bool_)) or not isinstance(feature, (int, np.integer)):
        raise ValueError(f"feature must be a feature name or an integer position; got {feature!r}")
    if not -len(names) <= feature < len(names):
        raise ValueError(f"feature {feature} is out of range for {len(names)} features {names}")
    return int(feature) % len(names)


def row_position(row, n) -> int:
    """``row`` as a position in [0, n): an integer in [-n, n), else a ValueError."""
    if isinstance(row, (bool, np.bool_)) or not isinstance(row, (int, np.integer)) or not -n <= row < n:
        raise ValueError(f"row must be an integer position among the {n} explained points; got {row!r}")
    return int(row) % n


