"""Regression tests: routes that were silently wrong or hung now refuse, warn or bound their work.

Each test names the behaviour found on the first wave's main.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest

import kernelxai as kx
from kernelxai.estimators import CostLimitError, InvalidOptionError
from kernelxai.estimators._product import PrecisionError, product_shapley

ROOT = Path(__file__).resolve().parents[1]


def functional_game(d, n_train=50, n_x=1, lengthscale=None, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_train, d))
    model = kx.models.KernelExpansion(X, rng.normal(size=n_train),
                                      kx.kernels.RBF(lengthscale or math.sqrt(d / 2)))
    return model, kx.values.FunctionalBaseline(model).game(rng.normal(size=(n_x, d)))


# ------------------------------------------------------------------ paper routes
def test_newton_at_d200_refuses_instead_of_returning_garbage():
    """Found: method='newton' at d = 200 returned values off by 6e39 with no error."""
    _, g = functional_game(200, n_train=20)
    with pytest.raises(PrecisionError, match="lost precision.*method='product'"):
        kx.shapley_values(g, method="newton")
    # the raw route is still reachable, for showing how it fails
    raw, _, err = product_shapley(g, route="newton", tolerance=None, return_bound=True)
    assert err > 1.0


def test_newton_on_interventional_games_refuses_at_d4():
    """Found: 'newton' was off by 4e10 at d = 4 on an interventional game, with meta exact=True."""
    rng = np.random.default_rng(1)
    X = 2 * rng.normal(size=(40, 4))
    model = kx.models.KernelExpansion(X, rng.normal(size=40), kx.kernels.RBF(0.3))
    g = kx.values.Interventional(model, X).game(X[:3])
    with pytest.raises(PrecisionError):
        kx.shapley_values(g, method="newton")
    exact = kx.shapley_values(g, method="exact").values
    np.testing.assert_allclose(kx.shapley_values(g, method="product").values, exact, atol=1e-10)


def test_newton_that_is_accurate_reports_its_measured_error():
    _, g = functional_game(8, n_train=30, n_x=2)
    e = kx.shapley_values(g, method="newton")
    assert e.meta["exact"] is True and e.meta["error_bound"] < 1e-12
    np.testing.assert_allclose(e.values, kx.shapley_values(g, "exact").values, atol=1e-10)


def test_stable_at_d2000_fails_fast():
    """Found: method='stable' at d = 2000 ran for minutes before returning non-finite values."""
    _, g = functional_game(2000, n_train=3, lengthscale=40.0)
    start = time.perf_counter()
    with pytest.raises(PrecisionError, match="would overflow"):
        kx.shapley_values(g, method="stable")
    assert time.perf_counter() - start < 5.0


# ------------------------------------------------------------------ cost guard and progress
def big_interventional_game(n=200_000, d=2, n_x=1):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    model = kx.models.KernelExpansion(X, rng.normal(size=n) / n, kx.kernels.RBF(1.0))
    return kx.values.Interventional(model).game(X[:n_x])


def test_huge_background_is_estimated_and_refused_with_advice():
    """Found: a 200 000-row training set ran silently for minutes, no estimate, no advice."""
    g = big_interventional_game()
    cost = kx.estimate_cost(g, "auto")
    assert cost["seconds"] > 10  # 4e10 kernel products on the background
    with kx.config_context(max_cost=5.0):
        with pytest.raises(CostLimitError) as err:
            kx.shapley_values(g, "auto")
    message = str(err.value)
    assert "would take about" in message and "summarised background" in message
    assert "config_context(max_cost=None)" in message


def test_long_runs_announce_an_estimate_and_show_progress(capsys):
    g = big_interventional_game(n=3_000)
    with kx.config_context(progress_after=1e-6):
        e = kx.shapley_values(g, "exact")
    err = capsys.readouterr().err
    assert "estimated" in err and "method='exact'" in err
    assert np.isfinite(e.values).all()


def test_config_context_is_validated_and_restored():
    before = kx.get_config()
    with kx.config_context(max_memory=2**20, max_cost=None, progress=False):
        assert kx.get_config()["max_memory"] == 2**20
        assert kx.get_config()["max_cost"] is None
    assert kx.get_config() == before
    with pytest.raises(ValueError, match="unknown configuration key"):
        with kx.config_context(max_memmory=1):
            pass
    with pytest.raises(ValueError, match="max_cost"):
        with kx.config_context(max_cost=-1):
            pass


def test_max_memory_sizes_the_blocks():
    """One knob replaces the scattered memory literals; results do not depend on it."""
    _, g = functional_game(6, n_train=200, n_x=5)
    a = kx.shapley_values(g, "exact").values
    with kx.config_context(max_memory=2**16):
        b = kx.shapley_values(g, "exact").values
        c = kx.shapley_values(g, "product").values
    np.testing.assert_allclose(a, b, atol=1e-12)
    np.testing.assert_allclose(a, c, atol=1e-10)


# ------------------------------------------------------------------ options and groups
def test_misspelt_options_list_what_is_accepted():
    """Found: n_permutation=50 / etta=1e-3 raised TypeError naming a private function."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    model = kx.models.KernelExpansion(X, rng.normal(size=30), kx.kernels.RBF(1.0))
    with pytest.raises(InvalidOptionError, match="n_permutation.*It accepts:.*budget.*did you mean "
                                                  "'n_permutations'"):
        kx.explain(model, X[:2], method="permutation", n_permutation=50)
    with pytest.raises(InvalidOptionError, match="etta.*'observational' value function accepts:.*eta"
                                                  ".*did you mean 'eta'"):
        kx.explain(model, X[:2], value="observational", etta=1e-3)


def test_budget_is_the_common_keyword_and_old_names_still_work():
    g = kx.TabularGame(np.random.default_rng(3).normal(size=2**6))
    new = kx.shapley_values(g, "permutation", budget=10 * 5 + 2, seed=1)
    old = kx.shapley_values(g, "permutation", n_permutations=10, seed=1)
    np.testing.assert_array_equal(new.values, old.values)
    assert new.meta["budget"] == old.meta["budget"] == 52
    k_new = kx.shapley_values(g, "kernel", budget=42, seed=2)
    k_old = kx.shapley_values(g, "kernel", n_coalitions=40, seed=2)
    np.testing.assert_array_equal(k_new.values, k_old.values)
    b_new = kx.shapley_values(g, "bayes_shap", budget=102, seed=2)
    b_old = kx.shapley_values(g, "bayes_shap", n_samples=100, seed=2)
    np.testing.assert_array_equal(b_new.values, b_old.values)
    with pytest.raises(InvalidOptionError, match="either budget= or its old name"):
        kx.shapley_values(g, "kernel", budget=42, n_coalitions=40)


def test_groups_by_feature_name():
    """Found: groups=[['x0', 'x1'], ['x2']] crashed with 'invalid literal for int()'."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    model = kx.models.KernelExpansion(X, rng.normal(size=30), kx.kernels.RBF(1.0))
    by_name = kx.explain(model, X[:3], groups=[["x0", "x1"], ["x2"]])
    by_index = kx.explain(model, X[:3], groups=[[0, 1], [2]])
    np.testing.assert_array_equal(by_name.values, by_index.values)
    with pytest.raises(ValueError, match="groups='x0' of kx.explain must be a list of lists"):
        kx.explain(model, X[:3], groups="x0")


# ------------------------------------------------------------------ bounded loops
def test_bayes_shap_unreachable_target_width_ends_quickly():
    """Found: target_width=1e-12 overflowed int64 (-9223372036854775808) and looped for ten minutes."""
    from kernelxai.uncertainty import perturbations_to_go

    to_go = perturbations_to_go(np.array([1.0, 2.0]), 1e-300, 10)
    assert to_go >= 0 and to_go <= 2**53
    g = kx.FunctionGame(lambda z: (z * np.arange(1, 6)).sum(1) + z[:, 0] * z[:, 1], 5)
    start = time.perf_counter()
    e = kx.uncertainty.bayes_shap(g, target_width=1e-12, seed=0, max_samples=20_000)
    assert time.perf_counter() - start < 30
    assert e.meta["converged"] is False and e.meta["n_samples"] <= 20_000
    assert 0 <= e.meta["perturbations_to_go"] <= 2**53


# ------------------------------------------------------------------ layout
# the import graph (no cycle, stages in order): tests/test_layers.py


def test_no_two_modules_share_a_stem_with_different_meanings():
    stems = {}
    for path in (ROOT / "kernelxai").rglob("*.py"):
        if path.stem != "__init__":
            stems.setdefault(path.stem.rstrip("s"), []).append(str(path.relative_to(ROOT)))
    shared = {k: v for k, v in stems.items() if len(v) > 1}
    assert not shared, shared


def test_no_hasattr_probing_of_game_abilities():
    for path in (ROOT / "kernelxai").rglob("*.py"):
        text = path.read_text()
        for probe in ("coefficient_matrices", "unit_game", "iter_terms", "auto_method"):
            assert f'hasattr(game, "{probe}")' not in text and f"hasattr(vf, \"{probe}\")" not in text, path


def test_hsic_at_n80000_is_refused_up_front_or_bounded():
    """Found: HSIC at n = 20 000 failed with a MemoryError about an internal block.

    The permutation test now runs in row blocks (tests/test_faults.py). Its 200 default
    permutations cost ~n^2: priced at calibrated rates (#25), n = 40 000 is estimated at ~23
    minutes on a machine with a fast exponential (AVX-512; the kernel factors are timed by the
    calibration) and ~1.5 hours on others, so it runs or refuses depending on the machine.
    At n = 80 000 (four times the work, 1.5 hours or more) the call refuses before any work
    and names the knobs, on any machine.
    """
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80_000, 10))
    y = X[:, 0] + rng.normal(size=80_000)
    start = time.perf_counter()
    with pytest.raises(CostLimitError, match="HSIC permutation test.*n_permutations"):
        kx.explain_hsic(X, y)
    assert time.perf_counter() - start < 10
