"""Model-agnostic value functions: they only call the model's predict function.

These are the baselines of the RKHS-SHAP experiments:

* :class:`Marginal` -- the interventional game estimated by averaging model
  calls over a background sample, v(S)(x) = (1/m) sum_b f(x_S, b_{S^c}). With
  all coalitions this is what shap's KernelExplainer computes ("KernelSHAP-ISV").
* :class:`GaussianConditional` -- the observational game under a multivariate
  Gaussian fit of the data (Aas, Jullum & Loland 2021): the absent features are
  drawn from their Gaussian conditional given the present ones and the model is
  averaged over the draws ("GSHAP-OSV").

Both work with any callable; neither knows about kernels. The helpers at the
bottom validate explained points and background samples for every value
function of this package.
"""

from __future__ import annotations

import math
import numbers
import weakref
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._calibration import Work, time_model_calls
from .._config import working_elements
from .._validation import (
    check_feature_names,
    check_matrix,
    check_positive_int,
    check_rng,
    feature_names_in,
    feature_names_of,
)
from ..estimators._common import progress_iter
from ..games import Game
from ..models.convert._converters import refuse_precomputed
from ._base import ValueFunction, default_background, register

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["Marginal", "GaussianConditional", "MarginalGame", "GaussianConditionalGame"]


# --------------------------------------------------------------------------- #
# input checks shared by the value functions
# --------------------------------------------------------------------------- #
def _n_features_of(model):
    d = getattr(model, "n_features", None)
    if d is None:
        d = getattr(model, "n_features_in_", None)
    return None if d is None else int(d)


def check_background(background, n_features, name="background", *, feature_names=None):
    """A background (reference) sample: 2-D, finite, >= 2 rows, ``n_features`` columns.

    Parameters
    ----------
    background : array-like or DataFrame
    n_features : int or None
        Required number of columns.
    name : str
        The argument's name, used in error messages.
    feature_names : list of str, optional
        The model's real feature names (``kernelxai._validation.feature_names_in``);
        a DataFrame background must have exactly these columns in this order.

    Returns
    -------
    ndarray (m, d) of float64
    """
    check_feature_names(background, feature_names, name)
    B = check_matrix(background, name, n_features=n_features)
    if B.shape[0] < 2:
        raise ValueError(
            f"{name} has a single row; an expectation over a background sample needs at least "
            "2 rows (pass the training inputs, or a sample of them). A single reference point "
            "is a baseline game, not an interventional or observational one"
        )
    return B


def check_points(X, n_features, model_names=None, *, feature_names=None):
    """Points to explain -> (array (n, d), player names).

    Parameters
    ----------
    X : array-like or DataFrame
    n_features : int or None
    model_names : list of str, optional
        Player names when X has no columns.
    feature_names : list of str, optional
        The model's real feature names; a DataFrame X must have exactly these
        columns in this order (``kernelxai._validation.check_feature_names``).
        :meth:`ValueFunction.game` checks this for every value function before
        it gets here.
    """
    check_feature_names(X, feature_names, "X")
    names = feature_names_of(X) or model_names
    X = check_matrix(X, "X", n_features=n_features, allow_1d=True)
    if names is None or len(names) != X.shape[1]:
        names = [f"x{j}" for j in range(X.shape[1])]
    return X, list(names)


def as_predict(model):
    """A callable f(points) -> (P,) from a callable or an object with ``predict``.

    A scikit-learn model fitted on a DataFrame gets its column names back
    (``feature_names_in_``), so it sees its inputs as at fitting time and warns
    about nothing.
    """
    if hasattr(model, "predict") and callable(model.predict):
        fn = model.predict
    elif callable(model):
        fn = model
    else:
        raise TypeError(
            "expected a predict function of a 2-D array (m, d) returning m numbers, or a fitted "
            f"model with .predict; got {type(model).__name__}"
        )
    columns = getattr(model, "feature_names_in_", None)

    def predict(points):
        if columns is not None and not hasattr(points, "columns"):
            points = pd.DataFrame(np.asarray(points), columns=columns)
        out = np.asarray(fn(points), dtype=float)
        if out.ndim == 2 and out.shape[1] == 1:
            out = out[:, 0]
        if out.shape != (len(points),):
            raise ValueError(
                f"the predict function must return one number per row, shape ({len(points)},); "
                f"got {out.shape}. For class probabilities pass e.g. lambda X: clf.predict_proba(X)[:, 1]"
            )
        if not np.all(np.isfinite(out)):
            raise ValueError("the predict function returned NaN or inf; predictions must be finite")
        return out

    return predict


def flops_per_point(model, d):
    """Rough floating-point operations of one model call per point, for cost estimates.

    A kernel expansion costs about 6 n d (kernel evaluations and the sum); for
    anything else the guess is 1000 d.
    """
    X_train = getattr(model, "X_train", None)
    if X_train is not None:
        return 6.0 * len(X_train) * d
    return 1000.0 * d


def check_max_elements(max_elements) -> int:
    """``max_elements`` (float64 elements of one block) checked: a positive integer."""
    if isinstance(max_elements, bool) or not isinstance(max_elements, numbers.Integral) or max_elements < 1:
        raise ValueError(f"max_elements must be a positive integer; got {max_elements!r}")
    return int(max_elements)


#: the probes' times of each model, by probe size (see :class:`ModelTiming`)
_MODEL_TIMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class ModelTiming:
    """Seconds per call and per row of a model's ``predict``, timed on a few of its own rows.

    The cost guard prices a value function's model calls with them
    (``kernelxai._calibration.time_model_calls``). A model's time per row often grows with
    the rows of one call (caches), so the probe's larger call has about as many rows as the
    calls it prices (a power of two from 256 to 8192). Each size is timed once per model:
    the times are kept with the model (weakly: they go when the model goes), so explaining the
    same model again does not time it again.

    Parameters
    ----------
    predict : callable
        ``predict(X) -> (k,)``.
    rows : ndarray (k, d)
        Valid inputs of ``predict`` (the background); repeated up to the probe's size.
    model : object, optional
        The model ``predict`` calls, under which the times are kept (default: ``predict``).

    Examples
    --------
    >>> import numpy as np
    >>> timing = ModelTiming(lambda X: X.sum(axis=1), np.ones((5, 3)))
    >>> per_call, per_row = timing(rows_per_call=1000)
    >>> per_row > 0 and timing(rows_per_call=1000) == (per_call, per_row)  # timed once
    True
    """

    def __init__(self, predict, rows, model=None):
        self.predict, self.rows = predict, np.asarray(rows)
        owner = predict if model is None else model
        try:
            self._times = _MODEL_TIMES.setdefault(owner, {})
        except TypeError:  # not weakly referable: kept for this value function only
            self._times = {}

    def __call__(self, rows_per_call=256) -> tuple[float, float]:
        size = int(min(8192, max(256, 2 ** math.ceil(math.log2(max(1.0, rows_per_call))))))
        if size not in self._times:
            self._times[size] = time_model_calls(self.predict, self.rows[:size], large=size)
        return self._times[size]

    def seconds(self, calls, rows) -> float:
        """Seconds of ``calls`` calls predicting ``rows`` rows in all.

        Parameters
        ----------
        calls, rows : float
            Number of calls, and of rows over all of them.

        Returns
        -------
        float
        """
        per_call, per_row = self(float(rows) / max(1.0, float(calls)))
        return float(calls) * per_call + float(rows) * per_row


# --------------------------------------------------------------------------- #
# marginal (interventional) game by model calls
# --------------------------------------------------------------------------- #
class MarginalGame(Game):
    """v(S)(x) = (1/m) sum_b f(x_S, b_{S^c}) by evaluating f at m synthetic points per (S, x).

    v(empty) = mean f(background) and v(all) = f(x) are computed once.
    """

    def __init__(self, predict, X, background, player_names, *, max_elements=None,  # noqa: PLR0913 - internal game: the arrays its value function checked, handed over once
                 progress=False, meta=None, point_flops=None, timing=None):
        super().__init__(X.shape[1], player_names, len(X), X, meta)
        self.predict, self.X, self.background = predict, X, background
        self.max_elements = working_elements(8) if max_elements is None else check_max_elements(max_elements)
        self.progress = progress
        self.point_flops = 1000.0 * X.shape[1] if point_flops is None else float(point_flops)
        self.timing = ModelTiming(predict, background) if timing is None else timing
        self._full = self._empty = None

    def evaluation_flops(self, n_coalitions) -> float:
        """m model calls per coalition and explained point."""
        return float(n_coalitions) * self.n_instances * len(self.background) * self.point_flops

    def evaluation_work(self, n_coalitions) -> Work:
        """Model calls (timed on the model: per call and per row) and the synthetic rows they take.

        The inner coalitions (all but the empty and the full one) predict m rows per point, in
        blocks of coalitions of at most ``max_elements`` elements (as :meth:`_evaluate` does);
        the full and the empty coalition are one call each.
        """
        nx, m, d = self.n_instances, len(self.background), self.n_players
        inner = max(0, int(n_coalitions) - 2)
        per_coalition = nx * m * d
        if per_coalition <= self.max_elements:
            calls = -(-inner // max(1, self.max_elements // per_coalition))
        else:
            calls = inner * -(-nx // max(1, self.max_elements // (m * d)))
        rows = float(inner) * nx * m + nx + m
        return Work(flops=float(inner) * nx * m * (d + 2), steps=4.0 * (calls + 2),
                    model_seconds=self.timing.seconds(calls + 2, rows))

    def cost_advice(self) -> list[str]:
        return [f"a smaller or summarised background (now {len(self.background)} rows)",
                "for kernel models, value='interventional' (mean embeddings instead of model calls)"]

    def _full_value(self):
        if self._full is None:
            self._full = self.predict(self.X)
        return self._full

    def _empty_value(self):
        if self._empty is None:
            self._empty = np.full(len(self.X), self.predict(self.background).mean())
        return self._empty

    def _evaluate(self, z):
        X, B = self.X, self.background
        nx, d = X.shape
        m = len(B)
        out = np.empty((len(z), nx))
        full, empty = z.all(axis=1), ~z.any(axis=1)
        if full.any():
            out[full] = self._full_value()
        if empty.any():
            out[empty] = self._empty_value()
        inner = np.flatnonzero(~(full | empty))
        per_coalition = nx * m * d
        if per_coalition <= self.max_elements:
            # several coalitions per model call: one call has a fixed overhead (pipelines, ...)
            step = max(1, self.max_elements // per_coalition)
            for lo in progress_iter(range(0, len(inner), step), "coalitions", "block", progress=self.progress or None):
                idx = inner[lo:lo + step]
                pts = np.where(z[idx][:, None, None, :], X[None, :, None, :], B[None, None, :, :])
                out[idx] = self.predict(pts.reshape(-1, d)).reshape(len(idx), nx, m).mean(axis=2)
            return out
        step = max(1, self.max_elements // (m * d))
        for c in progress_iter(inner, "coalitions", "coalition", progress=self.progress or None):
            S = z[c]
            for start in range(0, nx, step):
                rows = slice(start, min(nx, start + step))
                k = rows.stop - rows.start
                pts = np.repeat(B[None], k, axis=0)
                pts[:, :, S] = X[rows, None][:, :, S]
                out[c, rows] = self.predict(pts.reshape(-1, d)).reshape(k, m).mean(axis=1)
        return out


class ModelCalls(ValueFunction):
    """Set-up shared by the value functions that call the model on a sample of rows (a base class)."""

    def _take_model(self, model, sample, name, *, groups, group_names, max_elements, progress):
        """Check and keep the model and the options; return the checked sample (m, d).

        ``sample`` defaults to the model's training inputs when it keeps them;
        ``name`` (``"background"`` or ``"data"``) is the keyword it came from.
        A model fitted with ``kernel="precomputed"`` is refused with what to do
        (its inputs are kernel values, not features).
        """
        refuse_precomputed(model)
        self.predict = as_predict(model)
        self.model = model
        self._timing = None
        d = _n_features_of(model)
        self.point_flops = flops_per_point(model, d or 1)
        sample = default_background(model, sample, name)
        model_names = feature_names_in(model)
        checked = check_background(sample, d, name, feature_names=model_names)
        self.background_names = feature_names_in(sample) if model_names is None else None
        self.n_features = checked.shape[1]
        self.model_names = model_names or getattr(model, "feature_names", None) or feature_names_of(sample)
        self.max_elements = None if max_elements is None else check_max_elements(max_elements)
        self.progress = bool(progress)
        self._f_data_mean = None
        self._set_groups(groups, group_names)
        return checked

    def model_timing(self) -> ModelTiming:
        """The model's :class:`ModelTiming` on this value function's sample, one for all its games."""
        if self._timing is None:
            self._timing = ModelTiming(self.predict, getattr(self, "background", getattr(self, "data", None)),
                                       model=self.model)
        return self._timing

    def _data_mean(self):
        """Mean prediction over the sample ``self.data`` (v of the empty coalition), computed once."""
        if self._f_data_mean is None:
            self._f_data_mean = float(self.predict(self.data).mean())
        return self._f_data_mean


@register("marginal")
class Marginal(ModelCalls):
    r"""The interventional (marginal) game by averaging model calls over a background.

    :math:`v(S)(x) = \frac{1}{m} \sum_{b \in \mathrm{background}} f(x_S, b_{S^c})` -- the value function
    of shap's KernelExplainer; with all coalitions and the full background its
    Shapley values are exactly what KernelExplainer returns. It costs m model
    calls per coalition and explained point; for kernel models
    :class:`~kernelxai.values.Interventional` computes the same game from
    kernel mean embeddings (RKHS-SHAP Prop. 3) far more cheaply.

    Parameters
    ----------
    model : callable or object with ``predict``
        f(points (P, d)) -> (P,). (``kx.explain`` passes the KernelExpansion.)
    background : array (m, d) or DataFrame, m >= 2
        Default: the model's training inputs when it keeps them (``X_train`` of
        a kernel ridge or GP model). An SVM keeps only its support vectors, so
        for it (and for plain callables) the background must be given. A
        DataFrame must have the model's feature names, in order.
    groups, group_names : optional
        Players as groups of features.
    max_elements : int
        Budget (float64 elements) of the synthetic points of one predict call.
    progress : bool
        Progress bar over coalitions.

    Examples
    --------
    Any predict function works; here a model with an interaction:

    >>> import numpy as np, kernelxai as kx
    >>> f = lambda P: P[:, 0] + P[:, 1] * P[:, 2]
    >>> background = np.random.default_rng(0).normal(size=(20, 3))
    >>> vf = kx.values.Marginal(f, background=background)
    >>> vf
    Marginal(background=20 rows)
    >>> e = kx.shapley_values(vf.game([[1.0, 2.0, 3.0]]))
    >>> bool(np.isclose(e.values.sum() + e.base_values[0], f(np.array([[1.0, 2.0, 3.0]]))[0]))
    True
    """

    name = "marginal (model calls)"

    def __init__(self, model: Any, background: ArrayLike | None = None, *,
                 groups: Sequence[Sequence[int | str]] | None = None, group_names: Sequence[str] | None = None,
                 max_elements: int | None = None, progress: bool = False) -> None:
        self.background = self._take_model(model, background, "background", groups=groups,
                                           group_names=group_names, max_elements=max_elements,
                                           progress=progress)

    def _game(self, X):
        X, names = check_points(X, self.n_features, self.model_names)
        return MarginalGame(self.predict, X, self.background, names, max_elements=self.max_elements,
                            progress=self.progress, point_flops=self.point_flops, timing=self.model_timing(),
                            meta={"value_function": "marginal", "n_background": len(self.background)})

    def __repr__(self):
        return f"Marginal(background={len(self.background)} rows)"


# --------------------------------------------------------------------------- #
# Gaussian conditional (observational) game by Monte Carlo
# --------------------------------------------------------------------------- #
def _sqrt_psd(C):
    """Symmetric square root of a covariance matrix (negative rounding eigenvalues clipped)."""
    lam, V = np.linalg.eigh(C)
    return (V * np.sqrt(np.clip(lam, 0.0, None))) @ V.T


class GaussianConditionalGame(Game):
    """v(S)(x) = (1/L) sum_k f(x_S, s_k), s_k ~ N(mu_{S^c|S}(x_S), Sigma_{S^c|S}).

    The L standard-normal draws are fixed when the game is made (common random
    numbers), so the game is deterministic and differences v(S+j) - v(S) are
    not swamped by independent noise. v(empty) = mean f(data), v(all) = f(x).
    """

    def __init__(self, predict, X, mean, cov, f_data_mean, normals, player_names, *,  # noqa: PLR0913 - internal game: the arrays its value function checked, handed over once
                 max_elements=None, progress=False, meta=None, point_flops=None):
        super().__init__(X.shape[1], player_names, len(X), X, meta)
        self.predict, self.X, self.mean, self.cov = predict, X, mean, cov
        self.f_data_mean, self.normals = f_data_mean, normals
        self.max_elements = working_elements(8) if max_elements is None else check_max_elements(max_elements)
        self.progress = progress
        self.point_flops = 1000.0 * X.shape[1] if point_flops is None else float(point_flops)
        self._full = None

    def evaluation_flops(self, n_coalitions) -> float:
        """L model calls per coalition and explained point, plus a d x d solve per coalition."""
        d = self.n_players
        return float(n_coalitions) * (self.n_instances * len(self.normals) * self.point_flops + 2.0 * d**3)

    def cost_advice(self) -> list[str]:
        return [f"fewer Monte Carlo draws (n_samples=..., now {len(self.normals)})"]

    def _evaluate(self, z):
        X, mu, C, Z = self.X, self.mean, self.cov, self.normals
        nx, d = X.shape
        L = len(Z)
        out = np.empty((len(z), nx))
        step = max(1, self.max_elements // (L * d))
        for c in progress_iter(range(len(z)), "coalitions", "coalition", progress=self.progress or None):
            S = z[c]
            if S.all():
                if self._full is None:
                    self._full = self.predict(X)
                out[c] = self._full
                continue
            if not S.any():
                out[c] = self.f_data_mean
                continue
            s, t = np.flatnonzero(S), np.flatnonzero(~S)
            # regression of the absent on the present features (pseudo-inverse: safe when
            # the present features are collinear)
            coef = np.linalg.lstsq(C[np.ix_(s, s)], C[np.ix_(s, t)], rcond=None)[0]  # (|s|, |t|)
            cond_cov = C[np.ix_(t, t)] - C[np.ix_(t, s)] @ coef
            noise = Z[:, t] @ _sqrt_psd(0.5 * (cond_cov + cond_cov.T))  # (L, |t|)
            for start in range(0, nx, step):
                rows = slice(start, min(nx, start + step))
                k = rows.stop - rows.start
                cond_mean = mu[t] + (X[rows][:, s] - mu[s]) @ coef  # (k, |t|)
                pts = np.empty((k, L, d))
                pts[:, :, s] = X[rows, None][:, :, s]
                pts[:, :, t] = cond_mean[:, None, :] + noise[None]
                out[c, rows] = self.predict(pts.reshape(-1, d)).reshape(k, L).mean(axis=1)
        return out


@register("gaussian_conditional")
class GaussianConditional(ModelCalls):
    r"""Observational game under a Gaussian model of the features (Aas et al.; "GSHAP-OSV").

    The features are modelled as :math:`\mathcal{N}(\mu, \Sigma)` fitted to ``data``; for a
    coalition :math:`S` the absent features are drawn ``n_samples`` times from their
    conditional Gaussian given :math:`x_S` and the model is averaged over the draws
    (Monte Carlo, common random numbers across coalitions and points).
    :math:`v(\emptyset)` is the mean prediction over ``data`` and :math:`v(D) = f(x)`, so the
    Shapley values are efficient.

    Parameters
    ----------
    model : callable or object with ``predict``
    data : array (m, d) or DataFrame, m >= 2
        Sample the Gaussian is fitted to; default: the model's training inputs
        when it keeps them (not an SVM's support vectors: pass ``data``, or
        ``background=`` in ``kx.explain``).
    n_samples : int
        Monte Carlo draws per coalition and point.
    sample_seed : None, int or Generator
        Seed of the draws (named so that ``kx.explain(..., seed=...)`` still
        reaches the Shapley estimator).
    groups, group_names, max_elements, progress : see :class:`Marginal`.

    Examples
    --------
    Two correlated features: the one the model ignores still gets credit,
    since knowing it tells about the other.

    >>> import numpy as np, kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> x0 = rng.normal(size=50); data = np.c_[x0, x0 + 0.1 * rng.normal(size=50)]
    >>> vf = kx.values.GaussianConditional(lambda P: P[:, 0], data=data, n_samples=100)
    >>> e = kx.shapley_values(vf.game([[1.0, 1.0]]))
    >>> bool(e.values[0, 1] > 0.3)
    True
    """

    name = "Gaussian conditional (Monte Carlo)"

    def __init__(self, model: Any, data: ArrayLike | None = None, *, n_samples: int = 200,
                 sample_seed: int | np.random.Generator | None = 0, groups: Sequence[Sequence[int | str]] | None = None,
                 group_names: Sequence[str] | None = None, max_elements: int | None = None,
                 progress: bool = False) -> None:
        self.data = self._take_model(model, data, "data", groups=groups, group_names=group_names,
                                     max_elements=max_elements, progress=progress)
        self.n_samples = check_positive_int(n_samples, "n_samples")
        self.mean = self.data.mean(axis=0)
        self.cov = np.atleast_2d(np.cov(self.data, rowvar=False))
        self.normals = check_rng(sample_seed).standard_normal((self.n_samples, self.n_features))

    def _game(self, X):
        X, names = check_points(X, self.n_features, self.model_names)
        return GaussianConditionalGame(
            self.predict, X, self.mean, self.cov, self._data_mean(), self.normals, names,
            max_elements=self.max_elements, progress=self.progress, point_flops=self.point_flops,
            meta={"value_function": "gaussian_conditional", "n_samples": self.n_samples})

    def __repr__(self):
        return f"GaussianConditional(data={len(self.data)} rows, n_samples={self.n_samples})"
