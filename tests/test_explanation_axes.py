"""Explanation axes: outputs, interactions, covariance; slicing them consistently; conversions."""

import sys
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelxai as kx

N, D, K = 5, 4, 3
FEATURES = ["age", "bmi", "bp", "s1"]
OUTPUTS = ["a", "b", "c"]


def _sym(rng, shape, zero_diagonal):
    """Random blocks symmetric in axes 1, 2 (shape (n, d, d, ...))."""
    m = rng.normal(size=shape)
    m = m + np.swapaxes(m, 1, 2)
    if zero_diagonal:
        idx = np.arange(shape[1])
        m[:, idx, idx] = 0.0
    return m


def _psd(rng, n, d, k=None):
    """Per-instance covariances (n, d, d[, k])."""
    mats = []
    for _ in range(k or 1):
        a = rng.normal(size=(n, d, d))
        mats.append(a @ np.swapaxes(a, 1, 2))
    out = np.stack(mats, axis=-1)
    return out if k else out[..., 0]


@pytest.fixture
def multi():
    """(n, d, k) Explanation with everything per cell, interactions and covariance."""
    rng = np.random.default_rng(1)
    values = rng.normal(size=(N, D, K))
    return kx.Explanation(
        values, rng.normal(size=(N, K)), data=rng.normal(size=(N, D)), feature_names=FEATURES,
        output_names=OUTPUTS, lower=values - 1, upper=values + 2, meta={"method": "kernel"},
        interactions=_sym(rng, (N, D, D, K), True), covariance=_psd(rng, N, D, K),
    )


@pytest.fixture
def joint():
    """(n, d) Explanation with a joint covariance over all n*d values."""
    rng = np.random.default_rng(2)
    a = rng.normal(size=(N * D, N * D + 3))
    return kx.Explanation(rng.normal(size=(N, D)), 1.0, feature_names=FEATURES,
                          joint_covariance=a @ a.T)


# ------------------------------------------------------------------ outputs
def test_outputs_shapes_and_defaults():
    e = kx.Explanation(np.ones((N, D, K)))
    assert e.axes == ("instance", "feature", "output") and e.has_outputs
    assert e.output_names == ["output_0", "output_1", "output_2"]
    assert e.base_values.shape == (N, K) and e.feature_names == ["x0", "x1", "x2", "x3"]
    np.testing.assert_allclose(e.output, np.full((N, K), D))
    single = kx.Explanation(np.ones((D, K)), np.arange(K), output_names=OUTPUTS)
    assert single.axes == ("feature", "output") and single.base_values.shape == (K,)
    np.testing.assert_allclose(single.output, np.arange(K) + D)
    plain = kx.Explanation(np.ones((D, K)))   # no output_names: (n, d) as always
    assert plain.axes == ("instance", "feature") and not plain.has_outputs
    assert plain.output_names is None


def test_output_validation():
    with pytest.raises(ValueError, match=r"base_values must be a scalar or have shape \(5, 3\)"):
        kx.Explanation(np.ones((N, D, K)), np.zeros(N))
    with pytest.raises(ValueError, match=r"data must have one entry per instance x feature \(5, 4\)"):
        kx.Explanation(np.ones((N, D, K)), data=np.ones((N, D, K)))
    with pytest.raises(ValueError, match="output_names has 2 entries; values have 3"):
        kx.Explanation(np.ones((N, D, K)), output_names=["a", "b"])
    with pytest.raises(ValueError, match="distinct"):
        kx.Explanation(np.ones((N, D, K)), output_names=["a", "a", "b"])
    with pytest.raises(ValueError, match=r"\(n, d, k\) or, for a single instance, \(d, k\)"):
        kx.Explanation(np.ones(D), output_names=["a"])
    with pytest.raises(ValueError, match="got shape"):
        kx.Explanation(np.ones((2, 2, 2, 2)))
    with pytest.raises(ValueError, match="subsequence"):
        kx.Explanation(np.ones((2, 2)), axes=("feature", "instance"))


def test_pick_one_output_by_name_or_position(multi):
    by_name, by_pos = multi[..., "b"], multi[:, :, 1]
    for e in (by_name, by_pos):
        assert e.axes == ("instance", "feature") and not e.has_outputs and e.output_names is None
        np.testing.assert_array_equal(e.values, multi.values[:, :, 1])
        np.testing.assert_array_equal(e.base_values, multi.base_values[:, 1])
        np.testing.assert_array_equal(e.data, multi.data)           # data has no output axis
        np.testing.assert_array_equal(e.lower, multi.lower[:, :, 1])
        np.testing.assert_array_equal(e.interactions, multi.interactions[..., 1])
        np.testing.assert_array_equal(e.covariance, multi.covariance[..., 1])
        assert e.meta == {"method": "kernel", "output": "b"}
        np.testing.assert_allclose(e.output, multi.output[:, 1])
    assert multi.meta == {"method": "kernel"}                       # the original is untouched
    # the result is an ordinary (n, d) Explanation: the old indexing works on it
    assert by_name[0].values.shape == (D,) and by_name[:, "bmi"].feature_names == ["bmi"]


def test_instance_and_feature_indexing_keep_the_output_axis(multi):
    row = multi[0]
    assert row.axes == ("feature", "output") and row.output_names == OUTPUTS
    np.testing.assert_array_equal(row.base_values, multi.base_values[0])
    np.testing.assert_array_equal(row.data, multi.data[0])
    np.testing.assert_array_equal(row.interactions, multi.interactions[0])
    col = multi[:, "bmi"]
    assert col.axes == ("instance", "output") and col.feature_names == ["bmi"]
    np.testing.assert_array_equal(col.values, multi.values[:, 1])
    np.testing.assert_array_equal(col.data, multi.data[:, 1])
    np.testing.assert_array_equal(col.stderr, multi.stderr[:, 1])
    assert col.interactions is None and col.covariance is None     # one feature: no pairs
    block = multi[:3, [0, 2]]
    assert block.shape == (3, 2, K) and block.feature_names == ["age", "bp"]
    cell = multi[1, "bp", "c"]
    assert cell.axes == () and cell.values == multi.values[1, 2, 2]
    assert cell.base_values == multi.base_values[1, 2]


def test_list_keys_select_blocks_not_numpy_pairs(multi):
    # numpy would pair [0, 2] with [1, 3] pointwise; an Explanation selects the block
    block = multi[[0, 2], ["bmi", 3], ["a", "c"]]
    assert block.shape == (2, 2, 2) and block.output_names == ["a", "c"]
    np.testing.assert_array_equal(block.values, multi.values[np.ix_([0, 2], [1, 3], [0, 2])])
    np.testing.assert_array_equal(block.data, multi.data[np.ix_([0, 2], [1, 3])])
    mask = np.array([True, False, True, True])
    np.testing.assert_array_equal(multi[:, mask].values, multi.values[:, mask])
    old = kx.Explanation(np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(old[[0, 2], [1, 3]].values, [[1, 3], [9, 11]])


def test_index_errors(multi):
    with pytest.raises(KeyError, match=r"unknown output 'z'; outputs are \['a', 'b', 'c'\]"):
        multi[..., "z"]
    with pytest.raises(KeyError, match="unknown feature 'weight'"):
        multi[:, "weight"]
    with pytest.raises(IndexError, match="not instances"):
        multi["bmi"]
    with pytest.raises(IndexError, match="3 axes"):
        multi[0, 0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        multi[..., 0, ...]
    with pytest.raises(IndexError, match="length 4"):
        multi[:, np.array([True, False])]


# ------------------------------------------------------------- interactions
def test_interaction_validation():
    rng = np.random.default_rng(3)
    good = _sym(rng, (N, D, D), True)
    kx.Explanation(np.zeros((N, D)), interactions=good)
    with pytest.raises(ValueError, match=r"interactions must have shape \(5, 4, 4\)"):
        kx.Explanation(np.zeros((N, D)), interactions=good[:, :3, :3])
    bad = good.copy()
    bad[0, 0, 1] += 1e-6
    with pytest.raises(ValueError, match="symmetric"):
        kx.Explanation(np.zeros((N, D)), interactions=bad)
    bad = good.copy()
    bad[2, 1, 1] = 0.5
    with pytest.raises(ValueError, match="zero diagonal"):
        kx.Explanation(np.zeros((N, D)), interactions=bad)
    bad = good.copy()
    bad[0, 0, 1] = bad[0, 1, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        kx.Explanation(np.zeros((N, D)), interactions=bad)
    with pytest.raises(ValueError, match=r"\(5, 4, 4, 3\)"):   # outputs need a trailing k
        kx.Explanation(np.zeros((N, D, K)), interactions=good)
    # asymmetry at the level of rounding is accepted
    tiny = good.copy()
    tiny[0, 0, 1] *= 1 + 1e-15
    kx.Explanation(np.zeros((N, D)), interactions=tiny)


def test_interactions_sliced_on_both_feature_axes(multi):
    sub = multi[1:4, ["s1", "age"]]
    np.testing.assert_array_equal(sub.interactions,
                                  multi.interactions[1:4][:, [3, 0]][:, :, [3, 0]])
    np.testing.assert_array_equal(sub.covariance, multi.covariance[1:4][:, [3, 0]][:, :, [3, 0]])
    assert sub.interactions.shape == (3, 2, 2, K)
    np.testing.assert_array_equal(multi[2].interactions, multi.interactions[2])


def test_interactions_frame():
    rng = np.random.default_rng(4)
    inter = _sym(rng, (2, 3, 3), True)
    e = kx.Explanation(np.zeros((2, 3)), feature_names=["p", "q", "r"], interactions=inter)
    frame = e.interactions_frame()
    assert list(frame.columns) == ["instance", "feature_i", "feature_j", "value"]
    assert len(frame) == 2 * 3
    assert list(frame.feature_i[:3]) == ["p", "p", "q"] and list(frame.feature_j[:3]) == ["q", "r", "r"]
    np.testing.assert_array_equal(frame.value, [inter[0, 0, 1], inter[0, 0, 2], inter[0, 1, 2],
                                                inter[1, 0, 1], inter[1, 0, 2], inter[1, 1, 2]])
    assert list(e[1].interactions_frame().instance) == [0, 0, 0]


def test_interactions_frame_with_outputs(multi):
    frame = multi.interactions_frame()
    assert list(frame.columns) == ["instance", "output", "feature_i", "feature_j", "value"]
    assert len(frame) == N * K * D * (D - 1) // 2
    row = frame[(frame.instance == 3) & (frame.output == "c") & (frame.feature_i == "bmi")
                & (frame.feature_j == "s1")]
    assert row.value.item() == multi.interactions[3, 1, 3, 2]


def test_interactions_frame_without_block():
    with pytest.raises(ValueError, match="no interaction block"):
        kx.Explanation(np.zeros((2, 3))).interactions_frame()


# --------------------------------------------------------------- covariance
def test_covariance_gives_stderr_and_is_validated():
    rng = np.random.default_rng(5)
    cov = _psd(rng, N, D)
    e = kx.Explanation(rng.normal(size=(N, D)), covariance=cov)
    np.testing.assert_allclose(e.stderr, np.sqrt(np.diagonal(cov, axis1=1, axis2=2)))
    np.testing.assert_allclose(e[2].stderr, np.sqrt(np.diag(cov[2])))
    given = kx.Explanation(np.zeros((N, D)), covariance=cov, stderr=np.ones((N, D)))
    np.testing.assert_array_equal(given.stderr, 1.0)                # an explicit stderr is kept
    bad = cov.copy()
    bad[1, 0, 2] += 1.0
    with pytest.raises(ValueError, match="covariance must be symmetric"):
        kx.Explanation(np.zeros((N, D)), covariance=bad)
    bad = -cov
    with pytest.raises(ValueError, match="non-negative diagonal"):
        kx.Explanation(np.zeros((N, D)), covariance=bad)
    with pytest.raises(ValueError, match="need a feature axis"):
        kx.Explanation(np.zeros(N), covariance=np.zeros(N), axes=("instance",))


def test_covariance_with_outputs_gives_stderr_per_output(multi):
    expected = np.sqrt(np.moveaxis(np.diagonal(multi.covariance, axis1=1, axis2=2), -1, 1))
    np.testing.assert_allclose(multi.stderr, expected)
    assert multi.stderr.shape == (N, D, K)


def test_joint_covariance_blocks_and_exact_slicing(joint):
    J = joint.joint_covariance
    for i in range(N):
        np.testing.assert_array_equal(joint.covariance[i], J[i * D:(i + 1) * D, i * D:(i + 1) * D])
    rows, cols = [3, 0], [1, 2, 3]
    sub = joint[rows, cols]
    cells = [i * D + j for i in rows for j in cols]
    np.testing.assert_array_equal(sub.joint_covariance, J[np.ix_(cells, cells)])
    np.testing.assert_array_equal(sub.covariance, joint.covariance[rows][:, cols][:, :, cols])
    np.testing.assert_array_equal(joint[1:3].joint_covariance, J[D:3 * D, D:3 * D])
    single = joint[0]
    assert single.joint_covariance is None                          # no instance axis: dropped
    np.testing.assert_array_equal(single.covariance, joint.covariance[0])
    assert joint[:, "bmi"].joint_covariance is None
    assert "with joint covariance" in repr(joint) and "joint" not in repr(single)


def test_joint_covariance_with_outputs():
    rng = np.random.default_rng(6)
    a = rng.normal(size=(K, 2 * D, 2 * D))
    J = np.moveaxis(a @ np.swapaxes(a, 1, 2), 0, -1)                 # (2d, 2d, k)
    e = kx.Explanation(np.zeros((2, D, K)), joint_covariance=J)
    np.testing.assert_array_equal(e.covariance[1, :, :, 2], J[D:, D:, 2])
    np.testing.assert_array_equal(e[..., "output_2"].joint_covariance, J[..., 2])
    np.testing.assert_array_equal(e[:, [0, 1], [0, 2]].joint_covariance,
                                  J[np.ix_([0, 1, D, D + 1], [0, 1, D, D + 1], [0, 2])])


def test_joint_covariance_validation(joint):
    J = joint.joint_covariance
    with pytest.raises(ValueError, match="joint_covariance must have shape"):
        kx.Explanation(np.zeros((N, D)), joint_covariance=J[:-1, :-1])
    with pytest.raises(ValueError, match="needs an instance and a feature axis"):
        kx.Explanation(np.zeros(D), joint_covariance=J[:D, :D])
    wrong = joint.covariance.copy()
    wrong[0] *= 2
    with pytest.raises(ValueError, match="diagonal blocks of joint_covariance"):
        kx.Explanation(np.zeros((N, D)), covariance=wrong, joint_covariance=J)
    kx.Explanation(np.zeros((N, D)), covariance=joint.covariance, joint_covariance=J)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_slicing_commutes_with_numpy_blocks(data):
    """Any instance block x feature block x output block slices every array alike."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    n, d, k = data.draw(st.integers(1, 4)), data.draw(st.integers(2, 5)), data.draw(st.integers(1, 3))
    values = rng.normal(size=(n, d, k))
    e = kx.Explanation(values, rng.normal(size=(n, k)), data=rng.normal(size=(n, d)),
                       interactions=_sym(rng, (n, d, d, k), True), covariance=_psd(rng, n, d, k))
    rows = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n))
    cols = data.draw(st.lists(st.integers(0, d - 1), min_size=1, max_size=d, unique=True))
    outs = data.draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=k, unique=True))
    sub = e[rows, cols, outs]
    np.testing.assert_array_equal(sub.values, values[np.ix_(rows, cols, outs)])
    np.testing.assert_array_equal(sub.base_values, e.base_values[np.ix_(rows, outs)])
    np.testing.assert_array_equal(sub.data, e.data[np.ix_(rows, cols)])
    np.testing.assert_array_equal(sub.interactions, e.interactions[np.ix_(rows, cols, cols, outs)])
    np.testing.assert_array_equal(sub.covariance, e.covariance[np.ix_(rows, cols, cols, outs)])
    np.testing.assert_array_equal(sub.stderr, e.stderr[np.ix_(rows, cols, outs)])
    assert sub.feature_names == [e.feature_names[j] for j in cols]
    assert sub.output_names == [e.output_names[j] for j in outs]


# ------------------------------------------------------------- conversions
def test_to_frame_with_outputs(multi):
    frame = multi.to_frame()
    assert frame.shape == (N, D * K)
    assert frame.columns.names == ["output", "feature"]
    assert frame[("b", "bp")].tolist() == multi.values[:, 2, 1].tolist()
    assert frame["c"].columns.tolist() == FEATURES
    one = multi[0].to_frame()
    assert one.shape == (1, D * K) and one[("a", "s1")].item() == multi.values[0, 3, 0]
    col = multi[:, "bmi"].to_frame()
    assert col.shape == (N, K) and col[("c", "bmi")].tolist() == multi.values[:, 1, 2].tolist()
    # an output picked: the ordinary frame again
    assert list(multi[..., "a"].to_frame().columns) == FEATURES


class _FakeShapExplanation:
    def __init__(self, values, base_values=None, data=None, display_data=None, instance_names=None,  # noqa: PLR0913 - mirrors shap.Explanation's constructor
                 feature_names=None, output_names=None, output_indexes=None, lower_bounds=None,
                 upper_bounds=None, error_std=None, main_effects=None, hierarchical_values=None,
                 clustering=None, compute_time=None):
        # the signature of shap 0.51's shap.Explanation
        self.kwargs = {k: v for k, v in locals().items() if k not in ("self",)}


@pytest.fixture
def fake_shap(monkeypatch):
    module = types.ModuleType("shap")
    module.Explanation = _FakeShapExplanation
    monkeypatch.setitem(sys.modules, "shap", module)
    return module


def test_to_shap_passes_everything(fake_shap, multi):
    s = multi.to_shap()
    kw = s.kwargs
    assert kw["values"] is multi.values and kw["base_values"] is multi.base_values
    assert kw["data"] is multi.data and kw["feature_names"] == FEATURES
    assert kw["output_names"] == OUTPUTS
    assert kw["lower_bounds"] is multi.lower and kw["upper_bounds"] is multi.upper
    assert kw["error_std"] is multi.stderr
    assert s.kernelxai_meta == {"method": "kernel"}
    one = multi[..., "a"].to_shap()
    assert one.kwargs["output_names"] is None and one.kernelxai_meta["output"] == "a"


def test_to_shap_without_extras(fake_shap):
    e = kx.Explanation(np.ones((2, 3)))
    kw = e.to_shap().kwargs
    assert kw["lower_bounds"] is None and kw["error_std"] is None and kw["output_names"] is None
    assert kw["feature_names"] == ["x0", "x1", "x2"]


def test_to_shap_with_real_shap(multi):
    pytest.importorskip("shap")
    s = multi.to_shap()
    np.testing.assert_array_equal(s.values, multi.values)
    np.testing.assert_array_equal(s[0, :, "b"].values, multi[0, :, "b"].values)
    np.testing.assert_array_equal(s.lower_bounds, multi.lower)
    assert s.kernelxai_meta["method"] == "kernel"


def test_repr_shows_the_axes(multi):
    text = repr(multi)
    assert text.startswith("Explanation(shape=(5, 4, 3)")
    for part in ("outputs=['a', 'b', 'c']", "with intervals", "with interactions", "with covariance",
                 "method='kernel'"):
        assert part in text
    picked = repr(multi[..., "b"])
    assert "output='b'" in picked and "outputs=" not in picked
    many = repr(kx.Explanation(np.zeros((1, 2, 10))))
    assert "'output_0', 'output_1', 'output_2', '...', 'output_8', 'output_9'" in many
    assert repr(kx.Explanation(np.zeros((2, 2)))) == "Explanation(shape=(2, 2), method='?')"


def test_per_cell_and_per_block_meta_arrays_slice_with_the_explanation():
    rng = np.random.default_rng(0)
    n, d = 3, 4
    inter = rng.normal(size=(n, d, d))
    inter = inter + inter.transpose(0, 2, 1)
    inter[:, np.arange(d), np.arange(d)] = 0.0
    e = kx.Explanation(rng.normal(size=(n, d)), np.zeros(n), interactions=inter,
                       meta={"interactions_stderr": np.abs(inter), "cell_note": np.arange(n * d).reshape(n, d),
                             "lengthscales": np.ones(7)})
    s = e[1:, [0, 2]]
    np.testing.assert_array_equal(s.meta["interactions_stderr"], np.abs(inter)[1:][:, [0, 2]][:, :, [0, 2]])
    np.testing.assert_array_equal(s.meta["cell_note"], np.arange(n * d).reshape(n, d)[1:, [0, 2]])
    np.testing.assert_array_equal(s.meta["lengthscales"], np.ones(7))   # not per row: untouched
    assert "interactions_stderr" not in e[:, 0].meta                    # its block is gone too


def test_multi_output_interaction_errors_get_the_outputs_axis():
    from sklearn.kernel_ridge import KernelRidge

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 8))
    Y = np.c_[X[:, 0] * X[:, 1], np.sin(X[:, 2]) + X[:, 3] * X[:, 4]]
    model = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, Y)
    e = kx.explain_interactions(model, X[:2], "observational", background=X[:8], method="sampled",
                                budget=120, random_state=0)
    err = e.meta["interactions_stderr"]
    assert err.shape == e.interactions.shape == (2, 8, 8, 2)
    assert np.any(err[..., 0] != err[..., 1]) and np.any(err > 0)   # really sampled, per output
    one = e[..., e.output_names[1]]
    np.testing.assert_array_equal(one.meta["interactions_stderr"], err[..., 1])
    np.testing.assert_array_equal(e[0].meta["interactions_stderr"], err[0])
