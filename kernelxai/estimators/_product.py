"""Exact Shapley values of product games in polynomial time.

For a multiplicative game g(S) = prod_{l in S} a_l prod_{l not in S} c_l the
Shapley weight is a Beta integral, mu(q) = int_0^1 t^q (1-t)^(d-1-q) dt, so

    phi_j(g) = (a_j - c_j) int_0^1 prod_{l != j} (t a_l + (1-t) c_l) dt.

The integrand is a polynomial of degree d-1 in t: Gauss-Legendre quadrature
with ceil(d/2) nodes on [0, 1] is exact. When a and c lie in [0, 1] (kernel
values) every factor is a convex combination of non-negative numbers, so no
cancellation occurs at any d. The same identity underlies QuadraSHAP
(Mohammadi et al.) for product games in general.

How many Gauss-Legendre nodes the accuracy needs (far fewer than ceil(d/2) when
the kernel values are smooth in t) is worked out in
``kernelxai.estimators._gauss_legendre``.

Three routes compute the same numbers and are registered as estimators of
:func:`kernelxai.shapley_values`:

``"product"`` (alias ``"quadrature"``)
    the Beta-integral identity by Gauss-Legendre quadrature: O(R d n) per
    instance for R terms and n <= ceil(d/2) nodes (above), no cancellation,
    accurate at any d; numpy by default, or compiled with numba
    (``backend="numba"``, the extra ``kernelxai[numba]``);
``"stable"``
    PKeX-Shapley Alg. 2: the elementary symmetric polynomials e_q(Z_{-j}) by
    the coefficient recursion of the characteristic polynomial, with the
    scaling of Alg. 2, then psi_j = sum_q mu(q) e_q(Z_{-j}). O(R d^3);
    accurate, but e_q ~ C(d-1, q) overflows the double range once d >~ 1030;
``"newton"``
    PKeX-Shapley Alg. 1 (Theorem 3): e_q(Z_{-j}) by Newton's identities from
    power sums. O(R d^3); the alternating sums cancel catastrophically, and
    the values lose all accuracy around d ~ 50-70.

The paper's routes are written for the functional baseline game (c = 1). For a
general product game they are homogenised: ``h_q = sum_{|S| = q} prod_S a
prod_{rest} c``, computed by the recursion h_q <- c_i h_q + a_i h_{q-1} (equal to
Alg. 2 when c = 1), and Newton's identities run on the ratios a / c (so they
need c != 0).

The estimators work on any :class:`~kernelxai.games.ProductGame`; they know
nothing of kernels.

This module is the route's face and its driver: :func:`product_shapley`
streams a game's term blocks as tasks (``kernelxai.estimators._term_tasks``),
runs them on threads through the quadrature kernel
(``kernelxai.estimators._quadrature_kernel``, or
``kernelxai.estimators._quadrature_numba``) or the paper's routes
(``kernelxai.estimators._pkex_routes``), and adds the tasks' sums in order.
The quadrature rule lives in ``kernelxai.estimators._gauss_legendre``, the
mpmath reference in ``kernelxai.estimators._product_reference``; their
public names are re-exported here (``kernelxai.estimators._product`` is this module).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._config import working_elements
from .._threads import with_helpers
from .._validation import check_choice, check_positive_int
from ..games import ProductGame
from ._common import progress_bar
from ._gauss_legendre import (
    gauss_legendre_01,
    leave_one_out_product,
    node_count,
    nodes_needed,
    prefix_suffix,
    shapley_weights_exact,
)
from ._pkex_routes import (
    DEFAULT_TOLERANCE,
    PrecisionError,
    check_stable_range,
    measured_error,
    precision_message,
    psi_newton,
    psi_stable,
)
from ._product_reference import reference_shapley
from ._quadrature_kernel import WORK_ELEMENTS, psi_quadrature, quadrature_block, thread_workspace
from ._quadrature_numba import BACKENDS, numba_kernels, quadrature_contrib_numba
from ._term_tasks import (
    alike_everywhere,
    count_tasks,
    estimate_nodes,
    estimate_nodes_detail,
    iter_tasks,
    summands,
)

__all__ = ["gauss_legendre_01", "leave_one_out_product", "product_shapley", "product_sums", "ProductSums",
           "ProductOptions",
           "shapley_weights_exact", "reference_shapley", "estimate_nodes", "ROUTES", "BACKENDS",
           "PrecisionError",
           # the pieces of the routes that the cost model, tests and benchmarks look at
           "DEFAULT_TOLERANCE", "WORK_ELEMENTS", "nodes_needed", "node_count", "prefix_suffix", "psi_quadrature",
           "estimate_nodes_detail", "summands", "numba_kernels"]

#: The routes of :func:`product_shapley`, by name.
ROUTES = ("quadrature", "stable", "newton")

_PSI = {"quadrature": psi_quadrature, "stable": psi_stable, "newton": psi_newton}


def _default_jobs():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _jobs_for(game, route, work_elements, n_jobs):
    """No more threads than tasks: terms that make one task are summed in this thread (no thread start-up).

    Counts every instance's terms as its own (an upper bound where instances share terms).
    """
    tasks = None if n_jobs == 1 else count_tasks(game, route, work_elements)
    if tasks is None:
        return n_jobs
    return max(1, min(n_jobs, tasks))


def product_shapley(game: ProductGame, *, route: str = "quadrature", max_elements: int | None = None,  # noqa: PLR0913 - keyword options of a public function, one each as scikit-learn's
                    n_jobs: int | None = None, progress: bool | None = None, work_elements: int = WORK_ELEMENTS,
                    tolerance: float | None = DEFAULT_TOLERANCE, return_bound: bool = False,
                    backend: str = "numpy") -> tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, float]:
    r"""Exact Shapley values and :math:`v(\emptyset)` of a :class:`ProductGame`.

    Parameters
    ----------
    game : ProductGame
    route : {"quadrature", "stable", "newton"}
        How the Shapley weights' sums :math:`\psi_j = \sum_q \mu(q)\, e_q(Z_{-j})` are computed:
        by the Beta integral, :math:`\phi_j = (a_j - c_j) \int_0^1 \prod_{l \ne j} \big(t a_l + (1 - t) c_l\big)\, dt`
        for each multiplicative term, with Gauss-Legendre nodes (``"quadrature"``),
        PKeX-Shapley Alg. 2 (coefficient recursion, ``"stable"``) or Alg. 1
        (Newton's identities, ``"newton"``).
    max_elements : int
        Size (float64 numbers) of the term blocks requested from the game.
    n_jobs : int, optional
        Threads working on term blocks (numpy releases the GIL); default: the
        CPUs available to this process. The per-task kernels make no BLAS
        calls, so the threads never enter a threaded BLAS concurrently. The
        blocks' sums are added in block order whichever thread computed them,
        so the result is bit-for-bit that of ``n_jobs=1``.
    progress : bool, optional
        Show a tqdm bar over terms.
    work_elements : int
        Size of one task: for the quadrature the numbers (d x terms) in each
        of its working arrays; the default keeps them near the cache.
    tolerance : float or None
        The paper's routes measure their own error: each block of terms is
        checked against the quadrature (no cancellation, O(d^2) per term
        against their O(d^3)); when the normwise relative error of a term
        exceeds ``tolerance`` a :class:`PrecisionError` is raised with
        advice, and ``"stable"`` refuses up front where its coefficients
        would overflow. ``None`` returns whatever the route computes (for
        showing how the routes fail).
    return_bound : bool
        Also return the largest measured relative error over all terms (0
        for the quadrature).
    backend : {"numpy", "numba"}
        The quadrature's kernel: numpy (default), or the same loops compiled
        with numba (optional extra ``kernelxai[numba]``; compiled on first use,
        a few seconds once per process), several times faster. Both agree to
        rounding (1e-13 relative is tested). The paper's routes are numpy only.

    Returns
    -------
    values : ndarray (n_instances, d)
        With ``tolerance=None`` may hold inf/NaN where a route overflows
        (``"stable"`` at d >~ 1030).
    base_values : ndarray (n_instances,)
    error : float
        Only with ``return_bound=True``.

    Raises
    ------
    TypeError
        ``game`` is not a :class:`~kernelxai.games.ProductGame`.
    ValueError
        ``route`` or ``backend`` is not one of its choices, or ``n_jobs`` is
        not a positive integer.
    PrecisionError
        ``"stable"`` or ``"newton"`` would return values less accurate than
        ``tolerance`` (the message names the route to use instead).
    ImportError
        ``backend="numba"`` without numba installed.

    Notes
    -----
    Cost per instance for :math:`R` terms: :math:`O(R d n)` for the quadrature with
    :math:`n \le \lceil d/2 \rceil` nodes, as few as its accuracy needs
    (:func:`~kernelxai.estimators.estimate_nodes`), and :math:`O(R d^3)` for the
    paper's routes; memory :math:`O(\text{work\_elements})` per thread. The terms are
    streamed in blocks and no coalition is ever formed; the points of a
    block are integrated together.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from kernelxai.estimators import product_shapley
    >>> g = kx.ProductGame([[0.5, 0.8, 0.9]], [[1.0, 1.0, 1.0]], [2.0])   # v(S) = 2 prod_{l in S} a_l
    >>> values, base = product_shapley(g)
    >>> values.round(6), base
    (array([[-0.856667, -0.286667, -0.136667]]), array([2.]))
    >>> bool(np.allclose(values, kx.shapley_values(g, method="exact").values))
    True
    >>> values, base, error = product_shapley(g, route="stable", return_bound=True)
    >>> bool(error < 1e-12)
    True
    """
    sums = product_sums(game, ProductOptions(route, max_elements, n_jobs, progress, work_elements, tolerance,
                                             backend))
    if return_bound:
        return sums.values, sums.base_values, sums.error
    return sums.values, sums.base_values


class ProductSums(NamedTuple):
    """What :func:`product_sums` returns: :func:`product_shapley`'s values, v(empty) and error bound."""

    values: np.ndarray
    base_values: np.ndarray
    error: float


@dataclass(frozen=True)
class ProductOptions:
    """The keyword options of one :func:`product_shapley` call, as given (checked by :func:`product_sums`)."""

    route: str = "quadrature"
    max_elements: int | None = None
    n_jobs: int | None = None
    progress: bool | None = None
    work_elements: int = WORK_ELEMENTS
    tolerance: float | None = DEFAULT_TOLERANCE
    backend: str = "numpy"


def product_sums(game, options=None, probes=None) -> ProductSums:
    """:func:`product_shapley` as a :class:`ProductSums`, with the node probes of the call.

    ``options``: a :class:`ProductOptions` (None: the defaults). ``probes``: the
    ``kernelxai.estimators._term_tasks.NodeProbes`` whose cost estimate probed
    ``game`` in this call, or None. A small game's terms were all seen by that
    probe: its count serves every task of the quadrature, and its tasks (when
    cut as this call would) are taken as they are -- bit for bit what the call
    computes without them. What is raised: as :func:`product_shapley`.
    """
    options = ProductOptions() if options is None else options
    route, backend, work_elements = options.route, options.backend, options.work_elements
    if not isinstance(game, ProductGame):
        raise TypeError(
            f"method={route!r} needs a ProductGame -- a value function of a model with a "
            f"product kernel; got {type(game).__name__}. Use method='exact' or 'kernel' instead"
        )
    check_choice(route, "route", ROUTES)
    check_choice(backend, "backend", BACKENDS)
    if backend == "numba" and route == "quadrature":
        numba_kernels()  # compile (or fail for want of numba) before any thread starts
    n_jobs = _default_jobs() if options.n_jobs is None else check_positive_int(options.n_jobs, "n_jobs")
    n_jobs = _jobs_for(game, route, work_elements, n_jobs)
    max_elements = working_elements(8) if options.max_elements is None else options.max_elements
    nodes, kept = None, None
    if route == "quadrature" and probes is not None:
        nodes, kept = probes.nodes_for_all(game), probes.tasks(game, max_elements, work_elements)
    tasks = kept if kept is not None else iter_tasks(game, route, max_elements, work_elements)
    with progress_bar(None, f"product Shapley ({route})", "term", options.progress) as bar:
        sums = _TermSums(game, options, nodes, tasks, bar)
        with_helpers(sums.work, n_jobs)
    return ProductSums(sums.values, sums.base, sums.worst)


class _TermSums:
    """The sums of one :func:`product_sums` call, task by task, on the helper threads.

    Each task's sums are added in task order, whichever thread finished it
    first: the result is bit-for-bit that of one thread (parts wait in
    ``pending`` until their turn). ``worst`` is the largest error the paper's
    routes measured; ``failed`` is set by the first task that raises, and the
    other threads then stop taking tasks.
    """

    def __init__(self, game, options, nodes, tasks, bar):
        self.route, self.backend, self.tolerance = options.route, options.backend, options.tolerance
        self.nodes, self.d, self.work_elements, self.bar = nodes, game.n_players, options.work_elements, bar
        self.tasks = enumerate(tasks)
        n = game.n_instances or 1
        self.values = np.zeros((n, self.d))
        self.base = np.zeros(n)
        self.pending = {}
        self.turn = 0
        self.lock = threading.Lock()
        self.failed = False
        self.worst = 0.0

    def work(self):
        """One helper thread: take the next task until none is left (or one failed)."""
        space = thread_workspace(self.work_elements)
        while not self.failed:
            with self.lock:
                index, task = next(self.tasks, (None, None))
            if task is None:
                break
            try:
                contrib, prod_c, axis = self._contributions(task, space)
            except BaseException:
                self.failed = True
                raise
            self._add(index, task, contrib, prod_c, axis)

    def _contributions(self, task, space):
        """(the terms' contributions w (a - c) psi or None, prod_l c_l or None, the axis of the terms)."""
        w, a, c, d = task.w, task.a, task.c, self.d
        if alike_everywhere(w, a, c):
            # terms in every v(S) alike (an intercept): nothing to share out, only v(empty)
            return None, None if c is None else np.prod(c, axis=1), 0
        if self.route != "quadrature":
            return self._paper_route(w, a, c)
        if self.backend == "numba":
            contrib, prod_c = quadrature_contrib_numba(a, c, d, w, work=space)
            return contrib, prod_c, 0
        # transposed: contrib[j, m] = w_m (a_mj - c_mj) psi_mj, terms along axis 1
        contrib, diff, cT = quadrature_block(a, c, d, w, nodes=self.nodes, work=space)
        np.multiply(contrib, diff, out=contrib)
        return contrib, None if cT is None else np.multiply.reduce(cT, axis=0), 1

    def _paper_route(self, w, a, c):
        """:meth:`_contributions` by PKeX-Shapley's Alg. 2 or 1, their measured error held to ``tolerance``."""
        d, route, tolerance = self.d, self.route, self.tolerance
        if route == "stable" and tolerance is not None:
            check_stable_range(a, c, d)
        psi = _PSI[route](a, c, d)
        top = measured_error(psi, a, c, d)
        with self.lock:
            self.worst = max(self.worst, top)
        if tolerance is not None and not top <= tolerance:
            raise PrecisionError(precision_message(route, top, tolerance, d))
        contrib = w[:, None] * (a - (1.0 if c is None else c)) * psi
        return contrib, None if c is None else np.prod(c, axis=1), 0

    def _add(self, index, task, contrib, prod_c, axis):
        """Sum the task's terms per instance; add them, and the earlier tasks' waiting sums, in task order."""
        worth_empty = task.w if prod_c is None else task.w * prod_c   # each term's share of v(empty)
        if task.per_instance:
            part = None if contrib is None else np.add.reduceat(contrib, task.starts, axis=axis)
            part = part.T if axis else part
            base_part = np.add.reduceat(worth_empty, task.starts)
        else:
            part = None if contrib is None else contrib.sum(axis=axis)
            base_part = worth_empty.sum()
        with self.lock:
            self.pending[index] = (task.rows, part, base_part)
            while self.turn in self.pending:
                rows, summed, base = self.pending.pop(self.turn)
                if summed is not None:   # None: terms alike in every coalition add nothing to phi
                    self.values[rows] += summed
                self.base[rows] += base
                self.turn += 1
            self.bar.update(len(task.w))
