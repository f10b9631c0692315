"""n_jobs= on kx.explain and kx.explain_interactions: chunks of rows run with joblib (and Dask).

What is checked:
* the chunked results are right: Shapley values and SII pairs against brute force written
  here (every coalition, model calls averaged over the background);
* n_jobs does not change a bit: serial and two loky workers give identical arrays for the
  exact routes (interventional, observational, functional baseline, product) and sampled
  ones (KernelSHAP with bootstrap, permutation, sampled interactions), with the partition
  from the cost model as well as a given one; an enclosing joblib.parallel_config is honoured;
* sampled routes draw the same coalitions whatever the chunking (a different seed moves the
  values by Monte-Carlo error, a different chunking only by rounding), and a Generator seed
  is left where the serial call leaves it;
* the partition rule (plan_rows), Explanation.concat, and the errors for bad arguments;
* one explained point and a large background: the mean embeddings (a reduction over the
  background's rows) run in parts on the workers -- threads, loky processes, joblib's threading
  backend -- with the same bits as one worker, and equal the brute force with that background;
* on a distributed.LocalCluster inside joblib.parallel_config(backend="dask"): equality with
  the serial run, the value function is sent to the cluster once, not once per chunk, and the
  parts of one point's background reduction run as tasks on the cluster.
"""

import itertools
import math

import joblib
import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge

import kernelxai as kx
from kernelxai import parallel
from kernelxai.parallel import _reductions as reductions
from kernelxai.parallel import _runner

rng = np.random.default_rng(7)
D = 4
X_TRAIN = rng.normal(size=(30, D))
Y_TRAIN = np.sin(X_TRAIN[:, 0]) + X_TRAIN[:, 1] * X_TRAIN[:, 2] - 0.3 * X_TRAIN[:, 3]
MODEL = KernelRidge(kernel="rbf", gamma=0.4, alpha=0.1).fit(X_TRAIN, Y_TRAIN)
BACKGROUND = X_TRAIN[:12]
X = rng.normal(size=(10, D))
CHUNK = 3  # 10 rows -> chunks of 3, 3, 3, 1
# sampled interactions need more than 4 players (2**4 coalitions fit in any budget)
X7_TRAIN = rng.normal(size=(30, 7))
MODEL7 = KernelRidge(kernel="rbf", gamma=0.2, alpha=0.1).fit(
    X7_TRAIN, np.tanh(X7_TRAIN[:, 0] * X7_TRAIN[:, 1]) + X7_TRAIN[:, 2:].sum(axis=1))
X7 = rng.normal(size=(10, 7))

FIELDS = ("values", "base_values", "stderr", "lower", "upper", "interactions", "covariance")


def assert_identical(a, b):
    """Every array of two Explanations equal bit for bit (and the same ones present)."""
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            np.testing.assert_array_equal(x, y, err_msg=name)


# --------------------------------------------------------------------------- #
# brute force, written here: every coalition, model calls averaged over the background
# --------------------------------------------------------------------------- #
def worths(x, background=BACKGROUND):
    """v(S) for every coalition S (bit j of the index = feature j), interventional game."""
    v = np.empty(2**D)
    for mask in range(2**D):
        present = np.array([(mask >> j) & 1 for j in range(D)], dtype=bool)
        Z = np.where(present, x, background)
        v[mask] = MODEL.predict(Z).mean()
    return v


def brute_shapley(x):
    v = worths(x)
    phi = np.zeros(D)
    for j in range(D):
        for mask in range(2**D):
            if mask >> j & 1:
                continue
            s = bin(mask).count("1")
            w = math.factorial(s) * math.factorial(D - s - 1) / math.factorial(D)
            phi[j] += w * (v[mask | 1 << j] - v[mask])
    return phi, v[0]


def brute_sii(x):
    v = worths(x)
    out = np.zeros((D, D))
    for i, j in itertools.combinations(range(D), 2):
        for mask in range(2**D):
            if mask >> i & 1 or mask >> j & 1:
                continue
            s = bin(mask).count("1")
            w = math.factorial(s) * math.factorial(D - s - 2) / math.factorial(D - 1)
            out[i, j] += w * (v[mask | 1 << i | 1 << j] - v[mask | 1 << i] - v[mask | 1 << j] + v[mask])
        out[j, i] = out[i, j]
    return out


def test_chunked_values_are_the_brute_force_shapley_values():
    truth = [brute_shapley(x) for x in X]
    for method in ("exact", "product"):
        e = kx.explain(MODEL, X, background=BACKGROUND, method=method, n_jobs=2,
                       rows_per_chunk=CHUNK)
        assert e.meta["parallel"]["chunks"] == 4 and e.meta["parallel"]["n_jobs"] == 2
        np.testing.assert_allclose(e.values, [p for p, _ in truth], atol=1e-10)
        np.testing.assert_allclose(e.base_values, [b for _, b in truth], atol=1e-10)
        np.testing.assert_array_equal(e.data, X)


def test_chunked_interactions_are_the_brute_force_sii():
    e = kx.explain_interactions(MODEL, X, background=BACKGROUND, index="SII", n_jobs=2,
                                rows_per_chunk=CHUNK)
    assert e.meta["method"] == "product" and e.meta["parallel"]["chunks"] == 4
    np.testing.assert_allclose(e.interactions, [brute_sii(x) for x in X], atol=1e-10)
    np.testing.assert_allclose(e.values, [brute_shapley(x)[0] for x in X], atol=1e-10)


# --------------------------------------------------------------------------- #
# n_jobs changes nothing
# --------------------------------------------------------------------------- #
CASES = {
    "interventional exact": ("interventional", {"method": "exact"}),
    "interventional product": ("interventional", {"method": "product"}),
    "observational": ("observational", {"eta": 1e-2}),
    "functional baseline": ("functional_baseline", {}),
    "kernel, bootstrap": ("interventional", {"method": "kernel", "budget": 12, "bootstrap": 20,
                                             "seed": 3}),
    "permutation": ("interventional", {"method": "permutation", "budget": 40, "seed": 3}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_two_loky_workers_give_the_serial_result_bit_for_bit(case):
    value, kw = CASES[case]
    serial = kx.explain(MODEL, X, value, n_jobs=1, rows_per_chunk=CHUNK, **kw)
    both = kx.explain(MODEL, X, value, n_jobs=2, rows_per_chunk=CHUNK, **kw)
    assert serial.meta["parallel"]["backend"] == "sequential"
    assert both.meta["parallel"]["backend"] == "loky"
    assert_identical(serial, both)
    # n_jobs=None: one joblib worker, the chunks on this process's threads
    default = kx.explain(MODEL, X, value, rows_per_chunk=CHUNK, **kw)
    assert default.meta["parallel"]["backend"] in ("threads", "sequential")  # 1 CPU: sequential
    assert_identical(default, both)
    assert both.meta["method"] == serial.meta["method"]
    # and the serial chunks are the one-call result, to rounding (rows explained together
    # only share how the arithmetic is blocked)
    whole = kx.explain(MODEL, X, value, **kw)
    assert "parallel" not in whole.meta
    np.testing.assert_allclose(both.values, whole.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(both.base_values, whole.base_values, rtol=0, atol=1e-12)


def test_the_cost_model_partition_does_not_depend_on_n_jobs():
    # a slow machine as far as the cost model knows: about 1.5 rows per half second
    with kx.config_context(flops_per_second=2e5, max_cost=None, progress=False):
        serial = kx.explain(MODEL, X, method="product")
        both = kx.explain(MODEL, X, method="product", n_jobs=2)
        # (at least two chunks: each chunk repeats the training x background kernel factors, which
        # the planner counts, so it does not cut the ten rows finer)
        assert serial.meta["parallel"]["chunks"] >= 2
        assert serial.meta["parallel"]["rows_per_chunk"] == both.meta["parallel"]["rows_per_chunk"]
        assert_identical(serial, both)
        # the config reaches the chunks: the estimate is the whole call's
        assert both.meta["estimated_seconds"] == serial.meta["estimated_seconds"] > 1
    # the default machine: ten rows are one chunk, the plain serial call
    assert "parallel" not in kx.explain(MODEL, X, method="product", n_jobs=2).meta


def test_an_enclosing_parallel_config_is_honoured():
    serial = kx.explain(MODEL, X, method="product", rows_per_chunk=CHUNK)
    with joblib.parallel_config(n_jobs=2):  # n_jobs=None means the context's, as in scikit-learn
        e = kx.explain(MODEL, X, method="product", rows_per_chunk=CHUNK)
    assert e.meta["parallel"]["n_jobs"] == 2
    assert_identical(serial, e)
    with joblib.parallel_config(backend="threading", n_jobs=2):
        t = kx.explain(MODEL, X, method="kernel", budget=12, seed=5, rows_per_chunk=CHUNK)
    assert t.meta["parallel"]["backend"] == "threading"
    assert_identical(kx.explain(MODEL, X, method="kernel", budget=12, seed=5, rows_per_chunk=CHUNK), t)


@pytest.mark.parametrize("kw", [{"method": "exact", "index": "k-SII"},
                                {"method": "product", "index": "FSII"},
                                {"method": "sampled", "index": "STII", "budget": 100,
                                 "random_state": 2}])
def test_interactions_with_two_workers_are_the_serial_ones(kw):
    model, X_ = (MODEL7, X7) if kw["method"] == "sampled" else (MODEL, X)
    serial = kx.explain_interactions(model, X_, rows_per_chunk=CHUNK, **kw)
    both = kx.explain_interactions(model, X_, n_jobs=2, rows_per_chunk=CHUNK, **kw)
    assert_identical(serial, both)
    whole = kx.explain_interactions(model, X_, **kw)
    np.testing.assert_allclose(both.interactions, whole.interactions, rtol=0, atol=1e-12)
    if kw["method"] == "sampled":  # per-row interval arrays in meta are stitched in order
        assert both.meta["n_rounds"] > 2 and both.meta["interactions_stderr"].max() > 0  # sampled
        for key in ("interactions_stderr", "interactions_lower", "interactions_upper"):
            assert both.meta[key].shape == (len(X_), 7, 7)
            np.testing.assert_array_equal(both.meta[key], serial.meta[key])
            np.testing.assert_allclose(both.meta[key], whole.meta[key], rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- #
# sampled routes: the same draws whatever the chunking
# --------------------------------------------------------------------------- #
def test_sampled_values_do_not_depend_on_the_chunking_but_on_the_seed():
    kw = {"method": "kernel", "budget": 12, "seed": 11}
    whole = kx.explain(MODEL, X, **kw)
    for rows in (1, 4):
        chunked = kx.explain(MODEL, X, rows_per_chunk=rows, **kw)
        np.testing.assert_allclose(chunked.values, whole.values, rtol=0, atol=1e-12)
    other = kx.explain(MODEL, X, **{**kw, "seed": 12})
    assert np.abs(other.values - whole.values).max() > 1e-6  # the seed does matter
    # seed=None: fresh draws, but one set for all chunks: the same row in four chunks (on two
    # workers) gets the same values
    twice = np.vstack([X[:1]] * 4)
    e = kx.explain(MODEL, twice, method="permutation", budget=30, rows_per_chunk=1, n_jobs=2)
    np.testing.assert_array_equal(e.values, np.repeat(e.values[:1], 4, axis=0))


def test_sampled_interactions_draw_the_same_coalitions_whatever_the_block_size():
    # a small block budget: 10 rows are evaluated 3 rounds at a time, 3 rows 7 at a time;
    # the coalitions must not follow the blocks
    kw = {"method": "sampled", "budget": 100, "random_state": 5, "max_elements": 3000}
    whole = kx.explain_interactions(MODEL7, X7, **kw)
    chunked = kx.explain_interactions(MODEL7, X7, rows_per_chunk=CHUNK, **kw)
    assert whole.meta["n_rounds"] == 21
    np.testing.assert_allclose(chunked.interactions, whole.interactions, rtol=0, atol=1e-12)
    np.testing.assert_allclose(chunked.values, whole.values, rtol=0, atol=1e-12)
    other = kx.explain_interactions(MODEL7, X7, **{**kw, "random_state": 6})
    assert np.abs(other.interactions - whole.interactions).max() > 1e-6


def test_a_generator_seed_is_used_and_advanced_as_in_the_serial_call():
    g_serial, g_chunked = np.random.default_rng(4), np.random.default_rng(4)
    a = kx.explain(MODEL, X, method="permutation", budget=30, seed=g_serial)
    b = kx.explain(MODEL, X, method="permutation", budget=30, seed=g_chunked, n_jobs=2,
                   rows_per_chunk=CHUNK)
    np.testing.assert_allclose(b.values, a.values, rtol=0, atol=1e-12)
    assert g_serial.bit_generator.state == g_chunked.bit_generator.state
    # in this process too: every chunk starts from the caller's state
    c = kx.explain(MODEL, X, method="permutation", budget=30, seed=np.random.default_rng(4),
                   rows_per_chunk=CHUNK)
    np.testing.assert_allclose(c.values, a.values, rtol=0, atol=1e-12)
    g_i = np.random.default_rng(9)
    chunked = kx.explain_interactions(MODEL7, X7, method="sampled", budget=100, random_state=g_i,
                                      rows_per_chunk=CHUNK)
    g_ref = np.random.default_rng(9)
    whole = kx.explain_interactions(MODEL7, X7, method="sampled", budget=100, random_state=g_ref)
    np.testing.assert_allclose(chunked.interactions, whole.interactions, rtol=0, atol=1e-12)
    assert g_i.bit_generator.state == g_ref.bit_generator.state


def test_rows_that_depend_on_each_other_are_not_split():
    kw = {"method": "bayes_shap", "target_width": 0.5, "seed": 0}
    one = kx.explain(MODEL, X[:4], rows_per_chunk=None, **kw)  # default: the serial call
    assert "parallel" not in one.meta
    with pytest.raises(ValueError, match="target_width"):
        kx.explain(MODEL, X[:4], n_jobs=2, **kw)


# --------------------------------------------------------------------------- #
# the pieces
# --------------------------------------------------------------------------- #
def test_plan_rows_follows_the_cost_model():
    with kx.config_context(flops_per_second=1e9, max_memory=2**28):
        # 1e8 flops a row, nothing repeated: half a second is 5 rows
        assert parallel.plan_rows(100, 1e10, 1e8) == 5
        # 1e9 flops repeated by every chunk: at least 100 rows for it to be <= 10 %
        assert parallel.plan_rows(1000, 1e9 + 1e11, 1e9 + 1e8) == 100
        assert parallel.plan_rows(50, 1e9 + 5e9, 1e9 + 1e8) == 50
        # 2**27 bytes a row: of the 500 rows half a second would take, two fit in 2**28 bytes
        assert parallel.plan_rows(100, 1e8, 1e6, 100 * 2.0**27, 2.0**27) == 2
        # 1e7 flops a row: 50 rows would do; 120 rows are cut into 3 even chunks of 40
        assert parallel.plan_rows(120, 1.2e9, 1e7) == 40
        assert parallel.plan_rows(1, 1e12, 1e12) == 1
        assert parallel.plan_rows(10, 5.0, 5.0) == 10  # no work that grows with the rows
    assert parallel.row_chunks(10, 3) == [slice(0, 3), slice(3, 6), slice(6, 9), slice(9, 10)]


def test_explanation_concat_round_trip_and_refusals():
    e = kx.explain_interactions(MODEL7, X7, method="sampled", budget=100, random_state=0)
    assert e.stderr.max() > 0
    back = kx.Explanation.concat([e[:3], e[3:7], e[7:]])
    assert_identical(back, e)
    np.testing.assert_array_equal(back.data, e.data)
    assert back.feature_names == e.feature_names
    cov = np.stack([np.eye(7)] * len(X7))
    c = kx.Explanation(e.values, e.base_values, covariance=cov)
    np.testing.assert_array_equal(kx.Explanation.concat([c[:5], c[5:]]).covariance, cov)
    with pytest.raises(ValueError, match="at least one"):
        kx.Explanation.concat([])
    with pytest.raises(ValueError, match="joint_covariance"):
        j = kx.Explanation(e.values[:2], e.base_values[:2], joint_covariance=np.eye(2 * 7))
        kx.Explanation.concat([j, j])
    with pytest.raises(ValueError, match="names its features"):
        kx.Explanation.concat([e[:2], kx.Explanation(e.values[2:4], feature_names=list("abcdefg"))])
    with pytest.raises(ValueError, match="some pieces"):
        kx.Explanation.concat([e[:2], kx.Explanation(e.values[2:4], e.base_values[2:4])])
    with pytest.raises(ValueError, match="no instance axis"):
        kx.Explanation.concat([e[0], e[1]])


@pytest.mark.parametrize("bad", [0, 1.5, True, "2", np.float64(2.0)])
def test_bad_n_jobs_is_refused_with_what_is_accepted(bad):
    with pytest.raises(ValueError, match=r"n_jobs must be None.*-1 \(all CPUs\)"):
        kx.explain(MODEL, X, n_jobs=bad)
    with pytest.raises(ValueError, match="n_jobs must be None"):
        kx.explain_interactions(MODEL, X, n_jobs=bad)


@pytest.mark.parametrize("bad", [0, -3, 2.0, False])
def test_bad_rows_per_chunk_is_refused(bad):
    with pytest.raises(ValueError, match="rows_per_chunk must be None"):
        kx.explain(MODEL, X, rows_per_chunk=bad)
    with pytest.raises(ValueError, match="rows_per_chunk must be None"):
        kx.explain_interactions(MODEL, X, rows_per_chunk=bad)


def test_the_cost_ceiling_applies_to_the_whole_call_once():
    with kx.config_context(flops_per_second=1e3, max_cost=1.0):
        with pytest.raises(kx.estimators.CostLimitError, match="max_cost"):
            kx.explain(MODEL, X, method="product", n_jobs=2, rows_per_chunk=CHUNK)


# --------------------------------------------------------------------------- #
# one point, a large background: the reduction over the background runs in parts
# --------------------------------------------------------------------------- #
BIG_BACKGROUND = np.random.default_rng(8).normal(size=(700, D))
REDUCTIONS = ("_subset_sums", "_absent_sums")


@pytest.fixture
def small_parts(monkeypatch):
    """Parts of 64 background rows (700 rows -> 11 parts); records how each reduction ran."""
    monkeypatch.setattr(reductions, "PART_FLOPS", 1.0)
    monkeypatch.setattr(reductions, "MIN_PART_ROWS", 64)
    seen = []
    original = reductions.in_order

    def spy(fn, rows, slices, shared, n_jobs, config):
        if fn.__name__ in REDUCTIONS:
            seen.append((len(slices), _runner.execution(n_jobs, len(slices))[0]))
        return original(fn, rows, slices, shared, n_jobs, config)

    monkeypatch.setattr(reductions, "in_order", spy)
    return seen


def brute_shapley_d(model, x, background):
    """Shapley values of the interventional game of any d, every coalition, model calls."""
    d = len(x)
    v = np.array([model.predict(np.where([(mask >> j) & 1 for j in range(d)], x, background)).mean()
                  for mask in range(2**d)])
    phi = np.zeros(d)
    for j, mask in itertools.product(range(d), range(2**d)):
        if not mask >> j & 1:
            s = bin(mask).count("1")
            phi[j] += math.factorial(s) * math.factorial(d - s - 1) / math.factorial(d) * (
                v[mask | 1 << j] - v[mask])
    return phi


@pytest.mark.parametrize("case", ["table of all coalitions", "coalitions asked for"])
def test_one_points_background_reduction_runs_in_parts_with_the_same_bits(small_parts, case):
    if case == "table of all coalitions":
        model, x, kw = MODEL, X[:1], {"method": "exact"}
    else:  # 20 sampled coalitions of 7 players: the worths of those coalitions only
        model, x, kw = MODEL7, X7[:1], {"method": "kernel", "budget": 20, "seed": 1}
    background = BIG_BACKGROUND if x.shape[1] == D else np.random.default_rng(9).normal(size=(700, 7))
    kw["background"] = background

    def run(how, n_jobs=None, backend=None):
        del small_parts[:]
        if backend is None:
            result = kx.explain(model, x, n_jobs=n_jobs, **kw)
        else:
            with joblib.parallel_config(backend=backend, n_jobs=2):
                result = kx.explain(model, x, **kw)
        assert small_parts and set(small_parts) == {(11, how)}, small_parts
        return result

    serial = run("sequential", n_jobs=1)
    for other in (run("threads"),                      # n_jobs=None: threads in this process
                  run("loky", n_jobs=2), run("threading", backend="threading")):
        assert_identical(serial, other)
    if case == "table of all coalitions":
        np.testing.assert_allclose(serial.values[0], brute_shapley_d(model, x[0], background),
                                   rtol=0, atol=1e-12)
    else:  # sampled values still add up to the prediction, and the base value is the mean
        np.testing.assert_allclose(serial.values.sum() + serial.base_values, model.predict(x),
                                   rtol=0, atol=1e-12)
    np.testing.assert_allclose(serial.base_values, model.predict(background).mean(), rtol=0, atol=1e-12)


def test_many_points_reduce_their_background_inside_their_own_chunk(small_parts):
    """Chunks of rows already run on the workers: their reductions run one part after the other."""
    serial = kx.explain(MODEL, X, background=BIG_BACKGROUND, method="exact", n_jobs=1,
                        rows_per_chunk=CHUNK)
    with joblib.parallel_config(backend="threading"):  # threads: they see the patched part size
        threaded = kx.explain(MODEL, X, background=BIG_BACKGROUND, method="exact", n_jobs=2,
                              rows_per_chunk=CHUNK)
    assert_identical(serial, threaded)
    assert {how for _, how in small_parts} == {"sequential"} and len(small_parts) == 8


# --------------------------------------------------------------------------- #
# a Dask cluster
# --------------------------------------------------------------------------- #
@pytest.mark.slow
@pytest.mark.xdist_group("dask")
def test_dask_local_cluster_gives_the_serial_result_and_ships_the_model_once(monkeypatch):
    distributed = pytest.importorskip(
        "distributed", reason="Dask is optional: install the kernelxai[dask] extra "
                              "(pip install 'kernelxai[dask]') to run the cluster test")
    pickled = []

    def getstate(self):  # runs in this process whenever the shared object is serialised
        pickled.append(1)
        return self.__dict__

    monkeypatch.setattr(parallel.Shipped, "__getstate__", getstate, raising=False)
    kw_exact = {"value": "observational", "eta": 1e-2, "rows_per_chunk": CHUNK}
    kw_sampled = {"method": "kernel", "budget": 12, "seed": 1, "rows_per_chunk": CHUNK}
    serial_exact = kx.explain(MODEL, X, **kw_exact)
    serial_sampled = kx.explain(MODEL, X, **kw_sampled)
    serial_pairs = kx.explain_interactions(MODEL, X, rows_per_chunk=CHUNK)
    # one point, its 700-row background reduced in 11 parts of 64 rows
    monkeypatch.setattr(reductions, "PART_FLOPS", 1.0)
    monkeypatch.setattr(reductions, "MIN_PART_ROWS", 64)
    kw_one = {"background": BIG_BACKGROUND, "method": "exact"}
    serial_one = kx.explain(MODEL, X[:1], **kw_one)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with joblib.parallel_config(backend="dask"):
            del pickled[:]
            exact = kx.explain(MODEL, X, **kw_exact)
            shipped = len(pickled)
            sampled = kx.explain(MODEL, X, **kw_sampled)
            pairs = kx.explain_interactions(MODEL, X, rows_per_chunk=CHUNK)
            with distributed.get_task_stream(client) as stream:
                one = kx.explain(MODEL, X[:1], **kw_one)
        workers = set(client.scheduler_info()["workers"])
    ran = [t for t in stream.data if "Task" in str(t.get("key", ""))]
    assert len(ran) >= 11, f"{len(ran)} of the 11 parts ran as cluster tasks: {stream.data[:3]}"
    assert {t["worker"] for t in ran} <= workers
    assert_identical(serial_one, one)
    assert exact.meta["parallel"]["backend"] == "daskdistributed"
    assert exact.meta["parallel"]["chunks"] == 4 and exact.meta["parallel"]["n_jobs"] == 2
    assert shipped == 1, f"the value function was serialised {shipped} times for 4 chunks"
    assert_identical(serial_exact, exact)
    assert_identical(serial_sampled, sampled)
    assert_identical(serial_pairs, pairs)


def test_reduce_rows_keeps_a_fresh_first_part_and_copies_any_other():
    # fresh=True: the part function's new array becomes the total (no copy of a large array, #25)
    from kernelxai.parallel import reduce_rows

    made = []

    def fresh_sums(shared, rows):
        made.append(rows.sum(axis=0))
        return made[-1]

    X = np.arange(12.0).reshape(6, 2)
    total = reduce_rows(fresh_sums, X, fresh=True)
    assert total is made[0] and np.array_equal(total, X.sum(axis=0))
    kept = np.ones(2)
    total = reduce_rows(lambda shared, rows: kept, X)   # may be held elsewhere: copied
    assert total is not kept and np.array_equal(kept, np.ones(2))
