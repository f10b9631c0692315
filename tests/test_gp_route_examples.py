"""The covariance routes of GP-SHAP, used directly: what their docstrings showed as examples.

The routes are private (``kernelxai/explainers/_gp_routes.py``) and built from a fitted GP's
latent posterior, which only private helpers give; docstring examples use public names only, so
these checks live here. On a 3-feature GP with 20 training rows and 5 background rows: the exact
route's covariance block has the efficiency sum (the variance of f(x) - mean_b f(b)), the sampled
route gets the same sum exactly, and the product route equals the exact one.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF

from kernelxai.explainers._gp_posterior import fitted_gp
from kernelxai.explainers._gp_product import product_terms
from kernelxai.explainers._gp_routes import ExactRoute, ProductRoute, SampledRoute, uniform_weights

#: Var(f(x_0) - mean_b f(b)) under the posterior of the GP below
EFFICIENCY_VARIANCE = 0.035955


@pytest.fixture(scope="module")
def setting():
    X = np.random.default_rng(0).normal(size=(20, 3))
    y = X[:, 0] + X[:, 1] * X[:, 2]
    gp = GaussianProcessRegressor(RBF(1.0), alpha=0.1, optimizer=None).fit(X, y)
    return X, gp, fitted_gp(gp).post, X[:5]


def uniform(rows, masks):
    return uniform_weights(rows, masks, 5)


def test_exact_route_block(setting):
    X, _, post, B = setting
    C = ExactRoute(post, B, uniform).block(X[:2])   # Cov(phi(x_a), phi(x_b)) for a, b in the two points
    assert C.shape == (2, 2, 3, 3)
    assert round(float(C[0, 0].sum()), 6) == EFFICIENCY_VARIANCE


def test_sampled_route_sum_is_exact(setting):
    X, _, post, B = setting
    cov, err = SampledRoute(post, B, uniform, 32, np.random.default_rng(0)).per_point(X[:1])
    assert cov.shape == (1, 3, 3) and err.shape == (1, 3, 3)
    assert round(float(cov[0].sum()), 6) == EFFICIENCY_VARIANCE   # the entries are estimates


def test_product_route_equals_exact(setting):
    X, gp, post, B = setting
    route = ProductRoute(post, B, product_terms(gp.kernel_, 3))
    assert np.allclose(route.block(X[:2]), ExactRoute(post, B, uniform).block(X[:2]))
