"""Per-feature affine preprocessing read off fitted steps, and folded exactly into a kernel expansion.

Takes fitted scikit-learn preprocessing steps and a kernel expansion on
their output columns. Hands on the :class:`AffineMap` of the steps and
:func:`fold_affine`, the same expansion on the steps' input columns, to the
pipeline converters (``kernelxai.models.convert._scaled_pipeline``,
``kernelxai.models.convert._nystroem``).

A pipeline ``Pipeline([scalers..., kernel model])`` whose preprocessing steps
are per-feature affine maps computes f(x) = g(u(x)) with
u_k = s_k x_{src(k)} + m_k: every output column k of the preprocessing is one
input column src(k), scaled by s_k and shifted by m_k (a ColumnTransformer
may reorder columns, pass some through and drop others). For a stationary
kernel with one lengthscale per coordinate, ::

    k_l(u_k - u'_k) = k_l(s_k (x_j - x'_j)) = k_{l / |s_k|}(x_j - x'_j),  j = src(k),

so g(u(x)) = sum_i alpha_i k(u(x), u_i) + b is the same kernel model on x
with lengthscales ``l_k / |s_k|`` and expansion points x_i = (u_i - m) / s mapped
back from the stored (transformed) training or support points. This holds
per factor for the product kernels (RBF, Laplace, Cauchy, and
:class:`~kernelxai.kernels.Product` of these), per coordinate of the ARD
distance of :class:`~kernelxai.kernels.Matern`, and term by term for
products (``ProductOf``) and non-negative sums (``SumKernel``, with
``Constant`` terms) of these. The linear kernel folds too:
u(x) . u_i = x . (s * u_i) + m . u_i. The product and
mean-embedding routes therefore still apply, and Shapley values come out in
the units of the features the user passed.

Two degenerate cases are folded as well:

* an input column that reaches no output (dropped by a ColumnTransformer)
  cannot change the prediction; it gets the lengthscale ``IGNORED_LENGTHSCALE``,
  for which its kernel factor is exactly 1.0 in floating point;
* an output column with s_k = 0 is constant, u_k = m_k: for product kernels
  its factor k_l(m_k - u_ik) is a per-point constant multiplied into alpha_i.

Anything else (PCA, PolynomialFeatures, a clipping MinMaxScaler, a column used
twice, ...) raises a TypeError saying which step is not a per-feature affine
map; :func:`kernelxai.explain` then explains the pipeline through model calls.
"""

from __future__ import annotations

import numpy as np

from ...kernels import (
    RBF,
    Cauchy,
    Constant,
    Laplace,
    Linear,
    Matern,
    Product,
    ProductOf,
    SumKernel,
)
from .._expansion import KernelExpansion

__all__ = ["AffineMap", "affine_map", "compose_affine", "fold_affine", "IGNORED_LENGTHSCALE", "AFFINE_STEPS"]

#: Lengthscale given to input columns the model never sees: (x - x') / 1e300 squares to 0
#: (RBF, Cauchy, Matern) or exponentiates to exactly 1 (Laplace) for any ``|x - x'| < 1e284``.
IGNORED_LENGTHSCALE = 1e300

#: the one-dimensional stationary kernels whose lengthscale absorbs a per-feature scale
_STATIONARY = (RBF, Laplace, Cauchy)

AFFINE_STEPS = ("StandardScaler", "MinMaxScaler (clip=False)", "MaxAbsScaler", "RobustScaler",
                "'passthrough'", "FunctionTransformer() without a function",
                "a ColumnTransformer or Pipeline of these")


class AffineMap:
    """A per-feature affine map of d_in columns to d_out: u_k = scale_k * x_{source_k} + shift_k.

    Parameters
    ----------
    source : int array (d_out,)
        The input column of each output column.
    scale, shift : float arrays (d_out,)
    n_in : int
        Number of input columns d_in (columns that are no output's source are dropped).

    Raises
    ------
    ValueError
        ``source``, ``scale`` and ``shift`` have different lengths.

    Examples
    --------
    >>> import numpy as np
    >>> amap = AffineMap(source=[1, 0], scale=[2.0, 0.5], shift=[0.0, 1.0], n_in=3)   # drops column 2
    >>> amap(np.array([[1.0, 2.0, 3.0]]))          # u = (2 x_1, 0.5 x_0 + 1)
    array([[4. , 1.5]])
    >>> amap.n_in, amap.n_out
    (3, 2)
    """

    def __init__(self, source, scale, shift, n_in):
        self.source = np.asarray(source, dtype=int).ravel()
        self.scale = np.asarray(scale, dtype=float).ravel()
        self.shift = np.asarray(shift, dtype=float).ravel()
        self.n_in = int(n_in)
        if not (self.source.shape == self.scale.shape == self.shift.shape):
            raise ValueError("source, scale and shift must have one entry per output column; got "
                             f"{self.source.shape}, {self.scale.shape}, {self.shift.shape}")

    @classmethod
    def identity(cls, d) -> AffineMap:
        return cls(np.arange(d), np.ones(d), np.zeros(d), d)

    @property
    def n_out(self) -> int:
        return len(self.source)

    def then(self, other) -> AffineMap:
        """The map x -> other(self(x))."""
        if other.n_in != self.n_out:
            raise ValueError(f"cannot compose: the second map takes {other.n_in} columns, the "
                             f"first gives {self.n_out}")
        src = other.source
        return AffineMap(self.source[src], other.scale * self.scale[src],
                         other.scale * self.shift[src] + other.shift, self.n_in)

    def __call__(self, X) -> np.ndarray:
        """u = map(X) for an array X (n, d_in)."""
        X = np.asarray(X, dtype=float)
        return X[:, self.source] * self.scale + self.shift


def _n_features_in(step, fallback):
    d = getattr(step, "n_features_in_", None)
    return int(d) if d is not None else fallback


def compose_affine(steps, n_in=None) -> AffineMap | None:
    """The affine map of consecutive pipeline ``steps`` ((name, step) pairs), or None for none.

    Each step's map (:func:`affine_map`) takes the previous one's output; a step
    that is not affine raises TypeError naming the step.
    """
    amap = None
    for name, step in steps:
        d = n_in if amap is None else amap.n_out
        try:
            m = affine_map(step, d)
        except TypeError as err:
            raise TypeError(f"pipeline step {name!r}: {err}") from None
        amap = m if amap is None else amap.then(m)
    return amap


def affine_map(step, n_in=None) -> AffineMap:
    """The :class:`AffineMap` of a fitted preprocessing step, or TypeError if it is not one.

    Parameters
    ----------
    step : fitted scikit-learn transformer, ``"passthrough"`` or None
        See ``AFFINE_STEPS`` for what is accepted.
    n_in : int, optional
        Number of input columns (needed for ``"passthrough"``/None only).

    Returns
    -------
    AffineMap
        u = map(x) as the step computes it (for a Pipeline of steps, their composition).

    Raises
    ------
    TypeError
        The step is not a per-feature affine map (the message says why).
    ValueError
        The step is not fitted.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import PolynomialFeatures, StandardScaler
    >>> X = np.array([[0.0, 10.0], [2.0, 30.0]])
    >>> amap = affine_map(StandardScaler().fit(X))       # u = (x - mean) / std
    >>> amap.scale, amap.shift
    (array([1. , 0.1]), array([-1., -2.]))
    >>> affine_map(PolynomialFeatures().fit(X))
    Traceback (most recent call last):
    ...
    TypeError: PolynomialFeatures is not a per-feature affine map; folded exactly: StandardScaler, ...
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer, MaxAbsScaler, MinMaxScaler, RobustScaler, StandardScaler

    if step is None or (isinstance(step, str) and step == "passthrough"):
        if n_in is None:
            raise TypeError("cannot tell how many columns a 'passthrough' step takes")
        return AffineMap.identity(n_in)
    if isinstance(step, str):
        raise TypeError(f"step {step!r} is not a per-feature affine map")
    if isinstance(step, Pipeline):
        out = None
        for _, sub in step.steps:
            m = affine_map(sub, n_in if out is None else out.n_out)
            out = m if out is None else out.then(m)
        return out
    if isinstance(step, ColumnTransformer):
        return _column_transformer_map(step)
    if isinstance(step, FunctionTransformer):
        return _function_transformer_map(step, n_in)
    if not isinstance(step, (StandardScaler, MinMaxScaler, MaxAbsScaler, RobustScaler)):
        raise TypeError(f"{type(step).__name__} is not a per-feature affine map; folded exactly: "
                        f"{', '.join(AFFINE_STEPS)}")
    return _scaler_map(step)


def _function_transformer_map(step, n_in):
    """The identity of a FunctionTransformer without a function; TypeError for one with a function."""
    if step.func is not None:
        raise TypeError(f"FunctionTransformer(func={step.func!r}) is not a per-feature affine "
                        "map that can be read off")
    d = _n_features_in(step, n_in)
    if d is None:
        raise TypeError("cannot tell how many columns a FunctionTransformer takes")
    return AffineMap.identity(d)


def _scaler_map(step):
    """The affine map of a fitted StandardScaler, MinMaxScaler, MaxAbsScaler or RobustScaler."""
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, StandardScaler
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(step)
    d = int(step.n_features_in_)
    if isinstance(step, StandardScaler):
        center = step.mean_ if step.with_mean and step.mean_ is not None else np.zeros(d)
        scale = 1.0 / step.scale_ if step.with_std and step.scale_ is not None else np.ones(d)
        return AffineMap(np.arange(d), scale, -np.asarray(center, dtype=float) * scale, d)
    if isinstance(step, MinMaxScaler):
        if step.clip:
            raise TypeError("MinMaxScaler(clip=True) clips to the feature range: it is not an "
                            "affine map")
        return AffineMap(np.arange(d), step.scale_, step.min_, d)
    if isinstance(step, MaxAbsScaler):
        return AffineMap(np.arange(d), 1.0 / np.asarray(step.scale_, dtype=float), np.zeros(d), d)
    # RobustScaler
    center = step.center_ if step.with_centering and step.center_ is not None else np.zeros(d)
    scale = 1.0 / step.scale_ if step.with_scaling and step.scale_ is not None else np.ones(d)
    return AffineMap(np.arange(d), scale, -np.asarray(center, dtype=float) * scale, d)


def _column_transformer_map(ct):
    """Per-feature affine map of a fitted ColumnTransformer (outputs in ``output_indices_``)."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(ct)
    # the input columns of each transformer: scikit-learn records them only in this private attribute
    inputs = getattr(ct, "_transformer_to_input_indices", None)
    outputs = getattr(ct, "output_indices_", None)
    if inputs is None or outputs is None:  # pragma: no cover - very old scikit-learn
        raise TypeError("this scikit-learn's ColumnTransformer does not record its column indices")
    d_in = int(ct.n_features_in_)
    d_out = max([sl.stop for sl in outputs.values()], default=0)
    source, scale, shift = np.full(d_out, -1), np.ones(d_out), np.zeros(d_out)
    for name, trans, _ in ct.transformers_:
        out = outputs[name]
        cols = np.asarray(inputs[name], dtype=int)
        if isinstance(trans, str) and trans == "drop":
            continue
        if out.stop - out.start == 0 and len(cols) == 0:
            continue
        try:
            m = affine_map(trans, len(cols))
        except TypeError as err:
            raise TypeError(f"ColumnTransformer step {name!r}: {err}") from None
        if m.n_in != len(cols) or m.n_out != out.stop - out.start:
            raise TypeError(f"ColumnTransformer step {name!r} maps {len(cols)} columns to "
                            f"{out.stop - out.start}; not a per-feature affine map")
        source[out] = cols[m.source]
        scale[out], shift[out] = m.scale, m.shift
    if np.any(source < 0):
        raise TypeError("the ColumnTransformer's output columns could not all be traced to "
                        "input columns")
    return AffineMap(source, scale, shift, d_in)


def fold_affine(expansion, amap, feature_names=None) -> KernelExpansion:
    """The KernelExpansion h(x) = expansion(amap(x)) on the map's input columns (exact).

    Parameters
    ----------
    expansion : KernelExpansion
        The model on the transformed columns u = amap(x).
    amap : AffineMap
    feature_names : list of str, optional

    Returns
    -------
    KernelExpansion
        Stationary kernels (RBF, Laplace, Cauchy, Matern; products and
        non-negative sums of them) keep their form with lengthscales ``l / |s|``,
        and the expansion points are mapped back to the input units. The
        linear kernel u . u' becomes x . z_i with z_i = s * u_i and the
        intercept b + sum_i alpha_i m . u_i (its points z_i are then not
        training inputs).

    Raises
    ------
    TypeError
        The kernel does not absorb per-feature scales (see above), or a
        transformed column is used twice.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> g = kx.models.KernelExpansion(np.array([[0.0, 1.0], [2.0, 0.0]]), [1.0, -1.0], kx.kernels.RBF(1.0))
    >>> amap = AffineMap([0, 1], scale=[2.0, 0.5], shift=[0.0, 1.0], n_in=2)
    >>> h = fold_affine(g, amap)                    # h(x) = g(amap(x))
    >>> h.kernel, h.X_train                          # lengthscales 1 / |scale|, points mapped back
    (RBF(lengthscale=[0.5, 2.0]), array([[ 0.,  0.],
           [ 1., -2.]]))
    >>> X = np.random.default_rng(0).normal(size=(4, 2))
    >>> bool(np.allclose(h.predict(X), g.predict(amap(X))))
    True
    """
    kernel, U = expansion.kernel, expansion.X_train
    live = amap.scale != 0  # output columns that move with x
    used = amap.source[live]
    if len(np.unique(used)) != len(used):
        raise TypeError("an input column feeds several transformed columns; a per-feature "
                        "kernel on the transformed columns is then not one on the inputs")
    # what the expansion points are (training inputs or support vectors) carries over
    kept = {attr: getattr(expansion, attr) for attr in ("holds_training_inputs", "source")
            if hasattr(expansion, attr)}
    k_live = np.flatnonzero(live)
    if type(kernel) is Linear:
        # u(x) . u_i = sum_k s_k u_ik x_src(k) + m . u_i
        Z = np.zeros((len(U), amap.n_in))
        Z[:, amap.source[k_live]] = U[:, k_live] * amap.scale[k_live]
        intercept = expansion.intercept + float(expansion.alpha @ (U @ amap.shift))
        if "holds_training_inputs" in kept:
            kept["holds_training_inputs"] = False
        return KernelExpansion(Z, expansion.alpha, Linear(), intercept,
                               feature_names=feature_names, **kept)
    alpha = expansion.alpha.copy()
    dead = np.flatnonzero(~live)
    if len(dead):
        alpha = alpha * _constant_factors(kernel, U, amap.shift, dead)
    # expansion points back in the input units; columns the model never sees stay 0
    X_train = np.zeros((len(U), amap.n_in))
    X_train[:, amap.source[k_live]] = (U[:, k_live] - amap.shift[k_live]) / amap.scale[k_live]
    return KernelExpansion(X_train, alpha, _rescaled(kernel, amap), expansion.intercept,
                           feature_names=feature_names, **kept)


def _lengthscales(kernel, d):
    ls = kernel.lengthscale
    return np.full(d, float(ls)) if np.ndim(ls) == 0 else np.asarray(ls, dtype=float)


def _input_lengthscales(ls_u, amap):
    """l_k / |s_k| on column source(k) for the live columns k; IGNORED_LENGTHSCALE elsewhere."""
    live = np.flatnonzero(amap.scale != 0)
    ls_x = np.full(amap.n_in, IGNORED_LENGTHSCALE)
    ls_x[amap.source[live]] = ls_u[live] / np.abs(amap.scale[live])
    return ls_x


def _rescaled(kernel, amap):
    """The kernel on the input columns equal to ``kernel`` on the transformed ones."""
    d_out = amap.n_out
    if type(kernel) in _STATIONARY:
        return type(kernel)(_input_lengthscales(_lengthscales(kernel, d_out), amap))
    if type(kernel) is Matern:
        return Matern(_input_lengthscales(_lengthscales(kernel, d_out), amap), kernel.nu)
    if type(kernel) is Constant:
        return Constant()
    if type(kernel) is ProductOf:
        return ProductOf([_rescaled(k, amap) for k in kernel.kernels])
    if type(kernel) is SumKernel:
        return SumKernel([(w, _rescaled(k, amap)) for w, k in kernel.terms])
    if type(kernel) is Product:
        return _rescaled_product(kernel, amap)
    raise TypeError(f"the kernel {kernel!r} does not absorb per-feature scales; folded exactly: "
                    "RBF, Laplace, Cauchy, Matern, Linear, and products and sums of these")


def _rescaled_product(kernel, amap):
    """:func:`_rescaled` for a :class:`Product` of stationary parts (columns no part reads: a flat RBF)."""
    ls_u = np.ones(amap.n_out)
    for part, cols in kernel.parts:
        if type(part) not in _STATIONARY:
            raise TypeError(f"the kernel part {part!r} does not absorb a per-feature scale; "
                            "supported: RBF, Laplace, Cauchy")
        ls_u[cols] = _lengthscales(part, len(cols))
    parts, seen = [], []
    for part, cols in kernel.parts:
        ks = np.asarray([k for k in cols if amap.scale[k] != 0], dtype=int)
        if len(ks) == 0:
            continue
        parts.append((type(part)(ls_u[ks] / np.abs(amap.scale[ks])), amap.source[ks].tolist()))
        seen.extend(amap.source[ks].tolist())
    rest = sorted(set(range(amap.n_in)) - set(seen))
    if rest:
        parts.append((RBF(np.full(len(rest), IGNORED_LENGTHSCALE)), rest))
    return Product(parts)


def _constant_factors(kernel, U, shift, dead):
    """Per expansion point, the product over constant columns k of k_k(m_k, u_ik)."""
    point = shift[None, :]  # the constant transformed row: u_k = m_k where s_k = 0
    if getattr(kernel, "is_product", False):
        G = kernel.feature_grams(point, U, features=dead.tolist())  # (1, n, len(dead))
        return G[0].prod(axis=-1)
    if type(kernel) is Matern:
        if np.all(U[:, dead] == shift[dead]):
            return np.ones(len(U))
        raise TypeError("a constant transformed column whose training values differ cannot be "
                        "folded into a Matern kernel")
    raise TypeError(f"a constant transformed column (scale 0) cannot be folded into the kernel "
                    f"{kernel!r}")
