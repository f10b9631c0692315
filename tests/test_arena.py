"""The arena (``kx.compare_estimators``, issue #38): sampled estimators scored against exact values.

Small sizes here (d = 10 and 50 product-kernel models, two budgets, fixed seeds); the full sizes
are ``benchmarks/bench_estimators.py``'s. Checked:

* the result: one row per method, budget, seed and point; errors against the exact values
  recomputed here; evaluations and seconds recorded; the summary and ``best()``;
* errors fall with the budget for every sampled estimator; an exact method scores ~0;
* the exact values: the product route for product-kernel models, enumeration for small games,
  ``truth=`` for the rest -- and a refusal that says so when there is none;
* the cost guard prices the whole comparison before it starts; refusals of bad arguments;
* the plots;
* intervals that cover: every estimator that states an interval covers the exact values at its
  stated level within +-0.02, over >= 1,000 (point, feature) pairs, on three model families
  (SVR, kernel ridge, GP mean), at 0.9 and 0.95 -- a statistical property with fixed seeds (100
  seeds x 2 points x 10 features = 2,000 pairs per family, level and budget), not a timing test;
* the error the arena measured, shown beside every sampled estimate (and not beside exact ones), and
  its nearest-(d, budget) lookup.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.kernel_ridge import KernelRidge
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

import kernelxai as kx
from kernelxai.estimators import CostLimitError, InvalidOptionError, NotApplicableError
from kernelxai.explainers._arena import COLUMNS, interval_options, relative_errors

SAMPLED = sorted(name for name, est in kx.estimators.estimators().items() if not est.exact)


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    return X, (y - y.mean()) / y.std()


def _families(X, y, d):
    """Three product-kernel model families on (X, y), with settings scaled to d."""
    return {
        "SVR": SVR(gamma=0.5 / d, C=3.0).fit(X, y),
        "kernel ridge": KernelRidge(kernel="rbf", gamma=1.0 / d, alpha=0.3).fit(X, y),
        "GP mean": GaussianProcessRegressor(SkRBF(0.7 * np.sqrt(d)), alpha=0.05, optimizer=None).fit(X, y),
    }


@pytest.fixture(scope="module")
def small(diabetes):
    """The arena at d = 10 (diabetes, SVR) and d = 50 (synthetic, kernel ridge): two budgets, three seeds."""
    X, y = diabetes
    svr = SVR(gamma=0.05, C=3.0).fit(X[:300], y[:300])
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(102, 50))
    t = Z[:, :5] @ np.array([1.0, -1.0, 0.5, 0.8, -0.3]) + np.sin(Z[:, 5]) * Z[:, 6]
    krr = KernelRidge(kernel="rbf", gamma=1.0 / 50, alpha=0.3).fit(Z[:100], t[:100])
    with kx.config_context(progress=False):
        ten = kx.compare_estimators(svr, X[300:304], background=X[400:420], budgets=[50, 300], seeds=3)
        fifty = kx.compare_estimators(krr, Z[100:102], background=Z[:5], budgets=[150, 1500], seeds=3,
                                      methods=["kernel", "permutation", "product"])
    return {"ten": (ten, svr, X[300:304], X[400:420]), "fifty": (fifty, krr, Z[100:102], Z[:5])}


# --------------------------------------------------------------------------- #
# the result
# --------------------------------------------------------------------------- #
def test_the_frame_has_one_row_per_method_budget_seed_and_point(small):
    arena, model, P, B = small["ten"]
    f = arena.frame
    assert tuple(f.columns) == COLUMNS
    assert set(f["method"]) == set(arena.methods) and {"kernel", "permutation", "bayes_shap"} <= set(arena.methods)
    sampled = f[f["budget"].notna()]
    counts = sampled.groupby(["method", "budget"]).size()
    assert (counts == 3 * len(P)).all()                       # 3 seeds x 4 points
    truth = kx.explain(model, P, background=B, method="product").values
    np.testing.assert_allclose(arena.truth, truth, rtol=1e-12, atol=1e-14)
    assert arena.truth_method == "product"
    # the errors are the relative squared errors of the estimates, recomputed here
    e = kx.explain(model, P, background=B, method="permutation", budget=300, seed=2, level=arena.level)
    row = f[(f["method"] == "permutation") & (f["budget"] == 300) & (f["seed"] == 2)].sort_values("point")
    np.testing.assert_allclose(row["error"], ((e.values - truth) ** 2).sum(1) / (truth ** 2).sum(1), rtol=1e-10)
    covered = ((e.lower <= truth) & (truth <= e.upper)).mean(1)
    np.testing.assert_allclose(row["coverage"], covered)
    np.testing.assert_allclose(row["width"], (e.upper - e.lower).mean(1))
    assert (row["evaluations"] == e.meta["budget"]).all() and (row["seconds"] > 0).all()
    # every run used at most its budget
    assert (sampled["evaluations"] <= sampled["budget"]).all()


def test_the_summary_and_the_best_method(small):
    arena = small["ten"][0]
    s = arena.summary()
    assert list(s.columns) == ["evaluations", "mean_error", "median_error", "coverage", "width", "seconds", "runs"]
    assert (s["runs"] == 3).all()
    sub = arena.frame[(arena.frame["method"] == "kernel") & (arena.frame["budget"] == 300)]
    assert s.loc[("kernel", 300), "mean_error"] == pytest.approx(sub["error"].mean())
    best = arena.best()
    assert list(best.index) == [50, 300]
    for budget, method in best.items():
        assert s.loc[(method, budget), "mean_error"] == s.xs(budget, level="budget")["mean_error"].min()
    assert "EstimatorComparison(methods=" in repr(arena)


@pytest.mark.parametrize("case", ["ten", "fifty"])
def test_errors_fall_with_the_budget_and_exact_methods_score_zero(small, case):
    arena = small[case][0]
    s = arena.summary()
    low, high = arena.budgets
    for method in arena.methods:
        if arena.frame.loc[arena.frame["method"] == method, "budget"].isna().all():   # exact: one run
            assert s.loc[method, "mean_error"].max() < 1e-20
            continue
        if (method, low) not in s.index:
            continue   # below the method's smallest budget (listed in arena.skipped)
        assert s.loc[(method, high), "mean_error"] < 0.5 * s.loc[(method, low), "mean_error"], method


def test_budgets_below_a_methods_minimum_are_skipped_and_said(small):
    arena = small["ten"][0]
    for method, budget, why in arena.skipped:
        est = kx.estimators.get_estimator(method)
        assert budget < est.min_budget(10) and "smallest sensible budget" in why


def test_variants_of_one_estimator_by_label(diabetes):
    X, y = diabetes
    svr = SVR(gamma=0.05).fit(X[:200], y[:200])
    arena = kx.compare_estimators(svr, X[300:302], background=X[400:410], budgets=[110], seeds=2,
                                  methods={"plain": "permutation",
                                           "antithetic": ("permutation", {"antithetic": True})})
    assert arena.methods == ["plain", "antithetic"]
    assert arena.frame.groupby("method")["error"].mean().ne(0).all()


# --------------------------------------------------------------------------- #
# the exact values
# --------------------------------------------------------------------------- #
def test_model_calls_need_truth_beyond_enumeration_and_take_it(small):
    arena, model, P, B = small["fifty"]
    with pytest.raises(ValueError, match=r"no exact route for this game of 50 players: .* Pass the exact values as "
                                         r"truth="):
        kx.compare_estimators(model.predict, P, background=B, methods=["kernel"], budgets=[200], seeds=1)
    calls = kx.compare_estimators(model.predict, P, background=B, methods=["kernel"], budgets=[150, 1500],
                                  seeds=3, truth=arena.truth)
    assert calls.truth_method == "given"
    # the model-call game is the same game: the same coalitions give the same estimates
    ours = arena.frame[arena.frame["method"] == "kernel"].reset_index(drop=True)
    np.testing.assert_allclose(calls.frame["error"], ours["error"], rtol=1e-6)
    with pytest.raises(ValueError, match=r"truth must be the exact values, finite, of shape \(2, 50\)"):
        kx.compare_estimators(model.predict, P, background=B, methods=["kernel"], budgets=[200], truth=arena.truth[:1])


def test_small_games_get_their_exact_values_by_enumeration():
    g = kx.FunctionGame(lambda Z: np.tanh(Z @ np.linspace(-1.0, 1.0, 9)) + Z[:, 0] * Z[:, 3], 9)
    arena = kx.compare_estimators(g, methods=["permutation", "exact"], budgets=[40, 400], seeds=2)
    assert arena.truth_method == "exact"
    np.testing.assert_allclose(arena.truth[0], kx.shapley_values(g).values)
    assert arena.summary().loc["exact", "mean_error"].max() < 1e-25


# --------------------------------------------------------------------------- #
# the cost guard and refusals
# --------------------------------------------------------------------------- #
def test_the_cost_guard_prices_the_whole_comparison_before_it_starts(diabetes):
    X, y = diabetes
    svr = SVR(gamma=0.05).fit(X[:200], y[:200])
    args = dict(background=X[400:410], methods=["kernel", "permutation"], budgets=[100, 400])
    with kx.config_context(max_cost=None, progress=False):
        one = kx.compare_estimators(svr, X[300:302], seeds=1, **args).estimated_seconds
        four = kx.compare_estimators(svr, X[300:302], seeds=4, **args).estimated_seconds
    assert four > 2.5 * one                                   # every run is priced
    with kx.config_context(max_cost=0.5 * four):
        with pytest.raises(CostLimitError, match=r"kx.compare_estimators \(16 runs of 2 method\(s\).*fewer seeds"):
            kx.compare_estimators(svr, X[300:302], seeds=4, **args)


def test_refusals_name_the_problem(diabetes):
    X, y = diabetes
    svr = SVR(gamma=0.05).fit(X[:100], y[:100])
    g = kx.FunctionGame(lambda Z: Z.sum(axis=1), 4)
    with pytest.raises(InvalidOptionError, match="X given with a Game"):
        kx.compare_estimators(g, X[:2])
    with pytest.raises(InvalidOptionError, match="X=None of kx.compare_estimators: a model needs the points"):
        kx.compare_estimators(svr)
    with pytest.raises(ValueError, match="did you mean 'kernel'"):
        kx.compare_estimators(g, methods=["kernal"])
    with pytest.raises(NotApplicableError, match="method='product'.*does not apply"):
        kx.compare_estimators(g, methods=["product"])
    with pytest.raises(InvalidOptionError, match=r"^budgets=\[0\] of kx.compare_estimators must be a list"):
        kx.compare_estimators(g, budgets=[0])
    with pytest.raises(InvalidOptionError, match=r"^seeds=0 of kx.compare_estimators must be a number of seeds"):
        kx.compare_estimators(g, seeds=0)
    with pytest.raises(InvalidOptionError, match=r"antithetc"):
        kx.compare_estimators(g, methods={"p": ("permutation", {"antithetc": True})}, budgets=[20])


def test_interval_options_are_read_from_the_declared_options():
    for name in SAMPLED:
        est = kx.estimators.get_estimator(name)
        options = interval_options(est, 0.9)
        est.resolve_options(options)                           # every one is an option it takes
        assert options.get("level", 0.9) == 0.9
    assert relative_errors([[0.0, 0.0]], [[0.0, 0.0]])[0] != relative_errors([[0.0, 0.0]], [[0.0, 0.0]])[0]  # NaN


# --------------------------------------------------------------------------- #
# the plots
# --------------------------------------------------------------------------- #
def test_the_plots_draw_one_line_per_method(small):
    import matplotlib.pyplot as plt

    arena = small["fifty"][0]
    ax = kx.plots.estimator_errors(arena)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[:2] == ["kernel", "permutation"] and labels[2].startswith("product (exact; error ")
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    ax = kx.plots.estimator_coverage(arena)
    assert "kernel" in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close("all")
    with pytest.raises(TypeError, match="expected the result of kx.compare_estimators"):
        kx.plots.estimator_errors(arena.frame)


# --------------------------------------------------------------------------- #
# intervals that cover (a statistical property with fixed seeds)
# --------------------------------------------------------------------------- #
#: the levels, then the tolerance of the issue
LEVELS = (0.9, 0.95)
TOLERANCE = 0.02
#: budgets 10d and 30d at d = 10 (an estimator whose smallest budget is above both is not measured here)
COVERAGE_BUDGETS = (100, 300)
COVERAGE_SEEDS = 100
#: every estimator that states intervals, under its label in the arena: the registered ones that take a
#: level (those that state none are skipped below, saying so), and KernelSHAP's design without replacement
COVERAGE_METHODS = {**{name: name for name in SAMPLED}, "kernel (replace=False)": ("kernel", {"replace": False})}


@pytest.fixture(scope="module")
def coverage(diabetes):
    """{(family, level): EstimatorComparison} at d = 10, every interval-stating estimator, 100 seeds x 2 points."""
    X, y = diabetes
    out = {}
    with kx.config_context(progress=False, max_cost=None):
        for family, model in _families(X[:300], y[:300], 10).items():
            for level in LEVELS:
                out[family, level] = kx.compare_estimators(model, X[300:302], background=X[400:420],
                                                           methods=COVERAGE_METHODS, budgets=list(COVERAGE_BUDGETS),
                                                           seeds=COVERAGE_SEEDS, level=level)
    return out


@pytest.mark.slow
@pytest.mark.xdist_group("coverage")   # one worker computes the module's coverage fixture once (~3.5 min)
@pytest.mark.parametrize("method", list(COVERAGE_METHODS))
def test_stated_intervals_cover_at_their_level(coverage, method):
    """Within +-0.02 of 0.9 and of 0.95, on each of three model families, over 2,000 (point, feature) pairs
    per family, level and budget (fixed seeds 0..99: a statistical property, not a timing test)."""
    measured, failures = [], []
    for (family, level), arena in coverage.items():
        f = arena.frame[arena.frame["method"] == method]
        if f.empty:
            pytest.skip(f"{method}'s smallest budget at d = 10 is above the budgets tested here {COVERAGE_BUDGETS}")
        if f["coverage"].isna().all():
            pytest.skip(f"{method} states no intervals")
        for budget, rows in f.groupby("budget"):
            pairs = rows["coverage"].notna().sum() * arena.truth.shape[1]
            assert pairs >= 1000 and rows["seed"].nunique() == COVERAGE_SEEDS
            c = float(rows["coverage"].mean())
            measured.append(f"{family} {level:g} budget {int(budget)}: {c:.3f}")
            if abs(c - level) > TOLERANCE:
                failures.append(measured[-1])
    assert {level for _, level in coverage} == set(LEVELS) and len(measured) >= 2 * 3
    assert not failures, (f"{method}'s intervals do not cover within +-{TOLERANCE} of their level "
                          f"({len(failures)} of {len(measured)} cases): {'; '.join(failures)}")


def test_bayes_shap_states_a_design_based_interval_and_the_credible_one_only_when_asked():
    """The estimator's interval is the sandwich one; the posterior's credible interval, which did not cover,
    is what kx.uncertainty.bayes_shap (the Bayesian model, for teaching) gives by default."""
    g = kx.FunctionGame(lambda Z: np.tanh(Z @ np.linspace(-1.0, 1.0, 8)) + Z[:, 0] * Z[:, 1], 8)
    est = kx.estimators.get_estimator("bayes_shap")
    assert est.accepted_options()["interval"].default == "sandwich" and "interval" not in interval_options(est, 0.9)
    stated = kx.shapley_values(g, method="bayes_shap", budget=202, seed=0)
    credible = kx.shapley_values(g, method="bayes_shap", budget=202, seed=0, interval="credible")
    np.testing.assert_array_equal(stated.values, credible.values)
    assert stated.meta["interval"].startswith("design-based t-interval of the posterior mean: sandwich (CR2)")
    assert "not a confidence interval" in credible.meta["interval"]
    assert not np.allclose(stated.upper - stated.lower, credible.upper - credible.lower)
    taught = kx.uncertainty.bayes_shap(g, n_samples=200, seed=0)
    np.testing.assert_array_equal(taught.upper, credible.upper)


def test_intervals_are_withdrawn_where_they_were_measured_not_to_cover():
    """Below these budgets the intervals are infinite -- stated as none -- and the arena does not count them."""
    g = kx.FunctionGame(lambda Z: np.tanh(Z @ np.linspace(-1.0, 1.0, 10)) + Z[:, 0] * Z[:, 1], 10)
    few = {"msr": ({"budget": 50}, "too few for a CLT"),                          # 24 draws < 30
           "bayes_shap": ({"budget": 50}, "10 independent draws per unknown"),     # 48 coalitions < 90
           "kernel": ({"budget": 50, "replace": False, "interval": "sandwich"}, "need at least 27 pairs"),
           "polyshap": ({"budget": 600}, "need at least 387 pairs"),             # 299 pairs, 129 unknowns, HC3
           "permutation": ({"budget": 83}, "too few for a t-interval")}           # 9 orderings < 10
    for name, (options, why) in few.items():
        e = kx.shapley_values(g, name, seed=0, **options)
        assert np.all(np.isinf(e.upper)) and np.all(np.isinf(e.stderr)), name
        assert e.meta["interval"].startswith("infinite") and why in e.meta["interval"], e.meta["interval"]
    enough = {"msr": {"budget": 100}, "bayes_shap": {"budget": 100}, "polyshap": {"budget": 800},
              "permutation": {"budget": 92},
              "kernel": {"budget": 60, "replace": False, "interval": "sandwich"}}
    for name, options in enough.items():
        assert np.all(np.isfinite(kx.shapley_values(g, name, seed=0, **options).upper)), name
    arena = kx.compare_estimators(g, methods=["msr"], budgets=[50, 200], seeds=1)
    coverage = arena.summary()["coverage"]
    assert np.isnan(coverage[("msr", 50)]) and 0.0 <= coverage[("msr", 200)] <= 1.0


# --------------------------------------------------------------------------- #
# what method="auto" takes without an exact route (the arena's rule)
# --------------------------------------------------------------------------- #
def test_auto_takes_the_sampled_estimator_of_the_measured_rule():
    from kernelxai.estimators._choose import SAMPLED_RULES, choose

    registered = kx.estimators.estimators()
    assert all(name in registered for _, _, name in SAMPLED_RULES)
    game = kx.FunctionGame(lambda Z: np.tanh(Z @ np.linspace(-1.0, 1.0, 40)), 40)
    for multiple in (3, 5, 10, 20, 100):
        budget = multiple * 40 + 2
        expected = next((name for smallest_d, m, name in SAMPLED_RULES
                         if 40 >= smallest_d and budget >= m * 40
                         and budget >= (registered[name].min_budget(40) or 0)
                         and registered[name].why_not(game) is None), "kernel")
        est, why = choose(game, {"budget": budget})
        assert est.name == expected, (multiple, why)
        e = kx.shapley_values(game, method="auto", budget=budget, seed=0)
        assert e.meta["method"] == expected and e.meta["auto"] == why
    # options only KernelSHAP takes keep KernelSHAP; exact routes are untouched
    assert choose(game, {"budget": 4000, "paired": False})[0].name == "kernel"
    assert choose(kx.FunctionGame(lambda Z: Z.sum(axis=1), 6))[0].name == "exact"
    assert choose(kx.ProductGame([[0.5, 0.8, 0.9]], [[1.0, 1.0, 1.0]], [2.0]))[0].name == "product"


# --------------------------------------------------------------------------- #
# the arena's error beside a sampled estimate (a guide, measured on other models)
# --------------------------------------------------------------------------- #
def test_a_sampled_estimate_carries_the_error_the_arena_measured_with_its_label(diabetes):
    from kernelxai.estimators._arena_guide import GUIDE_LABEL, load_guide, nearest_row

    X, y = diabetes
    svr = SVR(gamma=0.05).fit(X[:200], y[:200])
    e = kx.explain(svr, X[300:303], background=X[400:410], method="leverage_shap", budget=200, seed=0)
    guide = e.meta["arena_error"]
    assert guide["label"] == GUIDE_LABEL == ("measured by the arena on other models (product-kernel SVR / "
                                             "kernel ridge / GP mean), not on yours")
    row = nearest_row(load_guide()["errors"]["leverage_shap"], 10, 200)
    assert (guide["d"], guide["budget"], guide["asked"]) == (row["d"], row["budget"], {"d": 10, "budget": 200})
    assert guide["relative_squared_error"] == row["error"] and guide["range"] == row["range"]
    assert guide["method"] == "leverage_shap" and "bench_estimators.py --write-guide" in guide["run"]
    assert f"relative squared error ~{row['error']:.1e} at d={row['d']}, budget={row['budget']}" in repr(e)
    assert GUIDE_LABEL in repr(e)
    # method="auto" falling to a sampled estimator (model calls at d = 20: no exact route is affordable)
    Z = np.random.default_rng(1).normal(size=(60, 20))
    krr = KernelRidge(kernel="rbf", gamma=0.05).fit(Z, Z[:, 0] - Z[:, 1] * Z[:, 2])
    auto = kx.explain(krr.predict, Z[:2], background=Z[:5], budget=400, seed=0)
    assert not auto.meta["exact"] and auto.meta["arena_error"]["asked"] == {"d": 20, "budget": 400}
    assert auto.meta["arena_error"]["method"] == auto.meta["method"]
    # the guide survives the JSON round trip and slicing
    assert kx.Explanation.from_json(e.to_json()).meta["arena_error"] == guide
    assert e[0].meta["arena_error"] == guide


def test_exact_routes_carry_no_arena_error(diabetes):
    X, y = diabetes
    svr = SVR(gamma=0.05).fit(X[:200], y[:200])
    for method in ("auto", "product", "exact"):
        e = kx.explain(svr, X[300:302], background=X[400:410], method=method)
        assert e.meta["exact"] and "arena_error" not in e.meta and "measured by the arena" not in repr(e)
    # a sampled call whose budget reaches every coalition is exact: no guide either
    g = kx.FunctionGame(lambda Z: np.tanh(Z @ np.linspace(-1.0, 1.0, 6)), 6)
    assert "arena_error" not in kx.shapley_values(g, method="leverage_shap", budget=64, seed=0).meta
    assert "arena_error" in kx.shapley_values(g, method="leverage_shap", budget=40, seed=0).meta


def test_the_nearest_measured_d_and_budget_is_looked_up(monkeypatch):
    from kernelxai.estimators import _arena_guide as guide
    from kernelxai.estimators._arena_guide import guide_label, measured_error, nearest_row

    rows = [{"d": d, "budget": m * d, "error": float(d * 1000 + m), "range": [0.0, 1.0], "by_model": {}}
            for d in (10, 50, 200) for m in (5, 10, 20, 50, 100)]
    table = {"errors": {"kernel": rows, "kernel (replace=False)": rows[:5]}, "run": {"summary": "test run"}}
    monkeypatch.setattr(guide, "load_guide", lambda: table)
    kernel = kx.estimators.get_estimator("kernel")

    def looked_up(d, budget, **options):
        found = measured_error(kernel, kernel.resolve_options(options), d, budget)
        return None if found is None else (found["d"], found["budget"])

    assert looked_up(10, 100) == (10, 100)                  # measured there
    assert looked_up(12, 90) == (10, 100)                   # 7.5x of 12: nearest 10x (log scale) at d = 10
    assert looked_up(12, 84) == (10, 50)                    # 7x of 12: nearer 5x
    assert looked_up(22, 2200) == (10, 1000)                # sqrt(10 * 50) = 22.4: d = 10 is (just) nearer
    assert looked_up(23, 2300) == (50, 5000)
    assert looked_up(1000, 3000) == (200, 1000)             # beyond the run: its largest d, the budget by multiple
    assert looked_up(50, 10**6) == (50, 5000) and looked_up(50, 3) == (50, 250)
    assert looked_up(10, 1024) is None                      # all 2**10 coalitions: exact, no guide
    assert looked_up(10, 100, replace=False) == (10, 100)   # a measured variant
    assert looked_up(10, 100, paired=False) is None         # a variant the run did not measure
    assert guide_label(kernel, kernel.resolve_options({"paired": False, "level": 0.9})) == "kernel (paired=False)"
    exact = kx.estimators.get_estimator("exact")
    assert measured_error(exact, exact.resolve_options({}), 10, 100) is None
    assert nearest_row(rows, 60, 600)["d"] == 50


def test_the_guide_is_package_data_read_lazily_and_covers_every_sampled_estimator():
    import json
    import subprocess
    import sys
    from pathlib import Path

    path = Path(kx.__file__).parent / "estimators" / "_arena_errors.json"
    table = json.loads(path.read_text())
    assert table["label"].startswith("measured by the arena on other models")
    assert "--write-guide" in table["run"]["summary"] and {10, 50, 200} <= set(table["run"]["dims"])
    assert set(SAMPLED) | {"kernel (replace=False)"} <= set(table["errors"]), "rerun --write-guide"
    for rows in table["errors"].values():
        for r in rows:
            assert r["range"][0] <= r["error"] <= r["range"][1] and len(r["by_model"]) == 3
    code = ("import kernelxai, kernelxai.estimators._arena_guide as g; "
            "print(g.load_guide.cache_info().currsize)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "0"                       # not read at import
    pyproject = (Path(kx.__file__).parents[1] / "pyproject.toml").read_text()
    assert '"kernelxai.estimators" = ["_arena_errors.json"]' in pyproject
