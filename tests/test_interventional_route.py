"""The interventional exact route: the table of all coalitions' worths (#25, item 3).

``kx.explain(..., method="exact")`` on a product kernel tabulates the worths of all
2**d coalitions through the kernel mean embeddings, the sums over the background of
the products for every subset of features taken as one small matrix product per
training point (the two halves' subset products). The values must not change:

* they equal brute-force enumeration -- every coalition's worth as the mean of model
  calls on the synthetic points (x_S, b_{S^c}), then the Shapley formula -- and
  the numbers of the route before the change (recorded below), to 1e-12, on product
  kernels (RBF, ARD RBF, Laplace; d = 1, 3, 4, 5, 8), a sum kernel with a constant
  summand, groups of features, several explained points and a background cut into
  several parts of a reduction and blocks within them;
* the passes and blocks the route is cut into for memory and cache change no bit.
"""

import itertools
import math

import numpy as np
import pytest

import kernelxai as kx
from kernelxai.kernels import RBF, Constant, Laplace, SumKernel
from kernelxai.models import KernelExpansion
from kernelxai.parallel import _reductions as reductions
from kernelxai.values import _interventional as interventional
from kernelxai.values._interventional import Interventional

#: the route's values before the change: e.values (row by row), then e.base_values
BEFORE = {
    "rbf_d5": [
        -0.020712071063357776, 0.25957146800102937, 0.26799494859424683, -0.12080861319661107, -0.018557871757605766,
        0.38846067204525825, -0.05999579016623634, 0.3011787451981258, -0.0895414208859749, -0.0853718654772684,
        -0.3999857158828044, 0.05382868962110217, 0.8068469346806175, -0.10888480980269612, 0.14064733934419646,
        -0.18553143848217862, -0.18553143848217862, -0.1855314384821785,
    ],
    "laplace_d4": [
        0.34897448980781015, 0.2450683789782889, 0.15904657446450043, 0.022628338634729097, -0.04938482573070019,
        -0.17914783039084747, -0.023321730944964383, -0.16056179960947706, 0.14239277764928174, 0.060022910959934596,
        0.014521497894458299, -0.07758713315481441, -0.14396867906898914, 0.10733130446456694, 0.028526535551351633,
        0.07791725561265112, 0.26002745612850003, 0.26002745612850003, 0.26002745612850003, 0.26002745612850003,
    ],
    "rbf_d3": [
        0.2018544332409831, 0.2831047222851029, 0.18220476768104102, -0.09383939042149249, 0.11648264623674599,
        0.10023046680710578, 0.9468717307307255, 0.9468717307307255,
    ],
    "rbf_d1": [
        -0.9002436873069355, -0.42372969098692437, 0.6719700288218977, 0.9494764494278956, 0.9494764494278956,
        0.9494764494278956,
    ],
    "sum_d4": [
        0.8524242915440542, -0.14231180462738524, 0.021552010424471958, -0.03994502444695259, -0.821735170807578,
        -0.345856329750587, -0.09683510155515473, -0.162404426641517, -0.2624906390833395, 0.5992788752978475,
        -0.11655849932855886, -0.28260228487267836, -2.5047952111259093, -2.5047952111259093, -2.5047952111259093,
    ],
    "groups_d6": [
        0.21391065901322093, -0.029826604246446852, 0.1336566426137453, -0.09170239446144672, 0.22165541285835422,
        0.11780389617791714, 0.09541266176953128, -0.044265845315077317, 0.289360138907783, -0.10820551122792205,
        -0.10820551122792205, -0.10820551122792205,
    ],
    "groups_d4": [
        -0.08754742752952938, 0.21006472756934738, -0.048498179546810315, 0.20624162116421518, 0.507526110238807,
        -0.04180567888679823, 0.5054395303159706, -0.18293193181477005, 0.07791387875932856, -0.16304533308120706,
        -0.16304533308120706, -0.16304533308120706,
    ],
    "d8_many_points": [
        0.17040301002110664, 0.005581755581889181, -0.05245019261797524, 0.018042348900770475, 0.1798547272229617,
        -0.272439411257996, -0.3782922984097405, 0.27607749262525966, 0.26192013837748573, -0.009512781238910263,
        0.07889511238146081, 0.035516786451036245, 0.00667353516051969, -0.18342011878639142, -0.07283584133869825,
        -0.043519462759999794, -0.17327329521069984, -0.06789511529750006, -0.03212506547749323,
        -0.10334271638074904, -0.3144458054457092, 0.04288892727116569, -0.07093304772945623, -0.10491074702508942,
        0.030606094345702238, 0.11560500321837743, 0.04608677200881848, 0.08845134450112646, 0.27580549975395857,
        0.2307781919416083, -0.036224562552980226, -0.3611919141154591, 0.046871641107206395, 0.016037189917923737,
        0.056732497997809536, -0.07079149806354086, 0.064247611570211, -0.1532261702547889, 0.3985363750002259,
        0.03786473541399452, 0.1174210715194753, -0.06754981252528794, 0.03264861177885121, 0.04809479346552137,
        0.3205594700878161, 0.005883372299059156, 0.006417475613186694, -0.06843925226580863, -0.11434262898709993,
        -0.01065710118607916, -0.026524515447941904, 0.13735714937507962, -0.050692191754358185,
        -0.06978153693540347, -0.04685614969393408, -0.021188200463087857, 0.39451249036642927, 0.39451249036642927,
        0.39451249036642927, 0.39451249036642927, 0.39451249036642927, 0.39451249036642927, 0.39451249036642927,
    ],
    "big_bg_d4": [
        -0.2715411626350446, -0.0366568693186, -0.11053726370599169, 0.21631434469525457, -0.15630733352533097,
        -0.048192693584486516, -0.06157736849465283, 0.09487457640687384, 0.16233454847936224, 0.16233454847936224,
    ],
}


def _model(kernel, d, n, seed):
    rng = np.random.default_rng(seed)
    return KernelExpansion(rng.normal(size=(n, d)), rng.normal(size=n), kernel, 0.3)


def _cases():
    """name -> (model, background, explained points, options); drawn in this order from one generator."""
    rng = np.random.default_rng(42)
    sum_kernel = SumKernel([(2.0, RBF(np.array([1.0, 0.5, 2.0, 1.2]))), (0.5, Laplace(1.1)), (0.7, Constant())])
    return {
        "rbf_d5": (_model(RBF(np.array([0.8, 1.2, 1.0, 2.0, 1.5])), 5, 12, 1), rng.normal(size=(30, 5)),
                   rng.normal(size=(3, 5)), {}),
        "laplace_d4": (_model(Laplace(1.3), 4, 9, 2), rng.normal(size=(25, 4)), rng.normal(size=(4, 4)), {}),
        "rbf_d3": (_model(RBF(1.0), 3, 7, 3), rng.normal(size=(20, 3)), rng.normal(size=(2, 3)), {}),
        "rbf_d1": (_model(RBF(0.7), 1, 6, 4), rng.normal(size=(15, 1)), rng.normal(size=(3, 1)), {}),
        "sum_d4": (_model(sum_kernel, 4, 10, 5), rng.normal(size=(22, 4)), rng.normal(size=(3, 4)), {}),
        "groups_d6": (_model(RBF(1.4), 6, 11, 6), rng.normal(size=(18, 6)), rng.normal(size=(3, 6)),
                      {"groups": [[0, 3], [1], [2, 4, 5]]}),
        "groups_d4": (_model(RBF(np.array([1.0, 0.6, 1.4, 0.8])), 4, 9, 8), rng.normal(size=(16, 4)),
                      rng.normal(size=(3, 4)), {"groups": [[0, 3], [1], [2]]}),
        "d8_many_points": (_model(RBF(2.0), 8, 13, 9), rng.normal(size=(12, 8)), rng.normal(size=(7, 8)),
                           {"max_elements": 3000}),
        "big_bg_d4": (_model(RBF(np.array([0.9, 1.1, 1.3, 0.6])), 4, 8, 7), rng.normal(size=(300, 4)),
                      rng.normal(size=(2, 4)), {"max_elements": 400}),
    }


CASES = _cases()


@pytest.fixture
def small_parts(monkeypatch):
    """Reductions over the background in parts of 64 rows (300 rows -> 5 parts)."""
    monkeypatch.setattr(reductions, "PART_FLOPS", 1.0)
    monkeypatch.setattr(reductions, "MIN_PART_ROWS", 64)


def brute_force(model, x, background, groups):
    """Shapley values of the interventional game by enumeration, every worth a mean of model calls."""
    p = len(groups)
    worths = {}
    for mask in range(2**p):
        present = np.zeros(len(x), dtype=bool)
        for j in range(p):
            if mask >> j & 1:
                present[groups[j]] = True
        worths[mask] = model.predict(np.where(present, x, background)).mean()
    phi = np.zeros(p)
    for j, mask in itertools.product(range(p), range(2**p)):
        if not mask >> j & 1:
            s = bin(mask).count("1")
            weight = math.factorial(s) * math.factorial(p - s - 1) / math.factorial(p)
            phi[j] += weight * (worths[mask | 1 << j] - worths[mask])
    return phi, worths[0]


@pytest.mark.parametrize("name", list(CASES))
def test_values_equal_brute_force_and_the_numbers_before_the_change(name, request):
    model, background, X, options = CASES[name]
    if name == "big_bg_d4":
        request.getfixturevalue("small_parts")
        calls = []
        original = reductions.in_order

        def spy(fn, rows, slices, shared, n_jobs, config):
            calls.append(len(slices))
            return original(fn, rows, slices, shared, n_jobs, config)

        request.getfixturevalue("monkeypatch").setattr(reductions, "in_order", spy)
    e = kx.explain(model, X, background=background, method="exact", **options)
    if name == "big_bg_d4":
        assert calls == [5]                       # the background really ran as 5 parts
    values, base = np.asarray(e.values), np.asarray(e.base_values)
    groups = options.get("groups", [[j] for j in range(X.shape[1])])
    for a, x in enumerate(X):
        phi, empty = brute_force(model, x, background, groups)
        np.testing.assert_allclose(values[a], phi, rtol=0, atol=1e-12)
        np.testing.assert_allclose(base[a], empty, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.concatenate([values.ravel(), base.ravel()]), BEFORE[name], rtol=0, atol=1e-12)


def test_the_table_equals_the_worths_of_single_coalitions():
    model, background, X, _ = CASES["rbf_d5"]
    game = Interventional(model, background).game(X)
    table = game.worth_table()
    Z = kx.games.all_coalitions(5)
    direct = game._worths(Z)                      # coalition by coalition (the other route of the game)
    np.testing.assert_allclose(table[kx.games.coalitions_to_bitmasks(Z)], direct, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("d", [1, 2, 5, 7])
def test_passes_and_blocks_change_no_bit(d, monkeypatch):
    rng = np.random.default_rng(d)
    model = _model(RBF(rng.uniform(0.5, 2.0, size=d)), d, 9, 10 + d)
    background, X = rng.normal(size=(40, d)), rng.normal(size=(6, d))
    whole = Interventional(model, background).game(X).worth_table()
    # one training point per pass of the background sums, one explained point per block
    monkeypatch.setattr(interventional, "_SUM_BLOCK_ELEMENTS", 1)
    monkeypatch.setattr(interventional, "_POINT_BLOCK_ELEMENTS", 1)
    cut = Interventional(model, background).game(X).worth_table()
    np.testing.assert_array_equal(cut, whole)
    # each explained point on its own: the same bits as in the call with the others
    for a in range(len(X)):
        np.testing.assert_array_equal(Interventional(model, background).game(X[a:a + 1]).worth_table()[:, 0],
                                      whole[:, a])
    # background rows in blocks (a memory budget): the same numbers, to rounding
    small = Interventional(model, background, max_elements=100).game(X).worth_table()
    np.testing.assert_allclose(small, whole, rtol=1e-13, atol=1e-14)
