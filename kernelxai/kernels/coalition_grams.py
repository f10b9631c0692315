"""Gram matrices of many coalitions from one cached per-feature tensor.

Takes a product kernel, a sum of them or a Matern kernel and two point sets;
hands on K_S(A, B) for any coalitions S to the value functions that condition
on coalitions (RKHS-SHAP) and the functionals.
"""

from __future__ import annotations

import numpy as np

from .non_product import Matern, SumKernel
from .product_kernels import ProductKernel

__all__ = ["CoalitionGrams"]


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

