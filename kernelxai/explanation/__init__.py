"""The Explanation: what every estimator's result becomes, and what plots and widgets read.

Takes nothing from the rest of kernelxai. Hands on :class:`Explanation`
(values, base values, data, feature names, and the optional axes: outputs,
interactions, covariance, intervals) and its interop with shap, shapiq and pandas
(:meth:`Explanation.to_shap`, :meth:`Explanation.to_shapiq`, :meth:`Explanation.to_frame`).
"""

from ._attributions import AXES, Explanation

__all__ = ["Explanation", "AXES"]
