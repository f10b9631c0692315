"""Faults that lose state or fail badly: BLAS thread limits, complex input, HSIC memory."""

import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import threadpoolctl

import kernelxai as kx
import kernelxai.models._logistic as km
from kernelxai import _threads
from kernelxai.values._interventional import InterventionalGame
from kernelxai.values._observational import ObservationalGame

WAIT = 30.0  # seconds; a choreography step that waits longer has failed anyway


# --------------------------------------------------------------------------- #
# BLAS thread limits
# --------------------------------------------------------------------------- #
def blas_threads():
    """num_threads of every BLAS library loaded in the process."""
    return sorted((i["filepath"], i["num_threads"]) for i in threadpoolctl.threadpool_info()
                  if i["user_api"] == "blas")


@pytest.fixture
def two_blas_threads():
    """Run with BLAS at 2 threads (so that a leaked limit of 1 is visible); restore after.

    Not a ``with threadpool_limits`` block: inside one, threadpoolctl >= 3.8
    lets no other thread change a process-wide OpenBLAS pool, which would hide
    the leak.
    """
    limiter = threadpoolctl.threadpool_limits(limits=2, user_api="blas")
    _threads._release_control()
    try:
        before = blas_threads()
        assert before and all(n == 2 for _, n in before)
        yield before
    finally:
        limiter.restore_original_limits()
        _threads._release_control()


class FirstInLeavesFirst:
    """Two threads inside a single-threaded-BLAS region at once; the first to enter leaves first.

    ``inner`` wraps a function called inside the region: the first thread to
    call it waits until a second thread has called it too, and the second
    waits until the first has returned from ``outer``, the function holding
    the region. A limiter that records "the original limits" per entry then
    restores the first thread's limit of 1 last -- the leak this guards against.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.order = {}
        self.second_inside = threading.Event()
        self.first_left = threading.Event()

    def inner(self, fn):
        def wrapped(*args, **kwargs):
            me = threading.get_ident()
            with self.lock:
                new = me not in self.order and len(self.order) < 2
                if new:
                    self.order[me] = len(self.order)
            if new and self.order[me] == 0:
                assert self.second_inside.wait(WAIT), "the second thread never entered"
            elif new:
                self.second_inside.set()
                assert self.first_left.wait(WAIT), "the first thread never left"
            return fn(*args, **kwargs)
        return wrapped

    def outer(self, fn):
        def wrapped(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            finally:
                if self.order.get(threading.get_ident()) == 0:
                    self.first_left.set()
        return wrapped


def small_model(seed=0, n=40, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    return kx.models.KernelRidge(kernel=kx.kernels.RBF(1.0), lam=1e-2).fit(X, y), X


def run_concurrently(fn, n_jobs):
    with ThreadPoolExecutor(max_workers=n_jobs) as pool:
        return [f.result(timeout=120) for f in [pool.submit(fn, k) for k in range(n_jobs)]]


@pytest.mark.parametrize("value", ["interventional", "observational"])
def test_concurrent_explanations_do_not_lower_the_blas_thread_count(value, two_blas_threads,
                                                                    monkeypatch):
    model, X = small_model()
    dance = FirstInLeavesFirst()
    if value == "interventional":
        for name in ("worth_table", "_worths"):
            monkeypatch.setattr(InterventionalGame, name, dance.inner(getattr(InterventionalGame, name)))
        monkeypatch.setattr(InterventionalGame, "_evaluate", dance.outer(InterventionalGame._evaluate))
    else:
        monkeypatch.setattr(ObservationalGame, "_inner", dance.inner(ObservationalGame._inner))
        monkeypatch.setattr(ObservationalGame, "_evaluate", dance.outer(ObservationalGame._evaluate))

    def job(k):
        return kx.explain(model, X[k:k + 2], value=value, background=X[:20], method="exact").values

    results = run_concurrently(job, 2)
    assert dance.first_left.is_set()
    assert blas_threads() == two_blas_threads
    assert np.allclose(results[0], kx.explain(model, X[0:2], value=value, background=X[:20],
                                              method="exact").values)


def test_concurrent_logistic_fits_do_not_lower_the_blas_thread_count(two_blas_threads, monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    t = (X[:, 0] + 0.3 * rng.normal(size=30) > 0).astype(int)
    dance = FirstInLeavesFirst()
    monkeypatch.setattr(km, "_newton_logistic", dance.inner(km._newton_logistic))
    monkeypatch.setattr(km, "_fit_logistic", dance.outer(km._fit_logistic))

    def job(k):
        return kx.models.KernelLogisticRegression(kernel=kx.kernels.RBF(1.0), lam=1e-2).fit(X, t)

    run_concurrently(job, 2)
    assert dance.first_left.is_set()
    assert blas_threads() == two_blas_threads


@pytest.mark.parametrize("value", ["interventional", "observational"])
def test_eight_concurrent_explanations_keep_the_blas_thread_count(value, two_blas_threads):
    model, X = small_model()

    def job(k):
        return kx.explain(model, X[k:k + 3], value=value, background=X[:25], method="exact").values

    for _ in range(3):
        run_concurrently(job, 8)
        assert blas_threads() == two_blas_threads


def test_single_threaded_blas_nests_and_restores(two_blas_threads):
    with _threads.single_threaded_blas():
        assert all(n == 1 for _, n in blas_threads())
        with _threads.single_threaded_blas():
            assert all(n == 1 for _, n in blas_threads())
        assert all(n == 1 for _, n in blas_threads())
        with _threads.single_threaded_blas(enabled=False):
            assert all(n == 1 for _, n in blas_threads())
    assert blas_threads() == two_blas_threads
    with _threads.single_threaded_blas(enabled=False):
        assert blas_threads() == two_blas_threads


def test_single_threaded_blas_holds_while_any_thread_is_inside(two_blas_threads):
    """Thread A enters, B enters, A leaves: B still runs single-threaded; then all is restored."""
    a_inside, b_inside, a_left = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def a():
        with _threads.single_threaded_blas():
            a_inside.set()
            assert b_inside.wait(WAIT)
        a_left.set()

    def b():
        assert a_inside.wait(WAIT)
        with _threads.single_threaded_blas():
            b_inside.set()
            assert a_left.wait(WAIT)
            seen["after A left"] = blas_threads()

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert all(n == 1 for _, n in seen["after A left"])
    assert blas_threads() == two_blas_threads


def test_single_threaded_blas_restores_after_an_exception(two_blas_threads):
    with pytest.raises(RuntimeError, match="boom"):
        with _threads.single_threaded_blas():
            raise RuntimeError("boom")
    assert blas_threads() == two_blas_threads
    with _threads.single_threaded_blas():
        assert all(n == 1 for _, n in blas_threads())
    assert blas_threads() == two_blas_threads


# --------------------------------------------------------------------------- #
# complex input
# --------------------------------------------------------------------------- #
COMPLEX = "has complex values; kernelxai works with real numbers"


def test_as_real_array_refuses_complex_and_keeps_reals():
    from kernelxai._validation import as_real_array

    with pytest.raises(ValueError, match="alpha " + COMPLEX):
        as_real_array(np.array([1.0, 2.0 + 0j]), "alpha")
    with pytest.raises(ValueError, match="data " + COMPLEX):
        as_real_array(np.array([1.0, 1j], dtype=object), "data")
    x = np.arange(3.0)
    assert as_real_array(x, "x") is x
    assert as_real_array([1, 2], "x").dtype == np.float64
    with pytest.raises(ValueError, match="x must be numeric"):
        as_real_array(["a", "b"], "x")


@pytest.mark.parametrize("value", ["interventional", "observational", "functional_baseline"])
def test_explain_refuses_complex_X_and_background(value):
    model, X = small_model()
    with pytest.raises(ValueError, match="X " + COMPLEX):
        kx.explain(model, X[:3] + 1e-3j, value=value)
    if value != "functional_baseline":
        with pytest.raises(ValueError, match="background " + COMPLEX):
            kx.explain(model, X[:3], value=value, background=X[:10].astype(complex))


def test_explain_mmd_refuses_complex_samples():
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(20, 3)), rng.normal(size=(15, 3))
    with pytest.raises(ValueError, match="X " + COMPLEX):
        kx.explain_mmd(X + 1j, Z, n_permutations=0)
    with pytest.raises(ValueError, match="Z " + COMPLEX):
        kx.explain_mmd(X, Z.astype(complex), n_permutations=0)


def test_explain_hsic_refuses_complex_X_and_Y():
    """Complex Y used to be read as class labels (it is not float) and explained silently."""
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=30)
    with pytest.raises(ValueError, match="X " + COMPLEX):
        kx.explain_hsic(X + 1j, y, n_permutations=0)
    for Y in (y + 1j, pd.Series(y.astype(complex), name="t"), np.c_[y, y + 1j]):
        with pytest.raises(ValueError, match="Y " + COMPLEX):
            kx.explain_hsic(X, Y, n_permutations=0)


def test_kernel_expansion_refuses_complex_alpha():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10, 2))
    with pytest.raises(ValueError, match="alpha " + COMPLEX):
        kx.models.KernelExpansion(X, np.ones(10) + 1j, kx.kernels.RBF(1.0))


def test_tabular_game_refuses_complex_worths():
    worths = {(): 0, (0,): 1 + 1j, (1,): 2, (0, 1): 3}
    with pytest.raises(ValueError, match=COMPLEX):
        kx.TabularGame(worths)
    with pytest.raises(ValueError, match=COMPLEX):
        kx.TabularGame(np.array([0, 1, 2, 3 + 1j]))


# --------------------------------------------------------------------------- #
# HSIC memory
# --------------------------------------------------------------------------- #
def test_hsic_permutation_test_never_forms_an_n_by_n_matrix():
    """Used to hold K, H K H, L and a permuted L: 4 n^2 floats (3 GB each at n = 20 000)."""
    import tracemalloc

    from kernelxai.explainers._discrepancy import hsic_permutation_test

    rng = np.random.default_rng(0)
    n = 3000
    X = rng.normal(size=(n, 3))
    Y = (X[:, :1] ** 2 + 0.1 * rng.normal(size=(n, 1)))
    kx_, ky = kx.kernels.RBF(1.0), kx.kernels.RBF(0.7)
    small = hsic_permutation_test(X[:200], Y[:200], kx_, ky, n_permutations=5, seed=1)
    H = np.eye(200) - 1 / 200
    reference = np.trace(kx_.gram(X[:200]) @ H @ ky.gram(Y[:200]) @ H) / 199**2
    assert np.isclose(small[0], reference, rtol=1e-10)
    one_matrix = 8 * n * n                                    # 72 MB
    tracemalloc.start()
    try:
        with kx.config_context(max_memory=2**23):             # 8 MB blocks
            statistic, p_value = hsic_permutation_test(X, Y, kx_, ky, n_permutations=1, seed=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < one_matrix / 2, f"peak {peak / 2**20:.0f} MiB"
    assert statistic > 0 and 0 < p_value <= 1


HSIC_IN_A_SMALL_ADDRESS_SPACE = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import kernelxai as kx
    from kernelxai.explainers._discrepancy import hsic_permutation_test

    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize"))
    limit = vm + 600 * 2**20      # 600 MB more than the interpreter and libraries take
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    n = int(sys.argv[1])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    Y = X[:, :1] ** 2 + 0.1 * rng.normal(size=(n, 1))
    with kx.config_context(max_memory=2**26):
        stat, p = hsic_permutation_test(X, Y, kx.kernels.RBF(1.0), kx.kernels.RBF(1.0),
                                        n_permutations=0)
    print("statistic", stat)
""")


@pytest.mark.slow
def test_hsic_statistic_at_large_n_fits_in_a_small_address_space():
    """n = 10 000: one n x n matrix is 800 MB, more than the 600 MB the process may add."""
    out = subprocess.run([sys.executable, "-c", HSIC_IN_A_SMALL_ADDRESS_SPACE, "10000"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert float(out.stdout.split()[-1]) > 0
