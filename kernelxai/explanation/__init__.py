"""The Explanation: what every estimator's result becomes, and what plots and widgets read.

Takes nothing from the rest of kernelxai. Hands on :class:`Explanation`
(values, base values, data, feature names, and the optional axes: outputs,
interactions of any order (:class:`Interactions`), covariance, intervals) and its interop
with shap, shapiq, pandas and JSON (:meth:`Explanation.to_shap`, :meth:`Explanation.to_shapiq`,
:meth:`Explanation.from_shapiq`, :meth:`Explanation.to_frame`, :meth:`Explanation.to_json`).
"""

from ._attributions import AXES, Explanation
from ._interaction_sets import InteractionBlock, Interactions

__all__ = ["Explanation", "AXES", "Interactions", "InteractionBlock"]
