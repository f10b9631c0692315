# %% [markdown]
# # Exercises 8 · How good is a sampled explanation?
#
# With many features the Shapley values are *sampled*: KernelSHAP evaluates the game on a few
# hundred coalitions instead of all $2^d$ and fits the values by the constrained regression
# of exercise 03. Two ideas make it much better than drawing coalitions one by one:
#
# * **draw from the Shapley kernel**: a size $s$ with the kernel's probability, then a
#   coalition of that size uniformly (the coalitions then enter the regression with equal
#   weights);
# * **pair them**: each coalition $S$ is followed by its complement $N \setminus S$. The two
#   carry opposite information about every player, and errors that would push the fit one way
#   on $S$ push it back on the complement (*antithetic* sampling).
#
# For most models nobody can tell how far a sampled explanation is from the truth. For kernel
# models kernelxai computes the exact values in polynomial time — so here you can: you write
# the paired sampler and the estimator, and score them against the exact explanation of a
# real model.

# %% tags=["parameters"]
seed = 0               # randomness of the examples below (the checks draw their own)
results_path = None    # a JSON file to record which checks passed
n_runs = 8             # repeated runs per budget in the error study

# %% slide="skip"
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.svm import SVR

import kernelxai as kx

rng = np.random.default_rng(seed)
kx.exercises.reset()

# %% [markdown]
# ## Task 1 · Paired coalitions
#
# Write `paired_coalitions(d, n_pairs, rng)` returning a boolean matrix with `2 * n_pairs`
# rows and `d` columns: row `2k` a coalition drawn from the Shapley kernel (sizes `1 … d-1`
# with the probabilities `kx.games.coalition_size_distribution(d)` gives, then the members
# uniformly), row `2k + 1` its complement. Draw everything from `rng`.

# %% solution="paired-coalitions"
def paired_coalitions(d, n_pairs, rng):
    """n_pairs coalitions from the Shapley kernel, each followed by its complement."""
    ### BEGIN SOLUTION
    sizes, probability = kx.games.coalition_size_distribution(d)
    drawn = rng.choice(sizes, size=n_pairs, p=probability)
    first = np.zeros((n_pairs, d), dtype=bool)
    for row, s in enumerate(drawn):
        first[row, rng.choice(d, size=s, replace=False)] = True
    Z = np.empty((2 * n_pairs, d), dtype=bool)
    Z[0::2], Z[1::2] = first, ~first
    return Z
    ### END SOLUTION

# %% check="paired-coalitions"
result = kx.exercises.check("paired-coalitions", paired_coalitions)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## Task 2 · KernelSHAP on the paired sample
#
# Write `paired_kernel_shap(worth, d, budget, rng)`: `worth(Z)` returns the worths of the
# coalitions in the rows of a boolean matrix `Z`. Spend at most `budget` evaluations: the
# empty and the full coalition, then `(budget - 2) // 2` pairs from your sampler. Return the
# $\phi$ that minimises $\sum_S (v(S) - v(\emptyset) - \sum_{j \in S}\phi_j)^2$ over the sampled
# coalitions subject to $\sum_j \phi_j = v(N) - v(\emptyset)$.
#
# *Hint:* evaluate all coalitions in one call of `worth`; for the constraint, solve the KKT
# system of exercise 03 with equal weights.

# %% solution="paired-kernelshap"
def paired_kernel_shap(worth, d, budget, rng):
    """Shapley values from paired samples of the Shapley kernel, within budget evaluations."""
    ### BEGIN SOLUTION
    Z = np.vstack([np.zeros((1, d), bool), np.ones((1, d), bool), paired_coalitions(d, (budget - 2) // 2, rng)])
    v = np.asarray(worth(Z), dtype=float)
    v0, v1 = v[0], v[1]
    A, y = Z[2:].astype(float), v[2:] - v0
    kkt = np.zeros((d + 1, d + 1))
    kkt[:d, :d] = A.T @ A
    kkt[:d, d] = kkt[d, :d] = 1.0
    return np.linalg.lstsq(kkt, np.append(A.T @ y, v1 - v0), rcond=None)[0][:d]
    ### END SOLUTION

# %% check="paired-kernelshap"
result = kx.exercises.check("paired-kernelshap", paired_kernel_shap)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## Against the truth: an SVR on real data
#
# A support-vector regression with an RBF kernel on scikit-learn's diabetes data (10
# covariates). Its interventional game at one patient $x$ averages the model over background
# rows $b$ with the absent features taken from $b$:
# $v(S) = \frac1m \sum_b f(x_S, b_{N \setminus S})$. kernelxai's product route computes its
# Shapley values exactly; your estimator only sees `worth`.

# %%
data = load_diabetes()
X = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
svr = SVR(gamma=0.1, C=100.0, epsilon=5.0).fit(X, data.target)
background, x = X[:30], X[100]
d = X.shape[1]
exact = kx.explain(svr, x[None], background=background, method="product").values[0]


def worth(Z):
    """v(S) of each coalition in the rows of Z: the model averaged over the background."""
    rows = np.where(np.asarray(Z, bool)[:, None, :], x, background[None])   # (coalitions, m, d)
    return svr.predict(rows.reshape(-1, d)).reshape(len(Z), -1).mean(axis=1)


budgets = [42, 82, 162, 322, 642]
try:
    yours = [np.mean([np.sum((paired_kernel_shap(worth, d, b, rng) - exact) ** 2) / np.sum(exact**2)
                      for _ in range(n_runs)]) for b in budgets]
except NotImplementedError:   # task 2 not answered yet: kernelxai's estimator alone
    yours = None
game = kx.FunctionGame(worth, d)
theirs = [np.mean([np.sum((kx.shapley_values(game, method="kernel", budget=b,
                                             seed=int(rng.integers(2**31))).values - exact) ** 2)
                   / np.sum(exact**2) for _ in range(n_runs)]) for b in budgets]
fig, ax = plt.subplots(figsize=(5.5, 3.5))
if yours is not None:
    ax.loglog(budgets, yours, "o-", label="your paired KernelSHAP")
ax.loglog(budgets, theirs, "s--", label="kx: method='kernel'")
ax.set_xlabel("coalitions evaluated"); ax.set_ylabel("relative squared error")
ax.set_title(f"error against the exact values (d = {d}, mean of {n_runs} runs)"); ax.legend();

# %% [markdown]
# **Questions.** (1) The error falls roughly like $1/\text{budget}$: why that rate? (2) Drop
# the pairing — draw `budget - 2` independent coalitions from the kernel — and plot the error
# again: by how much does pairing help on this model? (3) With $d = 10$ there are only 1,022
# proper coalitions: what should your estimator return when the budget exceeds them?
#
# **Further:** notebook `20-pkex-exact-vs-sampling` follows the error as $d$ grows, and
# `kx.compare_estimators` scores every sampled estimator of kernelxai against exact values.

# %% slide="skip"
kx.workbench.save_results(results_path, {"checks": kx.exercises.results()})
print(kx.exercises.results())
