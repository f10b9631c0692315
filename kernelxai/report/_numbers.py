"""The numbers of a report: the exactness certificate, global importance with intervals, and drift.

Takes Explanations (and, for the certificate, the model they explain); hands on plain arrays,
DataFrames and a :class:`Drift`, which the report notebook prints and plots and writes to its
JSON, and which ``python -m kernelxai.report`` reads back to decide its exit status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_rng
from ..explainers._intake import intake

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..explanation import Explanation

__all__ = ["explained_output", "efficiency_residuals", "importance", "drift", "Drift", "DEFAULT_TOLERANCE",
           "anomaly_detector", "is_gaussian_process"]

#: The default of ``--tolerance``: a feature's attributions moved when, at some explained point,
#: they changed by more than 5% of the scale of the attributions (the largest mean absolute
#: Shapley value of a feature in the reference explanation).
DEFAULT_TOLERANCE = 0.05

#: bootstrap resamples of the points drawn at once (a (chunk, n) matrix of counts)
_BOOT_CHUNK = 256


def explained_output(model: Any, X: ArrayLike, output: str | None = None) -> np.ndarray:
    """The numbers ``kx.explain(model, X, output=output)`` splits, one per row (and output).

    The kernel expansion of each output where the model has one, else the model call
    ``kx.explain`` averages (``meta["model_method"]``): ``values.sum(feature axis) + base_values``
    equals this for every exact route.

    Parameters
    ----------
    model : object
        Anything ``kx.explain`` takes.
    X : array (n, d) or DataFrame
    output : str, optional
        As ``kx.explain``'s ``output``.

    Returns
    -------
    ndarray
        (n,) for a model with one output, (n, k) for k outputs.
    """
    door = intake(model, output)
    columns = []
    for target in door.targets:
        if target.is_exact:
            columns.append(np.asarray(target.expansion.predict(X), dtype=float))
        else:
            call = target.call.predict if hasattr(target.call, "predict") else target.call
            columns.append(np.asarray(call(X), dtype=float))
    if door.plan is not None and door.plan.multi:
        return np.stack([c.reshape(len(c)) for c in columns], axis=-1)
    out = columns[0]
    return out.reshape(len(out)) if out.ndim > 1 and out.shape[1] == 1 else out


def efficiency_residuals(model: Any, expl: Explanation, X: ArrayLike, output: str | None = None) -> np.ndarray:
    """Per explained row, ``|sum_j phi_j + base value - f(x)|``: zero to rounding for exact values.

    The efficiency axiom says the Shapley values of a point add up to its prediction minus the
    base value; the residual is how far the computed values are from it, and it is the report's
    certificate: about 1e-12 of the prediction's scale for exact routes, larger for sampled
    estimators (whose intervals say how far).

    Parameters
    ----------
    model : object
        The model ``expl`` explains.
    expl : Explanation
        ``kx.explain(model, X, output=output, ...)``.
    X : array (n, d) or DataFrame
        The explained rows.
    output : str, optional
        The ``output`` the explanation was computed for.

    Returns
    -------
    ndarray
        (n,) residuals; for several outputs the largest over them.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.svm import SVR
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> svr = SVR().fit(X, X[:, 0] * X[:, 1])
    >>> e = kx.explain(svr, X[:4], background=X)
    >>> bool(kx.report.efficiency_residuals(svr, e, X[:4]).max() < 1e-10)
    True
    """
    values = np.asarray(expl.values, dtype=float)
    total = values.sum(axis=1) + np.asarray(expl.base_values, dtype=float)
    residual = np.abs(total - explained_output(model, X, output))
    return residual.max(axis=1) if residual.ndim > 1 else residual


def _abs_by_point(expl) -> tuple[np.ndarray, list[str]]:
    """|phi| as (n, d), the outputs (if any) averaged, and the feature names."""
    values = np.abs(np.asarray(expl.values, dtype=float))
    if values.ndim == 3:
        values = values.mean(axis=2)
    return values, list(expl.feature_names)


def importance(expl: Explanation, *, n_bootstrap: int = 200, level: float = 0.95,
               seed: int | np.random.Generator | None = 0) -> pd.DataFrame:
    """Global importance: mean :math:`|\\phi|` of each feature over the explained points, with a bootstrap interval.

    The interval is a percentile bootstrap over the points (the rows are resampled with
    replacement ``n_bootstrap`` times): it says how much the ranking rests on which points were
    explained, not how exact each value is (the certificate says that).

    Parameters
    ----------
    expl : Explanation
        Values (n, d) or (n, d, k); for several outputs :math:`|\\phi|` is averaged over them.
    n_bootstrap : int
        Resamples of the points.
    level : float
        Coverage of the interval.
    seed : int or Generator, optional

    Returns
    -------
    DataFrame
        Indexed by feature, most important first: ``mean_abs``, ``lower``, ``upper``, ``share``
        (of the total mean :math:`|\\phi|`).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> e = kx.Explanation(np.array([[1.0, -0.1], [-3.0, 0.1]]), feature_names=["a", "b"])
    >>> kx.report.importance(e, n_bootstrap=50)["mean_abs"].to_dict()
    {'a': 2.0, 'b': 0.1}
    """
    values, names = _abs_by_point(expl)
    n = len(values)
    rng = check_rng(seed)
    boots = []
    for start in range(0, n_bootstrap, _BOOT_CHUNK):   # counts (chunk, n) @ |phi| (n, d): no (B, n, d) tensor
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=min(_BOOT_CHUNK, n_bootstrap - start))
        boots.append(counts @ values / n)
    boots = np.concatenate(boots) if boots else np.empty((0, values.shape[1]))
    mean = values.mean(axis=0)
    tail = (1.0 - level) / 2.0
    lower, upper = (np.quantile(boots, [tail, 1.0 - tail], axis=0) if len(boots) else (mean, mean))
    total = mean.sum()
    frame = pd.DataFrame({"mean_abs": mean, "lower": lower, "upper": upper,
                          "share": mean / total if total > 0 else np.zeros_like(mean)}, index=names)
    frame.index.name = "feature"
    return frame.sort_values("mean_abs", ascending=False, kind="stable")


@dataclass
class Drift:
    """How the attributions of the same points moved from a reference explanation to another.

    Attributes
    ----------
    table : DataFrame
        Per feature: ``max_abs_delta`` and ``mean_abs_delta`` (:math:`|\\phi^{new} - \\phi^{ref}|` over the
        points, and outputs), the same divided by ``scale`` (``max_relative``,
        ``mean_relative``), and ``moved`` (``max_relative > tolerance``).
    scale : float
        The scale of the reference attributions: the largest mean :math:`|\\phi|` of a feature.
    tolerance : float
        The largest relative change accepted (see :data:`DEFAULT_TOLERANCE`).
    base_value_delta : float
        The largest change of the base values.
    moved : list of str
        The features whose attributions moved beyond the tolerance, largest change first.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> d = kx.report.drift(np.ones((3, 2)), np.ones((3, 2)))
    >>> d.ok, d.moved, d.to_dict()["scale"]
    (True, [], 1.0)
    """

    table: pd.DataFrame
    scale: float
    tolerance: float
    base_value_delta: float
    moved: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether no feature moved beyond the tolerance."""
        return not self.moved

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Drift:
        """The Drift that :meth:`to_dict` wrote (read back from a report's JSON)."""
        table = pd.DataFrame.from_dict(data["features"], orient="index")
        table.index.name = "feature"
        return cls(table=table, scale=float(data["scale"]), tolerance=float(data["tolerance"]),
                   base_value_delta=float(data["base_value_delta"]), moved=list(data["moved"]))

    def to_dict(self) -> dict[str, Any]:
        """The numbers as plain JSON-ready values (what the report's JSON holds under ``"drift"``)."""
        return {"scale": self.scale, "tolerance": self.tolerance, "base_value_delta": self.base_value_delta,
                "moved": list(self.moved), "ok": self.ok,
                "features": {name: {k: (bool(v) if k == "moved" else float(v)) for k, v in row.items()}
                             for name, row in self.table.to_dict(orient="index").items()}}


def drift(reference: Explanation | ArrayLike, other: Explanation | ArrayLike, *,
          tolerance: float = DEFAULT_TOLERANCE, feature_names: list[str] | None = None,
          base_values: tuple[ArrayLike, ArrayLike] | None = None) -> Drift:
    """Per feature, how far the attributions of the same points moved from ``reference`` to ``other``.

    With :math:`\\Delta_{ij} = \\phi^{other}_{ij} - \\phi^{ref}_{ij}` over the points i,
    feature j moved when :math:`\\max_i |\\Delta_{ij}| > \\mathrm{tolerance} \\cdot s`, where the
    scale :math:`s = \\max_j \\frac1n \\sum_i |\\phi^{ref}_{ij}|` is the reference's largest mean
    :math:`|\\phi|` (so the tolerance is a fraction of the top feature's typical attribution; when every
    reference attribution is zero, s = 1 and the tolerance is absolute).

    Parameters
    ----------
    reference, other : Explanation or array (n, d) or (n, d, k)
        The values of the same points, features (and outputs), in the same order.
    tolerance : float
        The largest accepted relative change.
    feature_names : list of str, optional
        Names for arrays (default: the reference Explanation's, else ``x0, x1, ...``).
    base_values : (array, array), optional
        The two explanations' base values, for arrays (Explanations carry their own).

    Returns
    -------
    Drift

    Raises
    ------
    ValueError
        The two have different shapes or feature names.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> ref = np.array([[1.0, 0.5], [-1.0, 0.1]])
    >>> d = kx.report.drift(ref, ref + [[0.0, 0.2], [0.0, 0.0]], feature_names=["a", "b"])
    >>> d.moved, d.scale, round(float(d.table.loc["b", "max_relative"]), 3)
    (['b'], 1.0, 0.2)
    """
    a = np.asarray(getattr(reference, "values", reference), dtype=float)
    b = np.asarray(getattr(other, "values", other), dtype=float)
    names = list(feature_names or getattr(reference, "feature_names", None) or [f"x{j}" for j in range(a.shape[1])])
    other_names = getattr(other, "feature_names", None)
    if a.shape != b.shape:
        raise ValueError(f"the two explanations differ in shape: {a.shape} and {b.shape}; drift compares the "
                         "same points, features and outputs")
    if other_names is not None and list(other_names) != names:
        raise ValueError(f"the two explanations have different features: {names} and {list(other_names)}")
    delta = np.abs(b - a)
    ref_abs = np.abs(a)
    axes = (0, 2) if a.ndim == 3 else (0,)
    scale = float(ref_abs.mean(axis=axes).max()) if a.size else 0.0
    scale = scale if scale > 0 else 1.0
    table = pd.DataFrame({"max_abs_delta": delta.max(axis=axes), "mean_abs_delta": delta.mean(axis=axes)},
                         index=names)
    table["max_relative"] = table["max_abs_delta"] / scale
    table["mean_relative"] = table["mean_abs_delta"] / scale
    table["moved"] = table["max_relative"] > tolerance
    table.index.name = "feature"
    if base_values is None and hasattr(reference, "base_values") and hasattr(other, "base_values"):
        base_values = (reference.base_values, other.base_values)
    base_delta = (float(np.max(np.abs(np.asarray(base_values[1], float) - np.asarray(base_values[0], float))))
                  if base_values is not None else float("nan"))
    moved = list(table[table["moved"]].sort_values("max_relative", ascending=False).index)
    return Drift(table=table, scale=scale, tolerance=float(tolerance), base_value_delta=base_delta, moved=moved)


# --------------------------------------------------------------------------- #
# what kind of model
# --------------------------------------------------------------------------- #
def _final_step(model):
    steps = getattr(model, "steps", None)
    return steps[-1][1] if steps else model


def anomaly_detector(model: Any) -> str | None:
    """``"OneClassSVM"`` or ``"KernelDensity"`` when the model (or a pipeline's last step) is one, else None.

    The report then says which background answers which question about an anomaly score.

    Parameters
    ----------
    model : object

    Returns
    -------
    str or None

    Examples
    --------
    >>> import kernelxai as kx
    >>> from sklearn.svm import SVR, OneClassSVM
    >>> kx.report.anomaly_detector(OneClassSVM()), kx.report.anomaly_detector(SVR())
    ('OneClassSVM', None)
    """
    name = type(_final_step(model)).__name__
    module = type(_final_step(model)).__module__
    return name if name in ("OneClassSVM", "KernelDensity") and module.startswith("sklearn.") else None


def is_gaussian_process(model: Any) -> bool:
    """Whether the model (or a pipeline's last step) is a fitted scikit-learn Gaussian process.

    The report then adds the credible bands of ``kx.explain_gp``.

    Parameters
    ----------
    model : object

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> X = np.random.default_rng(0).normal(size=(10, 2))
    >>> kx.report.is_gaussian_process(GaussianProcessRegressor(optimizer=None).fit(X, X[:, 0]))
    True
    """
    step = _final_step(model)
    return type(step).__module__.startswith("sklearn.gaussian_process") and hasattr(step, "kernel_")
