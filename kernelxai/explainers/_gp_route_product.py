"""The product covariance route of GP-SHAP: interventional values of product kernels, no enumeration.

Takes a ``kernelxai.explainers._gp_route_base.CovarianceProblem`` whose
kernel has product terms; hands on the covariance blocks of the Shapley values
from the Gauss-Legendre quadratures of ``kernelxai.explainers._gp_product``,
in polynomial time in d. Registered as ``method="product"`` in
``kernelxai.explainers._gp_routes``.
"""

from __future__ import annotations

import math

import numpy as np

from .._calibration import Work
from ._gp_posterior import Posterior
from ._gp_product import product_prior, product_psi
from ._gp_route_base import CovarianceRoute

__all__ = ["ProductRoute", "Product"]


class ProductRoute:
    """The product covariance route's computation: interventional values of product kernels, no enumeration.

    The prior term comes from ``kernelxai.explainers._gp_product.product_prior``
    and the data term from the Shapley values of the training points' games
    (``kernelxai.explainers._gp_product.product_psi``), both by
    Gauss-Legendre quadrature in polynomial time in d.

    Parameters
    ----------
    post : Posterior
        The GP's latent posterior (or prior) covariance.
    B : ndarray (m, d)
        Background rows.
    terms : list of (float, ProductKernel)
        The GP kernel as weighted product terms
        (``kernelxai.explainers._gp_product.product_terms``).

    Notes
    -----
    Its checks on a small GP (equal to the exact route) are in
    ``tests/test_gp_route_examples.py`` (the kernel's product terms come from
    private helpers only).
    """

    name = "product"

    def __init__(self, post: Posterior, B: np.ndarray, terms):
        self.post, self.B, self.terms = post, B, terms

    def _whitened_psi(self, X):
        if self.post.L is None:
            return np.zeros((0, len(X), X.shape[1]))
        psi = product_psi(self.terms, X, self.B, self.post.X_train)     # (n, d, nt)
        n, d, nt = psi.shape
        G = self.post.solve(psi.transpose(2, 0, 1).reshape(nt, n * d))
        return G.reshape(nt, n, d)

    def block(self, X1, X2=None) -> np.ndarray:
        """(n1, n2, d, d): Cov(phi_{x1_a}, phi_{x2_b}); X2=None means X1 (symmetric)."""
        prior = product_prior(self.terms, X1, X1 if X2 is None else X2, self.B)
        G1 = self._whitened_psi(X1)
        G2 = G1 if X2 is None else self._whitened_psi(X2)
        cross = np.einsum("taj,tbk->abjk", G1, G2, optimize=True)
        return self.post.scale2 * (prior - cross)

    def per_point(self, X) -> tuple[np.ndarray, None]:
        """(n, d, d): each point's covariance, and None (exact: no Monte Carlo error)."""
        out = np.empty((len(X), X.shape[1], X.shape[1]))
        for i in range(len(X)):
            out[i] = self.block(X[i:i + 1])[0, 0]
        return out, None


class Product(CovarianceRoute):
    """``method="product"``: the covariance of interventional values of a product kernel, by quadrature.

    Refused for observational values (their weights beta(x_S) are not
    products over features) and for a kernel without product terms.
    """

    name = "product"

    def check(self, value, terms, d, m, n, joint) -> None:
        if value != "interventional":
            raise ValueError(
                "method='product' computes the covariance of interventional values only (the "
                "observational weights beta(x_S) are not products over features); use "
                "method='exact' (d <= ~12) or 'sampled' for value='observational'"
            )
        if terms is None:
            raise ValueError(
                "method='product' needs a product kernel (RBF, ARD or not, Laplace-type, their "
                "products, constants, and sums of those); this GP's kernel is not one. Use "
                "method='exact' (small d) or method='sampled'."
            )

    def cells(self, d, n_permutations) -> float:
        return 0   # no coalition is formed

    def cost(self, d, m, n_train, n_cells) -> Work:
        """The 2-D quadrature of the prior term (elementwise) and the training system's products (BLAS)."""
        q = max(1, math.ceil(d / 2))
        # the prior term's broadcasts over (rows, rows, nodes^2, d) blocks run out of the cache
        return Work(flops=30.0 * m * m * q * q * d * d + 4.0 * m * n_train * q * d,
                    blas_flops=2.0 * n_train * n_train * d)

    def computation(self, problem, seed) -> ProductRoute:
        return ProductRoute(problem.post, problem.B, problem.terms)

    def describe(self, problem) -> str:
        return ("computed without enumerating coalitions: the product-kernel Shapley games of the "
                "cross term and a 2-D Gauss-Legendre double Shapley transform of the prior term "
                "(exact to rounding)")
