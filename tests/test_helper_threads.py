"""The product routes' helper threads: one pool per process, the caller working too (#25)."""

import threading

import numpy as np
import pytest

import kernelxai as kx
from kernelxai._threads import with_helpers
from kernelxai.estimators._product import product_shapley


def _game(seed=0, n=3, terms=6000, d=12):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.2, 1.0, size=(n, terms, d))
    c = rng.uniform(0.2, 1.0, size=(n, terms, d))
    return kx.ProductGame(a, c, rng.normal(size=(n, terms)))


def _helper_threads():
    return {t.ident for t in threading.enumerate() if t.name.startswith("kernelxai-helper")}


def test_threaded_calls_reuse_one_pool_and_match_one_thread():
    game = _game()
    one, base1 = product_shapley(game, n_jobs=1, work_elements=2**12)
    first, base = product_shapley(game, n_jobs=2, work_elements=2**12)   # many tasks: helpers used
    started = _helper_threads()
    assert started, "the threaded call started no helper"
    for _ in range(3):
        again, _ = product_shapley(game, n_jobs=2, work_elements=2**12)
        np.testing.assert_array_equal(again, first)
    assert _helper_threads() == started          # no thread started per call
    np.testing.assert_array_equal(first, one)    # the same bits as one thread
    np.testing.assert_array_equal(base, base1)


def test_a_call_from_inside_a_helper_does_not_wait_for_a_helper_it_cannot_get():
    # every helper busy with a call that itself asks for helpers: the callers do the work
    game = _game(n=1, terms=3000)
    expected, _ = product_shapley(game, n_jobs=1, work_elements=2**12)
    results, lock, tasks = [], threading.Lock(), iter(range(4))

    def outer():
        while True:
            with lock:
                task = next(tasks, None)
            if task is None:
                return
            values, _ = product_shapley(game, n_jobs=2, work_elements=2**12)
            with lock:
                results.append(values)

    done = threading.Event()
    runner = threading.Thread(target=lambda: (with_helpers(outer, 2), done.set()), daemon=True)
    runner.start()
    assert done.wait(60), "nested calls deadlocked"
    assert len(results) == 4
    for values in results:
        np.testing.assert_array_equal(values, expected)


def test_the_first_error_is_raised_after_the_helpers_return():
    calls, lock = [], threading.Lock()

    def work():
        with lock:
            calls.append(1)
            first = len(calls) == 1
        if first:
            raise ValueError("from the first copy")

    with pytest.raises(ValueError, match="first copy"):
        with_helpers(work, 2)
    with_helpers(lambda: None, 1)   # one thread: no pool needed


def test_each_thread_keeps_one_workspace_between_calls():
    # a fresh workspace maps and touches its arrays page by page: a one-point call would pay it each time
    from kernelxai.estimators._quadrature_kernel import WORK_ELEMENTS, thread_workspace

    mine = thread_workspace()
    assert thread_workspace() is mine and thread_workspace(WORK_ELEMENTS) is mine
    assert thread_workspace(WORK_ELEMENTS // 2) is not mine          # another size: a workspace of its own
    theirs = []
    worker = threading.Thread(target=lambda: theirs.append(thread_workspace()))
    worker.start()
    worker.join()
    assert theirs[0] is not mine                                       # threads never share one
    # the quadrature keeps using it: its buffers stay the same objects from call to call
    game = _game(n=1, terms=500)
    product_shapley(game, n_jobs=1)
    buffers = {name: id(flat) for name, flat in mine._flat.items()}
    product_shapley(game, n_jobs=1)
    assert buffers and {name: id(flat) for name, flat in mine._flat.items()} == buffers
