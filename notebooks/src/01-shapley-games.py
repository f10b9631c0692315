# %% [markdown]
# # 01 · Cooperative games and the Shapley value
#
# Before any kernel appears, this notebook sets up the object everything in
# kernelxai rests on: a **cooperative game**. A game assigns a worth $v(S)$ to
# every coalition $S$ of players; the Shapley value splits the worth of the
# grand coalition among the players by averaging each player's marginal
# contribution over all coalitions it could join,
#
# $$\phi_j = \sum_{S \subseteq D\setminus\{j\}} \frac{|S|!\,(d-|S|-1)!}{d!}\,\bigl(v(S\cup\{j\}) - v(S)\bigr).$$
#
# We work through the two small games of the lecture (a shared taxi and an
# airport runway), then look at two ways of computing Shapley values when
# enumerating every coalition is too expensive:
#
# * **KernelSHAP** — the Shapley value is the solution of a weighted least-squares
#   problem over coalitions, so a subsample of coalitions gives an estimate;
# * **permutation sampling** — average marginal contributions along random
#   orderings of the players, which also gives a standard error and an interval.
#
# Every number below is computed by `kernelxai`; the notebook only calls it and plots.

# %% tags=["parameters"]
import kernelxai as kx

smoke = False            # tiny sizes for the test suite
paper = False            # no paper setting here: the lecture examples are exact
seed = 0
results_path = "../build/results/01-shapley-games.json"
# repeated runs for the interval-coverage study
n_repeats = kx.workbench.default(400, smoke=60, minimum=2)
# permutations per run in the coverage study
n_permutations = kx.workbench.default(40, smoke=20, minimum=2)
# game evaluations of the convergence study on the voting game
budgets = kx.workbench.default([50, 100, 200, 400, 800, 1600, 3200], smoke=[50, 100, 200, 400, 800],
                               minimum=13)
# runs per budget in the convergence study
n_runs = kx.workbench.default(10, smoke=3, minimum=1)

# %%
import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

params = kx.workbench.resolve_parameters(globals())   # validated; smoke/paper fill only unset sizes
globals().update(params)
rng = np.random.default_rng(seed)
results = {}

# %% [markdown]
# ## The taxi game
#
# Amy, Bob and Claire share a taxi going the same way. Alone, Amy's trip costs
# \$6, Bob's \$12 and Claire's \$42; any group pays the fare of its farthest
# member. The worth of a coalition is its fare:

# %%
taxi = kx.TabularGame(
    {(): 0, (0,): 6, (1,): 12, (2,): 42, (0, 1): 12, (0, 2): 42, (1, 2): 42, (0, 1, 2): 42},
    player_names=["Amy", "Bob", "Claire"],
)
taxi_values = kx.shapley_values(taxi, method="exact")
taxi_values.to_frame()

# %% [markdown]
# Amy pays \$2, Bob \$5 and Claire \$35. The split has a neat reading: everyone
# shares the first \$6 leg three ways, Bob and Claire share the next \$6 two ways,
# and Claire alone pays the last \$30. The values add up to the fare of the whole
# group (*efficiency*):

# %%
print("Shapley values:", taxi_values.values, " sum:", taxi_values.values.sum(),
      " v(all):", taxi.full_value)
kx.plots.bar(taxi_values, title="Taxi fare shares");
results["taxi"] = taxi_values.values

# %% [markdown]
# ## The airport game
#
# Four aircraft use one runway. Aircraft A needs the first segment (cost 8),
# B the first two (8 + 3), C three (+ 2) and D all four (+ 5). A coalition
# must build the runway its largest aircraft needs, so $v(S)$ is the cost of
# the longest runway in $S$. Here the game is a Python function of the
# coalition matrix — kernelxai games are vectorised, one row per coalition.

# %%
segments = np.array([8.0, 3.0, 2.0, 5.0])
runway = np.cumsum(segments)          # cost of the runway each aircraft needs

def airport_cost(coalitions):
    return np.where(coalitions.any(axis=1), (coalitions * runway).max(axis=1), 0.0)

airport = kx.FunctionGame(airport_cost, n_players=4, player_names=list("ABCD"))
airport_values = kx.shapley_values(airport, method="exact")
airport_values.to_frame()

# %% [markdown]
# Each segment's cost is split equally among the aircraft that use it:
# A pays a quarter of the first segment (2), B adds a third of the second (3),
# C adds half of the third (4), and D alone pays for the last one (9).

# %%
results["airport"] = airport_values.values

# %% [markdown]
# ## KernelSHAP: Shapley values as a weighted regression
#
# Stack every coalition as a row of a binary matrix $Z$ (with a leading column of
# ones for the intercept), the worths in a vector $v$, and the Shapley-kernel
# weights $k(d, S) = \frac{d-1}{\binom{d}{|S|}\,|S|\,(d-|S|)}$ on the diagonal of $W$.
# The Shapley values solve $\min_\phi (v - Z\phi)^\top W (v - Z\phi)$, that is
# $\phi = (Z^\top W Z)^{-1} Z^\top W v$. The weight of the empty and the full
# coalition is infinite: they pin $\phi_0 = v(\emptyset)$ and
# $\sum_j \phi_j = v(D) - v(\emptyset)$. Here are $Z$, the weights and $v$ for the taxi game:

# %%
d = taxi.n_players
Z = kx.games.all_coalitions(d)
sizes = Z.sum(axis=1)
weights = kx.games.shapley_kernel_weights(d, sizes)
v = kx.games.tabulate(taxi)
table = pd.DataFrame(Z.astype(int), columns=taxi.player_names)
table.insert(0, "intercept", 1)
table["k(d,S)"] = weights
table["v(S)"] = v
table

# %% [markdown]
# The lecture's recipe replaces the infinite weights by a large number. That
# works, but only approximately and at the price of an ill-conditioned system;
# kernelxai instead keeps the two coalitions as exact constraints and eliminates
# one unknown. Both are compared with the exact values below.

# %%
def lecture_wls(big):
    w = np.where(np.isinf(weights), big, weights)
    Z1 = np.column_stack([np.ones(len(Z)), Z])
    A = Z1.T @ (w[:, None] * Z1)
    return np.linalg.solve(A, Z1.T @ (w * v))[1:], np.linalg.cond(A)

comparison = []
for big in (1e3, 1e6, 1e9):
    phi, cond = lecture_wls(big)
    comparison.append({"route": f"large weight {big:.0e}", "max |error|": np.abs(phi - taxi_values.values).max(),
                       "condition number": cond})
kernel_all = kx.shapley_values(taxi, method="kernel")
comparison.append({"route": "kernelxai: exact constraints", "max |error|":
                   np.abs(kernel_all.values - taxi_values.values).max(), "condition number": np.nan})
pd.DataFrame(comparison)

# %% [markdown]
# With all coalitions the constrained regression *is* the Shapley value. On a game
# with more players, the same holds to rounding error:

# %%
d_big = 10
table_big = rng.normal(size=2**d_big)
random_game = kx.TabularGame(table_big)
wls_error = np.abs(kx.shapley_values(random_game, method="kernel").values
                   - kx.shapley_values(random_game, method="exact").values).max()
print(f"random game with {d_big} players: max |kernel - exact| = {wls_error:.2e}")
results["wls_all_coalitions_max_error"] = max(wls_error, comparison[-1]["max |error|"])
results["lecture_big_weight_errors"] = [row["max |error|"] for row in comparison[:-1]]

# %% [markdown]
# ## Sampling: KernelSHAP with fewer coalitions, and permutations
#
# With $d$ players there are $2^d$ coalitions. KernelSHAP then draws coalitions
# *from* the Shapley kernel (a size $s$ with probability $\propto \frac{1}{s(d-s)}$,
# then a uniform coalition of that size, each followed by its complement) and
# solves the constrained regression with equal weights. Permutation sampling
# averages, over random orderings, the gain of each player when it joins the
# players before it; each ordering is an unbiased estimate, so their spread gives a
# standard error. Below, both are run on a 12-player weighted voting game, a game with
# strong interactions: a coalition wins (worth 1) when its weights reach a quota.

# %%
vote_weights = np.array([9, 8, 7, 6, 5, 4, 3, 3, 2, 2, 1, 1], dtype=float)
quota = 0.5 * vote_weights.sum()
voting = kx.FunctionGame(lambda z: (z @ vote_weights >= quota).astype(float),
                         n_players=len(vote_weights),
                         player_names=[f"w={int(w)}" for w in vote_weights])
exact_voting = kx.shapley_values(voting, method="exact").values

rows = []
for budget in budgets:
    for rep in range(n_runs):
        run_seed = rng.integers(2**31)
        ks = kx.shapley_values(voting, method="kernel", n_coalitions=budget, seed=run_seed).values
        n_perm = max(2, budget // (voting.n_players - 1))
        ps = kx.shapley_values(voting, method="permutation", n_permutations=n_perm, seed=run_seed).values
        rows.append({"game evaluations": budget, "KernelSHAP": np.abs(ks - exact_voting).max(),
                     "permutation": np.abs(ps - exact_voting).max()})
errors = pd.DataFrame(rows).groupby("game evaluations").mean()
ax = errors.plot(marker="o", logx=True, logy=True, figsize=(6, 4))
ax.set_ylabel("max |estimate - exact| (mean over runs)")
ax.set_title("Both estimators converge as the budget grows");
results["convergence"] = {"budgets": budgets, "kernel": errors["KernelSHAP"].values,
                          "permutation": errors["permutation"].values}

# %% [markdown]
# ## Do the permutation intervals cover the truth 95% of the time?
#
# Each run draws `n_permutations` orderings and reports a 95% t-interval for every
# player. Over many independent runs, the fraction of intervals that contain the
# exact value should be close to 95%, within binomial noise. We test this on a game
# whose worths are Gaussian noise (8 players, every coalition's worth drawn
# independently), so that marginal contributions take continuous values. Antithetic
# sampling (each ordering followed by its reverse, the pair counted as one sample)
# is shown beside plain sampling.

# %%
noise_game = kx.TabularGame(rng.normal(size=2**8))
exact_noise = kx.shapley_values(noise_game).values

def coverage(game, exact, antithetic, repeats):
    hits, widths = [], []
    for rep in range(repeats):
        e = kx.shapley_values(game, method="permutation", n_permutations=n_permutations,
                              antithetic=antithetic, seed=rng.integers(2**31))
        hits.append((e.lower <= exact) & (exact <= e.upper))
        widths.append(e.upper - e.lower)
    return np.mean(hits), np.mean(widths)

cov_plain, width_plain = coverage(noise_game, exact_noise, False, n_repeats)
cov_anti, width_anti = coverage(noise_game, exact_noise, True, n_repeats)
band = 3 * np.sqrt(0.95 * 0.05 / n_repeats)   # conservative: intervals of one run are correlated
print(f"{n_repeats} runs x {noise_game.n_players} players; a 95% procedure should give 0.95 ± {band:.3f}")
pd.DataFrame({"coverage": [cov_plain, cov_anti], "mean width": [width_plain, width_anti]},
             index=["plain", "antithetic"])

# %% [markdown]
# ### A caveat: games with discrete contributions
#
# The t-interval assumes the per-ordering estimates are roughly continuous. In the
# voting game a player's marginal contribution is 0 or 1, and a light player is
# pivotal in only a few orderings: with few permutations it is often never pivotal,
# its sample standard deviation is zero and its "interval" is a single point that
# misses the true value. Coverage collapses — a reminder that a standard error
# estimated from the samples themselves can be badly wrong when the samples are few
# and discrete. More permutations fix it; so does reporting intervals only for
# players whose samples vary.

# %%
cov_voting, _ = coverage(voting, exact_voting, False, max(20, n_repeats // 4))
print(f"coverage on the voting game with {n_permutations} permutations: {cov_voting:.1%}")

# %%
results["coverage"] = {"plain": cov_plain, "antithetic": cov_anti, "n_repeats": n_repeats,
                       "band": band, "width_plain": width_plain, "width_antithetic": width_anti,
                       "voting_game": cov_voting}

# %% [markdown]
# ## Play with the taxi game
#
# Change what each passenger would pay alone; the fare of a group is still that of
# its farthest member. The shares always add up to the largest fare, and a
# passenger whose trip is covered by another's pays only a share of the common legs.

# %%
import ipywidgets as widgets

def taxi_shares(amy=6.0, bob=12.0, claire=42.0):
    alone = np.array([amy, bob, claire])
    game = kx.FunctionGame(lambda z: (z * alone).max(axis=1), 3, ["Amy", "Bob", "Claire"])
    expl = kx.shapley_values(game)
    ax = kx.plots.bar(expl, title=f"shares of the fare {alone.max():.0f}")
    return None

kx.widgets.interact(taxi_shares,
                    amy=widgets.FloatSlider(value=6, min=0, max=60, step=1),
                    bob=widgets.FloatSlider(value=12, min=0, max=60, step=1),
                    claire=widgets.FloatSlider(value=42, min=0, max=60, step=1))

# %%
summary = (f"taxi {np.round(results['taxi'], 6).tolist()}, airport {np.round(results['airport'], 6).tolist()}; "
           f"WLS=exact to {results['wls_all_coalitions_max_error']:.1e}; "
           f"95% permutation intervals cover {cov_plain:.1%} (antithetic {cov_anti:.1%})")
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
print(summary)
