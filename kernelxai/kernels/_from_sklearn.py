"""Fitted scikit-learn kernels as kernelxai kernels, exactly.

Two sources of kernels:

* ``sklearn.kernel_ridge.KernelRidge(kernel=...)``: ``"rbf"`` and
  ``"laplacian"`` are product kernels (:class:`~kernelxai.kernels.RBF`,
  :class:`~kernelxai.kernels.Laplace`), ``"linear"`` is
  :class:`~kernelxai.kernels.Linear` (explained in closed form); every other
  string (``"poly"``, ``"polynomial"``, ``"sigmoid"``, ``"cosine"``, ``"chi2"``,
  ``"additive_chi2"``, ...) and callables become :class:`Pairwise`, which
  evaluates scikit-learn's own ``pairwise_kernels`` with the model's
  parameters (:func:`krr_kernel`).
* fitted Gaussian-process kernels (``GaussianProcessRegressor.kernel_``):
  :func:`gp_kernel` expands sums and products of ``ConstantKernel``, ``RBF``
  (ARD or not), ``Matern(nu=inf)`` (= RBF), ``PairwiseKernel`` with metric
  ``"rbf"``/``"laplacian"`` and powers of RBF into a sum of product kernels
  (a single product kernel, times a scale, or a
  :class:`~kernelxai.kernels.SumKernel`). ``WhiteKernel`` summands vanish: the
  white-noise kernel is zero between distinct points, so it does not enter
  the posterior mean at new points. A ``Matern`` (any nu), optionally times a
  ConstantKernel, becomes :class:`~kernelxai.kernels.Matern`. Every other
  combination of scikit-learn's kernels (``RationalQuadratic``,
  ``DotProduct``, ``ExpSineSquared``, sums with a Matern, ...) becomes
  :class:`SklearnKernel`, which evaluates the fitted kernel itself.

:class:`Pairwise` and :class:`SklearnKernel` are exact but not product
kernels: their interventional games are evaluated through model calls on the
synthetic points (x_S, b_{S^c}) -- exact with all coalitions (``method="exact"``,
up to ~12 features), sampled beyond -- and they cannot be restricted to a
subset of the features, so the observational value function refuses them.
"""

from __future__ import annotations

from typing import NoReturn

import numpy as np

from ._non_product import Linear, Matern, SumKernel
from ._product_kernels import RBF, Constant, Kernel, Laplace, ProductOf

__all__ = ["Pairwise", "SklearnKernel", "krr_kernel", "gp_kernel"]

_MODEL_CALLS = ("not a product kernel: its interventional game is evaluated through model calls "
                "on (x_S, b_{S^c}) (exact with all coalitions)")


class Pairwise(Kernel):
    """A scikit-learn ``pairwise_kernels`` metric with fixed parameters -- not a product kernel.

    ``gram(A, B)`` is ``sklearn.metrics.pairwise.pairwise_kernels(A, B,
    metric=kernel, filter_params=True, **params)``, exactly what a fitted
    ``KernelRidge`` computes. Explanations of expansions with this kernel go
    through model calls (see the module docstring); it has no restriction to
    a subset of the features.

    Parameters
    ----------
    kernel : str or callable
        A metric ``pairwise_kernels`` accepts.
    params : dict, optional
        Keyword arguments of the metric (``gamma``, ``degree``, ``coef0``, or a
        callable's ``kernel_params``).
    """

    is_product = False
    route_note = _MODEL_CALLS

    def __init__(self, kernel, params=None):
        from sklearn.metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS

        if not callable(kernel) and kernel not in PAIRWISE_KERNEL_FUNCTIONS:
            raise ValueError(f"kernel must be a callable or one of "
                             f"{sorted(PAIRWISE_KERNEL_FUNCTIONS)}; got {kernel!r}")
        if kernel == "precomputed":
            raise ValueError("kernel='precomputed' has no kernel function to explain; fit the model "
                             "on features with a kernel kernelxai can evaluate")
        self.kernel = kernel
        self.params = dict(params or {})

    def gram(self, A, B=None, subset=None, max_elements=None) -> np.ndarray:
        """The Gram matrix of the metric; ``subset`` is not supported (not a product kernel)."""
        from sklearn.metrics.pairwise import pairwise_kernels

        if subset is not None:
            raise TypeError(f"{self!r} cannot be restricted to a subset of the features")
        A, B = self._check_pair(A, B)
        return np.asarray(pairwise_kernels(A, B, metric=self.kernel, filter_params=True,
                                           **self.params), dtype=float)

    def restrict(self, features) -> NoReturn:
        raise TypeError(f"{self!r} cannot be restricted to a subset of the features: it is not a "
                        "product kernel and has no marginal form; use value='interventional'")

    def __repr__(self):
        name = getattr(self.kernel, "__name__", repr(self.kernel)) if callable(self.kernel) \
            else repr(self.kernel)
        from sklearn.metrics.pairwise import KERNEL_PARAMS

        used = KERNEL_PARAMS.get(self.kernel, self.params) if isinstance(self.kernel, str) else self.params
        shown = ", ".join(f"{k}={v!r}" for k, v in self.params.items() if v is not None and k in used)
        return f"Pairwise(kernel={name}" + (f", {shown}" if shown else "") + ")"


class SklearnKernel(Kernel):
    """A fitted scikit-learn Gaussian-process kernel, evaluated as it is -- not a product kernel.

    ``gram(A, B)`` is ``kernel(A, B)`` with B always passed explicitly (also
    when B is A), so a ``WhiteKernel`` anywhere in it contributes nothing: the
    kernel between explained points and training points, as in the posterior
    mean. Explanations go through model calls (see the module docstring).

    Parameters
    ----------
    kernel : sklearn.gaussian_process.kernels.Kernel
    """

    is_product = False
    route_note = _MODEL_CALLS

    def __init__(self, kernel):
        from sklearn.gaussian_process.kernels import Kernel as SkKernel

        if not isinstance(kernel, SkKernel):
            raise TypeError(f"kernel must be a scikit-learn Gaussian-process kernel; got "
                            f"{type(kernel).__name__}")
        self.kernel = kernel

    def gram(self, A, B=None, subset=None, max_elements=None) -> np.ndarray:
        """``kernel(A, B)`` (B = a copy of A by default); ``subset`` is not supported."""
        if subset is not None:
            raise TypeError(f"{self!r} cannot be restricted to a subset of the features")
        A, B = self._check_pair(A, B)
        return np.asarray(self.kernel(A, np.array(B, copy=True)), dtype=float)

    def restrict(self, features) -> NoReturn:
        raise TypeError(f"{self!r} cannot be restricted to a subset of the features: it is not a "
                        "product kernel; use value='interventional'")

    def __repr__(self):
        return f"SklearnKernel({self.kernel})"


# --------------------------------------------------------------------------- #
# KernelRidge
# --------------------------------------------------------------------------- #
def krr_kernel(model, n_features) -> Kernel:
    """The kernelxai kernel of a fitted ``sklearn.kernel_ridge.KernelRidge``.

    As scikit-learn's ``KernelRidge._get_kernel``: a string kernel takes
    ``gamma``, ``degree`` and ``coef0`` (those the metric accepts; ``kernel_params``
    is ignored, as scikit-learn ignores it), a callable takes ``kernel_params``.

    Returns
    -------
    Kernel
        RBF / Laplace (product kernels) for ``"rbf"`` / ``"laplacian"``,
        :class:`~kernelxai.kernels.Linear` for ``"linear"``, otherwise
        :class:`Pairwise`.
    """
    kernel = model.kernel
    if callable(kernel):
        return Pairwise(kernel, model.kernel_params or {})
    if not isinstance(kernel, str):
        raise TypeError(f"sklearn KernelRidge kernel must be a string or a callable; got {kernel!r}")
    if kernel in ("rbf", "laplacian"):
        gamma = model.gamma if model.gamma is not None else 1.0 / n_features
        return RBF(1.0 / np.sqrt(2.0 * gamma)) if kernel == "rbf" else Laplace(1.0 / gamma)
    if kernel == "linear":
        return Linear()
    return Pairwise(kernel, {"gamma": model.gamma, "degree": model.degree, "coef0": model.coef0})


# --------------------------------------------------------------------------- #
# Gaussian-process kernels
# --------------------------------------------------------------------------- #
def _length_scale(k):
    ls = np.asarray(k.length_scale, dtype=float)
    return float(ls.ravel()[0]) if ls.size == 1 else ls


def _gk():
    from sklearn.gaussian_process import kernels as gk

    return gk


def _known_leaves():
    gk = _gk()
    return (gk.ConstantKernel, gk.WhiteKernel, gk.RBF, gk.Matern, gk.RationalQuadratic,
            gk.DotProduct, gk.ExpSineSquared, gk.PairwiseKernel)


def _check_known(k, whole):
    """Raise a TypeError naming the first piece of ``k`` that is not a scikit-learn kernel kernelxai knows."""
    gk = _gk()
    if isinstance(k, (gk.Sum, gk.Product)):
        _check_known(k.k1, whole)
        _check_known(k.k2, whole)
    elif isinstance(k, gk.Exponentiation):
        _check_known(k.kernel, whole)
    elif type(k) not in _known_leaves():
        names = ", ".join(c.__name__ for c in _known_leaves())
        raise TypeError(f"GaussianProcessRegressor kernel {whole} is not supported: its piece {k!r} "
                        f"({type(k).__name__}) is not one kernelxai can evaluate; supported pieces: "
                        f"{names}, combined by +, * and ** (Sum, Product, Exponentiation)")


def _sum_of_products(k):
    """``k`` as [(weight, [product kernels])], or None if some piece is not a product kernel."""
    gk = _gk()
    if isinstance(k, gk.Sum):
        left, right = _sum_of_products(k.k1), _sum_of_products(k.k2)
        return None if left is None or right is None else left + right
    if isinstance(k, gk.Product):
        left, right = _sum_of_products(k.k1), _sum_of_products(k.k2)
        if left is None or right is None:
            return None
        return [(w1 * w2, f1 + f2) for w1, f1 in left for w2, f2 in right]
    if isinstance(k, gk.Exponentiation):
        return _power_of_products(_sum_of_products(k.kernel), float(k.exponent))
    return _leaf_products(k)


def _power_of_products(base, p):
    """``base`` (a sum of products) to the power ``p``: one product of RBFs only, else None."""
    if base is None or len(base) > 1 or p <= 0:
        return None
    if not base:
        return []
    (w, factors), = base
    if not all(type(f) is RBF for f in factors):
        return None
    # exp(-r^2 / (2 l^2))^p = exp(-r^2 p / (2 l^2)): an RBF with lengthscale l / sqrt(p)
    return [(w ** p, [RBF(f.lengthscale / np.sqrt(p)) for f in factors])]


def _leaf_products(k):
    """A scikit-learn kernel that is no Sum, Product or Exponentiation as a sum of products, or None."""
    gk = _gk()
    if isinstance(k, gk.ConstantKernel):
        return [(float(k.constant_value), [])]
    if isinstance(k, gk.WhiteKernel):
        return []  # zero between distinct points: no term at new points
    if isinstance(k, gk.Matern):  # a subclass of RBF in scikit-learn: test it first
        return [(1.0, [RBF(_length_scale(k))])] if np.isinf(k.nu) else None
    if isinstance(k, gk.RBF):
        return [(1.0, [RBF(_length_scale(k))])]
    if isinstance(k, gk.PairwiseKernel) and not k.pairwise_kernels_kwargs:
        if k.metric == "rbf":
            return [(1.0, [RBF(1.0 / np.sqrt(2.0 * k.gamma))])]
        if k.metric == "laplacian":
            return [(1.0, [Laplace(1.0 / k.gamma)])]
    return None


def _as_product_kernel(factors):
    if not factors:
        return Constant()
    return factors[0] if len(factors) == 1 else ProductOf(factors)


def _scaled_matern(k):
    """(scale, Matern) for Matern or ConstantKernel * Matern (White summands dropped), else None."""
    gk = _gk()
    if isinstance(k, gk.Sum):
        parts = [p for p in (k.k1, k.k2) if not isinstance(p, gk.WhiteKernel)]
        if len(parts) != 1:
            return None
        k = parts[0]
    scale = 1.0
    if isinstance(k, gk.Product):
        consts = [p for p in (k.k1, k.k2) if isinstance(p, gk.ConstantKernel)]
        others = [p for p in (k.k1, k.k2) if not isinstance(p, gk.ConstantKernel)]
        if len(consts) != 1 or len(others) != 1:
            return None
        scale, k = float(consts[0].constant_value), others[0]
    if type(k) is gk.Matern:
        return scale, Matern(_length_scale(k), float(k.nu))
    return None


def gp_kernel(k, n_features) -> tuple[float, Kernel]:
    """(scale, kernelxai kernel) with scale * kernel(A, B) = k(A, B) for A, B without common points.

    Parameters
    ----------
    k : sklearn.gaussian_process.kernels.Kernel
        A fitted kernel (``GaussianProcessRegressor.kernel_``).
    n_features : int

    Returns
    -------
    scale : float
    kernel : Kernel
        A product kernel (RBF, Laplace, Constant, ProductOf) when k is a
        scaled product of product kernels; a :class:`~kernelxai.kernels.SumKernel`
        (scale 1) when it is a sum of them; :class:`~kernelxai.kernels.Matern`
        for ``[C *] Matern``; otherwise :class:`SklearnKernel` (exact, not a
        product kernel). Only a kernel of WhiteKernels gives (0, Constant()):
        the posterior mean is then the constant prior mean.

    Raises
    ------
    TypeError
        Naming the piece of ``k`` that is not a scikit-learn kernel kernelxai knows.
    """
    from sklearn.gaussian_process.kernels import Kernel as SkKernel

    if not isinstance(k, SkKernel):
        raise TypeError(f"a GaussianProcessRegressor kernel must be a scikit-learn kernel; got {k!r}")
    _check_known(k, k)
    terms = _sum_of_products(k)
    if terms is not None:
        terms = [(w, _as_product_kernel(f)) for w, f in terms if w != 0.0]
        if not terms:
            return 0.0, Constant()
        if len(terms) == 1:
            return terms[0]
        return 1.0, SumKernel(terms)
    matern = _scaled_matern(k)
    if matern is not None:
        return matern
    return 1.0, SklearnKernel(k)

