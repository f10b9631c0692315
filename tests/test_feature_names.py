"""Feature names are checked as scikit-learn checks them (issue #11, item 1).

A DataFrame whose columns differ in names or order from the model's feature
names (or, for an unnamed model, from the background's) is refused with a
ValueError naming the difference; a plain array is accepted as is.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

import kernelxai as kx
from kernelxai._validation import check_feature_names, feature_names_in
from kernelxai.models import KernelExpansion
from kernelxai.values import GaussianConditional, Marginal


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X, y = X.iloc[:150], y.iloc[:150]
    model = SkKernelRidge(kernel="rbf", gamma=0.1, alpha=0.1).fit(X, y)
    return X, y, model


VALUES = ["interventional", "observational", "functional_baseline", "marginal", "gaussian_conditional"]


def _options(value, X):
    options = {"gaussian_conditional": {"n_samples": 5}}.get(value, {})
    if value != "functional_baseline":
        options["background"] = X.iloc[:20]
    return options


@pytest.mark.parametrize("value", VALUES)
def test_reordered_columns_are_refused_diabetes(diabetes, value):
    """The finding: X[X.columns[::-1]] was explained in the training order, labelled with the
    new names; e.output missed predict by ~80-90. Now every value function refuses it."""
    X, _, model = diabetes
    reordered = X[X.columns[::-1]].iloc[:3]
    with pytest.raises(ValueError, match="different order than the model was fitted with") as err:
        kx.explain(model, reordered, value=value, **_options(value, X))
    assert "Reorder the columns" in str(err.value) and "'age', 'sex'" in str(err.value)


def test_reading_reordered_columns_by_position_is_what_went_wrong(diabetes):
    """Why refusing is right: the same numbers read position by position (what the old code
    did with the reordered DataFrame) explain a different prediction, far from predict."""
    X, _, model = diabetes
    reordered = X[X.columns[::-1]].iloc[:5]
    by_position = kx.explain(model, reordered.to_numpy(), value="functional_baseline")
    assert np.abs(by_position.output - model.predict(reordered[X.columns])).max() > 10
    correct = kx.explain(model, reordered[X.columns], value="functional_baseline")
    np.testing.assert_allclose(correct.output, model.predict(reordered[X.columns]), atol=1e-8)
    assert correct.feature_names == list(X.columns)


@pytest.mark.parametrize("value", VALUES)
def test_renamed_columns_are_refused(diabetes, value):
    X, _, model = diabetes
    renamed = X.rename(columns={"bmi": "BMI"}).iloc[:3]
    with pytest.raises(ValueError, match=r"unseen features: \['BMI'\]; missing: \['bmi'\]"):
        kx.explain(model, renamed, value=value, **_options(value, X))


def test_plain_array_is_accepted_as_is(diabetes):
    X, _, model = diabetes
    a = kx.explain(model, X.iloc[:4].to_numpy(), value="interventional")
    b = kx.explain(model, X.iloc[:4], value="interventional")
    np.testing.assert_allclose(a.values, b.values, atol=1e-12)
    np.testing.assert_allclose(b.output, model.predict(X.iloc[:4]), atol=1e-8)


def test_integer_column_labels_are_positions_not_names(diabetes):
    X, _, model = diabetes
    unnamed = pd.DataFrame(X.iloc[:3].to_numpy())      # columns 0..9, as scikit-learn: no names
    e = kx.explain(model, unnamed, value="functional_baseline")
    np.testing.assert_allclose(e.output, model.predict(X.iloc[:3]), atol=1e-8)


@pytest.mark.parametrize("cls, keyword", [(Marginal, "background"), (GaussianConditional, "data")])
def test_background_with_other_columns_is_refused(diabetes, cls, keyword):
    X, _, model = diabetes
    with pytest.raises(ValueError, match=f"{keyword} has the features in a different order"):
        cls(model, **{keyword: X[X.columns[::-1]].iloc[:20]})
    with pytest.raises(ValueError, match="unseen features"):
        cls(model, **{keyword: X.rename(columns={"s1": "tc"}).iloc[:20]})


def test_unnamed_model_checks_points_against_a_named_background():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    f = kx.models.KernelExpansion(X.to_numpy(), rng.normal(size=40), kx.kernels.RBF(1.0))
    assert not f.has_feature_names
    vf = Marginal(f, background=X)
    assert vf.game(X.iloc[:2]).player_names == ["a", "b", "c"]
    with pytest.raises(ValueError, match="different order than the background has"):
        vf.game(X[["c", "b", "a"]].iloc[:2])
    # any columns are fine for an unnamed model with an unnamed background (scikit-learn accepts)
    assert Marginal(f, background=X.to_numpy()).game(X[["c", "b", "a"]].iloc[:2]).n_players == 3


def test_kernel_expansion_remembers_whether_its_names_are_real():
    rng = np.random.default_rng(1)
    A, alpha, k = rng.normal(size=(10, 2)), rng.normal(size=10), kx.kernels.RBF(1.0)
    assert not KernelExpansion(A, alpha, k).has_feature_names
    assert KernelExpansion(A, alpha, k).feature_names == ["x0", "x1"]
    assert KernelExpansion(A, alpha, k, feature_names=["u", "v"]).has_feature_names
    assert KernelExpansion(pd.DataFrame(A, columns=["u", "v"]), alpha, k).has_feature_names
    assert not KernelExpansion(pd.DataFrame(A), alpha, k).has_feature_names      # integer labels
    # the defaults spelled out (as estimators fitted on arrays do) are not real names
    assert not KernelExpansion(A, alpha, k, feature_names=["x0", "x1"]).has_feature_names


def test_kernelxai_estimators_fitted_on_arrays_accept_any_columns():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    model = kx.models.KernelRidge(lam=1e-2).fit(X, X[:, 0] - X[:, 1])
    e = kx.explain(model, pd.DataFrame(X[:3], columns=["p", "q", "r"]), value="functional_baseline")
    assert e.feature_names == ["p", "q", "r"]
    named = kx.models.KernelRidge(lam=1e-2).fit(pd.DataFrame(X, columns=["p", "q", "r"]), X[:, 0])
    with pytest.raises(ValueError, match="different order"):
        kx.explain(named, pd.DataFrame(X[:3], columns=["q", "p", "r"]), value="interventional")


def test_support_vector_model_fitted_on_a_dataframe_checks_names(diabetes):
    from sklearn.svm import SVR

    X, y, _ = diabetes
    svr = SVR(gamma=0.1).fit(X, y)
    with pytest.raises(ValueError, match="different order"):
        kx.explain(svr, X[X.columns[::-1]].iloc[:2], value="functional_baseline")


def test_explain_mmd_holds_z_to_x_columns():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(30, 3)), columns=["a", "b", "c"])
    Z = pd.DataFrame(rng.normal(size=(30, 3)) + 0.5, columns=["a", "b", "c"])
    with pytest.raises(ValueError, match="X and Z have different columns: Z has the features in a "
                                         "different order than X has"):
        kx.explain_mmd(X, Z[["b", "a", "c"]], n_permutations=0)
    with pytest.raises(ValueError, match=r"unseen features: \['d'\]; missing: \['c'\]"):
        kx.explain_mmd(X, Z.rename(columns={"c": "d"}), n_permutations=0)
    e = kx.explain_mmd(X, Z.to_numpy(), n_permutations=0)       # an array is accepted as is
    assert list(e.feature_names) == ["a", "b", "c"]


def test_regularised_estimators_check_names_through_scikit_learn():
    from kernelxai.functionals._regularised import (
        ShapleyRegularisedKernelLogisticRegression,
        ShapleyRegularisedKernelRidge,
    )

    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    y = X["a"] - X["b"] ** 2
    reg = ShapleyRegularisedKernelRidge(lam=1e-2, lam_shapley=1.0, features=["c"]).fit(X, y)
    clf = ShapleyRegularisedKernelLogisticRegression(lam=1e-2, lam_shapley=1.0,
                                                     features=["c"]).fit(X, y > 0)
    for est, method in ((reg, "predict"), (clf, "decision_function")):
        np.testing.assert_allclose(getattr(est, method)(X[["a", "b", "c"]]),
                                   est.expansion_.predict(X.to_numpy()), atol=1e-10)
        with pytest.raises(ValueError, match="feature names"):
            getattr(est, method)(X[["c", "b", "a"]])
        with pytest.raises(ValueError, match="different order"):
            kx.explain(est, X[["c", "b", "a"]].iloc[:2], value="interventional")


def test_check_feature_names_helper():
    df = pd.DataFrame([[1.0, 2.0]], columns=["a", "b"])
    check_feature_names(df, ["a", "b"])
    check_feature_names(df, None)
    check_feature_names(df.to_numpy(), ["b", "a"])
    with pytest.raises(ValueError, match=r"Reorder the columns, e.g. X\[\['b', 'a'\]\]"):
        check_feature_names(df, ["b", "a"])
    with pytest.raises(ValueError, match="background does not have the features"):
        check_feature_names(df, ["a", "c"], "background")
    assert feature_names_in(df) == ["a", "b"]
    assert feature_names_in(df.to_numpy()) is None
    assert feature_names_in(pd.DataFrame([[1.0]])) is None
