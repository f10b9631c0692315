"""Explanation: shapes, indexing, conversions."""

import numpy as np
import pytest

import kernelxai as kx


@pytest.fixture
def expl():
    rng = np.random.default_rng(0)
    g = kx.ProductGame(rng.random((6, 5, 3)), rng.random((1, 5, 3)), rng.normal(size=(6, 5)),
                       data=rng.normal(size=(6, 3)), player_names=["age", "bmi", "bp"])
    return kx.shapley_values(g, method="permutation", n_permutations=8, seed=0)


def test_output_reconstructs_the_full_worth(expl):
    assert expl.values.shape == (6, 3) and expl.base_values.shape == (6,)
    np.testing.assert_allclose(expl.output, expl.base_values + expl.values.sum(1))


def test_row_indexing(expl):
    row = expl[0]
    assert row.values.shape == (3,) and isinstance(row.base_values, float)
    assert row.feature_names == ["age", "bmi", "bp"]
    np.testing.assert_array_equal(row.data, expl.data[0])
    np.testing.assert_array_equal(row.stderr, expl.stderr[0])
    assert row["bmi"].values == expl.values[0, 1]


def test_column_indexing_by_name(expl):
    col = expl[:, "bmi"]
    np.testing.assert_array_equal(col.values, expl.values[:, 1])
    np.testing.assert_array_equal(col.base_values, expl.base_values)
    assert col.feature_names == ["bmi"]
    np.testing.assert_array_equal(col[2:4].values, expl.values[2:4, 1])
    assert list(col.to_frame().columns) == ["bmi"]


def test_block_indexing(expl):
    block = expl[1:4, ["age", "bp"]]
    assert block.values.shape == (3, 2) and block.feature_names == ["age", "bp"]
    np.testing.assert_array_equal(block.upper, expl.upper[1:4][:, [0, 2]])
    assert expl[0, 2].values.shape == ()


def test_unknown_feature_name(expl):
    with pytest.raises(KeyError, match="unknown feature 'weight'"):
        expl[:, "weight"]


def test_to_frame(expl):
    frame = expl.to_frame()
    assert list(frame.columns) == ["age", "bmi", "bp"] and frame.shape == (6, 3)
    single = expl[0].to_frame()
    assert list(single.columns) == ["value", "data", "stderr", "lower", "upper"]


def test_to_shap_round_trip_or_clear_error(expl):
    try:
        import shap  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install"):
            expl.to_shap()
        return
    s = expl.to_shap()
    np.testing.assert_array_equal(s.values, expl.values)
    assert list(s.feature_names) == expl.feature_names


def test_validation():
    with pytest.raises(ValueError, match="base_values"):
        kx.Explanation(np.zeros((3, 2)), base_values=np.zeros(4))
    with pytest.raises(ValueError, match="feature_names"):
        kx.Explanation(np.zeros((3, 2)), feature_names=["a"])
    with pytest.raises(ValueError, match="stderr"):
        kx.Explanation(np.zeros((3, 2)), stderr=np.zeros(3))


def test_metadata_travels(expl):
    assert expl.meta["method"] == "permutation" and expl.meta["n_permutations"] == 8
    assert expl[0].meta["method"] == "permutation"
    assert "permutation" in repr(expl)
