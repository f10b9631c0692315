"""Kernels: product kernels (one factor per feature) and non-product kernels.

A product kernel is k(x, x') = prod_j k_j(x_j, x'_j). Its per-feature Gram
tensor ``G[a, b, j] = k_j(A[a, j], B[b, j])`` is what every product-kernel
value function is built from: K_S, the Gram matrix of a coalition S, is the
product of G over the features in S (all ones for the empty coalition).

Families (each a :class:`ProductKernel`):

* :class:`RBF` -- exp(-(x_j - x'_j)^2 / (2 l_j^2)),
* :class:`Laplace` -- ``exp(-|x_j - x'_j| / l_j)``,
* :class:`Cauchy` -- 1 / (1 + (x_j - x'_j)^2 / l_j^2),
* :class:`Categorical` -- 1 if x_j == x'_j else 0 (discrete features),
* :class:`Product` -- different families on different features.

Products of product kernels are product kernels (:class:`ProductOf`; the
per-feature factors multiply), and :class:`Constant` is the product kernel
whose factors are all 1. The base :class:`Kernel` of every kernel lives here
too; the non-product kernels are in ``kernelxai.kernels._non_product``.

Lengthscales are a scalar (shared) or one per feature. Gram tensors are built in
blocks of rows (:meth:`ProductKernel.iter_feature_grams`) so that n x n x d is
never held at once unless asked for.

Takes lengthscales (``kernelxai.kernels._lengthscales``); hands on kernel
objects to the models, value functions and estimators.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

import numpy as np

from .._calibration import FACTOR_OPS as _FACTOR_OPS
from .._config import working_elements
from .._validation import check_matrix
from ._lengthscales import check_lengthscale

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from numpy.typing import ArrayLike

__all__ = ["BLOCK_SHARE", "FACTOR_OPS", "gram_block_elements", "check_pair", "subset_indices", "Kernel",
           "ProductKernel", "RBF", "Laplace", "Cauchy", "Categorical", "Product", "Constant", "ProductOf"]

#: Elementwise operations one number of a per-feature Gram block counts for under a
#: ``flops_per_second`` override; calibrated estimates time the factors themselves
#: (``kernelxai._calibration.kernel_factors``).
FACTOR_OPS = _FACTOR_OPS


#: Share of ``kx.config_context(max_memory=...)`` one block of a Gram tensor may take.
BLOCK_SHARE = 2


def gram_block_elements(max_elements) -> int:
    """Numbers one block of a Gram tensor may hold: ``max_elements``, or a share of the memory budget."""
    return working_elements(BLOCK_SHARE) if max_elements is None else int(max_elements)


def check_pair(A, B, n_features=None) -> tuple[np.ndarray, np.ndarray]:
    """``(A, B)`` as finite 2-D float arrays of equal width (``B`` defaults to ``A``).

    ``n_features``: the width a kernel with per-feature parameters is tied to (None: any).
    Every kernel checks its inputs with it, and so do the coalition Gram caches.
    """
    A = check_matrix(A, "A", n_features=n_features, allow_1d=True)
    B = A if B is None else check_matrix(B, "B", n_features=A.shape[1], allow_1d=True)
    return A, B


def subset_indices(subset, d) -> list[int] | None:
    """A coalition given as a boolean mask of length ``d`` or as feature indices: its indices (None: all)."""
    if subset is None:
        return None
    subset = np.asarray(subset)
    if subset.dtype == bool:
        if subset.shape != (d,):
            raise ValueError(f"a boolean subset must have length {d}; got shape {subset.shape}")
        return np.flatnonzero(subset).tolist()
    return [int(i) for i in subset.ravel()]


class Kernel:
    r"""Base class: a positive-definite kernel on :math:`\mathbb{R}^d`.

    Subclasses implement :meth:`gram`. ``is_product`` says whether the kernel
    factorises over features, which the polynomial-time Shapley routes need.
    Calling a kernel, ``k(A, B)``, is ``k.gram(A, B)``. The base class takes no
    constructor arguments.

    Examples
    --------
    Every kernel of :mod:`kernelxai.kernels` is one:

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> k = kx.kernels.RBF(lengthscale=1.0)
    >>> isinstance(k, kx.kernels.Kernel), k.is_product, kx.kernels.Linear().is_product
    (True, True, False)
    >>> k(np.array([[0.0, 0.0], [1.0, 2.0]])).round(4)   # k(A) is k.gram(A, A)
    array([[1.    , 0.0821],
           [0.0821, 1.    ]])
    """

    is_product = False

    #: number of features the kernel is tied to (per-feature parameters), or None
    n_features = None

    def gram(self, A: ArrayLike, B: ArrayLike | None = None) -> np.ndarray:
        r"""The Gram matrix :math:`K_{ab} = k(A_a, B_b)` of the rows of ``A`` and ``B``."""
        raise NotImplementedError

    def __call__(self, A, B=None):
        return self.gram(A, B)

    def restrict(self, features: Sequence[int]) -> Kernel:
        """The kernel of the same form acting on the columns ``features`` only."""
        raise NotImplementedError

    def coalition_gram(self, A: ArrayLike, B: ArrayLike | None = None, subset: ArrayLike | None = None,
                       max_elements: int | None = None) -> np.ndarray:
        r""":math:`K_S(A, B)` for one coalition, by the fastest route this kernel has.

        The default is :meth:`gram`. Kernels with a faster, slightly less
        accurate route (see :meth:`RBF.coalition_gram`) override it; value
        functions that need many large coalition Gram matrices (the CME of
        RKHS-SHAP) call this, predictions call :meth:`gram`.
        """
        return self.gram(A, B, subset, max_elements=max_elements)

    def _check_pair(self, A, B):
        return check_pair(A, B, self.n_features)


class ProductKernel(Kernel):
    """A kernel that is a product of one-dimensional kernels, one per feature.

    Subclasses implement :meth:`_block` returning the per-feature kernel
    values ``G[a, b, j]`` of two blocks of rows on the features ``feats``. The
    Gram matrix of a coalition S is the product of ``G`` over the features in S.
    The base class takes no constructor arguments.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> k = kx.kernels.Laplace(lengthscale=1.0)
    >>> A = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> G = k.feature_grams(A)   # G[a, b, j] = k_j(A[a, j], A[b, j])
    >>> G.shape, G[0, 1].round(4)
    ((2, 2, 2), array([0.3679, 0.1353]))
    >>> bool(np.allclose(k.gram(A), G.prod(axis=-1))), bool(np.allclose(k.gram(A, subset=[1]), G[:, :, 1]))
    (True, True)
    """

    is_product = True

    # ---------------------------------------------------------------- public
    def feature_grams(self, A: ArrayLike, B: ArrayLike | None = None, features: Sequence[int] | None = None, *,
                      check: bool = True) -> np.ndarray:
        r"""Per-feature Gram tensor :math:`G_{abj} = k_j(A_{aj}, B_{bj})`.

        Parameters
        ----------
        A : array (na, d)
        B : array (nb, d), default A
        features : sequence of int, optional
            Only these features (in this order); default all.
        check : bool, default True
            False: ``A`` and ``B`` are 2-D float64 arrays already checked
            (finite, as wide as the kernel), as a kernel expansion and the
            points its value functions validated are. Their scan is skipped:
            for one explained point against n training points it costs a
            fifth of forming the tensor.

        Returns
        -------
        ndarray (na, nb, len(features))
        """
        if check or B is None:
            A, B = self._check_pair(A, B)
        feats = self._features(A.shape[1], features)
        return self._block(A, B, feats)

    def iter_feature_grams(self, A: ArrayLike, B: ArrayLike | None = None, features: Sequence[int] | None = None,
                           max_elements: int | None = None) -> Iterator[tuple[slice, np.ndarray]]:
        """Yield ``(rows, G_block)`` with G_block = feature_grams(A[rows], B, features).

        Blocks hold at most about ``max_elements`` numbers.
        """
        A, B = self._check_pair(A, B)
        feats = self._features(A.shape[1], features)
        step = max(1, gram_block_elements(max_elements) // max(1, B.shape[0] * len(feats)))
        for start in range(0, A.shape[0], step):
            rows = slice(start, min(A.shape[0], start + step))
            yield rows, self._block(A[rows], B, feats)

    def gram(self, A: ArrayLike, B: ArrayLike | None = None, subset: ArrayLike | None = None,
             max_elements: int | None = None) -> np.ndarray:
        """Gram matrix of the coalition ``subset`` (default all features).

        ``subset`` is a boolean mask of length d or a list of feature indices;
        the empty coalition gives a matrix of ones (K_empty).
        """
        A, B = self._check_pair(A, B)
        feats = self._features(A.shape[1], subset_indices(subset, A.shape[1]))
        out = np.ones((A.shape[0], B.shape[0]))
        if not feats:
            return out
        # feature by feature into the output, in blocks of rows: no (rows, n, d) tensor and no
        # product along its short last axis (2-4x faster than forming the per-feature Gram
        # tensor and taking its product, and the same values to the last bit)
        step = max(1, gram_block_elements(max_elements) // max(1, B.shape[0]))
        for start in range(0, A.shape[0], step):
            rows = slice(start, min(A.shape[0], start + step))
            block = out[rows]
            for j in feats:
                block *= self._block(A[rows], B, [j])[:, :, 0]
        return out

    def restrict(self, features: Sequence[int]) -> ProductKernel:
        """The product of the factors of ``features`` only, as a kernel on those columns."""
        raise NotImplementedError

    # ----------------------------------------------------------- internals
    def _block(self, A, B, feats):
        raise NotImplementedError

    def _features(self, d, features):
        if features is None:
            return list(range(d))
        feats = [int(j) for j in features]
        bad = [j for j in feats if not 0 <= j < d]
        if bad:
            raise ValueError(f"feature indices {bad} out of range for {d} features")
        return feats


class _Stationary(ProductKernel):
    """Product of one-dimensional stationary kernels k_j(r) with lengthscales l_j."""

    def __init__(self, lengthscale: float | ArrayLike = 1.0) -> None:
        self.lengthscale = check_lengthscale(lengthscale)
        self.n_features = None if isinstance(self.lengthscale, float) else len(self.lengthscale)

    def _scales(self, feats):
        if isinstance(self.lengthscale, float):
            return np.full(len(feats), self.lengthscale)
        return self.lengthscale[feats]

    def _block(self, A, B, feats):
        if len(feats) == A.shape[1] and feats == list(range(len(feats))):
            diff = np.subtract(A[:, None, :], B[None, :, :])   # all features: no copies of A and B
        else:
            diff = A[:, None, feats] - B[None, :, feats]
        return self._scaled_profile(diff, self._scales(feats))

    def _scaled_profile(self, diff, scales) -> np.ndarray:
        """The profile of ``diff / scales``, overwriting ``diff`` (a fresh float array)."""
        diff /= scales
        return self._profile_inplace(diff)

    def _profile_inplace(self, r) -> np.ndarray:
        """:meth:`_profile` allowed to overwrite ``r`` (a fresh float array); subclasses save passes."""
        return self._profile(r)

    def restrict(self, features: Sequence[int]) -> Self:
        feats = [int(j) for j in features]
        if isinstance(self.lengthscale, float):
            return type(self)(self.lengthscale)
        return type(self)(self.lengthscale[feats])

    def __repr__(self):
        ls = self.lengthscale if isinstance(self.lengthscale, float) else np.round(self.lengthscale, 4).tolist()
        return f"{type(self).__name__}(lengthscale={ls})"

    @staticmethod
    def _profile(r) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


class RBF(_Stationary):
    r"""Gaussian (squared-exponential) product kernel: :math:`\prod_j \exp\big(-(x_j - x'_j)^2 / (2 l_j^2)\big)`.

    With a scalar lengthscale this is the isotropic RBF kernel
    :math:`\exp\big(-\|x - x'\|^2 / (2 l^2)\big)`; with one lengthscale per feature, the ARD kernel.

    Parameters
    ----------
    lengthscale : float or array (d,), default 1.0
        One positive lengthscale shared by all features, or one per feature
        (the kernel then accepts only data with d columns).

    Raises
    ------
    ValueError
        If ``lengthscale`` is not positive and finite, or is not a number or a 1-D array.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.kernels import RBF
    >>> k = RBF(lengthscale=[1.0, 2.0])
    >>> A = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> k.gram(A).round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    >>> k.coalition_gram(A, subset=[0]).round(4)  # the kernel of the coalition {0}
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """

    @staticmethod
    def _profile(r) -> np.ndarray:
        return np.exp(-0.5 * r * r)

    def _profile_inplace(self, r) -> np.ndarray:
        np.multiply(r, r, out=r)
        r *= -0.5
        return np.exp(r, out=r)

    def _scaled_profile(self, diff, scales) -> np.ndarray:
        # exp(diff^2 * (-1 / (2 l^2))): the lengthscales folded into one multiplication, no
        # division pass (a third of the time of a one-point Gram tensor, #25); the exponent
        # differs from (diff / l)^2 / 2 in its last bits only
        np.multiply(diff, diff, out=diff)
        diff *= -0.5 / (scales * scales)
        return np.exp(diff, out=diff)

    def coalition_gram(self, A: ArrayLike, B: ArrayLike | None = None, subset: ArrayLike | None = None,
                       max_elements: int | None = None) -> np.ndarray:
        r""":math:`K_S(A, B) = \exp(-\|a_S - b_S\|^2_l / 2)` with the squared distances from one matrix product.

        :math:`\|a - b\|^2 = \|a\|^2 + \|b\|^2 - 2 a^\top b` on lengthscale-scaled
        coordinates: one BLAS call and one exp per entry instead of :math:`|S|`
        exponentials, ~10x faster for large matrices. The cancellation costs
        about :math:`\epsilon (\|a\|^2 + \|b\|^2)` in the exponent (relative error ~1e-14 in
        :math:`K_S` for standardised data), so predictions keep using :meth:`gram`.
        """
        A, B = self._check_pair(A, B)
        feats = self._features(A.shape[1], subset_indices(subset, A.shape[1]))
        if not feats:
            return np.ones((A.shape[0], B.shape[0]))
        scale = self._scales(feats)
        As, Bs = A[:, feats] / scale, B[:, feats] / scale
        a2, b2 = np.einsum("ij,ij->i", As, As), np.einsum("ij,ij->i", Bs, Bs)
        out = As @ Bs.T
        out *= 2.0
        out -= a2[:, None]
        out -= b2[None, :]
        np.minimum(out, 0.0, out=out)
        out *= 0.5
        return np.exp(out, out=out)


class Laplace(_Stationary):
    r"""Laplace product kernel: :math:`\prod_j \exp(-|x_j - x'_j| / l_j)`.

    With a scalar lengthscale this is the exponential kernel of the L1 distance,
    :math:`\exp(-\|x - x'\|_1 / l)`.

    Parameters
    ----------
    lengthscale : float or array (d,), default 1.0
        One positive lengthscale shared by all features, or one per feature.

    Raises
    ------
    ValueError
        If ``lengthscale`` is not positive and finite, or is not a number or a 1-D array.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> k = kx.kernels.Laplace(lengthscale=[1.0, 2.0])
    >>> k.gram(np.array([[0.0, 0.0], [1.0, 2.0]])).round(4)   # exp(-1/1 - 2/2)
    array([[1.    , 0.1353],
           [0.1353, 1.    ]])
    """

    @staticmethod
    def _profile(r) -> np.ndarray:
        return np.exp(-np.abs(r))


class Cauchy(_Stationary):
    r"""Cauchy product kernel: :math:`\prod_j 1 / \big(1 + (x_j - x'_j)^2 / l_j^2\big)`.

    Its factors decay polynomially rather than exponentially, so distant
    points keep more similarity than under :class:`RBF`.

    Parameters
    ----------
    lengthscale : float or array (d,), default 1.0
        One positive lengthscale shared by all features, or one per feature.

    Raises
    ------
    ValueError
        If ``lengthscale`` is not positive and finite, or is not a number or a 1-D array.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> k = kx.kernels.Cauchy(lengthscale=2.0)
    >>> k.gram(np.array([[0.0, 0.0], [1.0, 2.0]])).round(4)   # 1/(1 + 1/4) * 1/(1 + 4/4)
    array([[1. , 0.4],
           [0.4, 1. ]])
    """

    @staticmethod
    def _profile(r) -> np.ndarray:
        return 1.0 / (1.0 + r * r)


class Categorical(ProductKernel):
    r"""Delta kernel for discrete features: :math:`k_j(x, x') = 1` if :math:`x = x'`, else 0.

    Over several features, :math:`k(x, x')` is 1 when all the features of the coalition
    agree. Takes no parameters; codes are compared as numbers, so categories
    must be encoded (as integers, say) first.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> C = np.array([[0, 1], [0, 2], [1, 1]])
    >>> kx.kernels.Categorical().gram(C)
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    >>> kx.kernels.Categorical().gram(C, subset=[0])   # only the first feature
    array([[1., 1., 0.],
           [1., 1., 0.],
           [0., 0., 1.]])
    """

    def __init__(self) -> None:
        pass

    def _block(self, A, B, feats):
        return (A[:, None, feats] == B[None, :, feats]).astype(float)

    def restrict(self, features: Sequence[int]) -> Categorical:
        return Categorical()

    def __repr__(self):
        return "Categorical()"


class Product(ProductKernel):
    """Different one-dimensional kernel families on different features.

    Parameters
    ----------
    parts : list of (ProductKernel, list of int)
        Each kernel acts on the listed feature columns; together the lists must
        partition 0..d-1. A per-feature lengthscale of a part is indexed by the
        part's own columns.

    Raises
    ------
    TypeError
        If a part's kernel is not a :class:`ProductKernel`.
    ValueError
        If a part's kernel has per-feature parameters for another number of
        columns than it is given, or the columns do not partition 0..d-1.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.kernels import RBF, Categorical, Product
    >>> k = Product([(RBF([1.0, 2.0]), [0, 2]), (Categorical(), [1])])
    >>> k
    Product(RBF(lengthscale=[1.0, 2.0]) on [0, 2], Categorical() on [1])
    >>> X = np.array([[0.0, 1, 0.0], [1.0, 1, 2.0], [0.0, 2, 0.0]])
    >>> k.gram(X).round(4)   # rows 0 and 2 differ in the categorical column
    array([[1.    , 0.3679, 0.    ],
           [0.3679, 1.    , 0.    ],
           [0.    , 0.    , 1.    ]])
    """

    def __init__(self, parts: Iterable[tuple[ProductKernel, Sequence[int]]]) -> None:
        parts = [(kern, [int(j) for j in cols]) for kern, cols in parts]
        for kern, cols in parts:
            if not isinstance(kern, ProductKernel):
                raise TypeError(f"every part must be a product kernel; got {type(kern).__name__}")
            if kern.n_features is not None and kern.n_features != len(cols):
                raise ValueError(f"{kern!r} has parameters for {kern.n_features} features "
                                 f"but is given columns {cols}")
        flat = sorted(j for _, cols in parts for j in cols)
        if flat != list(range(len(flat))):
            raise ValueError(f"the parts' columns must partition 0..d-1; got {[c for _, c in parts]}")
        self.parts = parts
        self.n_features = len(flat)
        self._owner = np.empty(self.n_features, dtype=int)
        self._local = np.empty(self.n_features, dtype=int)
        for p, (_, cols) in enumerate(parts):
            self._owner[cols] = p
            self._local[cols] = np.arange(len(cols))

    def _block(self, A, B, feats):
        out = np.empty((A.shape[0], B.shape[0], len(feats)))
        feats = np.asarray(feats)
        for p, (kern, cols) in enumerate(self.parts):
            where = np.flatnonzero(self._owner[feats] == p)
            if len(where) == 0:
                continue
            cols = np.asarray(cols)
            sub_a, sub_b = A[:, cols], B[:, cols]
            out[:, :, where] = kern.feature_grams(sub_a, sub_b, self._local[feats[where]].tolist(), check=False)
        return out

    def restrict(self, features: Sequence[int]) -> Product:
        feats = [int(j) for j in features]
        parts = []
        for kern, cols in self.parts:
            keep = [j for j in feats if j in cols]
            if keep:
                local = [cols.index(j) for j in keep]
                parts.append((kern.restrict(local), [feats.index(j) for j in keep]))
        return Product(parts)

    def __repr__(self):
        return "Product(" + ", ".join(f"{k!r} on {c}" for k, c in self.parts) + ")"


class Constant(ProductKernel):
    r"""The constant kernel :math:`k(x, x') = 1`: the product kernel whose factors are all 1.

    A ``ConstantKernel`` summand of a Gaussian-process kernel is ``c * Constant()``
    inside a :class:`SumKernel`; its contribution to a kernel expansion is the
    constant :math:`c \sum_i \alpha_i`. Takes no parameters.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> A = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> kx.kernels.Constant().gram(A)
    array([[1., 1.],
           [1., 1.]])
    >>> kx.kernels.SumKernel([(2.0, kx.kernels.RBF(1.0)), (0.5, kx.kernels.Constant())]).gram(A).round(4)
    array([[2.5   , 0.6642],
           [0.6642, 2.5   ]])
    """

    def __init__(self) -> None:
        pass

    def _block(self, A, B, feats):
        return np.ones((A.shape[0], B.shape[0], len(feats)))

    def restrict(self, features: Sequence[int]) -> Constant:
        return Constant()

    def __repr__(self):
        return "Constant()"


class ProductOf(ProductKernel):
    r"""The product :math:`k = k_1 k_2 \cdots` of product kernels -- again a product kernel.

    Feature j's factor is the product of the factors of feature j of every
    kernel, so the per-feature Gram tensor is the elementwise product of the
    kernels' tensors (``RBF(l1) * RBF(l2)``, ``RBF * Laplace``, ARD or not, stay on
    every product route).

    Parameters
    ----------
    kernels : sequence of ProductKernel
        At least one; those with per-feature parameters must agree on d.

    Raises
    ------
    ValueError
        If ``kernels`` is empty, or the kernels have per-feature parameters for
        different numbers of features.
    TypeError
        If a kernel is not a :class:`ProductKernel`.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> rbf, lap = kx.kernels.RBF(1.0), kx.kernels.Laplace([1.0, 2.0])
    >>> k = kx.kernels.ProductOf([rbf, lap])
    >>> k.is_product, k.n_features
    (True, 2)
    >>> A = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> bool(np.allclose(k.gram(A), rbf.gram(A) * lap.gram(A)))
    True
    """

    def __init__(self, kernels: Iterable[ProductKernel]) -> None:
        kernels = list(kernels)
        if not kernels:
            raise ValueError("ProductOf needs at least one kernel; got none")
        for kern in kernels:
            if not isinstance(kern, ProductKernel):
                raise TypeError(f"ProductOf multiplies product kernels (RBF, Laplace, Cauchy, "
                                f"Categorical, Product, Constant, ProductOf); got {kern!r}")
        sizes = {kern.n_features for kern in kernels} - {None}
        if len(sizes) > 1:
            raise ValueError(f"the kernels have parameters for different numbers of features "
                             f"({sorted(sizes)}): {kernels!r}")
        self.kernels = kernels
        self.n_features = sizes.pop() if sizes else None

    def _block(self, A, B, feats):
        out = self.kernels[0].feature_grams(A, B, feats, check=False)
        for kern in self.kernels[1:]:
            out = out * kern.feature_grams(A, B, feats, check=False)
        return out

    def restrict(self, features: Sequence[int]) -> ProductOf:
        return ProductOf([kern.restrict(features) for kern in self.kernels])

    def __repr__(self):
        return "ProductOf(" + ", ".join(repr(k) for k in self.kernels) + ")"
