"""Contract: every public entry point goes through the same door (issue #36, items 3 and 6).

Every public function that takes data, a model or a game declares its parameters once
(``kernelxai._params.parameters``) and is checked by that one mechanism. The list of entry points
below is checked against the public surface (``kx``, ``kx.explainers``, ``kx.uncertainty``), so a
new public function is either added here -- and then held to the contract -- or named, with a
reason, as not an entry point. Generated over that list:

* **DataFrames**: for every argument that holds rows of features (``X``, a background, ``Z``,
  a reference sample, a summary, ``ShapleyPrior.fit``'s Shapley ``values``), a DataFrame whose
  columns are shuffled, missing, extra or renamed either matches by name -- its values are
  checked equal to the call with the columns in order -- or is refused with the message
  ``kx.explain`` gives (``kernelxai._validation.check_feature_names``). Arguments without
  anything to compare with (the one sample of ``explain_r2``, ``explain_hsic``, ``summarize``,
  ``subsample``) carry their names with their columns: a shuffled frame gives the same numbers
  under the same names.
* **sparse input**: a scipy sparse matrix in place of every such argument gives the numbers of
  the dense call.
* **misspelt keywords**: refused before any work with one format -- ``"'x' is not an argument of
  <entry> ... did you mean 'y' for 'x'?"`` -- listing what is accepted.
* **bad values**: refused with ``"<name>=<value> of <entry> must be <what is accepted>"``.
* **seed**: every entry point that draws random numbers takes ``seed=``, and ``random_state=``
  (scikit-learn's name) as another name of it; both at once are refused.

The last section checks the "one door is not yet one door" answers of #36 against independent
computations.
"""

from __future__ import annotations

import inspect
import re
import tempfile
import time

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.decomposition import KernelPCA
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.neighbors import KernelDensity

import kernelxai as kx
from kernelxai.estimators import CostLimitError, InvalidOptionError

COLUMNS = ["a", "b", "c", "d"]
SHUFFLED = ["d", "c", "a", "b"]
ORDER = [COLUMNS.index(c) for c in SHUFFLED]

FAULTS = {
    "shuffled": lambda F: F[SHUFFLED],
    "missing": lambda F: F[COLUMNS[:3]],
    "extra": lambda F: F.assign(e=1.0),
    "renamed": lambda F: F.rename(columns={"d": "D"}),
}

#: what kx.explain says, per fault (kernelxai._validation.check_feature_names)
REFUSALS = {
    "shuffled": r"has the features in a different order than .*Reorder the columns",
    "missing": r"does not have the features .*missing: \['d'\]",
    "extra": r"does not have the features .*unseen features: \['e'\]",
    "renamed": r"does not have the features .*unseen features: \['D'\]; missing: \['d'\]",
}


# --------------------------------------------------------------------------- #
# the entry points
# --------------------------------------------------------------------------- #
#: every public entry point: name -> (the function, the name its messages give)
ENTRY_POINTS = {
    "explain": (kx.explain, "kx.explain"),
    "explain_interactions": (kx.explain_interactions, "kx.explain_interactions"),
    "shapley_interactions": (kx.shapley_interactions, "kx.shapley_interactions"),
    "shapley_values": (kx.shapley_values, "kx.shapley_values"),
    "estimate_cost": (kx.estimate_cost, "kx.estimate_cost"),
    "compare_estimators": (kx.compare_estimators, "kx.compare_estimators"),
    "explain_mmd": (kx.explain_mmd, "kx.explain_mmd"),
    "explain_hsic": (kx.explain_hsic, "kx.explain_hsic"),
    "explain_r2": (kx.explain_r2, "kx.explain_r2"),
    "explain_gp": (kx.explain_gp, "kx.explain_gp"),
    "ShapleyPrior": (kx.ShapleyPrior.__init__, "kx.ShapleyPrior"),
    "ShapleyPrior.fit": (kx.ShapleyPrior.fit, "kx.ShapleyPrior.fit"),
    "ShapleyPrior.predict": (kx.ShapleyPrior.predict, "kx.ShapleyPrior.predict"),
    "explainers.subsample": (kx.explainers.subsample, "kx.explainers.subsample"),
    "explainers.summarize": (kx.explainers.summarize, "kx.explainers.summarize"),
    "explainers.summary_bound": (kx.explainers.summary_bound, "kx.explainers.summary_bound"),
    "explainers.mmd": (kx.explainers.mmd, "kx.explainers.mmd"),
    "explainers.mmd_permutation_test": (kx.explainers.mmd_permutation_test, "kx.explainers.mmd_permutation_test"),
    "explainers.hsic_permutation_test": (kx.explainers.hsic_permutation_test,
                                         "kx.explainers.hsic_permutation_test"),
    "uncertainty.single_reference": (kx.uncertainty.single_reference, "kx.uncertainty.single_reference"),
    "uncertainty.single_reference_game": (kx.uncertainty.single_reference_game,
                                          "kx.uncertainty.single_reference_game"),
    "uncertainty.ReferenceSamplingGame": (kx.uncertainty.ReferenceSamplingGame.__init__,
                                          "kx.uncertainty.ReferenceSamplingGame"),
    "uncertainty.shapley_residuals": (kx.uncertainty.shapley_residuals, "kx.uncertainty.shapley_residuals"),
    "uncertainty.bayes_shap": (kx.uncertainty.bayes_shap, "kx.uncertainty.bayes_shap"),
    # kx.report is the report module, callable as its function (kernelxai.report.report)
    "report": (kx.report.report, "kx.report"),
}

#: public callables of the scanned namespaces that are not entry points, and why
NOT_ENTRY_POINTS = {
    "available_methods": "takes no arguments",
    "config_context": "configuration: its keys and values are checked by kernelxai._config",
    "get_config": "takes no arguments",
    "set_config": "configuration: its keys and values are checked by kernelxai._config",
    "calibrate": "measures this machine; takes no data",
    "prime_allocator": "an opt-in change of this process's allocator; takes no arguments",
    "Explanation": "the result object (its constructor checks its own arrays)",
    "Game": "a base class (abstract)",
    "TabularGame": "a game object: what the entry points from a game take",
    "FunctionGame": "a game object: what the entry points from a game take",
    "ProductGame": "a game object: what the entry points from a game take",
    "GroupedGame": "a game object: what the entry points from a game take",
    "MMDGame": "a game object built by explain_mmd (the entry point) from checked arrays",
    "HSICGame": "a game object built by explain_hsic (the entry point) from checked arrays",
    "R2Game": "a game object built by explain_r2 (the entry point)",
    "mean_embedding": "a building block of the value functions on checked arrays (kernel mean embeddings)",
    "BackgroundSummary": "the result of summarize",
    "SummaryBound": "the result of summary_bound",
    "EstimatorComparison": "the result of compare_estimators",
    "BackgroundRequiredError": "an exception",
    "ShapleyResiduals": "the result of shapley_residuals",
    "walsh_hadamard": "a transform of an array (maths, no data of a model)",
    "bayes_linear_posterior": "the conjugate posterior of bayes_shap's regression (maths on arrays)",
    "BayesPosterior": "the result of bayes_linear_posterior",
    "coalition_second_moment": "E[z z^T] under the Shapley kernel: a function of d",
    "perturbations_to_go": "bayes_shap's forecast (maths on arrays)",
}

NAMESPACES = {"": kx, "explainers.": kx.explainers, "uncertainty.": kx.uncertainty}


def _public_callables():
    for prefix, module in NAMESPACES.items():
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and not inspect.ismodule(obj):
                yield prefix, name, obj


def test_every_public_callable_is_an_entry_point_or_says_why_not():
    entries = {fn for fn, _ in ENTRY_POINTS.values()}
    unlisted = []
    for prefix, name, obj in _public_callables():
        target = obj.__init__ if inspect.isclass(obj) and f"{prefix}{name}" in ENTRY_POINTS else obj
        if target in entries or f"{prefix}{name}" in ENTRY_POINTS or name in ENTRY_POINTS:
            continue
        if name not in NOT_ENTRY_POINTS:
            unlisted.append(f"{prefix}{name}")
    assert not unlisted, (f"public callables neither in ENTRY_POINTS nor in NOT_ENTRY_POINTS: {unlisted}; "
                          "add each to the contract (and declare its parameters) or say why it is not an entry point")


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_every_entry_point_declares_its_parameters(name):
    fn, entry = ENTRY_POINTS[name]
    declaration = getattr(fn, "__kx_parameters__", None)
    assert declaration is not None, f"{name} is not declared with kernelxai._params.parameters"
    assert declaration.entry == entry
    takes_seed = "seed" in inspect.signature(fn).parameters or "seed" in declaration.constraints
    assert "random_state" not in inspect.signature(fn).parameters, f"{name}: seed=, not random_state="
    if takes_seed:
        assert declaration.aliases == {"random_state": "seed"}


# --------------------------------------------------------------------------- #
# data
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def m():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 4)), columns=COLUMNS)
    y = X["a"] - X["b"] * X["c"] + 0.5 * X["d"] + 0.1 * rng.normal(size=40)
    Xa, ya = X.to_numpy(), y.to_numpy()
    krr = kx.models.KernelRidge(kx.kernels.RBF(1.5), lam=1e-2).fit(X, y)
    krr_a = kx.models.KernelRidge(kx.kernels.RBF(1.5), lam=1e-2).fit(Xa, ya)
    gp = GaussianProcessRegressor(SkRBF(1.5), alpha=1e-2, optimizer=None).fit(X, y)
    gp_a = GaussianProcessRegressor(SkRBF(1.5), alpha=1e-2, optimizer=None).fit(Xa, ya)
    P, P2, B = X.iloc[:3], X.iloc[3:6], X.iloc[10:18]
    known = kx.explain(gp, P, background=B)
    known_a = kx.explain(gp_a, P.to_numpy(), background=B.to_numpy())
    known_frame = pd.DataFrame(known.values, columns=known.feature_names)
    game = kx.TabularGame(rng.normal(size=2**4))
    return dict(X=X, y=y, Xa=Xa, ya=ya, krr=krr, krr_a=krr_a, gp=gp, gp_a=gp_a, P=P, P2=P2, B=B,
                known=known, known_a=known_a, known_frame=known_frame, game=game,
                f=lambda Z: Z[:, 0] - Z[:, 1] * Z[:, 2] + 0.5 * Z[:, 3])


def _numbers(result):
    """The numbers of any entry point's result, as one float array."""
    if isinstance(result, kx.Explanation):
        parts = [result.values, result.base_values]
        parts += [a for a in (result.covariance, result.interactions) if a is not None]
        return np.concatenate([np.ravel(np.asarray(p, dtype=float)) for p in parts])
    if isinstance(result, kx.ShapleyPrior):
        return _numbers(result.predict(result.X_))
    if isinstance(result, kx.explainers.BackgroundSummary):
        return np.r_[np.ravel(np.asarray(result.points, dtype=float)), result.mmd, result.weighted_mmd]
    if isinstance(result, kx.explainers.SummaryBound):
        return np.r_[result.bound, result.base_bound, result.mmd]
    if isinstance(result, kx.Game):
        return _numbers(kx.shapley_values(result, method="exact"))
    if isinstance(result, tuple):
        return np.asarray(result, dtype=float)
    if isinstance(result, kx.explainers.EstimatorComparison):   # errors and coverage (seeded), truth
        numbers = result.frame[["error", "evaluations", "coverage", "width"]].to_numpy(dtype=float)
        return np.concatenate([np.ravel(numbers), np.ravel(result.truth)])
    if isinstance(result, dict):   # kx.estimate_cost
        return np.asarray([v for v in result.values() if isinstance(v, (int, float))], dtype=float)
    return np.ravel(np.asarray(result, dtype=float))


def _same(a, b):
    np.testing.assert_allclose(_numbers(a), _numbers(b), rtol=1e-9, atol=1e-11)


# --------------------------------------------------------------------------- #
# DataFrame columns: compared arguments match by name or are refused like kx.explain
# --------------------------------------------------------------------------- #
def _compared():
    """(entry, argument) -> call(m, f): the entry point with that DataFrame argument passed through f."""
    fast = {"n_permutations": 0}
    return {
        ("explain", "X"): lambda m, f: kx.explain(m["krr"], f(m["P"]), background=m["B"]),
        ("explain", "background"): lambda m, f: kx.explain(m["krr"], m["P"], background=f(m["B"])),
        ("explain", "X (unnamed model)"): lambda m, f: kx.explain(m["krr_a"], f(m["P"]), background=m["B"]),
        ("explain_interactions", "X"): lambda m, f: kx.explain_interactions(m["krr"], f(m["P"]), background=m["B"]),
        ("explain_interactions", "background"):
            lambda m, f: kx.explain_interactions(m["krr"], m["P"], background=f(m["B"])),
        ("explain_gp", "X"): lambda m, f: kx.explain_gp(m["gp"], f(m["P"]), background=m["B"]),
        ("compare_estimators", "X"): lambda m, f: kx.compare_estimators(m["krr"], f(m["P"]), background=m["B"],
                                                                        **ARENA),
        ("compare_estimators", "background"):
            lambda m, f: kx.compare_estimators(m["krr"], m["P"], background=f(m["B"]), **ARENA),
        ("explain_gp", "background"): lambda m, f: kx.explain_gp(m["gp"], m["P"], background=f(m["B"])),
        ("explain_gp", "X (unnamed GP)"): lambda m, f: kx.explain_gp(m["gp_a"], f(m["P"]), background=m["B"]),
        ("explain_mmd", "Z"): lambda m, f: kx.explain_mmd(m["X"].iloc[:20], f(m["X"].iloc[20:]), **fast),
        ("ShapleyPrior", "background"):
            lambda m, f: kx.ShapleyPrior(m["gp"], background=f(m["B"])).fit(m["P"], m["known"].values),
        ("ShapleyPrior.fit", "X"):
            lambda m, f: kx.ShapleyPrior(m["gp"], background=m["B"]).fit(f(m["P"]), m["known"].values),
        ("ShapleyPrior.fit", "values (DataFrame)"):
            lambda m, f: kx.ShapleyPrior(m["gp"], background=m["B"]).fit(m["P"], f(m["known_frame"])),
        ("ShapleyPrior.fit", "values (Explanation)"):
            lambda m, f: kx.ShapleyPrior(m["gp"], background=m["B"]).fit(m["P"], _sliced(m["known"], f)),
        ("ShapleyPrior.fit", "values (DataFrame, unnamed GP)"):
            lambda m, f: kx.ShapleyPrior(m["gp_a"], background=m["B"]).fit(m["P"], f(m["known_frame"])),
        ("ShapleyPrior.predict", "X"):
            lambda m, f: kx.ShapleyPrior(m["gp"], background=m["B"]).fit(m["P"], m["known"].values).predict(
                f(m["P2"])),
        ("explainers.summary_bound", "summary"): lambda m, f: kx.explainers.summary_bound(m["krr"], f(m["B"]), m["X"]),
        ("explainers.summary_bound", "background"):
            lambda m, f: kx.explainers.summary_bound(m["krr"], m["B"], f(m["X"])),
        ("explainers.mmd", "sample"): lambda m, f: kx.explainers.mmd(f(m["B"]), m["X"]),
        ("explainers.mmd_permutation_test", "Z"):
            lambda m, f: kx.explainers.mmd_permutation_test(m["X"].iloc[:20], f(m["X"].iloc[20:]), kx.kernels.RBF(1.0),
                                                            n_permutations=5, seed=0),
        ("uncertainty.single_reference", "references"):
            lambda m, f: kx.uncertainty.single_reference(m["f"], m["P"], f(m["B"])),
        ("uncertainty.single_reference", "x (model fitted with names)"):
            lambda m, f: kx.uncertainty.single_reference(m["krr"], f(m["P"]), m["B"]),
        ("uncertainty.single_reference_game", "reference"):
            lambda m, f: kx.uncertainty.single_reference_game(m["f"], m["P"], f(m["B"].iloc[:1])),
        ("uncertainty.ReferenceSamplingGame", "references"):
            lambda m, f: kx.uncertainty.ReferenceSamplingGame(m["f"], m["P"], f(m["B"]), seed=0),
    }


#: a small arena: one sampled method, one budget, one seed
ARENA = {"methods": ["permutation"], "budgets": [20], "seeds": 1}


def _sliced(e, f):
    """The Explanation ``e`` with its features as ``f`` leaves a DataFrame's columns (by name, as e[:, names])."""
    frame = f(pd.DataFrame(e.values, columns=e.feature_names))
    names = [c for c in frame.columns if c in e.feature_names]
    if len(names) < len(frame.columns):   # a name e does not have: relabel, as a user's own Explanation would
        return kx.Explanation(frame.to_numpy(), e.base_values, feature_names=list(frame.columns))
    return e[:, names]


COMPARED = _compared()


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("case", list(COMPARED), ids=lambda c: "/".join(c))
def test_dataframe_columns_match_by_name_or_are_refused_as_kx_explain_refuses(m, case, fault):
    call = COMPARED[case]
    ordered = call(m, lambda F: F)
    try:
        result = call(m, FAULTS[fault])
    except ValueError as err:
        assert re.search(REFUSALS[fault], str(err)), f"{case} refused {fault} columns with: {err}"
        return
    _same(result, ordered)   # matched by name: the numbers of the call with the columns in order


#: arguments with nothing to compare with: the names travel with the columns
SINGLE = {
    ("explain_r2", "X"): lambda m, F: kx.explain_r2(F, m["y"]),
    ("explain_hsic", "X"): lambda m, F: kx.explain_hsic(F, m["y"], n_permutations=0),
    ("explainers.summarize", "X"): lambda m, F: kx.explainers.summarize(F, 5, method="herding"),
    ("explainers.subsample", "X"): lambda m, F: kx.explainers.subsample(F, 5, seed=0),
}


@pytest.mark.parametrize("case", list(SINGLE), ids=lambda c: "/".join(c))
def test_a_single_sample_carries_its_names_with_its_columns(m, case):
    call = SINGLE[case]
    ordered, shuffled = call(m, m["X"]), call(m, m["X"][SHUFFLED])
    if isinstance(ordered, kx.Explanation):
        assert list(shuffled.feature_names) == SHUFFLED
        np.testing.assert_allclose(np.asarray(shuffled.values)[..., :], np.asarray(ordered.values)[..., ORDER],
                                   rtol=1e-9, atol=1e-12)
    else:
        points = getattr(shuffled, "points", shuffled)
        assert list(points.columns) == SHUFFLED
        np.testing.assert_allclose(points.to_numpy(), getattr(ordered, "points", ordered).to_numpy()[:, ORDER])


def test_groups_by_name_are_read_against_the_features(m):
    X, y = m["X"], m["y"]
    by_name = kx.explain_r2(X, y, groups=[["a", "b"], ["c", "d"]])
    by_index = kx.explain_r2(X, y, groups=[[0, 1], [2, 3]])
    np.testing.assert_array_equal(by_name.values, by_index.values)
    assert by_name.feature_names == ["a+b", "c+d"]
    for call in (lambda g: kx.explain_r2(X, y, groups=g),
                 lambda g: kx.explain(m["krr"], m["P"], background=m["B"], groups=g)):
        with pytest.raises(ValueError, match=r"unknown feature 'bb' in groups; the features are "
                                             r"\['a', 'b', 'c', 'd'\]; did you mean 'b'\?"):
            call([["a", "bb"], ["c", "d"]])
    with pytest.raises(ValueError, match="groups='ab' of kx.explain_r2 must be a list of lists"):
        kx.explain_r2(X, y, groups="ab")
    with pytest.raises(ValueError, match="group_names given without groups"):
        kx.explain_r2(X, y, group_names=["g"])


# --------------------------------------------------------------------------- #
# sparse input: the numbers of the dense call
# --------------------------------------------------------------------------- #
def _sparse_cases():
    """(entry, argument) -> call(m, s): the entry point on arrays, with that argument passed through s."""
    return {
        ("explain", "X"): lambda m, s: kx.explain(m["krr_a"], s(m["Xa"][:3]), background=m["Xa"][10:18]),
        ("explain", "background"): lambda m, s: kx.explain(m["krr_a"], m["Xa"][:3], background=s(m["Xa"][10:18])),
        ("explain_interactions", "X"):
            lambda m, s: kx.explain_interactions(m["krr_a"], s(m["Xa"][:3]), background=m["Xa"][10:18]),
        ("explain_interactions", "background"):
            lambda m, s: kx.explain_interactions(m["krr_a"], m["Xa"][:3], background=s(m["Xa"][10:18])),
        ("explain_gp", "X"): lambda m, s: kx.explain_gp(m["gp_a"], s(m["Xa"][:3]), background=m["Xa"][10:18]),
        ("compare_estimators", "X"):
            lambda m, s: kx.compare_estimators(m["krr_a"], s(m["Xa"][:3]), background=m["Xa"][10:18], **ARENA),
        ("compare_estimators", "background"):
            lambda m, s: kx.compare_estimators(m["krr_a"], m["Xa"][:3], background=s(m["Xa"][10:18]), **ARENA),
        ("explain_gp", "background"):
            lambda m, s: kx.explain_gp(m["gp_a"], m["Xa"][:3], background=s(m["Xa"][10:18])),
        ("ShapleyPrior", "background"):
            lambda m, s: kx.ShapleyPrior(m["gp_a"], background=s(m["Xa"][10:18])).fit(m["Xa"][:3],
                                                                                      m["known_a"].values),
        ("ShapleyPrior.fit", "X"):
            lambda m, s: kx.ShapleyPrior(m["gp_a"], background=m["Xa"][10:18]).fit(s(m["Xa"][:3]),
                                                                                   m["known_a"].values),
        ("ShapleyPrior.predict", "X"):
            lambda m, s: kx.ShapleyPrior(m["gp_a"], background=m["Xa"][10:18]).fit(
                m["Xa"][:3], m["known_a"].values).predict(s(m["Xa"][3:6])),
        ("explain_mmd", "X"): lambda m, s: kx.explain_mmd(s(m["Xa"][:20]), m["Xa"][20:], n_permutations=0),
        ("explain_mmd", "Z"): lambda m, s: kx.explain_mmd(m["Xa"][:20], s(m["Xa"][20:]), n_permutations=0),
        ("explain_hsic", "X"): lambda m, s: kx.explain_hsic(s(m["Xa"]), m["ya"], n_permutations=0),
        ("explain_r2", "X"): lambda m, s: kx.explain_r2(s(m["Xa"]), m["ya"]),
        ("explainers.subsample", "X"): lambda m, s: kx.explainers.subsample(s(m["Xa"]), 5, seed=0),
        ("explainers.summarize", "X"): lambda m, s: kx.explainers.summarize(s(m["Xa"]), 5, method="herding"),
        ("explainers.summary_bound", "summary"):
            lambda m, s: kx.explainers.summary_bound(m["krr_a"], s(m["Xa"][10:18]), m["Xa"]),
        ("explainers.summary_bound", "background"):
            lambda m, s: kx.explainers.summary_bound(m["krr_a"], m["Xa"][10:18], s(m["Xa"])),
        ("explainers.mmd", "sample"): lambda m, s: kx.explainers.mmd(s(m["Xa"][10:18]), m["Xa"]),
        ("explainers.mmd", "reference"): lambda m, s: kx.explainers.mmd(m["Xa"][10:18], s(m["Xa"])),
        ("explainers.mmd_permutation_test", "X"):
            lambda m, s: kx.explainers.mmd_permutation_test(s(m["Xa"][:20]), m["Xa"][20:], kx.kernels.RBF(1.0),
                                                            n_permutations=5, seed=0),
        ("explainers.hsic_permutation_test", "X"):
            lambda m, s: kx.explainers.hsic_permutation_test(s(m["Xa"]), m["ya"], kx.kernels.RBF(1.0),
                                                             kx.kernels.RBF(1.0), n_permutations=5, seed=0),
        ("uncertainty.single_reference", "x"):
            lambda m, s: kx.uncertainty.single_reference(m["f"], s(m["Xa"][:2]), m["Xa"][10:18]),
        ("uncertainty.single_reference", "references"):
            lambda m, s: kx.uncertainty.single_reference(m["f"], m["Xa"][:2], s(m["Xa"][10:18])),
        ("uncertainty.single_reference_game", "x"):
            lambda m, s: kx.uncertainty.single_reference_game(m["f"], s(m["Xa"][:2]), m["Xa"][10:11]),
        ("uncertainty.ReferenceSamplingGame", "references"):
            lambda m, s: kx.uncertainty.ReferenceSamplingGame(m["f"], m["Xa"][:2], s(m["Xa"][10:18]), seed=0),
    }


SPARSE = _sparse_cases()


@pytest.mark.parametrize("case", list(SPARSE), ids=lambda c: "/".join(c))
def test_sparse_input_gives_the_numbers_of_dense_input(m, case):
    call = SPARSE[case]
    _same(call(m, sp.csr_matrix), call(m, lambda A: A))


# --------------------------------------------------------------------------- #
# keywords and values: one format
# --------------------------------------------------------------------------- #
#: entry -> (call with one misspelt keyword, the keyword, the one meant)
MISSPELT = {
    "explain": (lambda m, **kw: kx.explain(m["krr"], m["P"], **kw), "backgrund", "background"),
    "explain_interactions": (lambda m, **kw: kx.explain_interactions(m["krr"], m["P"], **kw), "budgte", "budget"),
    "shapley_interactions": (lambda m, **kw: kx.shapley_interactions(m["game"], **kw), "tolerence", "tolerance"),
    "shapley_values": (lambda m, **kw: kx.shapley_values(m["game"], "permutation", **kw), "budgte", "budget"),
    "estimate_cost": (lambda m, **kw: kx.estimate_cost(m["game"], **kw), "methd", "method"),
    "compare_estimators": (lambda m, **kw: kx.compare_estimators(m["game"], **kw), "budget", "budgets"),
    "explain_mmd": (lambda m, **kw: kx.explain_mmd(m["Xa"][:20], m["Xa"][20:], **kw), "n_permutation",
                    "n_permutations"),
    "explain_hsic": (lambda m, **kw: kx.explain_hsic(m["Xa"], m["ya"], **kw), "atribute", "attribute"),
    "explain_r2": (lambda m, **kw: kx.explain_r2(m["Xa"], m["ya"], **kw), "group_name", "group_names"),
    "explain_gp": (lambda m, **kw: kx.explain_gp(m["gp"], m["P"], **kw), "budgte", "budget"),
    "ShapleyPrior": (lambda m, **kw: kx.ShapleyPrior(m["gp"], **kw), "nosie", "noise"),
    "ShapleyPrior.fit": (lambda m, **kw: kx.ShapleyPrior(m["gp"]).fit(m["P"], **kw), "value", "values"),
    "ShapleyPrior.predict": (lambda m, **kw: kx.ShapleyPrior(m["gp"]).predict(**kw), "x", "X"),
    "explainers.subsample": (lambda m, **kw: kx.explainers.subsample(m["X"], 5, **kw), "sed", "seed"),
    "explainers.summarize": (lambda m, **kw: kx.explainers.summarize(m["X"], 5, **kw), "metod", "method"),
    "explainers.summary_bound": (lambda m, **kw: kx.explainers.summary_bound(m["krr"], m["B"], m["X"], **kw),
                                 "max_element", "max_elements"),
    "explainers.mmd": (lambda m, **kw: kx.explainers.mmd(m["B"], m["X"], **kw), "weigths", "weights"),
    "explainers.mmd_permutation_test":
        (lambda m, **kw: kx.explainers.mmd_permutation_test(m["Xa"][:20], m["Xa"][20:], kx.kernels.RBF(1.0), **kw),
         "n_permutation", "n_permutations"),
    "explainers.hsic_permutation_test":
        (lambda m, **kw: kx.explainers.hsic_permutation_test(m["Xa"], m["ya"], kx.kernels.RBF(1.0),
                                                             kx.kernels.RBF(1.0), **kw), "n_permutation",
         "n_permutations"),
    "uncertainty.single_reference":
        (lambda m, **kw: kx.uncertainty.single_reference(m["f"], m["Xa"][:2], m["Xa"][10:18], **kw),
         "n_permutation", "n_permutations"),
    "uncertainty.single_reference_game":
        (lambda m, **kw: kx.uncertainty.single_reference_game(m["f"], m["Xa"][:2], m["Xa"][10], **kw),
         "feature_name", "feature_names"),
    "uncertainty.ReferenceSamplingGame":
        (lambda m, **kw: kx.uncertainty.ReferenceSamplingGame(m["f"], m["Xa"][:2], m["Xa"][10:18], **kw),
         "sed", "seed"),
    "uncertainty.shapley_residuals": (lambda m, **kw: kx.uncertainty.shapley_residuals(m["game"], **kw),
                                      "max_player", "max_players"),
    "uncertainty.bayes_shap": (lambda m, **kw: kx.uncertainty.bayes_shap(m["game"], **kw), "n_sample", "n_samples"),
    "report": (lambda m, **kw: kx.report(m["krr"], m["X"], **kw), "tolerence", "tolerance"),
}


def test_every_entry_point_has_a_misspelt_keyword_case():
    assert set(MISSPELT) == set(ENTRY_POINTS)


@pytest.mark.parametrize("name", MISSPELT)
def test_a_misspelt_keyword_is_refused_with_the_format_of_kx_explain(m, name):
    call, wrong, meant = MISSPELT[name]
    entry = ENTRY_POINTS[name][1]
    with pytest.raises(InvalidOptionError) as err:
        call(m, **{wrong: 1})
    message = str(err.value)
    assert message.startswith(f"'{wrong}' is not an argument of {entry}"), message
    assert f"{entry} takes: " in message and meant in message.split("takes: ")[-1] + message, message
    assert f"did you mean '{meant}' for '{wrong}'?" in message, message


#: entry -> call with one value the declaration refuses, and its name=value
BAD_VALUES = {
    "explain": (lambda m: kx.explain(m["krr"], m["P"], method=3), "method=3"),
    "explain_interactions": (lambda m: kx.explain_interactions(m["krr"], m["P"], level=2.0), "level=2.0"),
    "shapley_interactions": (lambda m: kx.shapley_interactions(m["game"], tolerance=-1.0), "tolerance=-1.0"),
    "shapley_values": (lambda m: kx.shapley_values(m["game"], seed=-1), "seed=-1"),
    "estimate_cost": (lambda m: kx.estimate_cost([1, 2]), "game=[1, 2]"),
    "compare_estimators": (lambda m: kx.compare_estimators(m["game"], level=1.5), "level=1.5"),
    "explain_mmd": (lambda m: kx.explain_mmd(m["Xa"][:20], m["Xa"][20:], n_permutations=-1), "n_permutations=-1"),
    "explain_hsic": (lambda m: kx.explain_hsic(m["Xa"], m["ya"], attribute="z"), "attribute='z'"),
    "explain_r2": (lambda m: kx.explain_r2(m["Xa"], m["ya"], feature_names="abcd"), "feature_names='abcd'"),
    "explain_gp": (lambda m: kx.explain_gp(m["gp"], m["P"], method="sampeld"), "method='sampeld'"),
    "ShapleyPrior": (lambda m: kx.ShapleyPrior(m["gp"], noise=-1.0), "noise=-1.0"),
    "ShapleyPrior.fit": (lambda m: kx.ShapleyPrior(m["gp"]).fit(m["P"], "values"), "values='values'"),
    "ShapleyPrior.predict": (lambda m: kx.ShapleyPrior(m["gp"]).predict(None), "X=None"),
    "explainers.subsample": (lambda m: kx.explainers.subsample(m["X"], 0), "n=0"),
    "explainers.summarize": (lambda m: kx.explainers.summarize(m["X"], 5, method="random"), "method='random'"),
    "explainers.summary_bound": (lambda m: kx.explainers.summary_bound(m["krr"], m["B"], m["X"], max_elements=0),
                                 "max_elements=0"),
    "explainers.mmd": (lambda m: kx.explainers.mmd(m["B"], m["X"], max_elements=1.5), "max_elements=1.5"),
    "explainers.mmd_permutation_test":
        (lambda m: kx.explainers.mmd_permutation_test(m["Xa"][:20], m["Xa"][20:], "rbf"), "kernel='rbf'"),
    "explainers.hsic_permutation_test":
        (lambda m: kx.explainers.hsic_permutation_test(m["Xa"], m["ya"], kx.kernels.RBF(1.0), kx.kernels.RBF(1.0),
                                                       n_permutations=True), "n_permutations=True"),
    "uncertainty.single_reference":
        (lambda m: kx.uncertainty.single_reference(m["f"], m["Xa"][:2], m["Xa"][10:18], level=1.5), "level=1.5"),
    "uncertainty.single_reference_game":
        (lambda m: kx.uncertainty.single_reference_game(m["f"], m["Xa"][:2], None), "reference=None"),
    "uncertainty.ReferenceSamplingGame":
        (lambda m: kx.uncertainty.ReferenceSamplingGame(m["f"], m["Xa"][:2], m["Xa"][10:18], seed=1.5), "seed=1.5"),
    "uncertainty.shapley_residuals": (lambda m: kx.uncertainty.shapley_residuals(m["game"], max_players=0),
                                      "max_players=0"),
    "uncertainty.bayes_shap": (lambda m: kx.uncertainty.bayes_shap(m["game"], focused="yes"), "focused='yes'"),
    "report": (lambda m: kx.report(m["krr"], m["X"], tolerance=-1.0), "tolerance=-1.0"),
}


def test_every_entry_point_has_a_bad_value_case():
    assert set(BAD_VALUES) == set(ENTRY_POINTS)


@pytest.mark.parametrize("name", BAD_VALUES)
def test_a_bad_value_is_refused_with_one_format(m, name):
    call, given = BAD_VALUES[name]
    entry = ENTRY_POINTS[name][1]
    with pytest.raises(InvalidOptionError, match=rf"^{re.escape(given)} of {re.escape(entry)} must be \S"):
        call(m)


#: entry -> call(m, **seed) of an entry point that draws random numbers (sampled, so the seed matters)
SEEDED = {
    "explain": lambda m, **kw: kx.explain(m["krr"], m["P"], method="permutation", budget=30, **kw),
    "explain_interactions": lambda m, **kw: kx.explain_interactions(m["krr"], m["P"], method="sampled", budget=200,
                                                                    **kw),
    "shapley_interactions": lambda m, **kw: kx.shapley_interactions(m["game"], method="sampled", budget=200, **kw),
    "shapley_values": lambda m, **kw: kx.shapley_values(m["game"], "permutation", budget=30, **kw),
    "estimate_cost": lambda m, **kw: kx.estimate_cost(m["game"], "permutation", budget=30, **kw),
    "explain_mmd": lambda m, **kw: kx.explain_mmd(m["Xa"][:20], m["Xa"][20:], n_permutations=20, **kw),
    "explain_hsic": lambda m, **kw: kx.explain_hsic(m["Xa"], m["ya"], n_permutations=20, **kw),
    "explain_r2": lambda m, **kw: kx.explain_r2(m["Xa"], m["ya"], method="permutation", budget=30, **kw),
    "explain_gp": lambda m, **kw: kx.explain_gp(m["gp"], m["P"], background=m["B"], method="sampled", budget=40,
                                                **kw),
    "explainers.subsample": lambda m, **kw: kx.explainers.subsample(m["X"], 5, **kw),
    "explainers.summarize": lambda m, **kw: kx.explainers.summarize(m["X"], 5, **kw),
    "explainers.mmd_permutation_test":
        lambda m, **kw: kx.explainers.mmd_permutation_test(m["Xa"][:20], m["Xa"][20:], kx.kernels.RBF(1.0),
                                                           n_permutations=20, **kw),
    "explainers.hsic_permutation_test":
        lambda m, **kw: kx.explainers.hsic_permutation_test(m["Xa"], m["ya"], kx.kernels.RBF(1.0),
                                                            kx.kernels.RBF(1.0), n_permutations=20, **kw),
    "uncertainty.single_reference":
        lambda m, **kw: kx.uncertainty.single_reference(m["f"], m["Xa"][:2], m["Xa"][10:18], method="permutation",
                                                        **kw),
    "uncertainty.ReferenceSamplingGame":
        lambda m, **kw: kx.uncertainty.ReferenceSamplingGame(m["f"], m["Xa"][:2], m["Xa"][10:18], **kw),
    "uncertainty.bayes_shap": lambda m, **kw: kx.uncertainty.bayes_shap(m["game"], n_samples=64, **kw),
    # the seed draws the explained rows and the background (two small report notebooks run)
    "report": lambda m, **kw: kx.report(m["krr"], m["X"], background_rows=8, progress=False,
                                        out=f"{tempfile.mkdtemp()}/report.html", **kw).values,
}


def test_every_entry_point_that_takes_a_seed_is_seeded_here():
    takes = {name for name, (fn, _) in ENTRY_POINTS.items()
             if "seed" in inspect.signature(fn).parameters or "seed" in fn.__kx_parameters__.constraints}
    assert takes == set(SEEDED)


@pytest.mark.parametrize("name", SEEDED)
def test_random_state_is_another_name_of_seed(m, name):
    call = SEEDED[name]
    _same(call(m, random_state=3), call(m, seed=3))
    entry = ENTRY_POINTS[name][1]
    with pytest.raises(InvalidOptionError, match=rf"^{re.escape(entry)} got both seed= and random_state="):
        call(m, seed=3, random_state=3)


# --------------------------------------------------------------------------- #
# the answers of #36 ("one door is not yet one door"), against independent computations
# --------------------------------------------------------------------------- #
def test_shapley_prior_reads_named_values_by_name_never_by_position(m):
    """Found: fit(X, values) read values by position -- predictions off by up to 1.3, silently."""
    gp, P, B, P2 = m["gp"], m["P"], m["B"], m["P2"]
    known = kx.explain_gp(gp, P, background=B)
    by_array = kx.ShapleyPrior(gp, background=B).fit(P, known.values).predict(P2)
    frame = pd.DataFrame(known.values, columns=known.feature_names)
    # named values in the features' order: exactly the positional fit
    _same(kx.ShapleyPrior(gp, background=B).fit(P, frame).predict(P2), by_array)
    _same(kx.ShapleyPrior(gp, background=B).fit(P, known).predict(P2), by_array)
    # the same values in another order: refused, with how to reorder
    with pytest.raises(ValueError, match=r"values has the features in a different order than the model was fitted "
                                         r"with: got \['c', 'a', 'b', 'd'\].*values\[:, \['a', 'b', 'c', 'd'\]\]"):
        kx.ShapleyPrior(gp, background=B).fit(P, known[:, ["c", "a", "b", "d"]])
    with pytest.raises(ValueError, match=r"values has the features in a different order.*values\[\['a', 'b'"):
        kx.ShapleyPrior(gp, background=B).fit(P, frame[["c", "a", "b", "d"]])
    # what the positional read computed: a different (wrong) answer, which is why it is refused
    wrong = kx.ShapleyPrior(gp, background=B).fit(P, frame[["c", "a", "b", "d"]].to_numpy()).predict(P2)
    assert np.abs(wrong.values - by_array.values).max() > 1e-3


def test_the_cost_guard_prices_every_output_before_the_first_starts():
    """Found: max_cost was checked one output at a time (a 40-component KernelPCA ran 5.6 s under max_cost=1)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    pca = KernelPCA(n_components=12, kernel="rbf", gamma=0.2).fit(X)
    with kx.config_context(flops_per_second=1e9, max_cost=None):
        plan = kx.models.convert.output_plan(pca)
        each = [kx.explain(target, X[:20]).meta["estimated_seconds"] for _, target in plan.targets]
    total = float(np.sum(each))
    assert len(each) == 12 and max(each) < total / 4
    with kx.config_context(flops_per_second=1e9, max_cost=total / 2):   # every output fits, the call does not
        start = time.perf_counter()
        with pytest.raises(CostLimitError, match=r"kx.explain of the 12 outputs \('components'.*fewer outputs"):
            kx.explain(pca, X[:20])
        refused_after = time.perf_counter() - start
    with kx.config_context(flops_per_second=1e9, max_cost=total * 1.5):
        start = time.perf_counter()
        e = kx.explain(pca, X[:20])
        ran = time.perf_counter() - start
    assert e.values.shape == (20, 5, 12)
    assert refused_after < ran   # refused before the first output was explained
    # the same for the interactions of several outputs
    with kx.config_context(flops_per_second=1e5, max_cost=1.0):
        with pytest.raises(CostLimitError, match=r"kx.explain_interactions of the 12 outputs"):
            kx.explain_interactions(pca, X[:20])


def test_explain_gp_and_shapley_prior_take_sparse_input(m):
    """Found: both failed on scipy.sparse with "setting an array element with a sequence"."""
    gp, Xa = m["gp_a"], m["Xa"]
    dense = kx.explain_gp(gp, Xa[:3], background=Xa[10:18])
    sparse = kx.explain_gp(gp, sp.csr_matrix(Xa[:3]), background=sp.csr_matrix(Xa[10:18]))
    _same(sparse, dense)
    prior = kx.ShapleyPrior(gp, background=sp.csc_matrix(Xa[10:18])).fit(sp.csr_matrix(Xa[:3]), dense.values)
    _same(prior.predict(sp.csr_matrix(Xa[3:5])),
          kx.ShapleyPrior(gp, background=Xa[10:18]).fit(Xa[:3], dense.values).predict(Xa[3:5]))


def _r2(X, y):
    """R^2 of the least-squares fit of y on the columns of X with an intercept (numpy, independently of kx)."""
    A = np.c_[np.ones(len(X)), X]
    coef = np.linalg.lstsq(A, y, rcond=None)[0]
    return 1.0 - np.sum((y - A @ coef) ** 2) / np.sum((y - y.mean()) ** 2)


def test_explain_r2_takes_groups_by_feature_name(m):
    """Found: groups=[['u', 'v'], ['w']] failed with "invalid literal for int()"."""
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.normal(size=(80, 3)), columns=["u", "v", "w"])
    y = df["u"] + 0.5 * df["v"] * df["w"] + df["w"] + rng.normal(size=80)
    e = kx.explain_r2(df, y, groups=[["u", "v"], ["w"]])
    X, t = df.to_numpy(), y.to_numpy()
    full, uv, w = _r2(X, t), _r2(X[:, :2], t), _r2(X[:, 2:], t)
    np.testing.assert_allclose(e.values, [0.5 * uv + 0.5 * (full - w), 0.5 * w + 0.5 * (full - uv)], atol=1e-10)
    assert e.feature_names == ["u+v", "w"]
    with pytest.raises(ValueError, match=r"unknown feature 'ww' in groups; the features are \['u', 'v', 'w'\]"):
        kx.explain_r2(df, y, groups=[["u", "v"], ["ww"]])


def test_explain_mmd_names_every_keyword_it_takes():
    """Found: n_permutation= got "unknown option for method='product'" leaving out n_permutations."""
    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(InvalidOptionError) as err:
        kx.explain_mmd(X[:15], X[15:] + 1.0, n_permutation=10)
    message = str(err.value)
    assert message.startswith("'n_permutation' is not an argument of kx.explain_mmd, nor an option of "
                              "method='product'.")
    assert "did you mean 'n_permutations' for 'n_permutation'?" in message
    takes = message.split("kx.explain_mmd takes: ")[1]
    for name in inspect.signature(kx.explain_mmd).parameters:
        if name != "options":
            assert name in takes
    for option in kx.estimators.get_estimator("product").accepted_options():
        assert option in message.split("It accepts: ")[1]


def test_kernel_density_says_which_output_is_exact():
    """Found: value='observational' on a KernelDensity said "a CallOutput is not a kernel model"."""
    X = np.random.default_rng(0).normal(size=(40, 2))
    kde = KernelDensity(bandwidth=0.6).fit(X)
    for value in ("observational", "functional_baseline"):
        with pytest.raises(TypeError) as err:
            kx.explain(kde, X[:2], value=value)
        message = str(err.value)
        assert "CallOutput" not in message
        assert "this KernelDensity's output 'log_density' is explained through model calls" in message
        assert f"output='density' is exact (a kernel expansion): kx.explain(model, X, value={value!r}, " \
               "output='density')" in message
    # and it is: the density's values add up to exp(score_samples) - base, the density scikit-learn computes
    e = kx.explain(kde, X[:3], value="observational", output="density", eta=1e-3)
    np.testing.assert_allclose(e.values.sum(axis=1) + e.base_values, np.exp(kde.score_samples(X[:3])), atol=1e-10)
