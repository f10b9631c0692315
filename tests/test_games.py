"""Games and coalition utilities."""

import numpy as np
import pytest
from scipy.special import comb

import kernelxai as kx
from kernelxai.games import (
    all_coalitions,
    bitmasks_to_coalitions,
    coalition_size_distribution,
    coalitions_to_bitmasks,
    sample_coalitions,
    shapley_kernel_weights,
    shapley_weights,
)

TAXI = {(): 0, (0,): 6, (1,): 12, (2,): 42, (0, 1): 12, (0, 2): 42, (1, 2): 42, (0, 1, 2): 42}


def test_all_coalitions_rows_are_bitmasks():
    z = all_coalitions(4)
    assert z.shape == (16, 4) and z.dtype == bool
    np.testing.assert_array_equal(coalitions_to_bitmasks(z), np.arange(16))
    np.testing.assert_array_equal(z[5], [True, False, True, False])  # 5 = bits 0 and 2


def test_bitmask_round_trip():
    masks = np.array([0, 1, 6, 255, 1023])
    np.testing.assert_array_equal(coalitions_to_bitmasks(bitmasks_to_coalitions(masks, 10)), masks)


def test_shapley_weights_sum_over_coalitions_is_one():
    for d in (1, 2, 5, 11):
        mu = shapley_weights(d)
        # for one player: sum over coalitions of the others of mu(|S|) = 1
        assert np.isclose(sum(comb(d - 1, s) * mu[s] for s in range(d)), 1.0)
    np.testing.assert_allclose(shapley_weights(3), [1 / 3, 1 / 6, 1 / 3])


def test_shapley_kernel_weights():
    w = shapley_kernel_weights(4, np.arange(5))
    assert np.isinf(w[0]) and np.isinf(w[4])
    np.testing.assert_allclose(w[1:4], [3 / (4 * 1 * 3), 3 / (6 * 2 * 2), 3 / (4 * 3 * 1)])
    sizes, p = coalition_size_distribution(4)
    np.testing.assert_allclose(p, np.array([1 / 3, 1 / 4, 1 / 3]) / (11 / 12))


def test_paired_sampling_follows_the_shapley_kernel():
    d, n = 6, 40000
    z = sample_coalitions(d, n, seed=1)
    assert z.shape == (n, d)
    np.testing.assert_array_equal(z[1::2], ~z[0::2])  # complements follow
    sizes = z.sum(axis=1)
    assert sizes.min() >= 1 and sizes.max() <= d - 1
    _, p = coalition_size_distribution(d)
    freq = np.bincount(sizes, minlength=d)[1:d] / n
    np.testing.assert_allclose(freq, p, atol=0.01)
    # within a size, every player is equally likely
    np.testing.assert_allclose(z.mean(axis=0), 0.5, atol=0.01)


def test_sampling_rejects_odd_paired_budget():
    with pytest.raises(ValueError, match="even"):
        sample_coalitions(5, 7, seed=0)


def test_tabular_game_from_mapping_and_array_agree():
    g1 = kx.TabularGame(TAXI)
    g2 = kx.TabularGame(kx.games.tabulate(g1))
    z = all_coalitions(3)
    np.testing.assert_array_equal(g1(z), g2(z))
    assert g1([True, True, False]) == 12
    assert g1.n_players == 3 and g1.n_instances is None


def test_tabular_game_vectorised_over_instances():
    table = np.arange(8 * 5, dtype=float).reshape(8, 5)
    g = kx.TabularGame(table)
    assert g.n_instances == 5
    assert g(all_coalitions(3)).shape == (8, 5)


def test_tabular_game_rejects_missing_coalitions():
    with pytest.raises(ValueError, match="missing"):
        kx.TabularGame({(): 0, (0,): 1}, player_names=["a", "b"])


def test_tabular_game_rejects_bad_array_length():
    with pytest.raises(ValueError, match="2\\*\\*d"):
        kx.TabularGame(np.zeros(6))


def test_tabular_game_rejects_nan():
    with pytest.raises(ValueError, match="NaN"):
        kx.TabularGame({(): 0, (0,): np.nan})


def test_coalitions_are_validated():
    g = kx.TabularGame(TAXI)
    with pytest.raises(ValueError, match="shape"):
        g(np.zeros((2, 4), dtype=bool))
    with pytest.raises(ValueError, match="boolean"):
        g(np.full((1, 3), 0.5))
    with pytest.raises(ValueError, match="0/1"):
        g(np.array([[0, 2, 1]]))
    np.testing.assert_array_equal(g(np.array([[1, 1, 0]])), [12.0])


def test_non_finite_worths_are_an_error():
    g = kx.FunctionGame(lambda z: np.where(z.all(axis=1), np.nan, 1.0), 2)
    with pytest.raises(ValueError, match="non-finite worth.*\\[0, 1\\]"):
        g(all_coalitions(2))


def test_wrong_output_shape_is_an_error():
    g = kx.FunctionGame(lambda z: np.ones((len(z), 2)), 3)
    with pytest.raises(ValueError, match="shape"):
        g(all_coalitions(3))


def test_enumeration_refuses_too_many_players():
    with pytest.raises(ValueError, match="not feasible"):
        all_coalitions(40)


def test_grouped_game_and_product_game_grouping_agree():
    rng = np.random.default_rng(0)
    a, c, w = rng.random((3, 7, 5)), rng.random((1, 7, 5)), rng.normal(size=(3, 7))
    g = kx.ProductGame(a, c, w)
    groups = [[0, 3], [1], [2, 4]]
    plain = kx.GroupedGame(g, groups)
    product = g.grouped(groups)
    assert isinstance(product, kx.ProductGame)
    z = all_coalitions(3)
    np.testing.assert_allclose(plain(z), product(z), rtol=1e-13)
    np.testing.assert_allclose(kx.shapley_values(product, method="product").values,
                               kx.shapley_values(plain).values, atol=1e-13)
    with pytest.raises(ValueError, match="partition"):
        kx.GroupedGame(g, [[0, 1], [1, 2, 3, 4]])


def test_product_game_worths_match_definition():
    rng = np.random.default_rng(3)
    a, c, w = rng.random((2, 4, 3)), rng.random((2, 4, 3)), rng.normal(size=(2, 4))
    g = kx.ProductGame(a, c, w)
    for mask in range(8):
        z = bitmasks_to_coalitions([mask], 3)[0]
        expected = (w * np.where(z, a, c).prod(axis=-1)).sum(axis=1)
        np.testing.assert_allclose(g(z), expected, rtol=1e-14)


def test_grouped_games_drop_the_per_feature_data():
    rng = np.random.default_rng(0)
    g = kx.ProductGame(rng.random((3, 4, 4)), rng.random((1, 4, 4)), rng.normal(size=(3, 4)),
                       data=rng.normal(size=(3, 4)))
    for grouped in (kx.GroupedGame(g, [[0, 1], [2, 3]]), g.grouped([[0, 1], [2, 3]])):
        assert grouped.data is None
        e = kx.shapley_values(grouped)  # an Explanation of 2 groups, without 4-column data
        assert e.values.shape == (3, 2) and e.data is None
    assert g.data.shape == (3, 4)
