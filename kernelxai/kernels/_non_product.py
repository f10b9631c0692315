"""Non-product kernels: Matern, non-negative sums of product kernels, and the linear kernel.


* :class:`Matern` -- the Matern kernel of the Euclidean (or ARD-scaled)
  distance, any nu > 0 (closed forms for 0.5, 1.5, 2.5; nu = inf is the RBF
  kernel of the distance); restricted to a subset S of the features it is the
  Matern kernel of the same form on the coordinates in S (RKHS-SHAP
  supplement App. C).
* :class:`SumKernel` -- a non-negative combination sum_r c_r k_r of product
  kernels (and of the constant kernel). Not a product kernel, but a kernel
  expansion with a sum kernel is a sum of expansions with product kernels, so
  its interventional and functional-baseline games are sums of product games
  (:class:`kernelxai.games.SumOfProductGames`) and stay exact on the product
  routes.
* :class:`Linear` -- x . x' (a linear model).

Takes the :class:`~kernelxai.kernels.Kernel` base and the
product kernels (the summands of a :class:`SumKernel`); hands on kernel objects
to the models, value functions and estimators.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from ._lengthscales import check_lengthscale
from ._product_kernels import Kernel, ProductKernel, gram_block_elements, subset_indices

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from numpy.typing import ArrayLike

__all__ = ["Matern", "SumKernel", "Linear"]


class Matern(Kernel):
    r"""Matern kernel of the scaled Euclidean distance -- not a product kernel.

    .. math::
        k(x, x') = \kappa_\nu(r), \quad r = \Big\|\frac{x - x'}{l}\Big\|_2,

    with :math:`\kappa_{1/2}(r) = e^{-r}`, :math:`\kappa_{3/2}(r) = (1 + \sqrt{3}\, r)\, e^{-\sqrt{3}\, r}` and
    :math:`\kappa_{5/2}(r) = (1 + \sqrt{5}\, r + 5 r^2 / 3)\, e^{-\sqrt{5}\, r}` (RKHS-SHAP
    supplement eq. (9) for half-integer :math:`\nu`; the same parametrisation as
    scikit-learn's ``Matern``). Any other :math:`\nu > 0` uses the general form

    .. math::
        \kappa_\nu(r) = \frac{2^{1-\nu}}{\Gamma(\nu)} \big(\sqrt{2\nu}\, r\big)^\nu K_\nu\big(\sqrt{2\nu}\, r\big)

    (:math:`K_\nu` the modified Bessel function of the second kind, :math:`\kappa_\nu(0) = 1`),
    and :math:`\nu = \infty` its limit :math:`e^{-r^2 / 2}`, the RBF kernel of the distance.

    Parameters
    ----------
    lengthscale : float or array (d,)
        One lengthscale, or one per feature (ARD: each coordinate is divided by
        its own lengthscale before the distance is taken).
    nu : float > 0 or inf
        Smoothness; 0.5, 1.5 and 2.5 use their closed forms.

    Raises
    ------
    ValueError
        If ``nu`` is not a positive number (or inf), or ``lengthscale`` is not
        positive and finite.

    Notes
    -----
    ``gram(A, B, subset=S)`` and ``restrict(S)`` give k_S, the Matern kernel of
    the same form on the coordinates in S only; for the empty coalition k_S is
    the constant 1. This is the choice of k_S in the non-product conditional
    mean embedding of RKHS-SHAP App. C, eq. (8).

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> A = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> kx.kernels.Matern(lengthscale=1.0, nu=0.5).gram(A).round(4)   # exp(-sqrt(5))
    array([[1.    , 0.1069],
           [0.1069, 1.    ]])
    >>> bool(np.allclose(kx.kernels.Matern(1.0, nu=np.inf).gram(A), kx.kernels.RBF(1.0).gram(A)))
    True
    """

    is_product = False
    NUS = (0.5, 1.5, 2.5)

    def __init__(self, lengthscale: float | ArrayLike = 1.0, nu: float = 1.5) -> None:
        try:
            nu_value = None if isinstance(nu, bool) else float(nu)
        except (TypeError, ValueError):
            nu_value = None
        if nu_value is None or np.isnan(nu_value) or nu_value <= 0:
            raise ValueError(f"Matern needs nu > 0 (a number, or inf for the RBF limit; closed forms "
                             f"for {self.NUS}); got {nu!r}")
        self.nu = nu_value
        self.lengthscale = check_lengthscale(lengthscale)
        self.n_features = None if isinstance(self.lengthscale, float) else len(self.lengthscale)

    def scales(self, d: int) -> np.ndarray:
        """The lengthscale of each of ``d`` features (the coalition Gram caches scale coordinates by it)."""
        if isinstance(self.lengthscale, float):
            return np.full(d, self.lengthscale)
        return self.lengthscale

    def profile(self, r: np.ndarray) -> np.ndarray:
        r""":math:`\kappa_\nu(r)` of scaled distances ``r`` elementwise (the coalition Gram caches form K_S with it)."""
        if self.nu == 0.5:
            return np.exp(-r)
        if self.nu == 1.5:
            s = np.sqrt(3.0) * r
            return (1.0 + s) * np.exp(-s)
        if self.nu == 2.5:
            s = np.sqrt(5.0) * r
            return (1.0 + s + s * s / 3.0) * np.exp(-s)
        if np.isinf(self.nu):
            return np.exp(-0.5 * r * r)
        from scipy.special import gammaln, kv

        s = np.sqrt(2.0 * self.nu) * np.asarray(r, dtype=float)
        positive = s > 0
        safe = np.where(positive, s, 1.0)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            # log of 2^(1-nu) / Gamma(nu) s^nu, then times K_nu(s); K_nu underflows to 0 far out
            out = np.exp((1.0 - self.nu) * np.log(2.0) - gammaln(self.nu) + self.nu * np.log(safe)) \
                * kv(self.nu, safe)
        out = np.where(np.isfinite(out), out, 0.0)
        return np.where(positive, out, 1.0)

    def gram(self, A: ArrayLike, B: ArrayLike | None = None, subset: ArrayLike | None = None,
             max_elements: int | None = None) -> np.ndarray:
        r"""Gram matrix of :math:`k_S`, the Matern kernel on the coordinates in ``subset``.

        ``subset`` is a boolean mask of length d or a list of feature indices
        (default: all features); the empty subset gives a matrix of ones.
        Distances are formed from differences (no :math:`\|a\|^2 + \|b\|^2 - 2 a^\top b`
        cancellation), in row blocks of about ``max_elements`` numbers.
        """
        A, B = self._check_pair(A, B)
        d = A.shape[1]
        feats = subset_indices(subset, d)
        feats = list(range(d)) if feats is None else feats
        bad = [j for j in feats if not 0 <= j < d]
        if bad:
            raise ValueError(f"feature indices {bad} out of range for {d} features")
        out = np.ones((A.shape[0], B.shape[0]))
        if not feats:
            return out
        scale = self.scales(d)[feats]
        As, Bs = A[:, feats] / scale, B[:, feats] / scale
        step = max(1, gram_block_elements(max_elements) // max(1, B.shape[0] * len(feats)))
        for start in range(0, A.shape[0], step):
            diff = As[start:start + step, None, :] - Bs[None, :, :]
            r = np.sqrt(np.einsum("abj,abj->ab", diff, diff))
            out[start:start + step] = self.profile(r)
        return out

    def restrict(self, features: Sequence[int]) -> Matern:
        r""":math:`k_S`: the Matern kernel of the same :math:`\nu` on the columns ``features``."""
        feats = [int(j) for j in features]
        if isinstance(self.lengthscale, float):
            return Matern(self.lengthscale, self.nu)
        return Matern(self.lengthscale[feats], self.nu)

    def __repr__(self):
        ls = self.lengthscale if isinstance(self.lengthscale, float) else np.round(self.lengthscale, 4).tolist()
        return f"Matern(lengthscale={ls}, nu={self.nu})"


class SumKernel(Kernel):
    r"""A non-negative combination :math:`k = \sum_r c_r k_r` of product kernels.

    Not a product kernel, but a kernel expansion with a sum kernel,
    :math:`\sum_i \alpha_i k(x, x_i) + b`, is the sum over :math:`r` of the expansions
    :math:`\sum_i (c_r \alpha_i) k_r(x, x_i)` with product kernels :math:`k_r` (the intercept
    going with one of them). Its interventional and functional-baseline games
    are therefore sums of product games
    (:class:`kernelxai.games.SumOfProductGames`): ``method="product"`` and
    ``method="exact"`` both give the exact Shapley values. A ``ConstantKernel``
    summand is the term ``(c, Constant())``.

    Parameters
    ----------
    terms : sequence of (float, ProductKernel)
        Weights :math:`c_r \ge 0` (finite) and product kernels :math:`k_r`; at least one term.

    Raises
    ------
    ValueError
        If ``terms`` is empty, a weight is negative, not finite or not a real
        number, or the kernels have per-feature parameters for different numbers
        of features.
    TypeError
        If a term is not a pair, or its kernel is not a product kernel.

    Notes
    -----
    ``gram(A, B, subset=S)`` and ``restrict(S)`` give :math:`k_S = \sum_r c_r k_{r,S}`,
    each product kernel restricted to the coordinates in :math:`S` (the empty
    coalition gives :math:`\sum_r c_r`).

    Examples
    --------
    A Gaussian-process style kernel ``2 RBF + 0.5``:

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> k = kx.kernels.SumKernel([(2.0, kx.kernels.RBF(1.0)), (0.5, kx.kernels.Constant())])
    >>> k
    SumKernel(2 * RBF(lengthscale=1.0) + 0.5 * Constant())
    >>> A = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> k.gram(A).round(4)
    array([[2.5   , 0.6642],
           [0.6642, 2.5   ]])
    >>> k.gram(A, subset=[])   # the empty coalition: sum_r c_r
    array([[2.5, 2.5],
           [2.5, 2.5]])
    """

    is_product = False
    #: the value functions split expansions with this kernel into product-kernel expansions
    is_sum_of_products = True

    def __init__(self, terms: Iterable[tuple[float, Kernel]]) -> None:
        terms = list(terms)
        if not terms:
            raise ValueError("SumKernel needs at least one (weight, kernel) term; got none")
        checked = []
        for term in terms:
            try:
                weight, kern = term
            except (TypeError, ValueError):
                raise TypeError(f"every term of a SumKernel is a pair (weight, product kernel); "
                                f"got {term!r}") from None
            if isinstance(weight, bool) or not isinstance(weight, numbers.Real) \
                    or not np.isfinite(weight) or weight < 0:
                raise ValueError(f"SumKernel weights must be finite numbers >= 0; got {weight!r}")
            if not isinstance(kern, ProductKernel):
                raise TypeError(f"SumKernel adds product kernels (RBF, Laplace, Cauchy, Categorical, "
                                f"Product, ProductOf, Constant); got {kern!r}")
            checked.append((float(weight), kern))
        sizes = {kern.n_features for _, kern in checked} - {None}
        if len(sizes) > 1:
            raise ValueError(f"the summands have parameters for different numbers of features "
                             f"({sorted(sizes)})")
        self.terms = checked
        self.n_features = sizes.pop() if sizes else None

    def gram(self, A: ArrayLike, B: ArrayLike | None = None, subset: ArrayLike | None = None,
             max_elements: int | None = None) -> np.ndarray:
        r"""Gram matrix :math:`\sum_r c_r K_{r,S}(A, B)` of the coalition ``subset`` (default all features)."""
        A, B = self._check_pair(A, B)
        out = np.zeros((A.shape[0], B.shape[0]))
        for weight, kern in self.terms:
            if weight != 0.0:
                out += weight * kern.gram(A, B, subset, max_elements=max_elements)
        return out

    def coalition_gram(self, A: ArrayLike, B: ArrayLike | None = None, subset: ArrayLike | None = None,
                       max_elements: int | None = None) -> np.ndarray:
        A, B = self._check_pair(A, B)
        out = np.zeros((A.shape[0], B.shape[0]))
        for weight, kern in self.terms:
            if weight != 0.0:
                out += weight * kern.coalition_gram(A, B, subset, max_elements=max_elements)
        return out

    def restrict(self, features: Sequence[int]) -> SumKernel:
        r""":math:`k_S = \sum_r c_r k_{r,S}` on the columns ``features``."""
        return SumKernel([(w, kern.restrict(features)) for w, kern in self.terms])

    def __repr__(self):
        return "SumKernel(" + " + ".join(f"{w:.4g} * {k!r}" for w, k in self.terms) + ")"


class Linear(Kernel):
    r"""The linear kernel :math:`k(x, x') = x^\top x'` (scikit-learn ``KernelRidge(kernel="linear")``).

    A kernel expansion with it is the linear model :math:`f(x) = w^\top x + b` with
    :math:`w = \sum_i \alpha_i x_i`. Not a product kernel; its interventional game is
    additive, :math:`v(S) = b + \sum_{j \in S} w_j x_j + \sum_{j \notin S} w_j \bar b_j`
    (:math:`\bar b` the background's mean),
    which :class:`kernelxai.values.Interventional` builds in closed form as a
    product game with :math:`d + 1` terms (exact on ``"product"`` and ``"exact"``), so
    that :math:`\phi_j = w_j (x_j - \bar b_j)`. Takes no parameters.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> A = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> kx.kernels.Linear().gram(A)
    array([[0., 0.],
           [0., 5.]])
    >>> kx.kernels.Linear().gram(A, subset=[1])   # the coalition {1}: x_1 x'_1
    array([[0., 0.],
           [0., 4.]])
    """

    is_product = False

    def __init__(self) -> None:
        pass

    def gram(self, A: ArrayLike, B: ArrayLike | None = None, subset: ArrayLike | None = None,
             max_elements: int | None = None) -> np.ndarray:
        r""":math:`A_S B_S^\top` on the coordinates in ``subset`` (default all; the empty subset gives zeros)."""
        A, B = self._check_pair(A, B)
        feats = subset_indices(subset, A.shape[1])
        if feats is None:
            return A @ B.T
        return A[:, feats] @ B[:, feats].T

    def restrict(self, features: Sequence[int]) -> Linear:
        return Linear()

    def __repr__(self):
        return "Linear()"
