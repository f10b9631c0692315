"""Term blocks cut into tasks, and the node count the quadrature will choose, known ahead of time.

Takes a :class:`~kernelxai.games.ProductGame`; hands on tasks of at most
about ``work_elements`` numbers (:func:`iter_tasks`, run by
:func:`kernelxai.estimators.product_shapley`), and, for the cost
model, the Gauss-Legendre node count the quadrature kernel would choose on the
game's first tasks (:func:`estimate_nodes`). A call keeps its probes in a
:class:`NodeProbes` of its own, which its cost estimate fills and its route
reads; nothing is written on the game.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .._config import working_elements
from .._validation import check_positive_int
from ..games import ProductGame, SumOfProductGames
from ._gauss_legendre import node_count, unit_node_count
from ._quadrature_kernel import WORK_ELEMENTS, thread_workspace, transposed

__all__ = ["Task", "iter_tasks", "alike_everywhere", "task_terms", "count_tasks", "estimate_nodes",
           "estimate_nodes_detail", "NodeEstimate", "NodeProbes", "probe_terms", "summands", "PROBE_TERMS"]


def _is_one(c):
    if c.size == 0:
        return True
    if c[(0,) * c.ndim] != 1.0:  # kernel values of absent features are rarely all 1: settle it early
        return False
    if not any(c.strides):  # one number broadcast (a game's "absent factors 1")
        return True
    return bool((c == 1.0).all())


def _flat(x, shape, flat):
    """``x`` broadcast to ``shape``, reshaped to ``flat`` (no broadcasting machinery when it has that shape)."""
    if x.shape == shape:
        return x.reshape(flat)
    # broadcast by one assignment: the copy reshaping a broadcast view would make, without its Python calls (#36)
    out = np.empty(shape, dtype=x.dtype)
    out[...] = x
    return out.reshape(flat)


#: Tasks of at most this many terms are checked for terms alike in every coalition (a = c).
FEW_TERMS = 4


def alike_everywhere(w, a, c) -> bool:
    """Whether the terms of a task of at most :data:`FEW_TERMS` terms are alike in every coalition (a = c).

    Such terms (an intercept: a = c = 1) add the same to every v(S): nothing to
    share out, only v(empty). The routes skip them, and the node-count probe
    does not count their nodes. Larger tasks are not looked at (False).

    Parameters
    ----------
    w : ndarray (M,)
        The task's weights.
    a : ndarray (M, d)
        Present factors.
    c : ndarray (M, d) or None
        Absent factors; None means all ones.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> alike_everywhere(np.array([2.0]), np.ones((1, 3)), None)          # an intercept
    True
    >>> alike_everywhere(np.array([2.0]), np.array([[1.0, 0.5, 1.0]]), None)
    False
    """
    if len(w) > FEW_TERMS:
        return False
    return bool((a == 1.0).all()) if c is None else np.array_equal(a, c)


def task_terms(d, route, work_elements) -> int:
    """Terms in one task of :func:`iter_tasks` (the last task of a block may hold fewer)."""
    if route == "quadrature":  # one task = one block of the kernel: d x step numbers per array
        return max(1, work_elements // d)
    return max(1, 16 * work_elements // (d * d))  # the recursions loop over d in Python: larger tasks amortise it


def count_tasks(game, route, work_elements) -> int | None:
    """Tasks :func:`iter_tasks` cuts ``game`` into (an upper bound where instances share terms), or None."""
    terms = game.n_terms()
    if terms is None:
        return None
    return -(-int(terms) * (game.n_instances or 1) // task_terms(game.n_players, route, work_elements))


class Task(NamedTuple):
    """One task of :func:`iter_tasks`: M terms of a product game, and the instances they add to.

    Attributes
    ----------
    rows : slice
        The instances the task covers.
    per_instance : bool
        False: every term belongs to every instance in ``rows``; True: the
        terms are those of the instances in ``rows``, one after the other.
    starts : ndarray of intp or None
        With ``per_instance``: the offset of each instance's first term (for
        ``np.add.reduceat``); else None.
    w : ndarray (M,)
        The terms' weights.
    a : ndarray (M, d)
        Present factors.
    c : ndarray (M, d) or None
        Absent factors; None means all ones.
    """

    rows: slice
    per_instance: bool
    starts: np.ndarray | None
    w: np.ndarray
    a: np.ndarray
    c: np.ndarray | None


def iter_tasks(game, route, max_elements, work_elements) -> Iterator[Task]:
    """Yield the :class:`Task` s of ``game``'s terms, each of at most ~work_elements numbers."""
    d = game.n_players
    step = task_terms(d, route, work_elements)
    for rows, w, a, c in game.iter_terms(max(d, max_elements // 4)):
        a, c, w = np.asarray(a, dtype=float), np.asarray(c, dtype=float), np.asarray(w, dtype=float)
        shape = a.shape if a.shape == c.shape and w.shape == a.shape[:2] else \
            np.broadcast_shapes(a.shape, c.shape, w.shape + (1,))
        K, R = shape[0], shape[1]
        if R == 0:
            continue
        start = rows.start or 0
        n_rows = len(range(*rows.indices(game.n_instances)))
        per_instance = K != 1 or n_rows == 1
        a = _flat(a, shape, (K * R, d))
        w = _flat(w, shape[:2], (K * R,))
        c = None if _is_one(c) else _flat(c, shape, (K * R, d))
        for lo in range(0, K * R, step):
            hi = min(K * R, lo + step)
            cc = None if c is None else c[lo:hi]
            if per_instance:
                first, last = lo // R, (hi - 1) // R
                if first == last:  # the task holds terms of one instance
                    starts = np.zeros(1, dtype=np.intp)
                else:
                    starts = np.maximum(np.arange(first, last + 1) * R, lo) - lo
                task_rows = slice(start + first, start + last + 1)
            else:
                starts, task_rows = None, rows
            yield Task(task_rows, per_instance, starts, w[lo:hi], a[lo:hi], cc)


#: Terms the node-count probe looks at (at most), and the numbers (terms x d) it may hold.
PROBE_TERMS = 4096
_PROBE_ELEMENTS = 2**19

@dataclass(frozen=True)
class NodeEstimate:
    """What a node-count probe found (:func:`estimate_nodes_detail`).

    Attributes
    ----------
    nodes : int
        The largest count over the tasks looked at, in 1..ceil(d/2).
    terms : int
        Terms looked at (over all summands of a sum).
    general : bool
        Whether some absent factor differs from 1 (the cost of the general
        product game rather than the functional-baseline one).
    complete : bool
        Whether the count holds for every term of the game: the probe saw
        them all (or already reached ceil(d/2), the most any term needs).
    """

    nodes: int
    terms: int
    general: bool
    complete: bool


def estimate_nodes(game: ProductGame, *, max_terms: int | None = None, work_elements: int = WORK_ELEMENTS) -> int:
    """Gauss-Legendre nodes the quadrature route will use on ``game``, from its first terms.

    The quadrature chooses its node count per task of terms from a bound
    (a Bernstein-ellipse bound on the quadrature error): often a handful where ceil(d/2)
    would be exact for any factors. This takes the first terms the game
    yields, splits them into tasks as :func:`product_shapley` does, and
    returns the largest count the kernel would choose for those tasks -- an
    estimate for the whole game, exact for the terms it saw. Terms further on
    may need more (up to ceil(d/2)) or fewer.

    Parameters
    ----------
    game : ProductGame
    max_terms : int, optional
        Terms to look at; default (:func:`probe_terms`) every term of a game
        whose terms make one task, else 4096, fewer at large d (at most 2^19
        numbers, terms x d). The game is asked for blocks of about that size,
        so one small block is formed (a game whose smallest block is larger,
        e.g. one explained point against every training point, forms that
        block).
    work_elements : int
        Size of one task, as in :func:`product_shapley`.

    Returns
    -------
    int
        In 1..ceil(d/2); ceil(d/2) when the game yields no terms.

    Notes
    -----
    The parts of a :class:`~kernelxai.games.SumOfProductGames` (e.g. the
    summands of a SumKernel) are looked at each in turn, and the largest of
    their counts is returned: the first part's terms say nothing of the
    others'.

    Each call probes the game afresh; nothing is kept on it. Within one call
    of ``kx.shapley_values`` or ``kx.explain`` the cost estimate and the route
    share one probe, which the call keeps for as long as it runs. The numba backend
    takes the same bound from exact per-term sums, so it uses at most as many
    nodes.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from kernelxai.estimators import estimate_nodes
    >>> a = np.random.default_rng(0).uniform(0.9, 1.0, size=(5, 40))   # 5 terms, 40 players
    >>> g = kx.ProductGame(a, np.ones_like(a), np.ones(5))
    >>> estimate_nodes(g)                     # ceil(40/2) = 20 would be exact for any factors
    8
    """
    return estimate_nodes_detail(game, max_terms, work_elements).nodes


def estimate_nodes_detail(game, max_terms=None, work_elements=WORK_ELEMENTS) -> NodeEstimate:
    """:func:`estimate_nodes` with what the probe saw: a :class:`NodeEstimate`.

    For d <= 2 (one node is exact) nothing is looked at and the absent
    factors are taken to be general.

    Parameters
    ----------
    game : ProductGame
    max_terms : int, optional
        Terms to look at (default as in :func:`estimate_nodes`).
    work_elements : int
        Size of one task, as in :func:`~kernelxai.estimators.product_shapley`.

    Returns
    -------
    NodeEstimate
        ``nodes`` (in 1..ceil(d/2)), ``terms`` looked at, ``general`` (some
        absent factor differs from 1) and ``complete`` (the count holds for
        every term).

    Raises
    ------
    TypeError
        ``game`` is not a :class:`~kernelxai.games.ProductGame`.
    ValueError
        ``max_terms`` or ``work_elements`` is not a positive integer.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> a = np.random.default_rng(0).uniform(0.9, 1.0, size=(5, 40))
    >>> estimate_nodes_detail(kx.ProductGame(a, np.ones_like(a), np.ones(5)))   # c = 1: not general
    NodeEstimate(nodes=8, terms=5, general=False, complete=True)
    """
    return NodeProbes().estimate(game, max_terms, work_elements)


def probe_terms(game, work_elements=WORK_ELEMENTS) -> int:
    """Terms the node-count probe looks at by default: all of a game of one task, else its first.

    All when every term of the game fits in one task of the quadrature
    (:func:`task_terms`): the route would count the nodes of that one task on
    one thread, so the probe costs what the route's own count would, and the
    route takes it (:meth:`NodeProbes.nodes_for_all`) instead of computing it
    again. A game of several tasks counts them on several threads: the probe
    looks at its first 4096 terms only (fewer at large d, at most 2^19 numbers).
    """
    d = max(1, game.n_players)
    terms = game.n_terms()
    if terms is not None and terms * (game.n_instances or 1) <= task_terms(d, "quadrature", work_elements):
        return max(1, int(terms) * (game.n_instances or 1))
    return max(1, min(PROBE_TERMS, _PROBE_ELEMENTS // d))


@dataclass
class _GameProbes:
    """What the probes of one call found on one game: estimates by (max_terms, work_elements), and
    the tasks of a probe that cut the whole game as the route would, by (max_elements, work_elements)."""

    game: object            # held, so that its id names it for as long as the call lasts
    estimates: dict = field(default_factory=dict)
    tasks: dict = field(default_factory=dict)


class NodeProbes:
    """The node-count probes of one call, game by game: made by the call, dropped with it.

    A call's cost estimate probes its game (:meth:`estimate`); its route then
    takes the count (:meth:`nodes_for_all`) and, for a game the probe saw
    whole, the very tasks the probe formed (:meth:`tasks`) rather than asking
    the game for them again -- on a one-point call that second pass costs a
    tenth of the call (#25). Nothing is written on the games: a game is
    looked up by identity, and the probes hold it, so it is the same object
    (games are not changed after they are made) for as long as the probes
    live. ``kx.shapley_values`` and ``kx.explain`` make one per call (the
    resolved options of ``method="product"`` carry it from the cost estimate to
    the run).

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> a = np.random.default_rng(0).uniform(0.9, 1.0, size=(5, 40))
    >>> g = kx.ProductGame(a, np.ones_like(a), np.ones(5))
    >>> probes = NodeProbes()
    >>> probes.nodes_for_all(g) is None          # not probed yet
    True
    >>> probes.estimate(g).nodes, probes.nodes_for_all(g)   # the probe saw all 5 terms
    (8, 8)
    >>> vars(g).keys() == vars(kx.ProductGame(a, np.ones_like(a), np.ones(5))).keys()   # nothing on g
    True
    """

    def __init__(self):
        self._games = {}

    def estimate(self, game, max_terms=None, work_elements=WORK_ELEMENTS) -> NodeEstimate:
        """:func:`estimate_nodes_detail` of ``game``, probed once per call and kept here."""
        if not isinstance(game, ProductGame):
            raise TypeError(f"estimate_nodes needs a ProductGame; got {type(game).__name__}")
        if work_elements is not WORK_ELEMENTS:
            work_elements = check_positive_int(work_elements, "work_elements")
        max_terms = probe_terms(game, work_elements) if max_terms is None else \
            check_positive_int(max_terms, "max_terms")
        found = self._games.setdefault(id(game), _GameProbes(game))
        key = (max_terms, work_elements)
        if key not in found.estimates:
            probe = _probe(game, max_terms, work_elements, self)
            found.estimates[key] = probe.estimate
            if probe.tasks is not None:
                found.tasks[probe.tasks_key] = probe.tasks
        return found.estimates[key]

    def nodes_for_all(self, game) -> int | None:
        """A node count enough for every term of ``game``, when a probe of this call saw them all; else None.

        A small game (one explained point, say) fits in the node-count probe of
        the cost estimate: the probe then counted the nodes of every task of the
        game's terms. A task's count bounds the error of each of its terms (its
        sums are the largest over them), so the largest count over the probe's
        tasks integrates every term of the game to full accuracy, whichever task
        the route puts it in: the route may use it for every task instead of
        counting again (when its tasks are the probe's, as for a game of one
        task, the counts are the same). Nothing is probed here.
        """
        found = self._games.get(id(game))
        complete = [] if found is None else [e.nodes for e in found.estimates.values() if e.complete]
        return min(complete) if complete else None

    def tasks(self, game, max_elements, work_elements) -> list[Task] | None:
        """The tasks a probe of this call cut the whole of ``game`` into, with these block sizes; else None.

        A probe that looked at every term of a game (a game of one task) cut
        them into the very tasks the quadrature route would, with the route's
        default block size (``max_elements``) and ``work_elements``: the route
        takes them as they are, so its result is bit for bit the one without a
        probe.
        """
        found = self._games.get(id(game))
        return None if found is None else found.tasks.get((max_elements, work_elements))


def summands(game) -> list:
    """The product games whose terms ``game`` yields one after the other (itself, or a sum's parts).

    The terms of a :class:`~kernelxai.games.SumOfProductGames` are those of its
    parts in turn and no task mixes two parts, so each part gets its own node
    counts (e.g. the summands of a SumKernel with different lengthscales).

    Parameters
    ----------
    game : ProductGame

    Returns
    -------
    list of ProductGame
        ``[game]``, or the parts of a sum (of nested sums, flattened).

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.ProductGame([[0.5, 0.8, 0.9]], [[1.0, 1.0, 1.0]], [2.0])
    >>> summands(g)
    [ProductGame(n_players=3, n_instances=1)]
    >>> len(summands(kx.games.SumOfProductGames([g, g], [1.0, 0.5])))
    2
    """
    if isinstance(game, SumOfProductGames) and type(game).iter_terms is SumOfProductGames.iter_terms:
        return [part for g in game.games for part in summands(g)]
    return [game]


class _Probe(NamedTuple):
    """A probe's :class:`NodeEstimate`, and the tasks it kept (the whole game in the route's own tasks) or None."""

    estimate: NodeEstimate
    tasks: list[Task] | None = None
    tasks_key: tuple | None = None


def _probe(game, max_terms, work_elements, probes) -> _Probe:
    """Probe ``game``'s first ``max_terms`` terms (a sum: each part, through ``probes``)."""
    full = max(1, math.ceil(game.n_players / 2))
    if full == 1:
        return _Probe(NodeEstimate(1, 0, True, True))
    parts = summands(game)
    if len(parts) > 1:  # each part's first terms: the largest count, all terms seen
        found = [probes.estimate(part, max_terms, work_elements) for part in parts]
        return _Probe(NodeEstimate(max(e.nodes for e in found), sum(e.terms for e in found),
                                   any(e.general for e in found), all(e.complete for e in found)))
    return _probe_whole(game, full, max_terms, work_elements)


class _Count:
    """The running node count of a probe over a game's first tasks (at most ``max_terms`` terms)."""

    def __init__(self, d, full, max_terms, work_elements):
        self.d, self.full, self.max_terms = d, full, max_terms
        self.space = thread_workspace(work_elements)
        self.nodes, self.seen, self.general, self.whole = 0, 0, False, True

    def add(self, task):
        """Count the nodes of the task's terms that are still within ``max_terms``."""
        a, c = task.a, task.c
        take = min(len(a), self.max_terms - self.seen)
        self.whole = self.whole and take == len(a)
        a, c = a[:take], None if c is None else c[:take]
        self.general = self.general or c is not None
        self.seen += take
        if self.nodes < self.full and not alike_everywhere(task.w[:take], a, c):   # alike: not integrated
            self.nodes = max(self.nodes, _task_nodes(a, c, self.d, self.space))

    def estimate(self, complete) -> NodeEstimate:
        return NodeEstimate(max(self.nodes, 1), self.seen, self.general, complete)


def _probe_whole(game, full, max_terms, work_elements) -> _Probe:
    """Probe one product game; a game the probe sees whole is cut in the route's own tasks, kept for it."""
    d = game.n_players
    terms = game.n_terms()
    total = None if terms is None else int(terms) * (game.n_instances or 1)
    # the whole game: probe it in the route's own blocks and tasks, and keep them for the route
    route_elements = working_elements(8) if total is not None and max_terms >= total else None
    kept = None if route_elements is None else []
    count = _Count(d, full, max_terms, work_elements)
    tasks = iter_tasks(game, "quadrature", route_elements or 4 * max_terms * d, work_elements)
    try:
        for task in tasks:
            if kept is not None:
                kept.append(task)
            count.add(task)
            if kept is None and count.nodes >= full:  # the most any term needs: the count holds for all
                return _Probe(count.estimate(True))
            if kept is None and count.seen >= max_terms:  # all seen only if there can be no more (not formed)
                count.whole = count.whole and total is not None and count.seen >= total
                break
    finally:
        tasks.close()
    if count.seen == 0:
        return _Probe(NodeEstimate(full, 0, True, True))
    if kept is not None and count.whole:  # the generator ran out: every term was seen (instances may share terms)
        return _Probe(count.estimate(True), kept, (route_elements, work_elements))
    return _Probe(count.estimate(count.whole))


def _task_nodes(a, c, d, space):
    """The node count the quadrature kernel chooses for the terms (a, c) of one task."""
    count = unit_node_count(a, d) if c is None else None   # absent factors 1: reductions of a, no copy
    if count is None:
        # as quadrature_block forms them: (d, M) factors, their differences, two scratch arrays
        M = a.shape[0]
        D, F, G = (space.get(name, d, M) for name in ("D", "F", "G"))
        A = transposed(a, "A", space)
        C = None if c is None else transposed(c, "C", space)
        np.subtract(A, 1.0 if C is None else C, out=D)
        count = node_count(A, C, D, d, F, G)
    return count
