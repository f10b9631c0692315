"""Converter of scikit-learn's ``KernelPCA``: every component of ``transform`` as a kernel expansion.

Takes a fitted ``sklearn.decomposition.KernelPCA`` (any kernel but
``"precomputed"``, any ``eigen_solver``). Hands on one output,
``"components"``: column j of ``transform(x)``, one output per component on
the Explanation's outputs axis (named as ``get_feature_names_out``). With
``a_j = eigenvectors_[:, j] / sqrt(eigenvalues_[j])`` (0 for a zero eigenvalue,
as scikit-learn) and the centered kernel
``k_c(x, x_i) = k(x, x_i) - mean_l k(x, x_l) - mean_l k(x_l, x_i) + mean_lm k(x_l, x_m)``,

    transform(x)[j] = sum_i a_ij k_c(x, x_i) = sum_i (a_ij - mean_l a_lj) k(x, x_i) + sum_i a_ij (m - r_i)

(``r_i`` the column means of the training Gram matrix, ``m`` its mean): an
expansion over the training inputs with an intercept, exact. ``"rbf"`` is the
RBF product kernel, ``"linear"`` closed form, the others as scikit-learn
evaluates them (``kernelxai.kernels._from_sklearn.Pairwise``). Every
eigen-solver (``"dense"``, ``"arpack"``, ``"randomized"``) leaves
``eigenvectors_`` / ``eigenvalues_``, which is all ``transform`` reads;
``fit_inverse_transform`` only adds ``inverse_transform``, which is not
explained. ``kernel="precomputed"`` has no kernel function of the features and
is refused.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._validation import as_real_array
from ...kernels._from_sklearn import krr_kernel
from .._estimation import fitted_feature_names
from .._expansion import KernelExpansion
from ._converters import Converter, Example, refuse_precomputed, register, require_fitted
from ._plans import OutputPlan, column, expansion_or_calls, refuse

if TYPE_CHECKING:
    from ._converters import Dispatch

__all__ = ["KERNEL_PCA"]

def _check(kpca: Any) -> None:
    require_fitted(kpca, "eigenvectors_")
    refuse_precomputed(kpca)


def _centering(kpca: Any, kernel: Any, X: np.ndarray) -> tuple[np.ndarray, float]:
    """(r, m): column means and mean of the training Gram matrix (scikit-learn's KernelCenterer)."""
    # scikit-learn's fitted KernelCenterer is private (no public accessor); without it, the Gram matrix again
    centerer = getattr(kpca, "_centerer", None)
    if centerer is not None and hasattr(centerer, "K_fit_rows_"):
        return np.asarray(centerer.K_fit_rows_, dtype=float), float(centerer.K_fit_all_)
    K = kernel.gram(X)
    return K.mean(axis=0), float(K.mean())


def _scaled_alphas(kpca: Any) -> np.ndarray:
    vectors = np.asarray(kpca.eigenvectors_, dtype=float)
    values = np.asarray(kpca.eigenvalues_, dtype=float)
    out = np.zeros_like(vectors)
    nonzero = np.flatnonzero(values)
    out[:, nonzero] = vectors[:, nonzero] / np.sqrt(values[nonzero])
    return out


def _expansion(kpca: Any, dispatch: Dispatch) -> KernelExpansion:
    """The expansion of a KernelPCA with one component (the plan gives one shim per component)."""
    _check(kpca)
    a = _scaled_alphas(kpca)
    if a.shape[1] != 1:
        raise TypeError(f"sklearn KernelPCA with {a.shape[1]} components has one expansion per component: "
                        "kx.explain(kpca, X) explains them all (output='components')")
    a = a[:, 0]
    X = as_real_array(kpca.X_fit_, "the model's training inputs")
    kernel = krr_kernel(kpca, X.shape[1])
    r, m = _centering(kpca, kernel, X)
    return KernelExpansion(X, a - a.mean(), kernel, float(a @ (m - r)),
                           feature_names=fitted_feature_names(kpca), source="KernelPCA")


def _component(kpca: Any, j: int) -> Any:
    shim = copy.copy(kpca)
    shim.eigenvectors_ = np.asarray(kpca.eigenvectors_)[:, [j]]
    shim.eigenvalues_ = np.asarray(kpca.eigenvalues_)[[j]]
    return shim


def _names(kpca: Any, k: int) -> list[str]:
    try:
        return [str(c) for c in kpca.get_feature_names_out()]
    except (AttributeError, ValueError, TypeError):
        return [f"component_{j}" for j in range(k)]


def _plan(model: Any, kpca: Any, rebuild: Any, output: str | None, dispatch: Dispatch) -> OutputPlan:
    _check(kpca)
    if output not in (None, "components"):
        refuse(kpca, output, ["components"], " (a KernelPCA's outputs are its components)")
    k = np.asarray(kpca.eigenvectors_).shape[1]
    targets = [(name, expansion_or_calls(_component(kpca, j), rebuild, column(model.transform, j), model,
                                         f"component {j} through model calls", dispatch.as_expansion))
               for j, name in zip(range(k), _names(kpca, k))]
    desc = (f"transform(x)[:, j], the {k} kernel principal components: sum_i a_ij k_c(x, x_i) with the "
            "kernel centered on the training inputs (affine in k(x, X)), each a kernel expansion")
    return OutputPlan("components", desc, targets, True)


def _examples() -> list[Example]:
    from sklearn.decomposition import KernelPCA

    def kpca(**kw):
        return lambda X, t: KernelPCA(**kw).fit(X)

    call = {None: lambda m: m.transform}
    return [
        Example("KernelPCA (3 components)", "rbf", kpca(n_components=3, kernel="rbf", gamma=0.3), calls=call),
        Example("KernelPCA (arpack, inverse transform)", "rbf",
                kpca(n_components=2, kernel="rbf", eigen_solver="arpack", fit_inverse_transform=True),
                calls=call, in_table=False),
        Example("KernelPCA (randomized)", "linear",
                kpca(n_components=2, kernel="linear", eigen_solver="randomized", random_state=0),
                calls=call, in_table=False),
        Example("KernelPCA (2 components)", "poly", kpca(n_components=2, kernel="poly", degree=2), calls=call,
                route="model calls"),
    ]


KERNEL_PCA = register(Converter(
    name="sklearn_kernel_pca",
    classes=("sklearn.decomposition:KernelPCA",),
    expansion=_expansion,
    plan=_plan,
    outputs=("components",),
    default="components",
    exact=("components",),
    route="sklearn KernelPCA: each component of transform an expansion on X_fit_ with the centered kernel "
          "(affine in k(x, X)); any eigen_solver; kernel 'precomputed' refused",
    examples=_examples,
    priority=20,
))
