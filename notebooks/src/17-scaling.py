# %% [markdown]
# # 17 · Scaling up: large data, many points, two workers
#
# How long does an exact explanation take, and what makes it longer? For the
# interventional value function of a product-kernel model
# $f(x) = \sum_{i=1}^{n} \alpha_i k(x, x_i) + b$ and a background of $m$ rows, kernelxai's
# product route computes every Shapley value exactly, with no coalitions enumerated or
# sampled, in
#
# $$O\big(n \cdot m \cdot d \cdot \lceil d/2 \rceil\big) \text{ operations per explained point:}$$
#
# one multiplicative game per pair (expansion term $i$, background row $b$), whose Shapley
# values come from a Beta-integral identity evaluated with at most $\lceil d/2\rceil$
# Gauss–Legendre nodes. The size
# of the *training set* does not appear. It enters only through $n$, the number of terms:
# a kernel ridge regression on $N$ rows has $n = N$ terms (and costs $O(N^3)$ to fit), but
# a scikit-learn pipeline `Nystroem(n_components=n) → Ridge` is an exact expansion over its
# $n$ landmarks, however many rows it was fitted on.
#
# This notebook measures that on one model — `StandardScaler → Nystroem(RBF) → Ridge`, the
# way scikit-learn users fit kernel models to large data — fitted to three sizes of data
# (up to $10^6$ rows by default):
#
# 1. the same model on three sizes of data: fit time, explanation time per point, exactness;
# 2. time per explained point against $d$ and against $n$, next to the cost model's prediction;
# 3. one worker against two (`n_jobs=1` vs `n_jobs=2`): the same values to the last bit, and
#    the speed-up this machine actually gives;
# 4. the $10^6$-row model explained exactly, checked against the pipeline's own `predict`
#    and against a brute force over model calls;
# 5. a summarised background and the bound on how far it can move the values;
# 6. an explorer: choose a size, see the predicted cost, then decide whether to run it.
#
# *Sizes.* `smoke=True` fits on at most $5\cdot 10^4$ rows (for the test suite). The default
# takes one to two minutes on two cores; `paper=True` explains more points, extends the grid
# and uses a larger reference sample for the bound (there is no paper setting for this notebook).

# %% tags=["parameters"]
import kernelxai as kx

smoke = False            # tiny sizes for the test suite
paper = False            # larger sizes (no paper setting)
seed = 0
results_path = "../build/results/17-scaling.json"
# the three sizes of data the same model is fitted to (the largest is "the 10^6-row model")
n_rows = kx.workbench.default([10_000, 100_000, 1_000_000], smoke=[2_000, 10_000, 50_000], minimum=100)
# features of the synthetic data (the target uses the first three)
n_features = kx.workbench.default(20, minimum=3)
# Nystroem landmarks: the terms n of the kernel expansion
n_components = kx.workbench.default(100, smoke=50, minimum=2)
# background rows of the explanations in sections 1 and 4
n_background = kx.workbench.default(1000, smoke=200, minimum=1)
# points explained (and timed) for each size
n_explain = kx.workbench.default(20, smoke=4, paper=100, minimum=1)
# held-out rows: R^2 and the expansion-versus-predict check
n_test = kx.workbench.default(10_000, smoke=2_000, minimum=10)
# the grid of section 2: features d (at grid_fixed_n terms) and terms n (at grid_fixed_d features)
grid_d = kx.workbench.default([5, 10, 20, 40, 80], smoke=[5, 10, 20], paper=[5, 10, 20, 40, 80, 160],
                              minimum=3)
grid_n = kx.workbench.default([50, 100, 200, 400, 800], smoke=[25, 50, 100],
                              paper=[50, 100, 200, 400, 800, 1600], minimum=2)
grid_fixed_d = kx.workbench.default(20, minimum=3)
grid_fixed_n = kx.workbench.default(200, smoke=50, minimum=2)
# rows each grid model is fitted on; background rows and points explained per grid cell
grid_rows = kx.workbench.default(5_000, smoke=1_000, minimum=10)
grid_background = kx.workbench.default(100, smoke=30, minimum=1)
grid_points = kx.workbench.default(8, smoke=2, minimum=1)
# section 3: points explained with one and two workers, in chunks of rows_per_chunk rows
parallel_points = kx.workbench.default(64, smoke=8, minimum=2)
rows_per_chunk = kx.workbench.default(8, smoke=2, minimum=1)
parallel_background = kx.workbench.default(1000, smoke=50, minimum=1)
# the control: tasks of plain numpy work (repetitions of a 10^5-element sine each) run by joblib
control_tasks = kx.workbench.default(8, smoke=4, minimum=2)
control_reps = kx.workbench.default(200, smoke=20, minimum=1)
# section 5: reference subsample of the full data, summary size, points explained with both
n_reference = kx.workbench.default(3_000, smoke=500, paper=10_000, minimum=10)
n_summary = kx.workbench.default(50, smoke=20, minimum=1)
bound_points = kx.workbench.default(20, smoke=5, minimum=1)
# timings: best of `repeat` runs (the two sides of a ratio alternate)
repeat = kx.workbench.default(2, smoke=1, minimum=1)
# standard deviation of the observation noise
noise_sd = kx.workbench.default(0.1, minimum=0.0)

# %%
import os
import time

import ipywidgets as W
import joblib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from kernelxai.workbench import timed

params = kx.workbench.resolve_parameters(globals())   # validated; smoke/paper fill only unset sizes
globals().update(params)
if max(grid_n) > grid_rows or grid_fixed_n > grid_rows or n_components > min(n_rows):
    raise ValueError("a Nystroem model cannot have more landmarks than rows: grid_n, grid_fixed_n "
                     f"<= grid_rows ({grid_rows}) and n_components <= min(n_rows) ({min(n_rows)}) "
                     "are required")


def load_average():
    """The 1-minute load average (processes wanting a CPU); NaN where the system does not report it."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


rng = np.random.default_rng(seed)
results = {}
timings = {"cpus": os.cpu_count(), "load_average_at_start": load_average()}
started = time.perf_counter()
print(f"{os.cpu_count()} CPUs; load average {load_average():.1f} "
      "(other work on the machine slows every timing below; ratios are measured in one run)")

# %% [markdown]
# ## 1. One model, three sizes of data
#
# The data: $d$ independent standard-normal features and
# $y = \sin x_0 + x_1 + \tfrac12 x_2^2 + \varepsilon$, $\varepsilon \sim N(0, 0.1^2)$; the
# other $d - 3$ features are irrelevant. The model: standardise, map to `n_components`
# Nyström features of an RBF kernel with $\gamma = 0.5/d$, fit a ridge regression. The
# smaller data sets are the first rows of the largest one.
#
# For each size we fit the model, convert it to a kernel expansion
# (`kx.models.as_expansion`: $\alpha = N^\top w$ over the landmarks, the scaler folded into
# the lengthscales), check the expansion against `predict` on held-out rows, and explain
# `n_explain` held-out points exactly against a background of `n_background` rows drawn
# from the training data.

# %%
def make_data(n, d, rng):
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] + 0.5 * X[:, 2] ** 2 + noise_sd * rng.normal(size=n)
    return X, y


def nystroem_model(d, landmarks):
    return make_pipeline(StandardScaler(), Nystroem(gamma=0.5 / d, n_components=landmarks, random_state=seed),
                         Ridge(alpha=1e-3))


d = n_features
X_all, y_all = make_data(max(n_rows), d, rng)
X_test, y_test = make_data(n_test, d, rng)
X_points = X_test[:n_explain]
models, sizes = {}, []
for N in n_rows:
    model, fit_s = timed(lambda: nystroem_model(d, n_components).fit(X_all[:N], y_all[:N]))
    f, convert_s = timed(lambda: kx.models.as_expansion(model))
    prediction = model.predict(X_test)
    expansion_error = float(np.abs(f.predict(X_test) - prediction).max())
    background = kx.explainers.subsample(X_all[:N], min(n_background, N), seed=seed)
    with kx.config_context(progress=False):
        e, explain_s = timed(lambda: kx.explain(model, X_points, background=background))
    efficiency = float(np.abs(e.values.sum(axis=1) + e.base_values - model.predict(X_points)).max())
    models[N] = model
    sizes.append({"rows": N, "landmarks": len(f.X_train), "background": len(background),
                  "fit_seconds": fit_s, "convert_seconds": convert_s,
                  "explain_seconds_per_point": explain_s / len(X_points),
                  "points_per_second": len(X_points) / explain_s,
                  "r2_test": float(model.score(X_test, y_test)),
                  "max_abs_expansion_error": expansion_error,
                  "prediction_scale": float(np.abs(prediction).max()),
                  "max_efficiency_error": efficiency, "method": e.meta["method"], "route": e.meta["route"]})
results["sizes"] = sizes
size_table = pd.DataFrame(sizes).set_index("rows")
size_table[["landmarks", "fit_seconds", "explain_seconds_per_point", "points_per_second", "r2_test",
            "max_abs_expansion_error", "max_efficiency_error"]]

# %% [markdown]
# The fit grows with the rows (scikit-learn maps every row to its Nyström features), the
# explanation does not: every model is an expansion over the same number of landmarks,
# and the product route's work per point is landmarks × background rows, whatever the
# model was fitted on. The expansion reproduces `predict` to rounding (the error column is
# in the units of $y$, whose predictions reach a few units), and the values add up to the
# prediction (efficiency) to rounding too. The held-out $R^2$ says how good the model is
# — with 100 landmarks in 20 dimensions, a fair but not a perfect fit; more landmarks give
# a better model and a proportionally slower explanation.
#
# ## 2. Time per point against $d$ and against $n$
#
# A small grid, each cell a model of the same kind fitted on `grid_rows` rows: first the
# number of features $d$ at `grid_fixed_n` landmarks, then the number of landmarks $n$ (the
# expansion's terms; for a kernel ridge regression, its training rows) at `grid_fixed_d`
# features. Each cell explains `grid_points` points against `grid_background` rows. Next to
# each measurement is the prediction of the cost model behind `method="auto"`, the progress
# bar and `max_cost` (`kx.estimate_cost`: the route's work counted by kind and priced at the
# rates `kx.calibrate()` measured on this machine when the notebook started). The operations
# it counts are printed too, counted one to one (`flops_per_second` set): they depend on the
# sizes and the data only, not on the machine.
#
# The timings are wall-clock times of `kx.explain` as a user calls it (on this machine the
# product route may use both cores for its term blocks).

# %%
def time_cell(dims, landmarks, rng):
    X, y = make_data(grid_rows, dims, rng)
    f = kx.models.as_expansion(nystroem_model(dims, landmarks).fit(X, y))
    B = kx.explainers.subsample(X, grid_background, seed=seed)
    Xe = make_data(grid_points, dims, rng)[0]
    game = kx.values.Interventional(f, B).game(Xe)
    predicted = kx.estimate_cost(game, "product")
    with kx.config_context(flops_per_second=1e9):  # the operations counted one to one (machine-free)
        counted = kx.estimate_cost(game, "product")
    with kx.config_context(progress=False):
        _, seconds = timed(lambda: kx.explain(f, Xe, background=B, method="product"), repeat=repeat)
    return {"d": dims, "n": len(f.X_train), "background": len(B), "points": len(Xe),
            "seconds_per_point": seconds / len(Xe), "predicted_seconds_per_point": predicted["seconds"] / len(Xe),
            "predicted_flops_per_point": counted["flops"] / len(Xe)}


def slope(x, y):
    """Least-squares slope of log y on log x (the growth exponent)."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


grid_rng = np.random.default_rng(seed + 1)
t0 = time.perf_counter()
by_d = pd.DataFrame([time_cell(dims, grid_fixed_n, grid_rng) for dims in grid_d])
by_n = pd.DataFrame([time_cell(grid_fixed_d, landmarks, grid_rng) for landmarks in grid_n])
timings["grid"] = time.perf_counter() - t0
growth = {"d": slope(by_d["d"], by_d["seconds_per_point"]),
          "d_predicted": slope(by_d["d"], by_d["predicted_seconds_per_point"]),
          "n": slope(by_n["n"], by_n["seconds_per_point"]),
          "n_predicted": slope(by_n["n"], by_n["predicted_seconds_per_point"])}
results["grid"] = {
    "d": list(by_d["d"]), "n": list(by_n["n"]),
    "predicted_flops_per_point": {"by_d": list(by_d["predicted_flops_per_point"]),
                                  "by_n": list(by_n["predicted_flops_per_point"])},
    # everything measured (timings and what is derived from them) under a timing key
    "timing": {"by_d": by_d.to_dict("list"), "by_n": by_n.to_dict("list"), "growth_exponent": growth,
               "measured_over_predicted": {
                   "by_d": list(by_d["seconds_per_point"] / by_d["predicted_seconds_per_point"]),
                   "by_n": list(by_n["seconds_per_point"] / by_n["predicted_seconds_per_point"])}},
}
print("growth exponents (log-log slopes): d: measured %.2f, predicted %.2f;  n: measured %.2f, predicted %.2f"
      % (growth["d"], growth["d_predicted"], growth["n"], growth["n_predicted"]))

# %% tags=["headline"]
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
for ax, table, key, label, fixed in ((axes[0], by_d, "d", "features d", f"n = {grid_fixed_n} landmarks"),
                                     (axes[1], by_n, "n", "terms n (Nyström landmarks)", f"d = {grid_fixed_d}")):
    ax.loglog(table[key], table["seconds_per_point"], "o-", label="measured")
    ax.loglog(table[key], table["predicted_seconds_per_point"], "s--", label="cost model (kx.estimate_cost)")
    ax.set_xlabel(label)
    ax.set_ylabel("seconds per explained point")
    ax.set_title(f"exact interventional values, {fixed}, m = {grid_background} background rows", fontsize=9)
    ax.legend(fontsize=8)
    ax.set_xticks(table[key], [str(v) for v in table[key]])
    ax.minorticks_off()
plt.tight_layout()

# %% [markdown]
# Read the slopes, not the seconds. In $n$ the work is linear: each landmark brings $m$
# more multiplicative games (fixed costs — the per-feature kernel values, Python overhead —
# flatten the smallest cells). In $d$ the route picks the number of quadrature nodes from a
# bound on its accuracy, and with $\gamma = 0.5/d$ every per-feature kernel factor is close
# to 1, so a few nodes suffice whatever $d$ (not the $\lceil d/2\rceil$ that is exact for any
# factors): the work grows about linearly in $d$ here. The cost model counts the passes the
# route makes with the node count it would choose for the game's first terms
# (`kx.estimators.estimate_nodes`), so it too grows about linearly in $d$ (the slopes are
# printed above), within a small factor of the wall-clock measurement (the route runs its
# term blocks on both cores; the model counts one). Terms further on may need more nodes (up
# to $\lceil d/2\rceil$) or fewer than the first ones. Less smooth kernels (short
# lengthscales, kernel values spread over $[0, 1]$) need more nodes, in the route and in the
# prediction alike. The rates are this machine's (`kx.calibrate()`);
# `kx.config_context(flops_per_second=...)` overrides them with one rate for every operation.
#
# ## 3. One worker or two
#
# `kx.explain(..., n_jobs=2)` cuts the explained points into chunks (here `rows_per_chunk`
# rows each, fixed so that both calls do exactly the same work) and runs them on two
# joblib worker processes; `n_jobs=1` runs the same chunks one after the other in this
# process. Every chunk runs on one BLAS thread and one thread of the product route, so the
# arithmetic is the same wherever it runs and the values agree **bit for bit**
# (`np.array_equal`, not `allclose`). The same holds for sampled estimators given a seed:
# every chunk draws the same design, so the values do not depend on `n_jobs` or the
# chunking. `n_jobs=None` (the default) runs the chunks on threads of this process.
#
# The model is the middle size of section 1. The first call with two workers starts the
# worker processes; that warm-up (one small call of each variant) is not timed — joblib
# keeps the workers for later calls.

# %%
model_mid = models[n_rows[1]]
B_par = kx.explainers.subsample(X_all[:n_rows[1]], min(parallel_background, n_rows[1]), seed=seed)
X_par = X_test[:parallel_points]
with kx.config_context(progress=False):
    # warm-up, untimed: starts the worker processes and runs every code path once
    _, warm_up_s = timed(lambda: [kx.explain(model_mid, X_par[:2], background=B_par, n_jobs=jobs, rows_per_chunk=1)
                                  for jobs in (1, 2, None)])
    best = {1: np.inf, 2: np.inf, None: np.inf}
    runs = {}
    load_during = []
    for _ in range(repeat):          # alternate, so that other load falls on every variant
        for jobs in (1, 2, None):
            runs[jobs], seconds = timed(lambda: kx.explain(model_mid, X_par, background=B_par, n_jobs=jobs,
                                                           rows_per_chunk=rows_per_chunk))
            best[jobs] = min(best[jobs], seconds)
        load_during.append(load_average())
    # a sampled estimator: permutation sampling with a seed, one worker against two
    sampled = {jobs: kx.explain(model_mid, X_par[:4 * rows_per_chunk], background=B_par[:50], method="permutation",
                                budget=4 * d, seed=seed, n_jobs=jobs, rows_per_chunk=rows_per_chunk)
               for jobs in (1, 2)}


# the control: what two joblib workers give on this machine for work that needs no communication
def numpy_work(task):
    a = np.linspace(0.0, 1.0 + task, 100_000)
    return sum(float(np.sin(a).sum()) for _ in range(control_reps))


def control(jobs):
    return joblib.Parallel(n_jobs=jobs)(joblib.delayed(numpy_work)(t) for t in range(control_tasks))


control(2)   # warm-up
control_best = {1: np.inf, 2: np.inf}
for _ in range(repeat):
    for jobs in (1, 2):
        control_best[jobs] = min(control_best[jobs], timed(lambda: control(jobs))[1])
control_speed_up = control_best[1] / control_best[2]


def identical(a, b):
    return bool(np.array_equal(a.values, b.values) and np.array_equal(a.base_values, b.base_values))


assert identical(runs[1], runs[2]) and identical(runs[1], runs[None]), "n_jobs changed the values"
assert identical(sampled[1], sampled[2]), "n_jobs changed the sampled values"
speed_up = best[1] / best[2]
results["parallel"] = {
    "points": len(X_par), "rows_per_chunk": rows_per_chunk, "chunks": runs[2].meta["parallel"]["chunks"],
    "backends": {str(k): runs[k].meta["parallel"]["backend"] for k in runs},
    "identical_serial_two_workers": identical(runs[1], runs[2]),
    "identical_serial_threads": identical(runs[1], runs[None]),
    "identical_sampled": identical(sampled[1], sampled[2]),
    "max_abs_difference": float(np.abs(runs[1].values - runs[2].values).max()),
    "timing": {"seconds": {"n_jobs=1": best[1], "n_jobs=2": best[2], "n_jobs=None": best[None],
                           "warm_up": warm_up_s},
               "speed_up_two_workers": speed_up, "speed_up_threads": best[1] / best[None],
               "control_seconds": {"n_jobs=1": control_best[1], "n_jobs=2": control_best[2]},
               "control_speed_up": control_speed_up, "load_average_during": load_during},
}
pd.DataFrame({"backend": [runs[k].meta["parallel"]["backend"] for k in (1, 2, None)] + ["loky"],
              "seconds (best of %d)" % repeat: [best[k] for k in (1, 2, None)] + [control_best[2]],
              "speed-up over n_jobs=1": [best[1] / best[k] for k in (1, 2, None)] + [control_speed_up]},
             index=["n_jobs=1", "n_jobs=2", "n_jobs=None", "control: plain numpy tasks, 2 workers"]).round(3)

# %% [markdown]
# The values are identical, as they must be. The speed-up is what this machine gives: at
# most 2 on two cores, and less — sometimes below 1 — when other processes use the cores
# (the load average is printed below and recorded in the results), when chunks are so
# small that starting tasks and sending rows to the workers weighs (the model and the
# background are shipped to each worker once per call), or when one process already kept
# both cores busy (`n_jobs=None`: the product route's threads). The last row is the
# control: independent numpy tasks, no kernelxai, the same two joblib workers. If the
# control does not speed up either, the cores were busy with other work; if it does and
# kernelxai does not, the chunks are too small for the overhead. On a machine with more
# cores, or a Dask cluster (`with joblib.parallel_config(backend="dask"):
# kx.explain(..., n_jobs=-1)`, see docs/user-guide/scale.md), the same call spreads over more workers,
# with the same values.

# %%
print(f"speed-up with two workers: {speed_up:.2f}x; plain numpy tasks (control): {control_speed_up:.2f}x; "
      f"load average during the runs: {', '.join(f'{v:.1f}' for v in load_during)} on {os.cpu_count()} CPUs; "
      "the values are bit-for-bit identical")

# %% [markdown]
# ## 4. The $10^6$-row model, explained exactly
#
# The largest model of section 1 is fitted on `n_rows[-1]` rows. Three checks that its
# explanation is exact rather than approximately right:
#
# * the expansion over the landmarks equals the pipeline's `predict` on the held-out rows
#   (in floating point: to about $10^{-13}$);
# * efficiency: the values plus the base value equal the prediction at every point;
# * against a brute force that knows nothing about kernels: the pipeline's own `predict`,
#   called on the synthetic points $(x_S, b_{\bar S})$, averaged over a small background and
#   combined with the Shapley weights of all coalitions. With $d = 20$ features that is
#   $2^{20}$ coalitions, so the check uses four groups of features as players (group
#   Shapley values, $2^4$ coalitions); the product route computes group values of a product
#   kernel exactly too.

# %%
N_big = n_rows[-1]
model_big = models[N_big]
f_big = kx.models.as_expansion(model_big)
big = next(s for s in sizes if s["rows"] == N_big)
groups = [list(range(j, min(d, j + -(-d // 4)))) for j in range(0, d, -(-d // 4))]
B_small = kx.explainers.subsample(X_all[:N_big], 50, seed=seed)
with kx.config_context(progress=False):
    e_groups = kx.explain(model_big, X_points[:3], background=B_small, groups=groups)
    e_calls = kx.explain(model_big.predict, X_points[:3], background=B_small, groups=groups, method="exact")
results["nystroem"] = {
    "rows": N_big, "landmarks": len(f_big.X_train), "n_features": d,
    "max_abs_expansion_error": big["max_abs_expansion_error"],
    "relative_expansion_error": big["max_abs_expansion_error"] / big["prediction_scale"],
    "max_efficiency_error": big["max_efficiency_error"],
    "points_per_second": big["points_per_second"], "background": big["background"],
    "fit_seconds": big["fit_seconds"], "r2_test": big["r2_test"],
    "groups": [len(g) for g in groups], "route_groups": e_groups.meta["route"], "route_calls": e_calls.meta["route"],
    "max_abs_difference_from_model_calls": float(np.abs(e_groups.values - e_calls.values).max()),
}
print(f"{N_big} rows, {len(f_big.X_train)} landmarks: expansion vs predict {big['max_abs_expansion_error']:.1e}, "
      f"efficiency {big['max_efficiency_error']:.1e}, groups vs model calls "
      f"{results['nystroem']['max_abs_difference_from_model_calls']:.1e}; "
      f"{big['points_per_second']:.1f} points per second against {big['background']} background rows")
pd.DataFrame({"exact (product route)": e_groups.values[0], "model calls (brute force)": e_calls.values[0]},
             index=[f"x{g[0]}..x{g[-1]}" for g in groups])

# %% [markdown]
# A model fitted to a million rows, explained exactly in a fraction of a second per point
# against a thousand background rows. The alternative — an exact kernel ridge regression on all rows —
# would need an $N \times N$ system to fit and $N$ terms per explanation; random Fourier
# features (`RBFSampler`) are not an expansion over stored points, so kernelxai explains
# such pipelines through model calls (and says so in `meta["route"]`).
#
# ## 5. A summarised background, and how far it moves the values
#
# The time per point is proportional to the background rows $m$. A summary of a few dozen
# points (`kx.explainers.summarize`: k-means centres or kernel herding) makes it much
# faster — at what price? For a product kernel with $k_l(x, x) = 1$,
# `kx.explainers.summary_bound(model, summary, background)` bounds, for every point and
# feature, how far the interventional Shapley value can move when the background is
# replaced by the summary:
#
# $$|\phi_i^{P}(x) - \phi_i^{Q}(x)| \le \|f - b\|_{\mathcal H}\,(r_{1,i} + r_{2,i}),$$
#
# where $r_{1,i}, r_{2,i}$ are Shapley-weighted root-mean-square maximum mean discrepancies
# (MMDs) between the *marginals* of the two backgrounds on feature subsets (the
# Cauchy–Schwarz step of RKHS-SHAP's Theorem 6, applied to a change of background; the
# derivation is in the function's docstring). Two things to say plainly:
#
# * **$\|f\|\cdot\mathrm{MMD}$ of all features bounds only the base value** $E_P f$, not the
#   Shapley values. The marginals' MMDs can be much larger than the joint one (5b shows a
#   case), which is why they enter the bound.
# * The bound needs $O(N^2)$ kernel evaluations over the full background, so with $10^6$ rows
#   it is computed against a **reference subsample** of `n_reference` rows. It is a bound
#   for replacing that reference sample by the summary, and only an *estimate* of the bound
#   for the full data (a reference sample of $R$ rows itself differs from the full data by a
#   sampling error of order $1/\sqrt{R}$ in MMD).
#
# The summary: kernel herding in the model's own kernel (the kernel in which the bound is
# measured), `n_summary` rows of the reference sample.

# %%
B_ref = kx.explainers.subsample(X_all[:N_big], min(n_reference, N_big), seed=seed + 1)
summary, summary_s = timed(lambda: kx.explainers.summarize(B_ref, min(n_summary, len(B_ref)), method="herding",
                                                           kernel=f_big.kernel))
bound, bound_s = timed(lambda: kx.explainers.summary_bound(model_big, summary, B_ref))
X_bound = X_test[:bound_points]
with kx.config_context(progress=False):
    e_ref, ref_s = timed(lambda: kx.explain(f_big, X_bound, background=B_ref))
    e_sum, sum_s = timed(lambda: kx.explain(f_big, X_bound, background=summary.points))
observed = np.abs(e_ref.values - e_sum.values).max(axis=0)
observed_base = float(np.abs(e_ref.base_values - e_sum.base_values).max())
holds = bool(np.all(observed <= bound.bound) and observed_base <= bound.base_bound)
results["bound"] = {
    "reference_rows": len(B_ref), "summary_rows": len(summary.points), "summary_method": summary.method,
    "norm": bound.norm, "mmd": bound.mmd, "feature_mmd": bound.feature_mmd, "bound": bound.bound,
    "base_bound": bound.base_bound, "observed_max_abs_change": observed, "observed_base_change": observed_base,
    "holds": holds, "holds_per_feature": bool(np.all(observed <= bound.bound)),
    "holds_base": observed_base <= bound.base_bound,
    "tightness": observed / bound.bound,
    "joint_mmd_bound_covers_observed_here": bool(observed.max() <= bound.base_bound),
    "points": len(X_bound),
    "timing": {"explain_reference_seconds": ref_s, "explain_summary_seconds": sum_s,
               "summary_speed_up": ref_s / sum_s, "bound_seconds": bound_s, "summarize_seconds": summary_s},
}
print(bound)
print(f"the bound holds: {holds}; observed / bound between {np.min(observed / bound.bound):.2g} and "
      f"{np.max(observed / bound.bound):.2g}; explaining against the summary is "
      f"{ref_s / sum_s:.0f}x faster than against the {len(B_ref)}-row reference")

# %%
fig, ax = plt.subplots(figsize=(12, 3.8))
pos = np.arange(d)
ax.bar(pos - 0.2, bound.bound, 0.4, label="bound per feature, ||f|| (r1 + r2)")
ax.bar(pos + 0.2, observed, 0.4, label=f"observed max |change| over {len(X_bound)} points")
ax.axhline(bound.base_bound, color="k", ls="--", lw=1, label="||f|| MMD (all features): bounds the base value only")
ax.scatter([d + 0.5], [observed_base], marker="D", color="C1", zorder=3, label="observed change of the base value")
ax.set_yscale("log")
ax.set_xticks(list(pos) + [d + 0.5], [f"x{j}" for j in pos] + ["base"], fontsize=8)
ax.set_ylabel("|phi(reference) - phi(summary)|")
ax.set_title(f"a {len(summary.points)}-row herding summary of a {len(B_ref):,}-row reference sample, "
             f"{N_big:,}-row Nyström model", fontsize=10)
ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
plt.tight_layout()

# %% [markdown]
# The bound holds for every feature, as it must, and it is conservative — by one to two
# orders of magnitude here: it holds for *every* point and every model of the same RKHS
# norm, while the observed change is the largest over a few points of one model. It is
# nearly the same for every feature because the data and the kernel treat the features
# alike (the marginal MMDs are alike), and it knows the model only through its norm, so it
# cannot tell a feature the model uses from one it ignores. Use it as a guarantee, and the
# observed change on a few points (cheap: two explanations) as the realistic estimate.
#
# ### 5b. Why $\|f\|\cdot\mathrm{MMD}$ is not a bound on the Shapley values
#
# Two features. Both backgrounds $P$ and $Q$ share the values of $x_1$, spread out
# ($N(0, 3^2)$); they differ in $x_2$: around 0 in $P$, around 2 in $Q$. The kernel has a
# very short lengthscale in $x_1$ (0.01) and 1 in $x_2$; the model is one kernel bump at the
# origin, $f = k(\cdot, 0)$, so $\|f\| = 1$, and we explain $x = 0$. Pairs of rows with
# different $x_1$ values contribute almost nothing to the joint kernel, so the joint MMD is
# small (of order $1/\sqrt{N}$); the marginals of $x_2$ differ by a lot. The value of the
# coalition $\{x_1\}$, $E f(0, z_2)$, changes with the marginal of $x_2$ — and so do both
# Shapley values.

# %%
N_cx = 200
rng_cx = np.random.default_rng(seed)
spread = 3.0 * rng_cx.normal(size=N_cx)
P = np.c_[spread, 0.3 * rng_cx.normal(size=N_cx)]
Q = np.c_[spread, 2.0 + 0.3 * rng_cx.normal(size=N_cx)]
bump = kx.models.KernelExpansion(np.zeros((1, 2)), np.ones(1), kx.kernels.RBF([0.01, 1.0]))
origin = np.zeros((1, 2))
e_P = kx.explain(bump, origin, background=P)
e_Q = kx.explain(bump, origin, background=Q)
cx_bound = kx.explainers.summary_bound(bump, Q, P)
cx_observed = np.abs(e_P.values - e_Q.values)[0]
results["counterexample"] = {
    "rows": N_cx, "norm": cx_bound.norm, "mmd": cx_bound.mmd, "joint_mmd_bound": cx_bound.base_bound,
    "bound": cx_bound.bound, "observed_abs_change": cx_observed,
    "observed_base_change": float(abs(e_P.base_values[0] - e_Q.base_values[0])),
    "joint_mmd_bound_violated": bool(cx_observed.max() > cx_bound.base_bound),
    "bound_holds": bool(np.all(cx_observed <= cx_bound.bound)),
}
pd.DataFrame({"observed |change|": cx_observed, "||f|| MMD(all features)": cx_bound.base_bound,
              "per-feature bound": cx_bound.bound}, index=["x1", "x2"]).round(3)

# %% [markdown]
# The Shapley values move by about 0.4 each while $\|f\|\cdot\mathrm{MMD} \approx 0.1$: the
# joint MMD does not bound them. The per-feature bound, built from the marginals' MMDs,
# does. (The base value $E f$ barely moves — that is what $\|f\|\cdot\mathrm{MMD}$ bounds.)
#
# ## 6. Explore: choose a size, see the cost, then run
#
# Choose the terms $n$ (landmarks or training points), the features $d$, the background rows
# $m$ and the number of points. The table shows what `kx.estimate_cost` predicts for the
# exact product route — before anything runs. **Run** explains a random kernel expansion of
# that size (the cost depends on the sizes only) and adds the measured time to the table.
# Runs predicted to take more than `max_cost` (set below) are refused before they start,
# with the cost model's advice — the same guard every kernelxai computation has.

# %%
widget_max_cost = 60.0   # seconds: larger runs are refused before they start


def widget_problem(n_terms, dims, background_rows, points):
    r = np.random.default_rng(seed)
    f = kx.models.KernelExpansion(r.normal(size=(n_terms, dims)), r.normal(size=n_terms),
                                  kx.kernels.RBF(np.sqrt(dims)))
    return f, r.normal(size=(background_rows, dims)), r.normal(size=(points, dims))


def predicted_cost(n_terms, dims, background_rows, points):
    f, B, Xw = widget_problem(n_terms, dims, background_rows, points)
    cost = kx.estimate_cost(kx.values.Interventional(f, B).game(Xw), "product")
    return {"terms per point": n_terms * background_rows + 1, "predicted seconds": cost["seconds"],
            "predicted seconds per point": cost["seconds"] / points, "peak memory (MB)": cost["memory"] / 1e6}


controls = {
    "n_terms": W.SelectionSlider(options=[50, 100, 200, 400, 800, 1600, 3200], value=100, description="terms n"),
    "dims": W.SelectionSlider(options=[5, 10, 20, 40, 80, 160], value=20, description="features d"),
    "background_rows": W.SelectionSlider(options=[10, 30, 100, 300, 1000, 3000, 10000], value=1000,
                                         description="background m"),
    "points": W.SelectionSlider(options=[1, 2, 5, 10, 20, 50, 100], value=10, description="points"),
}
history = []
log = W.Output()


def show_prediction(n_terms, dims, background_rows, points):
    row = predicted_cost(n_terms, dims, background_rows, points)
    return pd.DataFrame([row]).round(4)


def run_clicked(_=None):
    settings = {k: w.value for k, w in controls.items()}
    row = {**settings, **predicted_cost(**settings)}
    f, B, Xw = widget_problem(**settings)
    try:
        with kx.config_context(max_cost=widget_max_cost, progress=False):
            _, seconds = timed(lambda: kx.explain(f, Xw, background=B, method="product"))
        row["measured seconds"] = seconds
        row["measured / predicted"] = seconds / row["predicted seconds"]
    except kx.estimators.CostLimitError as err:
        row["measured seconds"] = float("nan")
        row["refused"] = str(err).split(". To")[0]
    history.append(row)
    kx.widgets.show_figures(log, lambda: pd.DataFrame(history).round(4))


run_button = W.Button(description="Run", button_style="primary", tooltip="explain a problem of this size")
run_button.on_click(run_clicked)
prediction_view = kx.widgets.interact(show_prediction, **controls)
results["widget"] = {"default_settings": {k: w.value for k, w in controls.items()},
                     "default_prediction": predicted_cost(**{k: w.value for k, w in controls.items()}),
                     "max_cost": widget_max_cost}
W.VBox([prediction_view, run_button, log])

# %%
results["seconds"] = time.perf_counter() - started
results["timings"] = timings
summary = (f"{N_big}-row Nystroem model ({len(f_big.X_train)} landmarks, d = {d}): expansion error "
           f"{big['max_abs_expansion_error']:.1e}, {big['points_per_second']:.1f} points/s exactly; "
           f"2 workers: speed-up {speed_up:.2f}x (numpy control {control_speed_up:.2f}x), identical values "
           f"{results['parallel']['identical_serial_two_workers']}; "
           f"growth exponents d {growth['d']:.2f}, n {growth['n']:.2f}; "
           f"summary bound holds {holds} (observed/bound <= {np.max(observed / bound.bound):.2g})")
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
print(summary)
