"""One progress bar per call, with the estimate in its description; quiet below progress_after (#25)."""

import numpy as np
import pytest
import tqdm.auto
from sklearn.kernel_ridge import KernelRidge

import kernelxai as kx
from kernelxai.estimators._common import progress_bar
from kernelxai.explainers._explain import build_game


@pytest.fixture
def bars(monkeypatch):
    """The tqdm bars opened while the test runs (tqdm.auto.tqdm replaced by a recording subclass)."""
    opened = []

    class Recording(tqdm.auto.tqdm):
        def __init__(self, *args, **kwargs):
            kwargs["disable"] = True  # nothing on the terminal; the bar is still made and counted
            super().__init__(*args, **kwargs)
            self.recorded_desc = kwargs.get("desc")
            self.postfixes = []
            opened.append(self)

        def set_postfix_str(self, s="", refresh=True):
            self.postfixes.append(s)
            super().set_postfix_str(s, refresh=refresh)

    monkeypatch.setattr(tqdm.auto, "tqdm", Recording)
    return opened


def small_model(d=4, n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1]
    return KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y), X


def test_observational_exact_opens_one_bar_with_the_estimate(bars):
    model, X = small_model()
    with kx.config_context(progress=True):
        expl = kx.explain(model, X[:3], value="observational", method="exact")
    assert len(bars) == 1, [b.recorded_desc for b in bars]
    assert "estimated" in bars[0].recorded_desc
    assert bars[0].postfixes and all(p.startswith("CME coalitions") for p in bars[0].postfixes)
    with kx.config_context(progress=False):
        quiet = kx.explain(model, X[:3], value="observational", method="exact")
    np.testing.assert_array_equal(expl.values, quiet.values)


def test_product_route_bar_carries_the_estimate(bars):
    model, X = small_model(d=6)
    with kx.config_context(progress=True):
        kx.explain(model, X[:2], value="functional_baseline", method="product")
    assert len(bars) == 1
    assert bars[0].recorded_desc.startswith("product Shapley") and "estimated" in bars[0].recorded_desc


@pytest.mark.parametrize("config", [{"progress": "auto", "progress_after": 1e9}, {"progress": False}])
def test_quiet_below_progress_after_and_when_off(bars, config):
    model, X = small_model()
    with kx.config_context(**config):
        kx.explain(model, X[:3], value="observational", method="exact")
        kx.explain(model, X[:3], value="functional_baseline")
    assert bars == []


@pytest.mark.parametrize("method", ["exact", "product"])
def test_explicit_progress_false_is_quiet(bars, method):
    model, X = small_model()
    game = build_game(model, X[:3], value="interventional", background=X[:10]).game
    with kx.config_context(progress=True):
        kx.shapley_values(game, method=method, progress=False)
    assert bars == []


def test_nested_stages_report_into_the_open_bar(bars):
    with progress_bar(3, "outer", "step", True) as outer:
        with progress_bar(5, "inner", "item", True) as inner:
            inner.update(5)
        outer.update(3)
    assert len(bars) == 1
    assert bars[0].postfixes[-1] == "inner 5/5"
    with progress_bar(2, "after", "step", True):  # the outer bar is closed: a new call opens its own
        pass
    assert len(bars) == 2 and bars[1].recorded_desc == "after"


def _descs(bars):
    return [b.recorded_desc for b in bars]


@pytest.mark.parametrize("value, extra", [("marginal", {}), ("gaussian_copula", {"n_samples": 20}),
                                          ("empirical", {}), ("observational", {}),
                                          ("interventional", {})])
def test_explain_opens_one_bar_and_none_when_off(bars, value, extra):
    model, X = small_model(d=6)
    with kx.config_context(progress="auto", progress_after=1e-12):
        expl = kx.explain(model, X[:2], value=value, background=X[:12], method="exact", **extra)
        assert len(bars) == 1, _descs(bars)
        assert "estimated" in bars[0].recorded_desc
        quiet = kx.explain(model, X[:2], value=value, background=X[:12], method="exact", progress=False,
                           **extra)
    assert len(bars) == 1, _descs(bars)
    np.testing.assert_array_equal(expl.values, quiet.values)


def test_explain_mmd_with_permutations_opens_one_bar(bars):
    rng = np.random.default_rng(1)
    X, Z = rng.normal(size=(20, 3)), rng.normal(0.5, 1.0, size=(25, 3))
    with kx.config_context(progress="auto", progress_after=1e-12):
        kx.explain_mmd(X, Z, n_permutations=30, seed=0, progress=True)
        assert len(bars) == 1, _descs(bars)
        assert any(p.startswith("MMD permutation test") for p in bars[0].postfixes)
        kx.explain_mmd(X, Z, n_permutations=30, seed=0, progress=False)
        kx.explain_hsic(X, Z[:20, 0], n_permutations=30, seed=0, progress=False)
    assert len(bars) == 1, _descs(bars)


@pytest.mark.parametrize("kind, method", [("kernel", "exact"), ("callable", "exact"), ("callable", "permutation")])
def test_single_reference_opens_one_bar(bars, kind, method):
    model, X = small_model(d=4)
    predict = model if kind == "kernel" else model.predict
    with kx.config_context(progress=True):
        kx.uncertainty.single_reference(predict, X[:2], X[5:10], method=method, seed=0, progress=True)
        assert len(bars) == 1, _descs(bars)
        kx.uncertainty.single_reference(predict, X[:2], X[5:10], method=method, seed=0, progress=False)
    assert len(bars) == 1, _descs(bars)
