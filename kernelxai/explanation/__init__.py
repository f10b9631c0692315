"""The Explanation: what every estimator's result becomes, and what plots and widgets read.

Takes nothing from the rest of kernelxai. Hands on :class:`Explanation`
(values, base values, data, feature names, and the optional axes: outputs,
interactions, covariance, intervals; :mod:`~kernelxai.explanation.attributions`)
and its interop with shap, shapiq and pandas (:mod:`~kernelxai.explanation.interop`).
"""

from .attributions import AXES, Explanation

__all__ = ["Explanation", "AXES"]
