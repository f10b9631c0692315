"""Shapley functionals of kernel models: representer matrices, RKHS norms, Theorem-6 bounds.

RKHS-SHAP §3.1. For a kernel model f = sum_j alpha_j k(., x_j) + b
every value function of this package is linear in alpha,
v(S)(x) = (M_S alpha)(x) + b, so the Shapley value of feature i is a linear
functional of f (RKHS-SHAP Prop. 5)::

    phi_{x,i}(f) = sum_{S ⊆ D \\ i} mu(|S|) (nu_{x,S+i} - nu_{x,S})(f) = (R_i alpha)(x),
    R_i = sum_S C[S, i] M_S,   C[S, i] = mu(|S| - 1) if i in S else -mu(|S|),

with mu(s) = s!(d-s-1)!/d! the Shapley weight. :func:`shapley_representers`
builds the matrices R_i (n_x x n_train) from the value functions' own
coefficient matrices (``Game.coefficient_matrices``):

* ``"exact"`` -- all 2^d coalitions with the exact weights C;
* ``"sampled"`` -- per feature, J coalitions S ⊆ D \\ i drawn from
  ``p(S) = mu(|S|) = 1 / (d C(d-1, |S|))`` (a uniform size, then a uniform subset
  of that size), R_i ≈ (1/J) sum_j (M_{S_j + i} - M_{S_j}): unbiased, reported
  as an estimate (``exact=False``);
* ``"product"`` -- product kernels with the interventional or the functional
  baseline value function: R_i[a, j] is the Shapley value of the unit model
  k(., x_j) at x_a, a product game, computed exactly in polynomial time by
  quadrature of ``kernelxai.estimators._product`` with no coalitions at all.

Since phi_{x,i} is a bounded linear functional it has a Riesz representer
g_{x,i} in the RKHS, and ``|phi_{x,i}(f) - phi_{x',i}(f)| <= ||f||_H ||g_{x,i} - g_{x',i}||_H``.
For the KME/CME value functions the value functional is an embedding,
nu_{x,S} = sum_b gamma_S(x)_b k(., (x_S, b_{S^c})) over background rows b
(gamma = 1/m for the interventional one, the CME weights for the observational
one), so the RKHS inner products are finite sums of kernel values:
:func:`functional_distances` computes ||g_{x,i} - g_{x',i}||_H exactly (by
enumerating coalition pairs, or -- interventional, product kernel -- by a
two-dimensional Beta-integral quadrature), and :func:`theorem6_bound` gives
the bound of RKHS-SHAP Theorem 6. The functional baseline functional is not
bounded on the RKHS of a product RBF kernel (it needs k_S(x_S, .) for S ≠ D,
which is constant in the other coordinates), so it has representer matrices
but no RKHS distances.

One family of algorithms in one file, a little over 600 lines: the representer
matrices, their RKHS norms and distances and the Theorem-6 bound share the
coalition weights and the embedding set-up of the value functions.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .._config import working_elements
from .._linalg import cholesky_jitter
from .._validation import check_choice, check_columns, check_matrix, check_positive_int, check_rng
from ..estimators._product import (
    gauss_legendre_01,
    leave_one_out_product,
    product_shapley,
    shapley_weights_exact,
)
from ..estimators._registry import NotApplicableError
from ..explanation import Explanation
from ..games import HasUnitGames, LinearInCoefficients, all_coalitions
from ..kernels import RBF, CoalitionGrams, ProductKernel
from ..models.convert import as_expansion
from ..values import _base as _values
from ..values._base import EmbeddingValueFunction, default_background
from ..values._interventional import Interventional
from ..values._observational import CME_ADVICE, CME_SYSTEM, Observational

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

    from ..kernels import Kernel
    from ..values._base import ValueFunction

__all__ = [
    "ShapleyRepresenters",
    "shapley_representers",
    "shapley_coefficients",
    "sample_shapley_coalitions",
    "resolve_features",
    "functional_distances",
    "cme_gamma_norms",
    "theorem6_bound",
]

#: Value functions whose games are linear in alpha (LinearInCoefficients), for messages.
SUPPORTED_VALUES = ("interventional", "observational", "functional_baseline")

#: Largest d for which "auto" enumerates all coalitions.
EXACT_MAX_FEATURES = 12


# --------------------------------------------------------------------------- #
# coalition weights
# --------------------------------------------------------------------------- #
def shapley_coefficients(d: int, features: Sequence[int] | None = None) -> np.ndarray:
    r"""Weights :math:`C` (2^d, q) with :math:`\phi_i = \sum_S C_{S,i}\, v(S)` over all coalitions (row k = bitmask k).

    :math:`C_{S,i} = \mu(|S| - 1)` if :math:`i \in S`, else :math:`-\mu(|S|)` (the Shapley formula of
    the KernelSHAP regression written as one linear map of the worths). Each column sums to
    zero, so constants (the intercept) cancel.

    Parameters
    ----------
    d : int
        Number of players (features).
    features : list of int, optional
        Columns to return (default all d).

    Returns
    -------
    ndarray (2**d, q)
        One row per coalition (row k is the coalition with bitmask k, bit j = feature j),
        one column per requested feature.

    Examples
    --------
    For two players, :math:`\phi_0 = \big(v(\{0\}) - v(\emptyset) + v(\{0, 1\}) - v(\{1\})\big) / 2`:

    >>> import kernelxai as kx
    >>> kx.functionals.shapley_coefficients(2)
    array([[-0.5, -0.5],
           [ 0.5, -0.5],
           [-0.5,  0.5],
           [ 0.5,  0.5]])
    >>> worths = [0.0, 1.0, 2.0, 5.0]  # v(empty), v({0}), v({1}), v({0, 1})
    >>> (worths @ kx.functionals.shapley_coefficients(2)).tolist()
    [2.0, 3.0]
    """
    d = check_positive_int(d, "number of features")
    feats = list(range(d)) if features is None else [int(i) for i in features]
    Z = all_coalitions(d)
    mu = shapley_weights_exact(d)
    size = Z.sum(axis=1)
    C = np.empty((len(Z), len(feats)))
    for col, i in enumerate(feats):
        inside = Z[:, i]
        C[:, col] = np.where(inside, mu[np.maximum(size - 1, 0)], -mu[np.minimum(size, d - 1)])
    return C


def sample_shapley_coalitions(d: int, features: Sequence[int], n_coalitions: int,
                              seed: int | np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Coalitions and weights of the sampled Shapley functional (RKHS-SHAP Prop. 7).

    For each feature :math:`i`, ``n_coalitions`` coalitions :math:`S \subseteq D \setminus i` are drawn from
    :math:`p(S) = 1 / \big(d \binom{d-1}{|S|}\big)` -- the Shapley weight :math:`\mu(|S|)` itself: the size
    uniformly on :math:`0, \dots, d-1`, then a uniform subset of that size -- and
    :math:`\phi_i \approx \frac{1}{J} \sum_j \big(v(S_j + i) - v(S_j)\big)`, an unbiased estimate.

    Parameters
    ----------
    d : int
        Number of players (features).
    features : list of int
        The features :math:`i` to estimate :math:`\phi_i` of (q of them), as indices.
    n_coalitions : int
        :math:`J`, the coalitions drawn per feature.
    seed : None, int or Generator
        Randomness of the draws.

    Returns
    -------
    coalitions : bool array (2 J q, d)
        Per feature, a block of :math:`2J` rows: the :math:`J` coalitions :math:`S_j + i`, then the :math:`J`
        coalitions :math:`S_j`.
    weights : array (2 J q, q)
        :math:`+1/J` on :math:`S_j + i` and :math:`-1/J` on :math:`S_j` in the column of feature :math:`i`.

    Raises
    ------
    ValueError
        When ``d`` or ``n_coalitions`` is not a positive integer.

    Examples
    --------
    Phi_0 of 3 players from J = 2 draws: the estimate is ``worths @ weights``.

    >>> import kernelxai as kx
    >>> Z, W = kx.functionals.sample_shapley_coalitions(3, [0], 2, seed=0)
    >>> Z.shape, W.ravel().tolist()
    ((4, 3), [0.5, 0.5, -0.5, -0.5])
    >>> bool(Z[:2, 0].all()), bool(Z[2:, 0].any())  # with feature 0, then without it
    (True, False)
    """
    d = check_positive_int(d, "number of features")
    J = check_positive_int(n_coalitions, "n_coalitions")
    rng = check_rng(seed)
    feats = [int(i) for i in features]
    q = len(feats)
    Z = np.zeros((2 * J * q, d), dtype=bool)
    W = np.zeros((2 * J * q, q))
    for col, i in enumerate(feats):
        others = np.array([l for l in range(d) if l != i])
        sizes = rng.integers(0, d, size=J)                      # uniform on 0..d-1
        keys = rng.random((J, d - 1))
        order = np.argsort(keys, axis=1)                        # a uniform permutation per draw
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(d - 1)[None, :].repeat(J, 0), axis=1)
        member = rank < sizes[:, None]                          # the first |S| of the permutation
        block = slice(2 * J * col, 2 * J * (col + 1))
        S = np.zeros((J, d), dtype=bool)
        S[:, others] = member
        Z[block][:J] = S
        Z[block][:J, i] = True
        Z[block][J:] = S
        W[block, col][:J] = 1.0 / J
        W[block, col][J:] = -1.0 / J
    return Z, W


# --------------------------------------------------------------------------- #
# input handling
# --------------------------------------------------------------------------- #
def resolve_features(features: str | int | Sequence[str | int] | None, names: Sequence[str], *,
                     allow_empty: bool = False) -> list[int]:
    """Feature names or indices -> sorted unique list of indices; clear errors for unknown ones.

    Parameters
    ----------
    features : None, str, int or list of str and int
        Names in ``names`` or indices (negative ones count from the end); a single name or
        index is one feature. None means all features.
    names : list of str
        The names of all features.
    allow_empty : bool, default False
        Whether an empty list is accepted (it gives ``[]``).

    Returns
    -------
    list of int
        Sorted, without duplicates, in 0..d-1.

    Raises
    ------
    TypeError
        For an entry that is neither a name nor an integer (a bool included).
    ValueError
        For an unknown name, an index out of range, or an empty list (unless
        ``allow_empty``).

    Examples
    --------
    >>> import kernelxai as kx
    >>> kx.functionals.resolve_features(["x2", 0, -1], ["x0", "x1", "x2"])
    [0, 2]
    >>> kx.functionals.resolve_features(None, ["x0", "x1"])
    [0, 1]
    """
    d = len(names)
    if features is None:
        return list(range(d))
    if isinstance(features, (str, numbers.Integral)) and not isinstance(features, bool):
        features = [features]
    out = []
    for f in features:
        if isinstance(f, (bool, np.bool_)):
            raise TypeError(f"features must be feature names or integer indices; got {f!r}")
        if isinstance(f, str):
            if f not in names:
                raise ValueError(f"unknown feature {f!r}; the features are {list(names)} "
                                 f"(or indices 0..{d - 1})")
            out.append(list(names).index(f))
        elif isinstance(f, (numbers.Integral, np.integer)):
            if not -d <= int(f) < d:
                raise ValueError(f"feature index {int(f)} out of range for {d} features "
                                 f"(accepted: 0..{d - 1} or the names {list(names)})")
            out.append(int(f) % d)
        else:
            raise TypeError(f"features must be feature names or integer indices; got {f!r}")
    if not out and not allow_empty:
        raise ValueError("features is empty; give at least one feature name or index")
    return sorted(set(out))


def _value_function(model, value, background, options):
    """A ValueFunction instance from a name (with model/background/options) or as given."""
    if isinstance(value, _values.ValueFunction):
        if options or background is not None:
            raise ValueError("value is already a ValueFunction instance; pass background and "
                             "options to its constructor instead")
        vf = value
    else:
        if not isinstance(value, str):
            raise TypeError(f"value must be a value-function name {SUPPORTED_VALUES} or a "
                            f"ValueFunction instance; got {type(value).__name__}")
        cls = _values.get(value)
        import inspect

        accepted = inspect.signature(cls.__init__).parameters
        unknown = [k for k in options if k not in accepted or k in ("self", "model", "groups",
                                                                     "group_names")]
        if unknown:
            raise TypeError(f"unexpected options {unknown} for the {value!r} value function; "
                            f"accepted: {[k for k in accepted if k not in ('self', 'model')]}")
        kwargs = dict(options)
        if background is not None:
            if "background" not in accepted:
                raise ValueError(f"the {value!r} value function takes no background sample")
            kwargs["background"] = background
        vf = cls(as_expansion(model), **kwargs)
    if getattr(vf, "groups", None) is not None:
        raise ValueError("Shapley representers are computed per feature; this value function "
                         "has groups (explain the groups with kx.explain instead)")
    return vf


def _value_name(vf):
    return getattr(vf, "registered_name", type(vf).__name__)


# --------------------------------------------------------------------------- #
# representer matrices
# --------------------------------------------------------------------------- #
@dataclass
class ShapleyRepresenters:
    r"""Representer matrices of Shapley functionals: :math:`\phi_i(X) = R_i \alpha` (RKHS-SHAP Prop. 5).

    Attributes
    ----------
    matrices : ndarray (q, n_x, n_train)
        :math:`R_i` for each requested feature, in the order of ``features``.
    features : list of int
    feature_names : list of str
        Names of all d features of the model.
    X : ndarray (n_x, d)
        The explained points.
    value : str
        The value function.
    method : str
        ``"exact"``, ``"sampled"`` or ``"product"``.
    exact : bool
        False for sampled coalitions: the matrices are then an unbiased estimate.
    n_coalitions : int or None
        Coalitions per feature (sampled), or :math:`2^d` (exact), or None (product).
    meta : dict
        ``{"value_function": ...}``, the description of the value function.

    Examples
    --------
    Built by :func:`shapley_representers`. The values R_i @ alpha are the Shapley values
    of the model:

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> reps = kx.functionals.shapley_representers(model, X[:2], features=["x0", "x2"])
    >>> reps.matrices.shape, reps["x2"].shape
    ((2, 2, 20), (2, 20))
    >>> expl = kx.explain(model, X[:2])
    >>> bool(np.allclose(reps.values(model.dual_coef_), expl.values[:, [0, 2]]))
    True
    """

    matrices: np.ndarray
    features: list
    feature_names: list
    X: np.ndarray
    value: str
    method: str
    exact: bool
    n_coalitions: int | None = None
    meta: dict = field(default_factory=dict)

    def values(self, alpha: ArrayLike) -> np.ndarray:
        """Shapley values of the model with coefficients ``alpha``: array (n_x, q)."""
        alpha = np.asarray(alpha, dtype=float).ravel()
        if alpha.shape != (self.matrices.shape[2],):
            raise ValueError(f"alpha must have {self.matrices.shape[2]} entries (one per training "
                             f"point); got {alpha.shape[0]}")
        return np.einsum("qxi,i->xq", self.matrices, alpha)

    def to_explanation(self, alpha: ArrayLike) -> Explanation:
        r"""The values :math:`R_i \alpha` of the requested features as an :class:`~kernelxai.Explanation`.

        Only the requested features are present, so efficiency need not hold;
        base_values are 0 and ``meta`` records the value function and method.
        """

        meta = {**self.meta, "value_function": self.value, "method": f"representers ({self.method})",
                "exact": self.exact}
        return Explanation(self.values(alpha), 0.0, data=self.X[:, self.features],
                           feature_names=[self.feature_names[i] for i in self.features], meta=meta)

    def penalty_matrix(self) -> np.ndarray:
        r""":math:`\sum_i R_i^\top R_i` (n_train x n_train): :math:`\|R_i \alpha\|^2` summed over the features."""
        R = self.matrices.reshape(-1, self.matrices.shape[2])
        return R.T @ R

    def __getitem__(self, feature):
        """R_i of one feature (name or index)."""
        i = resolve_features([feature], self.feature_names)[0]
        if i not in self.features:
            raise KeyError(f"feature {self.feature_names[i]!r} was not requested; "
                           f"available: {[self.feature_names[j] for j in self.features]}")
        return self.matrices[self.features.index(i)]

    def __repr__(self):
        q, nx, n = self.matrices.shape
        kind = "exact" if self.exact else f"estimate from {self.n_coalitions} coalitions per feature"
        return (f"ShapleyRepresenters(value={self.value!r}, features="
                f"{[self.feature_names[i] for i in self.features]}, n_x={nx}, n_train={n}, "
                f"method={self.method!r}, {kind})")


def shapley_representers(model: Any, X: ArrayLike, value: str | ValueFunction = "interventional", *,
                         features: str | int | Sequence[str | int] | None = None, background: ArrayLike | None = None,
                         method: str = "auto", n_coalitions: int | None = None,
                         seed: int | np.random.Generator | None = None, **options: Any) -> ShapleyRepresenters:
    r"""Representer matrices :math:`R_i` with :math:`\phi_i(X) = R_i \alpha` for a kernel model (RKHS-SHAP Prop. 5).

    Parameters
    ----------
    model : KernelExpansion, kernelxai estimator or supported scikit-learn model
        Only its kernel and training inputs matter (the representers do not
        depend on alpha); an unfitted coefficient vector of zeros will do.
    X : array (n_x, d) or DataFrame
        Points at which the Shapley functionals are taken.
    value : str or ValueFunction
        ``"interventional"`` (KME), ``"observational"`` (CME, product form),
        ``"functional_baseline"``, or an instance of one of them.
    features : list of names or indices, optional
        Default: all features.
    background : array, optional
        Background sample of the value function (default: the training inputs).
    method : {"auto", "exact", "sampled", "product"}
        ``"auto"``: exact enumeration up to 12 features (or the product route
        where that is cheaper, interventional/functional baseline), above that
        the product route where available, else sampled coalitions.
    n_coalitions : int, optional
        Coalitions per feature for ``"sampled"`` (default 1000).
    seed : int or Generator, optional
        For ``"sampled"``.
    **options
        Passed to the value function's constructor (e.g. ``eta``, ``max_elements``).

    Returns
    -------
    ShapleyRepresenters
        The matrices :math:`R_i`, shape (q, n_x, n_train), with the features, points and method.

    Raises
    ------
    NotApplicableError
        When the value function's games are not linear in the coefficients (e.g. a kernel
        that is not a product kernel).
    ValueError
        For ``method="product"`` without a product game per unit model (observational),
        an unknown method, unknown features, a ValueFunction instance given together with
        ``background`` or options, or a value function with groups.
    TypeError
        For a ``value`` that is neither a name nor a ValueFunction, or options the value
        function does not accept.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> reps = kx.functionals.shapley_representers(model, X[:2])
    >>> reps
    ShapleyRepresenters(value='interventional', features=['x0', 'x1', 'x2'], n_x=2, n_train=20, method='exact', exact)
    >>> np.round(reps.values(model.dual_coef_), 4)  # Shapley values of the two points
    array([[ 0.1503, -0.1519, -0.0805],
           [ 0.1461, -0.1231, -0.0845]])
    """
    vf = _value_function(model, value, background, options)
    game = vf.game(X)
    if not isinstance(game, LinearInCoefficients):
        kernel = getattr(getattr(vf, "model", None), "kernel", None)
        raise NotApplicableError(
            f"the {_value_name(vf)!r} value function does not expose coefficient matrices here"
            + (f" (the model's kernel is {kernel!r})" if kernel is not None else "")
            + f": Shapley representers are available for the value functions {SUPPORTED_VALUES} "
            "of kernel models with a product kernel (their games are linear in alpha)")
    expansion = vf.model
    d, nx, n = game.n_players, game.n_instances, len(expansion.X_train)
    names = list(game.player_names)       # DataFrame columns of X, else the model's names
    feats = resolve_features(features, names)
    method = check_choice(method, "method", ("auto", "exact", "sampled", "product"))
    has_units = isinstance(game, HasUnitGames)
    if method == "auto":
        if d <= EXACT_MAX_FEATURES:
            enumeration = 2**d * (nx + len(getattr(vf, "background", expansion.X_train))) * n * d
            product = 6 * nx * n * len(getattr(vf, "background", [0])) * d * math.ceil(d / 2)
            method = "product" if has_units and product < enumeration else "exact"
        else:
            method = "product" if has_units else "sampled"
    if method == "product" and not has_units:
        raise ValueError(f"method='product' needs a product game per unit model; the "
                         f"{_value_name(vf)!r} value function has none (the observational CME "
                         "is not a product game). Use method='exact' or 'sampled'")
    meta = {"value_function": game.meta.get("value_function", _value_name(vf))}
    if method == "exact":
        Z = all_coalitions(d)
        R = game.coefficient_matrices(Z, shapley_coefficients(d, feats))
        return ShapleyRepresenters(R, feats, names, game.data, _value_name(vf), "exact", True,
                                   2**d, meta)
    if method == "sampled":
        J = 1000 if n_coalitions is None else check_positive_int(n_coalitions, "n_coalitions")
        Z, W = sample_shapley_coalitions(d, feats, J, seed)
        R = game.coefficient_matrices(Z, W)
        return ShapleyRepresenters(R, feats, names, game.data, _value_name(vf), "sampled", False,
                                   J, meta)
    phi, _ = product_shapley(game.unit_game())                 # (n * nx, d), instance j * nx + a
    R = np.ascontiguousarray(phi.reshape(n, nx, d)[:, :, feats].transpose(2, 1, 0))
    return ShapleyRepresenters(R, feats, names, game.data, _value_name(vf), "product", True,
                               None, meta)


# --------------------------------------------------------------------------- #
# RKHS norms of differences of Shapley functionals
# --------------------------------------------------------------------------- #
def _embedding_setup(model, value, background, options):
    vf = _value_function(model, value, background, options)
    name = _value_name(vf)
    if not isinstance(vf, EmbeddingValueFunction):
        raise ValueError(
            f"RKHS norms of Shapley functionals need a value function that is an embedding in the "
            f"RKHS (interventional KME or observational CME); got {name!r}. The functional "
            "baseline sets kernel factors to 1, which is not an element of the RKHS of a product "
            "RBF kernel, so its Shapley functional has no finite RKHS norm")
    kernel = vf.model.kernel
    if not kernel.is_product:
        raise ValueError(f"RKHS norms of Shapley functionals are implemented for product kernels; "
                         f"the model's kernel is {kernel!r}")
    name = "interventional" if isinstance(vf, Interventional) else "observational"
    if isinstance(vf, Observational) and (vf.form != "product" or vf.landmarks is not None):
        raise ValueError("observational RKHS norms need the exact product form (form='product', "
                         "landmarks=None)")
    return vf, name


def _pairs(X, X_prime, d, model=None, background=None):
    # DataFrames must have the model's columns (else the background's, else X's), in order, as kx.explain
    check_columns(X, "X", model=model, sample=background)
    check_columns(X_prime, "X_prime", model=model, sample=background)
    check_columns(X_prime, "X_prime", model=model, sample=X, sample_name="X")
    X = check_matrix(X, "X", n_features=d, allow_1d=True)
    Xp = check_matrix(X_prime, "X_prime", n_features=d, allow_1d=True)
    if X.shape != Xp.shape:
        raise ValueError(f"X and X_prime must have the same shape (one pair per row); got "
                         f"{X.shape} and {Xp.shape}")
    return X, Xp


def functional_distances(model: Any, X: ArrayLike, X_prime: ArrayLike, value: str | ValueFunction = "interventional", *,
                         features: str | int | Sequence[str | int] | None = None, background: ArrayLike | None = None,
                         method: str = "auto", max_elements: int | None = None, **options: Any) -> np.ndarray:
    r"""RKHS distances :math:`\|\phi_{x,i} - \phi_{x',i}\|_{\mathcal{H}}` of Shapley functionals, row by row of X, X'.

    RKHS-SHAP §3.1: the Riesz representer of :math:`\phi_{x,i}` is

    .. math::
        g_{x,i} = \sum_S C_{S,i}\, \nu_{x,S}, \qquad
        \nu_{x,S} = \sum_b \gamma_S(x)_b\, k\big(\cdot, (x_S, b_{S^c})\big),

    so :math:`\|g_{x,i} - g_{x',i}\|^2` is a finite double sum of kernel values over
    coalitions and background rows. For any :math:`f = \sum_j \alpha_j k(\cdot, x_j) + b`,
    :math:`|\phi_{x,i}(f) - \phi_{x',i}(f)| \le \sqrt{\alpha^\top K \alpha}\, \cdot` distance (eq. (3)).

    Parameters
    ----------
    model : kernel model (only its kernel and training inputs are used)
    X, X_prime : arrays (P, d)
        Pairs (x, x') row by row.
    value : {"interventional", "observational"} or a ValueFunction
    features : names or indices, optional
    background : array, optional
        The background sample of the embeddings (default: training inputs).
    method : {"auto", "quadrature", "exact"}
        ``"quadrature"`` (interventional only): for every pair of background
        rows the coalition sums factorise,
        :math:`\sum_{S,T} \mu\mu \prod_l = \int_0^1\!\!\int_0^1 \prod_{l \ne i} F_l(t, u)\, dt\, du`
        with :math:`F_l` bilinear in :math:`(t, u)` -- the Beta-integral identity of the product
        route (:func:`~kernelxai.estimators.product_shapley`)
        in two variables, exact with :math:`\lceil d/2 \rceil^2` Gauss-Legendre nodes;
        :math:`O(P m^2 d \lceil d/2 \rceil^2)`. ``"exact"``: all pairs of coalitions,
        :math:`O(P\, 4^d m^2)`, needed for the observational CME (its weights :math:`\gamma_S` do
        not factorise over features); up to 8 features. ``"auto"``:
        quadrature for interventional, exact for observational.
    max_elements : int
        Memory budget (float64 numbers) of one block of pairs.
    **options
        Value-function options (e.g. ``eta``).

    Returns
    -------
    ndarray (P, q)
        Distances (not squared), one column per requested feature.

    Raises
    ------
    ValueError
        For ``method="quadrature"`` with the observational value function,
        ``method="exact"`` with more than 8 features, a value function that is not an
        embedding (functional baseline), a kernel that is not a product kernel, an
        observational value function not in the exact product form, or ``X`` and
        ``X_prime`` of different shapes.

    Examples
    --------
    With ``alpha' K alpha`` this bounds how much a Shapley value can change between x
    and x':

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> dist = kx.functionals.functional_distances(model, X[:2], X[:2] + 0.1)
    >>> np.round(dist, 4)
    array([[0.0883, 0.0768, 0.0802],
           [0.0888, 0.0809, 0.0771]])
    """
    vf, name = _embedding_setup(model, value, background, options)
    kernel, B = vf.model.kernel, vf.background
    d = vf.model.n_features
    X, Xp = _pairs(X, X_prime, d, vf.model, background)
    feats = resolve_features(features, list(vf.model.feature_names))
    if max_elements is None:
        max_elements = working_elements(4)
    method = check_choice(method, "method", ("auto", "quadrature", "exact"))
    if method == "auto":
        method = "quadrature" if name == "interventional" else "exact"
    if method == "quadrature" and name != "interventional":
        raise ValueError("method='quadrature' factorises over features only for the interventional "
                         "embedding (uniform weights); use method='exact' for observational")
    if method == "quadrature":
        sq = _distances_quadrature(kernel, B, X, Xp, feats, max_elements)
    else:
        if d > 8:
            raise ValueError(f"method='exact' enumerates 4^d pairs of coalitions; d = {d} is too many "
                             "(limit 8). Interventional distances at any d: method='quadrature'")
        sq = _distances_exact(vf, name, X, Xp, feats, max_elements)
    return np.sqrt(np.maximum(sq, 0.0))


def _paired_grams(kernel, U, V, block=256):
    """k_l(u_rl, v_rl) for matching rows r of U and V: array (P, d)."""
    out = np.empty(U.shape)
    for lo in range(0, len(U), block):
        G = kernel.feature_grams(U[lo:lo + block], V[lo:lo + block])
        out[lo:lo + block] = np.einsum("rrl->rl", G)
    return out


def _distances_quadrature(kernel, B, X, Xp, feats, max_elements):
    """Squared distances by the two-dimensional Beta integral (interventional, gamma = 1/m)."""
    P, d = X.shape
    m = len(B)
    t, s, wq = gauss_legendre_01(max(1, math.ceil(d / 2)))
    KBB = kernel.feature_grams(B, B)                                   # (m, m, d)
    step = max(1, max_elements // (4 * m * m * d))

    def inner(U, V):
        """<g_{u,i}, g_{v,i}> for rows u of U and v of V, all features: (p, d)."""
        kUV = _paired_grams(kernel, U, V)                              # (p, d): k(u_l, v_l)
        kUB = kernel.feature_grams(U, B)                               # (p, m, d): k(u_l, b'_l)
        kBV = kernel.feature_grams(V, B)                               # (p, m, d): k(b_l, v_l)
        # E_i(b, b') = k(u_i, v_i) - k(u_i, b'_i) - k(b_i, v_i) + k(b_i, b'_i)
        E = (kUV[:, None, None, :] - kUB[:, None, :, :] - kBV[:, :, None, :] + KBB[None])
        out = np.zeros((len(U), d))
        for a in range(len(t)):
            for c in range(len(t)):
                F = (t[a] * t[c]) * kUV[:, None, None, :] + (t[a] * s[c]) * kUB[:, None, :, :] \
                    + (s[a] * t[c]) * kBV[:, :, None, :] + (s[a] * s[c]) * KBB[None]
                loo = leave_one_out_product(F)                          # prod_{l != i}
                out += (wq[a] * wq[c]) * np.einsum("pbcl,pbcl->pl", E, loo)
        return out / (m * m)

    sq = np.empty((P, len(feats)))
    for lo in range(0, P, step):
        U, V = X[lo:lo + step], Xp[lo:lo + step]
        val = inner(U, U) - 2.0 * inner(U, V) + inner(V, V)
        sq[lo:lo + step] = val[:, feats]
    return sq


def _distances_exact(vf, name, X, Xp, feats, max_elements):
    """Squared distances by enumerating all pairs of coalitions (any embedding weights)."""

    kernel, B = vf.model.kernel, vf.background
    P, d = X.shape
    m = len(B)
    Z = all_coalitions(d)
    nz = len(Z)
    C = shapley_coefficients(d, feats)                                 # (2^d, q)
    KU = CoalitionGrams(kernel, B)(Z)                                  # (2^d, m, m), K_U(b, b')
    full = nz - 1
    step = max(1, max_elements // (4 * nz * m + nz * m * m // 8 + 1))
    sq = np.empty((P, len(feats)))
    for lo in range(0, P, step):
        U, V = X[lo:lo + step], Xp[lo:lo + step]
        p = len(U)
        pts = {"u": U, "v": V}
        if name == "interventional":
            gam = {k: np.full((nz, m, p), 1.0 / m) for k in pts}
        else:
            gam = {k: vf.game(A).cme_weights(Z) for k, A in pts.items()}    # (2^d, m, p)
        logkB = {k: np.log(np.maximum(kernel.feature_grams(A, B), 1e-300)) for k, A in pts.items()}
        zeroB = {k: (kernel.feature_grams(A, B) == 0).astype(float) for k, A in pts.items()}
        G = np.zeros((p, nz, nz))
        sign = {"u": 1.0, "v": -1.0}                                   # g_u - g_v
        for a, c in (("u", "u"), ("u", "v"), ("v", "u"), ("v", "v")):
            kac = _paired_grams(kernel, pts[a], pts[c])                  # (p, d)
            logkac = np.log(np.maximum(kac, 1e-300))
            for S in range(nz):
                zs = Z[S]
                only_T = Z & ~zs                                        # T \ S, (2^d, d)
                only_S = ~Z & zs                                        # S \ T
                both = Z & zs
                U_idx = full ^ (np.arange(nz) | S)                      # (S u T)^c as bitmask
                # left[T, r, b] = gamma_S(a_r)_b k_{T\S}(b, c_r); right = gamma_T(c_r) k_{S\T}(a_r, b')
                lk = np.exp(np.einsum("tl,rbl->trb", only_T.astype(float), logkB[c]))
                lk[np.einsum("tl,rbl->trb", only_T.astype(float), zeroB[c]) > 0] = 0.0
                left = gam[a][S].T[None] * lk                           # (2^d, p, m)
                rk = np.exp(np.einsum("tl,rbl->trb", only_S.astype(float), logkB[a]))
                rk[np.einsum("tl,rbl->trb", only_S.astype(float), zeroB[a]) > 0] = 0.0
                right = gam[c].transpose(0, 2, 1) * rk                 # (2^d, p, m)
                quad = np.einsum("trb,trb->tr", np.matmul(left, KU[U_idx]), right)
                pref = np.exp(both.astype(float) @ logkac.T)            # (2^d, p): k_{S n T}(a, c)
                G[:, S, :] += (sign[a] * sign[c]) * (pref * quad).T
        sq[lo:lo + step] = np.einsum("sq,psz,zq->pq", C, G, C)
    return sq


def cme_gamma_norms(model: Any, background: ArrayLike | None = None, eta: float = 1e-3) -> np.ndarray:
    r"""Squared norms :math:`\|\hat\mu_{S^c \mid S}\|^2_\Gamma` of the empirical CME operators, per coalition.

    For the regularised estimator :math:`\hat\mu(x) = \sum_b \gamma_S(x)_b\, \psi(b_{S^c})` with
    :math:`\gamma_S(x) = (K_S + m\eta I)^{-1} k_S(B, x)`, the vector-valued RKHS norm
    is :math:`\operatorname{tr}(K_S A^{-1} K_{S^c} A^{-1})`, :math:`A = K_S + m\eta I` (the :math:`M_\Gamma` of
    RKHS-SHAP Theorem 6 for the empirical embedding).

    Parameters
    ----------
    model : kernel model
        Anything :func:`kernelxai.models.as_expansion` accepts; only its kernel and
        training inputs are used.
    background : array (m, d) or DataFrame, optional
        The sample B of the embeddings (default: the training inputs).
    eta : float, default 1e-3
        The regularisation of the CME estimator (positive).

    Returns
    -------
    ndarray (2^d,)
        Indexed by bitmask; NaN for the empty and the full coalition, whose
        value functionals the estimator fixes (v(empty) = mean f, v(D) = f(x)).

    Raises
    ------
    ValueError
        When ``eta`` is not a positive number, or ``background`` does not have the model's
        features.

    Examples
    --------
    M_Gamma of the observational Theorem-6 bound is the largest of them:

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> norms = kx.functionals.cme_gamma_norms(model, eta=1e-2)
    >>> norms.shape, bool(np.isnan(norms[[0, 7]]).all()), round(float(np.nanmax(norms)), 4)
    ((8,), True, 5.9293)
    """
    from scipy import linalg as sla

    expansion = as_expansion(model)
    check_columns(background, "background", model=expansion)
    B = check_matrix(default_background(expansion, background), "background",
                     n_features=expansion.n_features)
    if isinstance(eta, bool) or not isinstance(eta, numbers.Real) or not eta > 0:
        raise ValueError(f"eta must be a positive number; got {eta!r}")
    d, m = expansion.n_features, len(B)
    Z = all_coalitions(d)
    grams = CoalitionGrams(expansion.kernel, B)
    out = np.full(len(Z), np.nan)
    for k in range(1, len(Z) - 1):
        KS, KC = grams(Z[k:k + 1])[0], grams(~Z[k:k + 1])[0]
        A = KS.copy()
        A[np.diag_indices(m)] += m * eta
        L = cholesky_jitter(A, CME_SYSTEM, CME_ADVICE)
        X1 = sla.cho_solve((L, True), KS)                              # A^{-1} K_S
        X2 = sla.cho_solve((L, True), KC)                              # A^{-1} K_{S^c}
        out[k] = float(np.einsum("ab,ba->", X1, X2))
    return out


def theorem6_bound(X: ArrayLike, X_prime: ArrayLike, kernel: Kernel, value: str = "interventional", *,
                   m_gamma: float | None = None, form: str = "rbf", constant: str = "paper") -> np.ndarray:
    r"""The bound of RKHS-SHAP Theorem 6 on :math:`\|\phi_{x,i} - \phi_{x',i}\|^2_{\mathcal{H}}`, per pair of rows.

    With :math:`\delta = \max_l (x_l - x'_l)^2` and a product RBF kernel (:math:`M_\mu = 1`):

    * interventional: :math:`c \, \big(1 - \exp(-\delta \sum_l 1 / (2 l_l^2))\big)`
      (:math:`= 4 \big(1 - \exp(-d\delta / 2 l^2)\big)` for one lengthscale, eq. (25));
    * observational: :math:`2 M_\Gamma` times that (eq. (26)).

    Parameters
    ----------
    X, X_prime : arrays (P, d)
    kernel : RBF (``form="rbf"``) or any product kernel with :math:`k_l(x, x) = 1` (``form="tight"``)
    value : {"interventional", "observational"}
    m_gamma : float
        :math:`M_\Gamma` for the observational bound (e.g. the largest
        :func:`cme_gamma_norms` over proper coalitions). The empirical
        estimator fixes :math:`v(D) = f(x)`, whose distance is :math:`L_\delta` itself, which
        the per-coalition bound :math:`2 M_\Gamma L_\delta` covers only if :math:`M_\Gamma \ge 1/2`:
        values below 1/2 are raised to 1/2.
    form : {"rbf", "tight"}
        ``"rbf"``: :math:`L_\delta = 2 \big(1 - \exp(-\delta \sum_l 1/(2 l_l^2))\big)` as in the
        theorem. ``"tight"``: :math:`L_\delta = \sup_S \|\psi_{x_S} - \psi_{x'_S}\|^2 =
        2 \big(1 - k(x, x')\big)` exactly (product kernels bounded by 1), which the
        theorem's proof actually uses.
    constant : {"paper", "proof"}
        ``"paper"``: :math:`2 M_\mu L_\delta` (interventional) and :math:`4 M_\Gamma M_\mu L_\delta`
        (observational), as printed. ``"proof"``: twice those. Step (54) of the
        supplement bounds :math:`\|A - B\|^2` by :math:`\|A\|^2 + \|B\|^2`, which needs
        :math:`\langle A, B \rangle \ge 0`; the triangle inequality gives :math:`2 \|A\|^2 + 2 \|B\|^2`, so
        the constants that follow from the proof as written are 4 and 8.

    Returns
    -------
    ndarray (P,)
        The bound on the squared RKHS distance, one per pair of rows.

    Raises
    ------
    TypeError
        When ``kernel`` is not a product kernel.
    ValueError
        For ``form="rbf"`` with a kernel other than RBF, an observational bound without a
        non-negative ``m_gamma``, an unknown ``value``, ``form`` or ``constant``, or ``X``
        and ``X_prime`` of different shapes.

    Examples
    --------
    The squared distances of :func:`functional_distances` for a model with the same RBF
    kernel (``gamma = 1 / (2 lengthscale**2)``) are within the bound:

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> bound = kx.functionals.theorem6_bound(X[:2], X[:2] + 0.1, kx.kernels.RBF(lengthscale=1.0))
    >>> dist = kx.functionals.functional_distances(model, X[:2], X[:2] + 0.1)
    >>> np.round(bound, 4), bool(np.all(dist**2 <= bound[:, None]))
    (array([0.0596, 0.0596]), True)
    """

    value = check_choice(value, "value", ("interventional", "observational"))
    form = check_choice(form, "form", ("rbf", "tight"))
    constant = check_choice(constant, "constant", ("paper", "proof"))
    if not isinstance(kernel, ProductKernel):
        raise TypeError(f"Theorem 6 is stated for product kernels; got {kernel!r}")
    d = kernel.n_features or np.shape(X)[-1]
    X, Xp = _pairs(X, X_prime, d)
    if form == "rbf":
        if not isinstance(kernel, RBF):
            raise ValueError(f"form='rbf' is the theorem's closed form for the RBF kernel; got "
                             f"{kernel!r}. Use form='tight' (L_delta = 2 (1 - k(x, x')))")
        ls = np.broadcast_to(np.asarray(kernel.lengthscale, dtype=float), (X.shape[1],))
        delta = np.max((X - Xp) ** 2, axis=1)
        L = 2.0 * -np.expm1(-delta * np.sum(1.0 / (2.0 * ls**2)))
    else:
        k = _paired_grams(kernel, X, Xp).prod(axis=1)
        L = 2.0 * (1.0 - k)
    factor = 2.0 if constant == "paper" else 4.0
    if value == "interventional":
        return factor * L
    if m_gamma is None or not np.isfinite(m_gamma) or m_gamma < 0:
        raise ValueError("the observational bound needs m_gamma >= 0 (e.g. "
                         "np.nanmax(kx.functionals.cme_gamma_norms(model, eta=eta)))")
    return 2.0 * factor * max(float(m_gamma), 0.5) * L
