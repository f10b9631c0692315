"""Checks of the exercise notebooks 05 (dependent features: the conditional Gaussian, conditional
Shapley values of a linear model) and 06 (kernel models via mean embeddings: the embedding of the
absent features, the interventional and the marginal value of a coalition).

Takes nothing; registers its tasks with ``_grading.register`` when imported. The reference
:func:`conditional_moments` is checked against the precision-matrix form by the tests.
"""

from __future__ import annotations

import numpy as np

from ...kernels import RBF
from ...models import KernelExpansion
from ...values import Interventional, Marginal
from ._grading import Fail, answer_array, answer_scalar, call_answer, close_to, fmt, register, type_name
from ._student_games import exact_shapley

# =========================================================================== #
# 05 dependent features and conditional estimators
# =========================================================================== #
_NB5 = "05-dependent-features"


def random_gaussian(rng, d) -> tuple[np.ndarray, np.ndarray]:
    A = rng.normal(size=(d, d))
    Sigma = A @ A.T / d + 0.2 * np.eye(d)
    return rng.normal(size=d), Sigma


def conditional_moments(mu, Sigma, S, x) -> tuple[np.ndarray, np.ndarray]:
    d = len(mu)
    S = sorted(S)
    T = [j for j in range(d) if j not in S]
    if not T:
        return np.zeros(0), np.zeros((0, 0))
    if not S:
        return mu[T].copy(), Sigma[np.ix_(T, T)].copy()
    coef = np.linalg.solve(Sigma[np.ix_(S, S)], Sigma[np.ix_(S, T)])
    mean = mu[T] + (x[S] - mu[S]) @ coef
    cov = Sigma[np.ix_(T, T)] - Sigma[np.ix_(T, S)] @ coef
    return mean, cov


@register("conditional-gaussian", "the distribution of the absent features given the present ones",
          "conditional_gaussian(mu, Sigma, S, x) -> (mean, cov)", _NB5)
def _check_conditional_gaussian(fn, rng):
    for d in (3, int(rng.integers(4, 7))):
        mu, Sigma = random_gaussian(rng, d)
        x = rng.normal(size=d) * 2
        sizes = [0, 1, d - 1]
        for k in sizes:
            S = sorted(rng.choice(d, size=k, replace=False).tolist())
            T = [j for j in range(d) if j not in S]
            context = f"a random Gaussian with d={d}, S={S}"
            out = call_answer(fn, (mu.copy(), Sigma.copy(), list(S), x.copy()), context)
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise Fail(f"return a pair (mean, cov); got {type_name(out)} ({context})")
            mean = answer_array(out[0], (len(T),), "the conditional mean of the absent features", context)
            cov = answer_array(out[1], (len(T), len(T)), "the conditional covariance", context)
            m_true, c_true = conditional_moments(mu, Sigma, S, x)
            ok_m = np.allclose(mean, m_true, atol=1e-8 * (1 + np.abs(m_true).max()))
            ok_c = np.allclose(cov, c_true, atol=1e-8 * (1 + np.abs(c_true).max()))
            if ok_m and ok_c:
                continue
            if not S and not ok_m:
                raise Fail("with nothing observed (S = ∅) the conditional mean is the mean itself")
            if ok_m:
                raise Fail(f"the mean is right but the covariance is not ({context}): "
                           "Sigma_TT - Sigma_TS Sigma_SS^-1 Sigma_ST, which does not depend on x")
            if np.allclose(mean, mu[T]):
                raise Fail(f"your mean ignores the observed features ({context}): "
                           "mu_T + Sigma_TS Sigma_SS^-1 (x_S - mu_S)")
            raise Fail(f"the conditional mean is wrong ({context}); the absent features T are "
                       "the complement of S in increasing order")
    return "mean and covariance right for 6 coalitions of 2 random Gaussians"


def _linear_conditional_table(beta, mu, Sigma, x):
    d = len(beta)
    table = np.empty(2**d)
    for m in range(2**d):
        S = [j for j in range(d) if (m >> j) & 1]
        T = [j for j in range(d) if not (m >> j) & 1]
        mean, _ = conditional_moments(mu, Sigma, S, x)
        table[m] = beta[S] @ x[S] + beta[T] @ mean
    return table


@register("linear-conditional-shapley", "exact conditional Shapley values of a linear model of Gaussian features",
          "linear_conditional_shapley(beta, mu, Sigma, x) -> array (d,)", _NB5)
def _check_linear_conditional(fn, rng):
    for d in (3, int(rng.integers(4, 7))):
        mu, Sigma = random_gaussian(rng, d)
        beta = rng.normal(size=d) * 2
        x = mu + rng.normal(size=d) * 1.5
        context = f"a random linear model and Gaussian with d={d}"
        got = answer_array(call_answer(fn, (beta.copy(), mu.copy(), Sigma.copy(), x.copy()), context), (d,),
                           "one value per feature", context)
        table = _linear_conditional_table(beta, mu, Sigma, x)
        truth = exact_shapley(table)
        scale = np.abs(table).max()
        if close_to(got, truth, scale, rtol=1e-7):
            continue
        total = beta @ (x - mu)
        if not close_to(got.sum(), total, scale, rtol=1e-7):
            raise Fail(f"efficiency fails: the values must add up to f(x) - E f(X) = {fmt(total)}; "
                       f"yours add up to {fmt(got.sum())} ({context})")
        if close_to(got, beta * (x - mu), scale, rtol=1e-7):
            raise Fail("these are the interventional values beta_j (x_j - mu_j); the conditional "
                       "game fills the absent features with E[X_T | X_S = x_S], which moves with "
                       "the observed ones")
        raise Fail(f"not the Shapley values of v(S) = beta . E[X | X_S = x_S] ({context})")
    return "equal to the exact conditional values (kx.shapley_values of the conditional game)"


# =========================================================================== #
# 06 Shapley values of kernel models via mean embeddings
# =========================================================================== #
_NB6 = "06-mean-embeddings"


def _random_kernel_model(rng, n, d):
    X = rng.normal(size=(n, d))
    lengthscale = rng.uniform(0.7, 2.0, size=d)
    return KernelExpansion(X, rng.normal(size=n), RBF(lengthscale), intercept=float(rng.normal())), lengthscale


@register("mean-embedding", "the kernel mean embedding of the absent features, at every training point",
          "absent_embedding(background, X_train, lengthscale, S) -> array (n,)", _NB6)
def _check_mean_embedding(fn, rng):
    for d in (3, int(rng.integers(4, 7))):
        n, m = int(rng.integers(5, 20)), int(rng.integers(4, 15))
        X = rng.normal(size=(n, d))
        B = rng.normal(size=(m, d))
        ls = rng.uniform(0.5, 2.0, size=d)
        for k in (1, d - 1, 0, d):
            S = sorted(rng.choice(d, size=k, replace=False).tolist())
            absent = np.ones(d, dtype=bool)
            absent[S] = False
            context = f"random background (m={m}), training points (n={n}), d={d}, S={S}"
            got = answer_array(call_answer(fn, (B.copy(), X.copy(), ls.copy(), list(S)), context), (n,),
                               "one number per training point", context)
            truth = RBF(ls).gram(B, X, subset=absent).mean(axis=0)
            if np.allclose(got, truth, atol=1e-10):
                continue
            if k == d:
                raise Fail("with every feature present nothing is absent: the empty product is 1, "
                           "so the embedding is 1 at every training point")
            present = RBF(ls).gram(B, X, subset=~absent).mean(axis=0)
            if 0 < k < d and np.allclose(got, present, atol=1e-10):
                raise Fail(f"you used the present features S; the embedding is over the absent ones, "
                           f"the complement of S ({context})")
            if np.allclose(got, RBF(ls).gram(B, X, subset=absent).sum(axis=0), atol=1e-10):
                raise Fail(f"average over the background points, do not add them up ({context})")
            raise Fail(f"not (1/m) sum_b prod_(j not in S) exp(-(b_j - x_ij)^2 / (2 l_j^2)) ({context})")
    return "equal to kernelxai's RBF Gram matrices, averaged over the background, for 8 coalitions"


@register("interventional-value", "the interventional value of a coalition from mean embeddings (RKHS-SHAP)",
          "interventional_value(model, background, x, S) -> float", _NB6)
def _check_interventional_value(fn, rng):
    for d in (3, int(rng.integers(4, 6))):
        model, _ = _random_kernel_model(rng, int(rng.integers(8, 25)), d)
        B = rng.normal(size=(int(rng.integers(5, 15)), d))
        x = rng.normal(size=d)
        game = Interventional(model, B).game(x[None, :])
        for k in (1, d - 1, 0, d):
            S = sorted(rng.choice(d, size=k, replace=False).tolist())
            mask = np.zeros(d, dtype=bool)
            mask[S] = True
            context = f"a random RBF kernel model (d={d}), background of {len(B)} points, S={S}"
            got = answer_scalar(call_answer(fn, (model, B.copy(), x.copy(), list(S)), context), "a number", context)
            truth = float(np.asarray(game(mask[None, :])).ravel()[0])
            if abs(got - truth) <= 1e-9 * max(1.0, abs(truth)):
                continue
            if abs(got + model.intercept - truth) <= 1e-9 * max(1.0, abs(truth)):
                raise Fail(f"you left out the model's intercept b = model.intercept ({context})")
            if k == 0:
                raise Fail("for S = ∅ the value is the mean prediction over the background")
            if k == d:
                raise Fail("for S = all features the value is the prediction f(x)")
            raise Fail(f"not sum_i alpha_i K_S(x, x_i) mu_(not S)(x_i) + b ({context})")
    return "equal to kx.values.Interventional on 2 random kernel models, 8 coalitions"


@register("marginal-value", "the same value by averaging model calls over the background",
          "marginal_value(predict, background, x, S) -> float", _NB6)
def _check_marginal_value(fn, rng):
    for d in (3, int(rng.integers(4, 6))):
        model, _ = _random_kernel_model(rng, int(rng.integers(8, 25)), d)
        B = rng.normal(size=(int(rng.integers(5, 15)), d))
        x = rng.normal(size=d)
        game = Marginal(model.predict, B).game(x[None, :])
        for k in (1, d - 1, 0, d):
            S = sorted(rng.choice(d, size=k, replace=False).tolist())
            mask = np.zeros(d, dtype=bool)
            mask[S] = True
            context = f"a random model (d={d}), background of {len(B)} points, S={S}"
            got = answer_scalar(call_answer(fn, (model.predict, B.copy(), x.copy(), list(S)), context), "a number",
                                context)
            truth = float(np.asarray(game(mask[None, :])).ravel()[0])
            if abs(got - truth) <= 1e-9 * max(1.0, abs(truth)):
                continue
            if 0 < k < d:
                swapped = B.copy()
                keep = np.setdiff1d(np.arange(d), S)
                swapped[:, keep] = x[keep]
                if abs(float(model.predict(swapped).mean()) - got) <= 1e-9 * max(1.0, abs(truth)):
                    raise Fail("you kept x on the absent features and the background on the present "
                               f"ones; it is the other way round ({context})")
            raise Fail(f"not the mean over the background rows b of f(x_S, b_(not S)) ({context})")
    return "equal to kx.values.Marginal (model calls) on 2 random models, 8 coalitions"
