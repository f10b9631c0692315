"""The rates of this machine, measured once per process, that turn counted work into seconds.

Every cost estimate of kernelxai (the ``max_cost`` guard, the progress bar's "about 12 s",
``meta["estimated_seconds"]``, :func:`kernelxai.estimate_cost`) counts the work of a call by
kind (:class:`Work`) and prices each kind at its own rate:

``flops``
    elementwise operations: one arithmetic operation on one element of an array (the kernel
    evaluations of a Gram block, the quadrature's passes, the sums of the estimators).
    Priced at ``elementwise_per_second``, timed on the pass that dominates most routes: an
    RBF Gram block built feature by feature (``(x_j - z_j)**2`` summed, scaled, ``exp``).
``blas_flops``
    dense linear algebra: matrix products, Cholesky factorisations and triangular solves.
    Priced at ``blas_flops_per_second``, timed on a 256 x 256 matrix product and Cholesky
    factorisation on one BLAS thread (one core's rate: steady on a shared machine; large
    systems on several threads run faster, up to the number of cores).
``steps``
    Python-level steps (one block, one coalition of a loop in Python): what a step costs
    beyond its arithmetic -- a few numpy calls on small arrays. Priced at ``step_seconds``.
``model_seconds``
    seconds of a black-box model's ``predict``, timed by the value function on a probe of the
    user's own model (see :func:`time_model_calls`).

:func:`calibrate` measures the three rates in well under 0.1 s the first time an estimate is
priced, and caches them for the process. ``kx.config_context(flops_per_second=...)`` stays as
an override: when set, every operation (elementwise and BLAS alike) is priced at that one rate,
steps at nothing, and model calls by their probe -- the pricing of kernelxai before the rates
were calibrated, useful to make estimates the same on every machine (the tests of the guard do).
"""

from __future__ import annotations

import math
import mmap
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ._config import get_config
from ._memory import DEFAULT_THRESHOLD, reused
from ._threads import blas_threads, single_threaded_blas

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Work", "FACTOR_OPS", "FRESH_OPS", "arithmetic_passes", "calibrate", "fresh_numbers", "kernel_factors",
           "price", "threaded_blas", "time_model_calls"]

_lock = threading.Lock()
_rates: dict[str, float] | None = None

#: the probes' sizes: an RBF Gram block (rows x columns x features), the BLAS matrices' order,
#: and the number of small steps timed
_GRAM_PROBE = (256, 256, 4)
_BLAS_ORDER = 256
_PASS_LENGTH = 2**14
_STEPS = 200

#: Elementwise operations one number of a per-feature Gram block counts for when
#: ``flops_per_second`` overrides the calibration (see :func:`kernel_factors`): the difference,
#: the scaling, the profile (an exponential for RBF and Laplace) and the temporaries' traffic,
#: 11-31 measured on the development machine before the rates were calibrated.
FACTOR_OPS = 16.0
#: the per-feature factor probe: rows x columns x features, as ``feature_grams`` forms them
_FACTOR_PROBE = (64, 128, 8)
#: Elementwise operations one number written to new memory counts for under a
#: ``flops_per_second`` override (see :func:`fresh_numbers`).
FRESH_OPS = 4.0
#: bytes of the first-touch probe: fresh pages from the operating system, written once
_TOUCH_BYTES = 2**20


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return max(best, 1e-9)


def _measure() -> dict[str, float]:
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    a, b, d = _GRAM_PROBE
    X, Z = rng.random((a, d)), rng.random((b, d))
    acc, tmp = np.empty((a, b)), np.empty((a, b))

    def gram():
        acc.fill(0.0)
        for j in range(d):
            np.subtract.outer(X[:, j], Z[:, j], out=tmp)
            np.multiply(tmp, tmp, out=tmp)
            np.add(acc, tmp, out=acc)
        np.multiply(acc, -0.5, out=acc)
        np.exp(acc, out=acc)

    gram()
    elementwise = (3.0 * d + 2.0) * a * b / _best(gram, 5)

    x, y, z = rng.random(_PASS_LENGTH), rng.random(_PASS_LENGTH), np.empty(_PASS_LENGTH)

    def arithmetic():
        for _ in range(8):
            np.multiply(x, y, out=z)
            np.add(z, x, out=z)

    arithmetic()
    passes = 16.0 * _PASS_LENGTH / _best(arithmetic, 5)

    n = _BLAS_ORDER
    A = rng.standard_normal((n, n))
    # one core's rate: steady when other work shares the machine. The system is formed inside the
    # limit too: a product of this size on every thread leaves OpenBLAS's idle threads spinning for
    # ~0.1 s, which halves the speed of whatever runs next on a machine whose other cores are busy
    with single_threaded_blas():
        S = A @ A.T + n * np.eye(n)
        blas = (2.0 * n**3 + n**3 / 3.0) / _best(lambda: (A @ A, np.linalg.cholesky(S)), 3)

    p, q, f = _FACTOR_PROBE
    U, V = rng.random((p, f)), rng.random((q, f))

    def factors():  # k_l(u_l, v_l) of every pair and feature, as the kernels' ``feature_grams`` does
        r = np.subtract(U[:, None, :], V[None, :, :])
        np.multiply(r, r, out=r)
        np.multiply(r, -0.5, out=r)
        np.exp(r, out=r)

    factors()
    factor = _best(factors, 5) / (p * q * f)

    small = rng.random(64)

    def steps():
        for _ in range(_STEPS):
            np.add(small, small).sum()
            np.flatnonzero(small > 0.5)

    step = _best(steps, 5) / _STEPS
    return {"elementwise_per_second": float(elementwise), "passes_per_second": float(passes),
            "blas_flops_per_second": float(blas), "blas_threads": blas_threads(),
            "factor_seconds": float(factor), "step_seconds": float(step), "touch_seconds": _first_touch(),
            "calibration_seconds": time.perf_counter() - start}


def _first_touch() -> float:
    """Seconds to write one float64 to memory fresh from the operating system (a page fault per 4 KiB).

    An anonymous mapping, as the allocator makes for a large array when it has no freed
    memory to reuse: ~0.1 ns a number on bare metal, ~6 ns on a virtual machine (#25).
    """
    best = math.inf
    for _ in range(3):
        buffer = mmap.mmap(-1, _TOUCH_BYTES)
        numbers = np.frombuffer(buffer, dtype=np.float64)
        start = time.perf_counter()
        numbers.fill(1.0)
        best = min(best, time.perf_counter() - start)
        del numbers
        buffer.close()
    return max(best, 1e-9) / (_TOUCH_BYTES // 8)


def calibrate(refresh: bool = False) -> dict[str, float | None]:
    """The rates this machine's cost estimates use, measured once per process.

    Parameters
    ----------
    refresh : bool, default False
        Measure again (for example after changing the number of BLAS threads, or when the
        machine's load has changed).

    Returns
    -------
    dict
        ``elementwise_per_second`` (elementwise operations per second),
        ``passes_per_second`` (numbers of plain arithmetic passes in the cache, see
        :func:`arithmetic_passes`), ``factor_seconds`` (one number of a per-feature Gram block, see
        :func:`kernel_factors`), ``blas_flops_per_second`` (dense linear algebra on one thread), ``blas_threads``
        (the BLAS threads large systems run on, see :func:`threaded_blas`), ``step_seconds`` (what one
        Python-level step costs beyond its arithmetic), ``touch_seconds`` (one number written to
        memory fresh from the operating system, see :func:`fresh_numbers`), ``calibration_seconds`` (how long
        measuring took) and ``flops_per_second``: the config's override (None unless set; when
        set, every operation is priced at that one rate).

    Examples
    --------
    >>> import kernelxai as kx
    >>> rates = kx.calibrate()
    >>> rates["blas_flops_per_second"] > 0 and rates["elementwise_per_second"] > 0
    True
    >>> rates["calibration_seconds"] < 1.0
    True
    """
    global _rates
    measured = _rates   # measured once: read without the lock (#36); it is replaced whole, never changed
    if measured is None or refresh:
        with _lock:
            if _rates is None or refresh:
                _rates = _measure()
            measured = _rates
    rates: dict[str, float | None] = dict(measured)
    rates["flops_per_second"] = get_config()["flops_per_second"]
    return rates


def arithmetic_passes(numbers: float) -> float:
    """Elementwise operations that cost what ``numbers`` numbers of plain arithmetic passes cost.

    The quadrature routes' work is passes of multiplications, divisions and sums over blocks
    that stay in the cache; they run faster than the kernel evaluations the elementwise rate
    is timed on (``passes_per_second``, timed on multiply-add passes over 16,384 numbers), so
    their count is converted into elementwise operations at the ratio of the two rates (one
    to one when ``flops_per_second`` overrides the calibration).

    Parameters
    ----------
    numbers : float
        Numbers passed over (one pass over an array of k numbers counts k).

    Returns
    -------
    float
        Elementwise operations of the same estimated cost.

    Examples
    --------
    >>> import kernelxai as kx
    >>> with kx.config_context(flops_per_second=1e9):
    ...     arithmetic_passes(1e6)
    1000000.0
    >>> 0 < arithmetic_passes(1e6) <= 1e6 * 10
    True
    """
    rates = calibrate()
    if rates["flops_per_second"]:
        return float(numbers)
    return float(numbers) * rates["elementwise_per_second"] / rates["passes_per_second"]


def kernel_factors(count: float) -> float:
    """Elementwise operations that cost what ``count`` numbers of per-feature Gram blocks cost.

    A per-feature kernel factor k_l(u_l, v_l) is a difference, a square, a scaling and an
    exponential (RBF; the other profiles alike). How that compares with the elementwise probe
    depends on the machine: the exponential's share differs several-fold between processors
    (~1 ns a number with AVX-512, 5-9 ns on others). So the factors are timed themselves
    (``factor_seconds``, on blocks formed as the kernels form them) and converted at the
    elementwise rate; with ``flops_per_second`` set each counts :data:`FACTOR_OPS` operations.

    Parameters
    ----------
    count : float
        Numbers of per-feature Gram blocks formed (pairs x features).

    Returns
    -------
    float
        Elementwise operations of the same estimated cost.

    Examples
    --------
    >>> import kernelxai as kx
    >>> with kx.config_context(flops_per_second=1e9):
    ...     kernel_factors(1000.0) == 1000.0 * FACTOR_OPS
    True
    >>> kernel_factors(1000.0) > 0
    True
    """
    return _timed_units(count, "factor_seconds", FACTOR_OPS)


def fresh_numbers(count: float, array_numbers: float) -> float:
    """Elementwise operations that cost what writing ``count`` numbers to new arrays costs.

    An array above the allocator's threshold is mapped afresh from the operating system, and
    every 4 KiB page of it costs a page fault on first touch: on a virtual machine ~3 us a
    page, several times the arithmetic done on it. Which arrays are fresh is read at the time
    of the estimate (``kernelxai._memory.reused`` asks glibc, without changing its state):
    arrays the allocator would serve from memory it keeps -- after ``kx.prime_allocator()``,
    or once the process has freed an array at least as large -- cost nothing here; the others
    are fresh pages (under other C libraries, every array above 128 KiB, the starting
    threshold of glibc's). Under a ``flops_per_second`` override the operations are counted
    the same way in every process, whatever its allocator did before: arrays above 128 KiB are
    counted as fresh, as in a process that has freed no large array. Fresh numbers are counted,
    timed as ``touch_seconds`` (a fresh
    mapping written once) and converted at the elementwise rate (:data:`FRESH_OPS` each under a
    ``flops_per_second`` override).

    Parameters
    ----------
    count : float
        Numbers (float64) written to new arrays.
    array_numbers : float
        Numbers in each of those arrays (their size decides whether they are fresh pages).

    Returns
    -------
    float
        Elementwise operations of the same estimated cost.

    Examples
    --------
    >>> import kernelxai as kx
    >>> big = 2**23                       # 64 MiB arrays: above the threshold, fresh pages
    >>> with kx.config_context(flops_per_second=1e9):
    ...     fresh_numbers(2.0 * big, big) == 2.0 * big * FRESH_OPS
    True
    >>> fresh_numbers(2.0 * big, big) > 0, fresh_numbers(1000.0, 1000.0)   # small arrays: reused memory
    (True, 0.0)
    """
    nbytes = 8.0 * float(array_numbers)
    if calibrate()["flops_per_second"]:   # counted one to one: the same count in every process
        return 0.0 if nbytes <= DEFAULT_THRESHOLD else float(count) * FRESH_OPS
    if reused(nbytes):
        return 0.0
    return _timed_units(count, "touch_seconds", FRESH_OPS)


def _timed_units(count, seconds_key, override_ops):
    """``count`` units timed by the calibration (``rates[seconds_key]`` each) as elementwise operations.

    Under a ``flops_per_second`` override each unit counts ``override_ops`` operations.
    """
    rates = calibrate()
    if rates["flops_per_second"]:
        return float(count) * override_ops
    return float(count) * rates[seconds_key] * rates["elementwise_per_second"]


def threaded_blas(blas_flops: float) -> float:
    """One-thread BLAS operations that cost what ``blas_flops`` of a large system on all BLAS threads cost.

    ``blas_flops_per_second`` is one thread's rate. Factorisations and products of large
    matrices (order ~2000 and up) run on every BLAS thread at nearly that many times the rate
    (a 2000 x 2000 Cholesky was measured 2.1x faster on two threads than on one); their work is
    divided by ``blas_threads``. Unchanged when ``flops_per_second`` overrides the calibration.

    Parameters
    ----------
    blas_flops : float
        Floating-point operations of dense linear algebra on large matrices.

    Returns
    -------
    float
        Operations to price at the one-thread rate.

    Examples
    --------
    >>> import kernelxai as kx
    >>> with kx.config_context(flops_per_second=1e9):
    ...     threaded_blas(4e9)
    4000000000.0
    >>> threaded_blas(4e9) == 4e9 / kx.calibrate()["blas_threads"]
    True
    """
    rates = calibrate()
    if rates["flops_per_second"]:
        return float(blas_flops)
    return float(blas_flops) / max(1, int(rates["blas_threads"]))


def price(flops: float = 0.0, blas_flops: float = 0.0, steps: float = 0.0,
          model_seconds: float = 0.0) -> float:
    """Estimated seconds of work counted by kind (see the module's docstring).

    Parameters
    ----------
    flops : float
        Elementwise operations.
    blas_flops : float
        Floating-point operations of dense linear algebra.
    steps : float
        Python-level steps.
    model_seconds : float
        Seconds of model calls, already timed.

    Returns
    -------
    float
        Seconds: each kind at its calibrated rate, or (when ``flops_per_second`` is set in the
        config) all operations at that rate, steps free, plus the model calls.

    Examples
    --------
    >>> import kernelxai as kx
    >>> with kx.config_context(flops_per_second=1e9):
    ...     price(flops=2e9, blas_flops=1e9, steps=100, model_seconds=0.5)
    3.5
    """
    rates = calibrate()
    override = rates["flops_per_second"]
    if override:
        return (float(flops) + float(blas_flops)) / override + float(model_seconds)
    return (float(flops) / rates["elementwise_per_second"] + float(blas_flops) / rates["blas_flops_per_second"]
            + float(steps) * rates["step_seconds"] + float(model_seconds))


def time_model_calls(predict: Callable[[np.ndarray], object], rows: np.ndarray,
                     small: int = 16, large: int = 1024) -> tuple[float, float]:
    """Seconds per call and per row of ``predict``, from two timed calls on ``rows``.

    The model is called once on ``small`` rows and once on ``large`` rows (after one warm-up
    call), the best of two each; the line through the two times gives a fixed cost per call
    and a cost per row. ``rows`` are repeated when fewer than ``large`` are given.

    Parameters
    ----------
    predict : callable
        ``predict(X) -> array``, the model's prediction on rows of the explained features.
    rows : ndarray (k, d)
        Rows in the model's input format (at least one).
    small, large : int
        The two probe sizes.

    Returns
    -------
    (float, float)
        Seconds per call (at least 0) and seconds per row (positive).

    Examples
    --------
    >>> import numpy as np
    >>> per_call, per_row = time_model_calls(lambda X: X.sum(axis=1), np.ones((4, 3)))
    >>> per_call >= 0 and per_row > 0
    True
    """
    rows = np.asarray(rows)
    reps = max(1, math.ceil(large / max(1, len(rows))))
    probe = np.concatenate([rows] * reps)[:large] if len(rows) < large else rows[:large]
    few = probe[:small]
    predict(few)
    t_small = _best(lambda: predict(few), 2)
    t_large = _best(lambda: predict(probe), 2)
    per_row = max((t_large - t_small) / max(1, len(probe) - len(few)), 1e-9)
    per_call = max(t_small - per_row * len(few), 0.0)
    return per_call, per_row


@dataclass
class Work:
    """Work of a computation by kind, to be priced by :func:`price` (see the module's docstring).

    Parameters
    ----------
    flops : float
        Elementwise operations.
    blas_flops : float
        Operations of dense linear algebra.
    steps : float
        Python-level steps.
    model_seconds : float
        Seconds of model calls, timed on a probe.

    Examples
    --------
    >>> w = Work(flops=10.0, steps=2.0) + Work(blas_flops=5.0)
    >>> w.flops, w.blas_flops, w.steps
    (10.0, 5.0, 2.0)
    >>> (w * 3).blas_flops
    15.0
    """

    flops: float = 0.0
    blas_flops: float = 0.0
    steps: float = 0.0
    model_seconds: float = 0.0

    @property
    def ops(self) -> float:
        """Every counted operation, elementwise and BLAS alike (for partitions and comparisons)."""
        return float(self.flops) + float(self.blas_flops)

    @property
    def seconds(self) -> float:
        """Estimated seconds (:func:`price`)."""
        return price(self.flops, self.blas_flops, self.steps, self.model_seconds)

    def __add__(self, other: Work) -> Work:
        return Work(self.flops + other.flops, self.blas_flops + other.blas_flops, self.steps + other.steps,
                    self.model_seconds + other.model_seconds)

    def __mul__(self, factor: float) -> Work:
        f = float(factor)
        return Work(self.flops * f, self.blas_flops * f, self.steps * f, self.model_seconds * f)

    __rmul__ = __mul__
