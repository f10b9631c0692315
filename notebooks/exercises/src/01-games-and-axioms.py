# %% [markdown]
# # Exercises 1 · Cooperative games and the Shapley value
#
# A **cooperative game** gives every coalition $S$ of the players $N = \{0, \dots, d-1\}$ a
# worth $v(S)$. The Shapley value splits $v(N) - v(\emptyset)$ among the players by averaging
# each player's marginal contribution over the coalitions it can join:
#
# $$\phi_j = \sum_{S \subseteq N \setminus \{j\}} \frac{|S|!\,(d-|S|-1)!}{d!}\,\bigl(v(S \cup \{j\}) - v(S)\bigr).$$
#
# You will write this formula yourself, use it on the lecture's taxi, and build a game that
# shows two of the axioms at work. After each task, run the cell with
# `kx.exercises.check(...)`: it calls your function on **fresh random games** and compares
# with kernelxai. ✓ means right; ✗ comes with a hint that says what is wrong.

# %% tags=["parameters"]
seed = 0               # randomness of the examples below (the checks draw their own)
results_path = None    # a JSON file to record which checks passed, e.g. for a class

# %% slide="skip"
import itertools
import math

import matplotlib.pyplot as plt
import numpy as np

import kernelxai as kx

rng = np.random.default_rng(seed)
kx.exercises.reset()

# %% [markdown]
# ## Task 1 · The Shapley value by enumeration
#
# Write `shapley(v, d)`. Here `v` is a Python function of a coalition given as a tuple of
# player indices: `v(())` is the worth of the empty coalition, `v((0, 2))` that of players 0
# and 2. Return an array with one value per player.
#
# *Hint:* `itertools.combinations(others, k)` lists the coalitions of size `k` of the players
# in `others`; `math.factorial` gives the weights.

# %% solution="shapley-exact"
def shapley(v, d):
    """Shapley values of the game v on the players 0..d-1, by enumerating every coalition."""
    ### BEGIN SOLUTION
    phi = np.zeros(d)
    for j in range(d):
        others = [i for i in range(d) if i != j]
        for k in range(d):
            weight = math.factorial(k) * math.factorial(d - k - 1) / math.factorial(d)
            for S in itertools.combinations(others, k):
                phi[j] += weight * (v(S + (j,)) - v(S))
    return phi
    ### END SOLUTION

# %% check="shapley-exact"
result = kx.exercises.check("shapley-exact", shapley)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## The taxi game
#
# Amy, Bob and Claire share a taxi going the same way. Alone, Amy would pay \$6, Bob \$12 and
# Claire \$42; a group pays the fare of its farthest member. In kernelxai a game is an object:
# `kx.TabularGame` lists every worth, `kx.FunctionGame` computes the worths of many coalitions
# at once from a boolean matrix (one row per coalition, one column per player).

# %%
taxi = kx.TabularGame({(): 0, (0,): 6, (1,): 12, (2,): 42, (0, 1): 12, (0, 2): 42, (1, 2): 42,
                       (0, 1, 2): 42}, player_names=["Amy", "Bob", "Claire"])
taxi_values = kx.shapley_values(taxi)
kx.plots.bar(taxi_values, title="Shapley shares of the taxi fare");

# %% [markdown]
# ### Task 2 · Shares of any fare
#
# Write `taxi_shares(alone)`: given what each passenger would pay alone (an array of any
# length), return what each pays under the Shapley value when a group pays the largest of
# its members' fares. Build the game with `kx.FunctionGame(worth, d)` — `worth(z)` receives a
# boolean array `z` of shape `(m, d)` and returns `m` worths — and explain it with
# `kx.shapley_values`. (Or use your `shapley` from Task 1.)

# %% solution="taxi-shares"
def taxi_shares(alone):
    """Shapley shares of the fare when a group pays its farthest member's fare."""
    ### BEGIN SOLUTION
    alone = np.asarray(alone, dtype=float)

    def worth(z):
        return np.where(z.any(axis=1), (z * alone).max(axis=1), 0.0)

    return kx.shapley_values(kx.FunctionGame(worth, len(alone))).values
    ### END SOLUTION

# %% check="taxi-shares"
result = kx.exercises.check("taxi-shares", taxi_shares)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ### The airport game is the same game
#
# Four aircraft share a runway; aircraft A needs a runway costing 8, B 11, C 13 and D 18. A
# coalition pays for the runway its largest aircraft needs — the taxi game with other numbers.
# Each runway segment is split equally among the aircraft that use it:

# %%
runway = np.array([8.0, 11.0, 13.0, 18.0])
airport = kx.FunctionGame(lambda z: np.where(z.any(axis=1), (z * runway).max(axis=1), 0.0), 4,
                          player_names=list("ABCD"))
kx.shapley_values(airport).to_frame()

# %% [markdown]
# ## The axioms
#
# The Shapley value is the only split with these four properties:
#
# * **efficiency** — the values add up to $v(N) - v(\emptyset)$;
# * **symmetry** — two players who add the same to every coalition get the same value;
# * **null player** — a player who adds nothing to any coalition gets 0;
# * **linearity** — the values of $v + w$ are the values of $v$ plus those of $w$.
#
# ### Task 3 · A game with a null player and an interchangeable pair
#
# Write `make_game(d, pair, null)` returning a `kx.Game` on `d` players in which the two
# players in `pair` are interchangeable (swapping them never changes a worth), the player
# `null` is a null player, and $v(N) - v(\emptyset) = 1$. Any such game will do.

# %% solution="null-and-symmetric"
def make_game(d, pair, null):
    """A game on d players: `pair` interchangeable, `null` a null player, v(N) - v(empty) = 1."""
    ### BEGIN SOLUTION
    others = [j for j in range(d) if j != null]

    def worth(z):
        return z[:, others].sum(axis=1) / len(others)

    return kx.FunctionGame(worth, d)
    ### END SOLUTION

# %% check="null-and-symmetric"
result = kx.exercises.check("null-and-symmetric", make_game)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ### Linearity, seen on two random games
#
# Explaining $v + w$ gives the sum of the explanations — one reason Shapley values of a model
# that is a sum (a kernel expansion $\sum_i \alpha_i k(\cdot, x_i)$) can be computed term by term.

# %%
v_table, w_table = rng.normal(size=2**4), rng.normal(size=2**4)
phi_v = kx.shapley_values(kx.TabularGame(v_table)).values
phi_w = kx.shapley_values(kx.TabularGame(w_table)).values
phi_sum = kx.shapley_values(kx.TabularGame(v_table + w_table)).values
print("max |phi(v + w) - phi(v) - phi(w)| =", np.abs(phi_sum - phi_v - phi_w).max())

# %% [markdown]
# **Further:** notebook `01-shapley-games` in `notebooks/` shows KernelSHAP and permutation
# sampling on these games, with intervals and their coverage.

# %% slide="skip"
kx.workbench.save_results(results_path, {"checks": kx.exercises.results()})
print(kx.exercises.results())
