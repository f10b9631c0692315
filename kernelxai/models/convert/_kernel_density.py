"""Converter of scikit-learn's ``KernelDensity``: the density estimate as a kernel expansion.

Takes a fitted ``sklearn.neighbors.KernelDensity`` (any of its kernels, metrics,
bandwidths -- a number, ``"scott"`` or ``"silverman"``, read from
``bandwidth_`` -- and sample weights). Hands on two outputs:

* ``"density"``: ``exp(score_samples(x)) = c_h sum_i w_i k((x - x_i) / h) / sum_i w_i``,
  a kernel expansion over the training inputs with coefficients
  ``c_h w_i / sum w`` (``c_h``: scikit-learn's normalising constant of the
  kernel in d dimensions, the same for every metric). The ``"gaussian"``
  kernel with the euclidean metric is the RBF product kernel with lengthscale
  ``h`` and the ``"exponential"`` kernel with the manhattan metric the Laplace
  product kernel (the polynomial-time product routes); every other kernel and
  metric is a radial kernel of the metric's distance (:class:`DensityKernel`,
  exact, not a product kernel: explained through calls of the expansion).
* ``"log_density"`` (the default, what ``score_samples`` returns): the log of a
  kernel expansion is not a kernel expansion, so it is explained through model
  calls of ``score_samples``.

A pipeline of per-feature scalers before it folds into the kernel as for the
other converters (the product kernels); its ``"log_density"`` then needs
``background=`` (the stored training inputs are the scaled ones).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from ...kernels import RBF, Kernel, Laplace
from .._estimation import fitted_feature_names
from .._expansion import KernelExpansion
from ._converters import Converter, Example, register, require_fitted
from ._plans import CallOutput, OutputPlan, column, expansion_or_calls, refuse

if TYPE_CHECKING:
    from ._converters import Dispatch

__all__ = ["KERNEL_DENSITY", "DensityKernel", "log_kernel_norm"]

_OUTPUTS = ("log_density", "density")
_EUCLIDEAN = ("euclidean", "l2")
_MANHATTAN = ("manhattan", "cityblock", "l1")
_LOG_DENSITY = "the log of a kernel expansion is not a kernel expansion"


def _profile(kernel: str, r: np.ndarray, h: float) -> np.ndarray:
    """k(r) of scikit-learn's KernelDensity kernel at distances r, bandwidth h (unnormalised)."""
    u = r / h
    inside = r < h  # the compact kernels vanish from r = h on, as scikit-learn's tree has it
    if kernel == "gaussian":
        return np.exp(-0.5 * u * u)
    if kernel == "exponential":
        return np.exp(-u)
    if kernel == "tophat":
        return inside.astype(float)
    if kernel == "epanechnikov":
        return np.where(inside, 1.0 - u * u, 0.0)
    if kernel == "linear":
        return np.where(inside, 1.0 - u, 0.0)
    if kernel == "cosine":
        return np.where(inside, np.cos(0.5 * np.pi * u), 0.0)
    raise ValueError(f"unknown KernelDensity kernel {kernel!r}")


def log_kernel_norm(h: float, d: int, kernel: str) -> float:
    """log c_h: the log normalising constant of a KernelDensity kernel in d dimensions, bandwidth h.

    As scikit-learn's ``kernel_norm`` (the volume V_d and surface S_{d-1} of the
    unit sphere; the same constant whatever the metric). TypeError where
    scikit-learn's constant is not positive (the ``"cosine"`` kernel in 4
    dimensions, where its ``score_samples`` is NaN).
    """
    if kernel == "gaussian":
        factor = 0.5 * d * math.log(2 * math.pi)
    elif kernel == "tophat":
        factor = _log_ball_volume(d)
    elif kernel == "epanechnikov":
        factor = _log_ball_volume(d) + math.log(2.0 / (d + 2.0))
    elif kernel == "exponential":
        factor = _log_sphere_surface(d - 1) + math.lgamma(d)
    elif kernel == "linear":
        factor = _log_ball_volume(d) - math.log(d + 1.0)
    elif kernel == "cosine":
        factor = _log_cosine_factor(d)
    else:
        raise ValueError(f"unknown KernelDensity kernel {kernel!r}")
    return -factor - d * math.log(h)


def _log_ball_volume(n):
    """log V_n, the volume of the unit ball in n dimensions."""
    return 0.5 * n * math.log(math.pi) - math.lgamma(0.5 * n + 1)


def _log_sphere_surface(n):
    """log S_n as scikit-learn's ``kernel_norm`` writes it: 2 pi V_{n-1}."""
    return math.log(2 * math.pi) + _log_ball_volume(n - 1)


def _log_cosine_factor(d):
    """The log of the 'cosine' kernel's normalising factor in d dimensions (TypeError where not positive)."""
    total, term = 0.0, 2.0 / math.pi
    for k in range(1, d + 1, 2):
        total += term
        term *= -(d - k) * (d - k - 1) * (2.0 / math.pi) ** 2
    if total <= 0:
        raise TypeError(f"scikit-learn's normalising constant of the 'cosine' kernel in {d} dimensions "
                        "is not positive (its score_samples is NaN there), so there is no density to explain")
    return math.log(total) + _log_sphere_surface(d - 1)


class DensityKernel(Kernel):
    """A KernelDensity kernel k(dist(x, x') / h) of any of its metrics -- not a product kernel.

    Exact (the distances of scikit-learn's ``DistanceMetric``, as the model's
    tree computes them), unnormalised; explanations go through calls of the
    expansion on (x_S, b_{S^c}) and it cannot be restricted to a subset of the
    features (the observational value function refuses it).

    Parameters
    ----------
    kernel : str
        One of ``"gaussian"``, ``"tophat"``, ``"epanechnikov"``, ``"exponential"``,
        ``"linear"``, ``"cosine"``.
    bandwidth : float
    metric : str, default "euclidean"
    metric_params : dict, optional
    """

    is_product = False
    route_note = ("not a product kernel: its interventional game is evaluated through calls of the "
                  "expansion on (x_S, b_{S^c}) (exact with all coalitions)")

    def __init__(self, kernel: str, bandwidth: float, metric: str = "euclidean",
                 metric_params: dict | None = None) -> None:
        _profile(kernel, np.zeros(1), 1.0)  # an unknown kernel fails here
        self.kernel = kernel
        self.bandwidth = float(bandwidth)
        self.metric = metric
        self.metric_params = dict(metric_params or {})

    def gram(self, A, B=None, subset=None, max_elements=None) -> np.ndarray:
        """k(dist(A[a], B[b]) / h); ``subset`` is not supported (not a product kernel)."""
        from sklearn.metrics import DistanceMetric

        if subset is not None:
            raise TypeError(f"{self!r} cannot be restricted to a subset of the features")
        A, B = self._check_pair(A, B)
        dist = DistanceMetric.get_metric(self.metric, **self.metric_params).pairwise(A, B)
        return _profile(self.kernel, dist, self.bandwidth)

    def restrict(self, features) -> NoReturn:
        raise TypeError(f"{self!r} cannot be restricted to a subset of the features: it is not a "
                        "product kernel; use value='interventional'")

    def __repr__(self) -> str:
        return f"DensityKernel({self.kernel!r}, bandwidth={self.bandwidth:.6g}, metric={self.metric!r})"


def _bandwidth(kde: Any) -> float:
    h = getattr(kde, "bandwidth_", kde.bandwidth)
    if isinstance(h, str):
        raise ValueError(f"this KernelDensity has bandwidth={h!r} but no bandwidth_; refit it with "
                         "scikit-learn >= 1.2")
    return float(h)


def _expansion(kde: Any, dispatch: Dispatch) -> KernelExpansion:
    """The density exp(score_samples) of a fitted KernelDensity, exactly."""
    require_fitted(kde, "tree_")
    X = np.asarray(kde.tree_.data, dtype=float)
    n, d = X.shape
    h = _bandwidth(kde)
    weights = getattr(kde.tree_, "sample_weight", None)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    alpha = w / w.sum() * math.exp(log_kernel_norm(h, d, kde.kernel))
    metric = kde.metric
    params = dict(kde.metric_params or {})
    if metric == "minkowski" and params.get("p", 2) in (1, 2):
        metric = "euclidean" if params.pop("p", 2) == 2 else "manhattan"
    if kde.kernel == "gaussian" and metric in _EUCLIDEAN and not params:
        kernel = RBF(h)
    elif kde.kernel == "exponential" and metric in _MANHATTAN and not params:
        kernel = Laplace(h)
    else:
        kernel = DensityKernel(kde.kernel, h, kde.metric, kde.metric_params)
    return KernelExpansion(X, alpha, kernel, 0.0, feature_names=fitted_feature_names(kde),
                           source="KernelDensity")


def _plan(model: Any, kde: Any, rebuild: Any, output: str | None, dispatch: Dispatch) -> OutputPlan:
    require_fitted(kde, "tree_")
    kind = output or "log_density"
    if kind not in _OUTPUTS:
        refuse(kde, output, _OUTPUTS, " (a density estimate)")
    h = _bandwidth(kde)
    weighted = getattr(kde.tree_, "sample_weight", None) is not None
    mean = "the weighted mean (sample_weight)" if weighted else "the mean"
    if kind == "density":
        desc = (f"the density exp(score_samples(x)): {mean} over the training inputs x_i of the "
                f"normalised {kde.kernel!r} kernel k_h(x - x_i), bandwidth h = bandwidth_ = {h:.6g} "
                f"({kde.bandwidth!r}); a kernel expansion")
        target = expansion_or_calls(kde, rebuild, _density_call(model), model,
                                    "the density through model calls", dispatch.as_expansion)
        return OutputPlan("density", desc, [("density", target)], False)
    desc = (f"score_samples(x), the log of the {kde.kernel!r} kernel density estimate (bandwidth "
            f"h = {h:.6g}); output='density' explains the density itself exactly")
    X_train = np.asarray(kde.tree_.data, dtype=float) if model is kde else None
    target = CallOutput(column(model.score_samples, None), model, _LOG_DENSITY, X_train)
    return OutputPlan("log_density", desc, [("log_density", target)], False)


def _density_call(model: Any) -> Any:
    def density(X):
        return np.exp(np.asarray(model.score_samples(X), dtype=float))
    density.model_method = "score_samples"
    return density


def _examples() -> list[Example]:
    from sklearn.neighbors import KernelDensity

    def kde(weighted=False, **kw):
        def fit(X, t):
            w = np.linspace(0.5, 2.0, len(X)) if weighted else None
            return KernelDensity(**kw).fit(X, sample_weight=w)
        return fit

    def density(m):
        return lambda Z: np.exp(m.score_samples(Z))

    return [
        Example("KernelDensity, output='density'", "gaussian", kde(bandwidth=0.8), calls={"density": density},
                table_output="density"),
        Example("KernelDensity (default: log_density)", "gaussian", kde(bandwidth="scott"),
                calls={None: lambda m: m.score_samples}, route="model calls"),
        Example("KernelDensity, output='density'", "epanechnikov", kde(kernel="epanechnikov", bandwidth=2.5),
                calls={"density": density}, route="model calls", table_output="density"),
        Example("KernelDensity (weighted, 'silverman')", "gaussian", kde(True, bandwidth="silverman"),
                calls={"density": density}, in_table=False),
        Example("KernelDensity (manhattan)", "exponential", kde(kernel="exponential", metric="manhattan"),
                calls={"density": density}, in_table=False),
        Example("KernelDensity", "linear", kde(kernel="linear", bandwidth=3.0),
                calls={"density": density}, route="model calls", in_table=False),
    ]


KERNEL_DENSITY = register(Converter(
    name="sklearn_kernel_density",
    classes=("sklearn.neighbors:KernelDensity",),
    expansion=_expansion,
    plan=_plan,
    outputs=_OUTPUTS,
    default="log_density",
    exact=("density",),
    route="sklearn KernelDensity: density = normalised kernel on the training inputs (gaussian: RBF product "
          "kernel, lengthscale bandwidth_; other kernels exact, not product); log_density through model calls",
    examples=_examples,
    priority=20,
))
