"""Kernels: product kernels (one factor per feature) and non-product kernels.

A product kernel is k(x, x') = prod_j k_j(x_j, x'_j). Its per-feature Gram
tensor ``G[a, b, j] = k_j(A[a, j], B[b, j])`` is what every product-kernel
value function is built from: K_S, the Gram matrix of a coalition S, is the
product of G over the features in S (all ones for the empty coalition).

Families (each a :class:`ProductKernel`):

* :class:`RBF` -- exp(-(x_j - x'_j)^2 / (2 l_j^2)),
* :class:`Laplace` -- exp(-|x_j - x'_j| / l_j),
* :class:`Cauchy` -- 1 / (1 + (x_j - x'_j)^2 / l_j^2),
* :class:`Categorical` -- 1 if x_j == x'_j else 0 (discrete features),
* :class:`Product` -- different families on different features.

Non-product kernels (:class:`Kernel` with ``is_product = False``):

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

Products of product kernels are product kernels (:class:`ProductOf`; the
per-feature factors multiply), and :class:`Constant` is the product kernel
whose factors are all 1.

Lengthscales are a scalar (shared) or one per feature. Gram tensors are built in
blocks of rows (:meth:`ProductKernel.iter_feature_grams`) so that n x n x d is
never held at once unless asked for.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from .._config import working_elements
from .._validation import check_matrix, check_rng

__all__ = [
    "Kernel",
    "ProductKernel",
    "RBF",
    "Laplace",
    "Cauchy",
    "Categorical",
    "Product",
    "Matern",
    "Constant",
    "ProductOf",
    "SumKernel",
    "Linear",
    "CoalitionGrams",
    "median_heuristic",
]

#: Share of ``kx.config_context(max_memory=...)`` one block of a Gram tensor may take.
BLOCK_SHARE = 2


def _block_elements(max_elements):
    return working_elements(BLOCK_SHARE) if max_elements is None else int(max_elements)


class Kernel:
    """Base class: a positive-definite kernel on R^d.

    Subclasses implement :meth:`gram`. ``is_product`` says whether the kernel
    factorises over features, which the polynomial-time Shapley routes need.
    """

    is_product = False

    #: number of features the kernel is tied to (per-feature parameters), or None
    n_features = None

    def gram(self, A, B=None):
        """The Gram matrix K[a, b] = k(A[a], B[b])."""
        raise NotImplementedError

    def __call__(self, A, B=None):
        return self.gram(A, B)

    def restrict(self, features):
        """The kernel of the same form acting on the columns ``features`` only."""
        raise NotImplementedError

    def coalition_gram(self, A, B=None, subset=None, max_elements=None):
        """K_S(A, B) for one coalition, by the fastest route this kernel has.

        The default is :meth:`gram`. Kernels with a faster, slightly less
        accurate route (see :meth:`RBF.coalition_gram`) override it; value
        functions that need many large coalition Gram matrices (the CME of
        RKHS-SHAP) call this, predictions call :meth:`gram`.
        """
        return self.gram(A, B, subset, max_elements=max_elements)

    def _check_pair(self, A, B):
        A = check_matrix(A, "A", n_features=self.n_features, allow_1d=True)
        B = A if B is None else check_matrix(B, "B", n_features=A.shape[1], allow_1d=True)
        return A, B


class ProductKernel(Kernel):
    """A kernel that is a product of one-dimensional kernels, one per feature.

    Subclasses implement :meth:`_factor` returning the per-feature kernel
    values for broadcast differences or pairs.
    """

    is_product = True

    # ---------------------------------------------------------------- public
    def feature_grams(self, A, B=None, features=None):
        """Per-feature Gram tensor G[a, b, j] = k_j(A[a, j], B[b, j]).

        Parameters
        ----------
        A : array (na, d)
        B : array (nb, d), default A
        features : sequence of int, optional
            Only these features (in this order); default all.

        Returns
        -------
        ndarray (na, nb, len(features))
        """
        A, B = self._check_pair(A, B)
        feats = self._features(A.shape[1], features)
        return self._block(A, B, feats)

    def iter_feature_grams(self, A, B=None, features=None, max_elements=None):
        """Yield ``(rows, G_block)`` with G_block = feature_grams(A[rows], B, features).

        Blocks hold at most about ``max_elements`` numbers.
        """
        A, B = self._check_pair(A, B)
        feats = self._features(A.shape[1], features)
        step = max(1, _block_elements(max_elements) // max(1, B.shape[0] * len(feats)))
        for start in range(0, A.shape[0], step):
            rows = slice(start, min(A.shape[0], start + step))
            yield rows, self._block(A[rows], B, feats)

    def gram(self, A, B=None, subset=None, max_elements=None):
        """Gram matrix of the coalition ``subset`` (default all features).

        ``subset`` is a boolean mask of length d or a list of feature indices;
        the empty coalition gives a matrix of ones (K_empty).
        """
        A, B = self._check_pair(A, B)
        feats = self._features(A.shape[1], self._subset_indices(subset, A.shape[1]))
        out = np.ones((A.shape[0], B.shape[0]))
        if not feats:
            return out
        for rows, block in self.iter_feature_grams(A, B, feats, max_elements):
            out[rows] = block.prod(axis=-1)
        return out

    def restrict(self, features):
        """The product of the factors of ``features`` only, as a kernel on those columns."""
        raise NotImplementedError

    # ----------------------------------------------------------- internals
    def _block(self, A, B, feats):
        raise NotImplementedError

    @staticmethod
    def _subset_indices(subset, d):
        if subset is None:
            return None
        subset = np.asarray(subset)
        if subset.dtype == bool:
            if subset.shape != (d,):
                raise ValueError(f"a boolean subset must have length {d}; got shape {subset.shape}")
            return np.flatnonzero(subset).tolist()
        return [int(i) for i in subset.ravel()]

    def _features(self, d, features):
        if features is None:
            return list(range(d))
        feats = [int(j) for j in features]
        bad = [j for j in feats if not 0 <= j < d]
        if bad:
            raise ValueError(f"feature indices {bad} out of range for {d} features")
        return feats


def _check_lengthscale(lengthscale, name="lengthscale"):
    ls = np.asarray(lengthscale, dtype=float)
    if ls.ndim > 1 or ls.size == 0:
        raise ValueError(f"{name} must be a positive number or a 1-D array of them; got shape {ls.shape}")
    if not np.all(np.isfinite(ls)) or np.any(ls <= 0):
        raise ValueError(f"{name} must be positive and finite; got {lengthscale!r}")
    return float(ls) if ls.ndim == 0 else ls


class _Stationary(ProductKernel):
    """Product of one-dimensional stationary kernels k_j(r) with lengthscales l_j."""

    def __init__(self, lengthscale=1.0):
        self.lengthscale = _check_lengthscale(lengthscale)
        self.n_features = None if isinstance(self.lengthscale, float) else len(self.lengthscale)

    def _scales(self, feats):
        if isinstance(self.lengthscale, float):
            return np.full(len(feats), self.lengthscale)
        return self.lengthscale[feats]

    def _block(self, A, B, feats):
        diff = A[:, None, feats] - B[None, :, feats]
        return self._profile(diff / self._scales(feats))

    def restrict(self, features):
        feats = [int(j) for j in features]
        if isinstance(self.lengthscale, float):
            return type(self)(self.lengthscale)
        return type(self)(self.lengthscale[feats])

    def __repr__(self):
        ls = self.lengthscale if isinstance(self.lengthscale, float) else np.round(self.lengthscale, 4).tolist()
        return f"{type(self).__name__}(lengthscale={ls})"

    @staticmethod
    def _profile(r):  # pragma: no cover - abstract
        raise NotImplementedError


class RBF(_Stationary):
    """Gaussian (squared-exponential) product kernel: prod_j exp(-(x_j - x'_j)^2 / (2 l_j^2)).

    With a scalar lengthscale this is the isotropic RBF kernel
    exp(-||x - x'||^2 / (2 l^2)); with one lengthscale per feature, the ARD kernel.
    """

    @staticmethod
    def _profile(r):
        return np.exp(-0.5 * r * r)

    def coalition_gram(self, A, B=None, subset=None, max_elements=None):
        """K_S(A, B) = exp(-||a_S - b_S||^2_l / 2) with the squared distances from one matrix product.

        ||a - b||^2 = ||a||^2 + ||b||^2 - 2 a.b on lengthscale-scaled
        coordinates: one BLAS call and one exp per entry instead of |S|
        exponentials, ~10x faster for large matrices. The cancellation costs
        about eps * (||a||^2 + ||b||^2) in the exponent (relative error ~1e-14 in
        K_S for standardised data), so predictions keep using :meth:`gram`.
        """
        A, B = self._check_pair(A, B)
        feats = self._features(A.shape[1], self._subset_indices(subset, A.shape[1]))
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
    """Laplace product kernel: prod_j exp(-|x_j - x'_j| / l_j)."""

    @staticmethod
    def _profile(r):
        return np.exp(-np.abs(r))


class Cauchy(_Stationary):
    """Cauchy product kernel: prod_j 1 / (1 + (x_j - x'_j)^2 / l_j^2)."""

    @staticmethod
    def _profile(r):
        return 1.0 / (1.0 + r * r)


class Categorical(ProductKernel):
    """Delta kernel for discrete features: k_j(x, x') = 1 if x == x' else 0."""

    def __init__(self):
        pass

    def _block(self, A, B, feats):
        return (A[:, None, feats] == B[None, :, feats]).astype(float)

    def restrict(self, features):
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

    Examples
    --------
    >>> k = Product([(RBF([1.0, 2.0]), [0, 2]), (Categorical(), [1])])
    """

    def __init__(self, parts):
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
            out[:, :, where] = kern._block(sub_a, sub_b, self._local[feats[where]].tolist())
        return out

    def restrict(self, features):
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


class Matern(Kernel):
    """Matern kernel of the scaled Euclidean distance -- not a product kernel.

    .. math::
        k(x, x') = \\kappa_\\nu(r), \\quad r = \\Big\\|\\frac{x - x'}{l}\\Big\\|_2,

    with kappa_{1/2}(r) = exp(-r), kappa_{3/2}(r) = (1 + sqrt(3) r) exp(-sqrt(3) r) and
    kappa_{5/2}(r) = (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r) (RKHS-SHAP
    supplement eq. (9) for half-integer nu; the same parametrisation as
    scikit-learn's ``Matern``). Any other nu > 0 uses the general form
    kappa_nu(r) = 2^(1-nu) / Gamma(nu) (sqrt(2 nu) r)^nu K_nu(sqrt(2 nu) r)
    (K_nu the modified Bessel function of the second kind, kappa_nu(0) = 1),
    and nu = inf its limit exp(-r^2 / 2), the RBF kernel of the distance.

    Parameters
    ----------
    lengthscale : float or array (d,)
        One lengthscale, or one per feature (ARD: each coordinate is divided by
        its own lengthscale before the distance is taken).
    nu : float > 0 or inf
        Smoothness; 0.5, 1.5 and 2.5 use their closed forms.

    Notes
    -----
    ``gram(A, B, subset=S)`` and ``restrict(S)`` give k_S, the Matern kernel of
    the same form on the coordinates in S only; for the empty coalition k_S is
    the constant 1. This is the choice of k_S in the non-product conditional
    mean embedding of RKHS-SHAP App. C, eq. (8).
    """

    is_product = False
    NUS = (0.5, 1.5, 2.5)

    def __init__(self, lengthscale=1.0, nu=1.5):
        try:
            nu_value = None if isinstance(nu, bool) else float(nu)
        except (TypeError, ValueError):
            nu_value = None
        if nu_value is None or np.isnan(nu_value) or nu_value <= 0:
            raise ValueError(f"Matern needs nu > 0 (a number, or inf for the RBF limit; closed forms "
                             f"for {self.NUS}); got {nu!r}")
        self.nu = nu_value
        self.lengthscale = _check_lengthscale(lengthscale)
        self.n_features = None if isinstance(self.lengthscale, float) else len(self.lengthscale)

    def _scales(self, d):
        if isinstance(self.lengthscale, float):
            return np.full(d, self.lengthscale)
        return self.lengthscale

    def _profile(self, r):
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

    def gram(self, A, B=None, subset=None, max_elements=None):
        """Gram matrix of k_S, the Matern kernel on the coordinates in ``subset``.

        ``subset`` is a boolean mask of length d or a list of feature indices
        (default: all features); the empty subset gives a matrix of ones.
        Distances are formed from differences (no ``|a|^2 + |b|^2 - 2ab``
        cancellation), in row blocks of about ``max_elements`` numbers.
        """
        A, B = self._check_pair(A, B)
        d = A.shape[1]
        feats = ProductKernel._subset_indices(subset, d)
        feats = list(range(d)) if feats is None else feats
        bad = [j for j in feats if not 0 <= j < d]
        if bad:
            raise ValueError(f"feature indices {bad} out of range for {d} features")
        out = np.ones((A.shape[0], B.shape[0]))
        if not feats:
            return out
        scale = self._scales(d)[feats]
        As, Bs = A[:, feats] / scale, B[:, feats] / scale
        step = max(1, _block_elements(max_elements) // max(1, B.shape[0] * len(feats)))
        for start in range(0, A.shape[0], step):
            diff = As[start:start + step, None, :] - Bs[None, :, :]
            r = np.sqrt(np.einsum("abj,abj->ab", diff, diff))
            out[start:start + step] = self._profile(r)
        return out

    def restrict(self, features):
        """k_S: the Matern kernel of the same nu on the columns ``features``."""
        feats = [int(j) for j in features]
        if isinstance(self.lengthscale, float):
            return Matern(self.lengthscale, self.nu)
        return Matern(self.lengthscale[feats], self.nu)

    def __repr__(self):
        ls = self.lengthscale if isinstance(self.lengthscale, float) else np.round(self.lengthscale, 4).tolist()
        return f"Matern(lengthscale={ls}, nu={self.nu})"


class Constant(ProductKernel):
    """The constant kernel k(x, x') = 1: the product kernel whose factors are all 1.

    A ``ConstantKernel`` summand of a Gaussian-process kernel is ``c * Constant()``
    inside a :class:`SumKernel`; its contribution to a kernel expansion is the
    constant c sum_i alpha_i.
    """

    def __init__(self):
        pass

    def _block(self, A, B, feats):
        return np.ones((A.shape[0], B.shape[0], len(feats)))

    def restrict(self, features):
        return Constant()

    def __repr__(self):
        return "Constant()"


class ProductOf(ProductKernel):
    """The product k = k_1 k_2 ... of product kernels -- again a product kernel.

    Feature j's factor is the product of the factors of feature j of every
    kernel, so the per-feature Gram tensor is the elementwise product of the
    kernels' tensors (``RBF(l1) * RBF(l2)``, ``RBF * Laplace``, ARD or not, stay on
    every product route).

    Parameters
    ----------
    kernels : sequence of ProductKernel
        At least one; those with per-feature parameters must agree on d.
    """

    def __init__(self, kernels):
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
        out = self.kernels[0]._block(A, B, feats)
        for kern in self.kernels[1:]:
            out = out * kern._block(A, B, feats)
        return out

    def restrict(self, features):
        return ProductOf([kern.restrict(features) for kern in self.kernels])

    def __repr__(self):
        return "ProductOf(" + ", ".join(repr(k) for k in self.kernels) + ")"


class SumKernel(Kernel):
    """A non-negative combination k = sum_r c_r k_r of product kernels.

    Not a product kernel, but a kernel expansion with a sum kernel,
    sum_i alpha_i k(x, x_i) + b, is the sum over r of the expansions
    sum_i (c_r alpha_i) k_r(x, x_i) with product kernels k_r (the intercept
    going with one of them). Its interventional and functional-baseline games
    are therefore sums of product games
    (:class:`kernelxai.games.SumOfProductGames`): ``method="product"`` and
    ``method="exact"`` both give the exact Shapley values. A ``ConstantKernel``
    summand is the term ``(c, Constant())``.

    Parameters
    ----------
    terms : sequence of (float, ProductKernel)
        Weights c_r >= 0 (finite) and product kernels k_r; at least one term.

    Notes
    -----
    ``gram(A, B, subset=S)`` and ``restrict(S)`` give k_S = sum_r c_r k_{r,S},
    each product kernel restricted to the coordinates in S (the empty
    coalition gives sum_r c_r).
    """

    is_product = False
    #: the value functions split expansions with this kernel into product-kernel expansions
    is_sum_of_products = True

    def __init__(self, terms):
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

    def gram(self, A, B=None, subset=None, max_elements=None):
        """Gram matrix sum_r c_r K_{r,S}(A, B) of the coalition ``subset`` (default all features)."""
        A, B = self._check_pair(A, B)
        out = np.zeros((A.shape[0], B.shape[0]))
        for weight, kern in self.terms:
            if weight != 0.0:
                out += weight * kern.gram(A, B, subset, max_elements=max_elements)
        return out

    def coalition_gram(self, A, B=None, subset=None, max_elements=None):
        A, B = self._check_pair(A, B)
        out = np.zeros((A.shape[0], B.shape[0]))
        for weight, kern in self.terms:
            if weight != 0.0:
                out += weight * kern.coalition_gram(A, B, subset, max_elements=max_elements)
        return out

    def restrict(self, features):
        """k_S = sum_r c_r k_{r,S} on the columns ``features``."""
        return SumKernel([(w, kern.restrict(features)) for w, kern in self.terms])

    def __repr__(self):
        return "SumKernel(" + " + ".join(f"{w:.4g} * {k!r}" for w, k in self.terms) + ")"


class Linear(Kernel):
    """The linear kernel k(x, x') = x . x' (scikit-learn ``KernelRidge(kernel="linear")``).

    A kernel expansion with it is the linear model f(x) = w . x + b with
    w = sum_i alpha_i x_i. Not a product kernel; its interventional game is
    additive, v(S) = b + sum_{j in S} w_j x_j + sum_{j not in S} w_j mean_b b_j,
    which :class:`kernelxai.values.Interventional` builds in closed form as a
    product game with d + 1 terms (exact on ``"product"`` and ``"exact"``), so
    that phi_j = w_j (x_j - mean_b b_j).
    """

    is_product = False

    def __init__(self):
        pass

    def gram(self, A, B=None, subset=None, max_elements=None):
        """A_S B_S' on the coordinates in ``subset`` (default all; the empty subset gives zeros)."""
        A, B = self._check_pair(A, B)
        feats = ProductKernel._subset_indices(subset, A.shape[1])
        if feats is None:
            return A @ B.T
        return A[:, feats] @ B[:, feats].T

    def restrict(self, features):
        return Linear()

    def __repr__(self):
        return "Linear()"


class CoalitionGrams:
    """Gram matrices K_S(A, B) of many coalitions S from one cached per-feature tensor.

    Value functions that condition on a coalition (the CME of RKHS-SHAP Prop. 3
    and App. C) need K_S for hundreds or thousands of coalitions S. Building
    each from scratch costs |S| kernel evaluations per entry; here one tensor
    of per-feature terms is computed once and every K_S is one matrix product
    with the coalition masks followed by an elementwise map:

    * product kernels: K_S = exp(sum_{l in S} log k_l) (exact zeros of a
      factor, e.g. the categorical kernel, are tracked separately and stay 0);
    * :class:`Matern`: K_S = kappa(sqrt(sum_{l in S} ((a_l - b_l) / l_l)^2)), the
      Matern kernel of the same form on the coordinates in S;
    * :class:`SumKernel`: K_S = sum_r c_r K_{r,S}, one cache per summand.

    The empty coalition gives a matrix of ones. The cache holds
    ``len(A) * len(B) * d`` numbers.

    Parameters
    ----------
    kernel : ProductKernel, SumKernel or Matern
    A : array (na, d)
    B : array (nb, d), default A
    """

    def __init__(self, kernel, A, B=None):
        if not isinstance(kernel, (ProductKernel, Matern, SumKernel)):
            raise TypeError(f"CoalitionGrams supports product kernels, sums of them and Matern; "
                            f"got {kernel!r}")
        A, B = kernel._check_pair(A, B)
        self.kernel, self.shape, self.d = kernel, (A.shape[0], B.shape[0]), A.shape[1]
        self._zeros = None
        self._parts = None
        if isinstance(kernel, SumKernel):  # K_S = sum_r c_r K_{r,S}: one cache per summand
            self._parts = [(w, CoalitionGrams(k, A, B)) for w, k in kernel.terms if w != 0.0]
        elif isinstance(kernel, ProductKernel):
            G = kernel.feature_grams(A, B)
            positive = G > 0
            self._terms = np.log(np.where(positive, G, 1.0)).reshape(-1, self.d).T.copy()
            if not positive.all():
                self._zeros = (~positive).reshape(-1, self.d).T.astype(float)
        else:
            scale = kernel._scales(self.d)
            diff = (A[:, None, :] - B[None, :, :]) / scale
            self._terms = (diff * diff).reshape(-1, self.d).T.copy()

    def __call__(self, coalitions):
        """K_S for each row of ``coalitions`` (bool (c, d)): array (c, na, nb)."""
        Z = np.atleast_2d(np.asarray(coalitions, dtype=float))
        if Z.shape[1] != self.d:
            raise ValueError(f"coalitions must have {self.d} columns; got {Z.shape[1]}")
        if self._parts is not None:
            out = np.zeros((len(Z),) + self.shape)
            for w, part in self._parts:
                out += w * part(Z)
            return out
        E = Z @ self._terms
        if isinstance(self.kernel, ProductKernel):
            np.exp(E, out=E)
            if self._zeros is not None:
                E[(Z @ self._zeros) > 0] = 0.0
        else:
            E = self.kernel._profile(np.sqrt(np.maximum(E, 0.0)))
        return E.reshape((len(Z),) + self.shape)


def median_heuristic(X, *, pooled=False, max_samples=1000, seed=0):
    """Lengthscales by the median heuristic.

    Parameters
    ----------
    X : array (n, d)
    pooled : bool
        False (default): one lengthscale per feature, the median of
        |x_ij - x_kj| over pairs i < k. True: one lengthscale, the median of
        the full-dimensional distances ||x_i - x_k||.
    max_samples : int
        Pairs are formed from at most this many rows (a random subsample).

    Returns
    -------
    ndarray (d,) or float

    Constant features have no spread; they get lengthscale 1 with a warning.
    """
    X = check_matrix(X, "X", min_rows=2)
    rng = check_rng(seed)
    if X.shape[0] > max_samples:
        X = X[rng.choice(X.shape[0], max_samples, replace=False)]
    iu = np.triu_indices(X.shape[0], k=1)
    if pooled:
        d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)[iu]
        med = float(np.sqrt(np.median(d2)))
        if med <= 0 or not np.isfinite(med):
            warnings.warn("all points coincide; median heuristic falls back to lengthscale 1",
                          stacklevel=2)
            med = 1.0
        return med
    scales = np.empty(X.shape[1])
    for j in range(X.shape[1]):
        diffs = np.abs(X[:, j][:, None] - X[:, j][None, :])[iu]
        med = np.median(diffs)
        if med <= 0:
            # many ties (binary or discrete features): the median of the non-zero gaps
            nonzero = diffs[diffs > 0]
            med = np.median(nonzero) if len(nonzero) else 0.0
        scales[j] = med
    constant = np.flatnonzero(scales <= 0)
    if len(constant):
        warnings.warn(f"features {constant.tolist()} are constant; their lengthscale is set to 1",
                      stacklevel=2)
        scales[constant] = 1.0
    return scales


def as_lengthscale(value, X):
    """``"median"`` or None -> median heuristic on X; a number or array -> validated."""
    if value is None or (isinstance(value, str) and value == "median"):
        return median_heuristic(X)
    if isinstance(value, numbers.Real) or np.ndim(value) == 1:
        return _check_lengthscale(value)
    raise ValueError(f"lengthscale must be 'median', a positive number or a 1-D array; got {value!r}")
