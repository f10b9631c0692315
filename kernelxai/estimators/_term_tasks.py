"""Term blocks cut into tasks, and the node count the quadrature will choose, known ahead of time.

Takes a :class:`~kernelxai.games.ProductGame`; hands on tasks of at most
about ``work_elements`` numbers (:func:`iter_tasks`, run by
:func:`kernelxai.estimators.product_shapley`), and, for the cost
model, the Gauss-Legendre node count the quadrature kernel would choose on the
game's first tasks (:func:`estimate_nodes`, cached on the game).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from .._config import working_elements
from .._validation import check_positive_int
from ..games import ProductGame, SumOfProductGames
from ._gauss_legendre import node_count, unit_node_count
from ._quadrature_kernel import WORK_ELEMENTS, thread_workspace, transposed

__all__ = ["iter_tasks", "alike_everywhere", "task_terms", "count_tasks", "estimate_nodes", "estimate_nodes_detail",
           "node_probe", "nodes_for_all", "probed", "probe_terms", "summands", "PROBE_TERMS"]


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
    return (x if x.shape == shape else np.broadcast_to(x, shape)).reshape(flat)


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


def iter_tasks(game, route, max_elements, work_elements) -> Iterator[tuple]:
    """Yield (rows, per_instance, starts, w, a, c) tasks of at most ~work_elements numbers.

    ``a`` (M, d) and ``c`` (M, d) or None are the factors of M terms;
    ``per_instance`` False means the terms belong to every instance in
    ``rows``; else ``starts`` (offsets of each instance's first term, for
    ``np.add.reduceat``) and the instances ``rows`` covered by the task.
    """
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
            yield task_rows, per_instance, starts, w[lo:hi], a[lo:hi], cc


#: Terms the node-count probe looks at (at most), and the numbers (terms x d) it may hold.
PROBE_TERMS = 4096
_PROBE_ELEMENTS = 2**19

#: Where a game keeps its node estimates (see :func:`estimate_nodes`).
_ESTIMATE_ATTRIBUTE = "_kx_node_estimates"


def estimate_nodes(game, *, max_terms=None, work_elements=WORK_ELEMENTS) -> int:
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

    The estimate is cached on the game (games are not changed after they
    are made): cost estimates ask for it several times per call. The cache
    is dropped when any attribute of the game is rebound, or its number of
    players, instances or terms changes. The numba backend takes the same
    bound from exact per-term sums, so it uses at most as many nodes.

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
    return estimate_nodes_detail(game, max_terms, work_elements)[0]


def estimate_nodes_detail(game, max_terms=None, work_elements=WORK_ELEMENTS) -> tuple[int, int, bool]:
    """(nodes, terms looked at, whether any absent factor differs from 1) of :func:`estimate_nodes`.

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
    nodes : int
        In 1..ceil(d/2).
    terms : int
        Terms looked at (over all summands of a sum).
    general : bool
        Whether some absent factor differs from 1 (the cost of the general
        product game rather than the functional-baseline one).

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
    (8, 5, False)
    """
    return node_probe(game, max_terms, work_elements)[:3]


def node_probe(game, max_terms=None, work_elements=WORK_ELEMENTS) -> tuple[int, int, bool, bool]:
    """:func:`estimate_nodes_detail`, and whether the probe saw every term of the game.

    When it did, the count holds for every term (see :func:`nodes_for_all`).

    Parameters
    ----------
    game, max_terms, work_elements
        As :func:`estimate_nodes_detail`.

    Returns
    -------
    (nodes, terms, general, complete)
        The first three as :func:`estimate_nodes_detail` gives them; ``complete``: whether
        every term of the game was seen.

    Raises
    ------
    TypeError, ValueError
        As :func:`estimate_nodes_detail`.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> a = np.random.default_rng(0).uniform(0.9, 1.0, size=(5, 40))
    >>> node_probe(kx.ProductGame(a, np.ones_like(a), np.ones(5)))
    (8, 5, False, True)
    """
    if not isinstance(game, ProductGame):
        raise TypeError(f"estimate_nodes needs a ProductGame; got {type(game).__name__}")
    d = game.n_players
    full = max(1, math.ceil(d / 2))
    if work_elements is not WORK_ELEMENTS:
        work_elements = check_positive_int(work_elements, "work_elements")
    max_terms = probe_terms(game, work_elements) if max_terms is None else \
        check_positive_int(max_terms, "max_terms")
    key = (max_terms, work_elements)
    stamp = _game_stamp(game)
    store = _current_store(game, stamp)
    if store is None:
        store = {"names": stamp[0], "values": stamp[1], "estimates": {}}
    if key not in store["estimates"]:
        *found, kept = _probe_nodes(game, d, full, max_terms, work_elements)
        store["estimates"][key] = tuple(found)
        if kept is not None:
            store.setdefault("tasks", {})[kept[0]] = kept[1]
        try:
            setattr(game, _ESTIMATE_ATTRIBUTE, store)
        except AttributeError:  # pragma: no cover - a game that takes no attributes: no cache
            pass
    return store["estimates"][key]


def probe_terms(game, work_elements=WORK_ELEMENTS) -> int:
    """Terms the node-count probe looks at by default: all of a game of one task, else its first.

    All when every term of the game fits in one task of the quadrature
    (:func:`task_terms`): the route would count the nodes of that one task on
    one thread, so the probe costs what the route's own count would, and the
    route takes it (:func:`nodes_for_all`) instead of computing it again. A
    game of several tasks counts them on several threads: the probe looks at
    its first 4096 terms only (fewer at large d, at most 2^19 numbers).
    """
    d = max(1, game.n_players)
    terms = game.n_terms()
    if terms is not None and terms * (game.n_instances or 1) <= task_terms(d, "quadrature", work_elements):
        return max(1, int(terms) * (game.n_instances or 1))
    return max(1, min(PROBE_TERMS, _PROBE_ELEMENTS // d))


def nodes_for_all(game) -> int | None:
    """A node count enough for every term of ``game``, when a probe already saw them all; else None.

    A small game (one explained point, say) fits in the node-count probe of
    the cost estimate (:func:`estimate_nodes_detail`): the probe then counted
    the nodes of every task of the game's terms. A task's count bounds the
    error of each of its terms (its sums are the largest over them), so the
    largest count over the probe's tasks integrates every term of the game to
    full accuracy, whichever task the route puts it in: the route may use it
    for every task instead of counting again (when its tasks are the probe's,
    as for a game of one task, the counts are the same). Nothing is probed
    here; a game whose cached probe stopped short, or changed since, gives
    None.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> a = np.random.default_rng(0).uniform(0.9, 1.0, size=(5, 40))
    >>> g = kx.ProductGame(a, np.ones_like(a), np.ones(5))
    >>> nodes_for_all(g) is None              # not probed yet
    True
    >>> estimate_nodes(g), nodes_for_all(g)   # the probe saw all 5 terms
    (8, 8)
    """
    store = _current_store(game)
    if store is None:
        return None
    complete = [nodes for nodes, _, _, whole in store["estimates"].values() if whole]
    return min(complete) if complete else None


def probed(game, max_elements, work_elements) -> tuple[int | None, list | None]:
    """(:func:`nodes_for_all`, the tasks the probe formed) of ``game``, each None when not known.

    A probe that looked at every term of a game (a game of one task: one
    explained point, say) cut them into the very tasks the quadrature route
    would, with the route's default block size, and kept them: the route
    takes them (``max_elements`` and ``work_elements`` as the probe's) rather
    than asking the game for its terms again -- on a one-point call that
    second pass costs a tenth of the call (#25). The tasks are the same
    objects, so the result is bit for bit the one without a probe.
    """
    store = _current_store(game)
    if store is None:
        return None, None
    complete = [nodes for nodes, _, _, whole in store["estimates"].values() if whole]
    return (min(complete) if complete else None), store.get("tasks", {}).get((max_elements, work_elements))


def _current_store(game, stamp=None):
    """The node estimates cached on ``game``, or None when there are none or the game changed since.

    ``stamp``: :func:`_game_stamp` of the game, when the caller has it.
    """
    store = game.__dict__.get(_ESTIMATE_ATTRIBUTE) if hasattr(game, "__dict__") else None
    if store is None:
        return None
    names, values = _game_stamp(game) if stamp is None else stamp
    if (store["names"] != names or len(store["values"]) != len(values)
            or any(x is not y for x, y in zip(store["values"], values))):
        return None
    return store


def _game_stamp(game):
    """What the node estimate of ``game`` depends on: its sizes and its attributes (by identity).

    Attributes named ``_kx_...`` are caches (this estimate's, a game's computed terms), not inputs.
    """
    own = getattr(game, "__dict__", {})
    keys = tuple(k for k in own if k[:4] != "_kx_")   # in the order set (another order: a miss, not an error)
    return (type(game), game.n_players, game.n_instances, game.n_terms(), keys), tuple(own[k] for k in keys)


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


def _probe_nodes(game, d, full, max_terms, work_elements):
    """(nodes, terms seen, general, whether the count holds for every term, kept tasks or None).

    Kept tasks: ``((max_elements, work_elements), tasks)`` when the probe cut
    the whole game into the route's own tasks (see :func:`probed`).
    """
    if full == 1:
        return 1, 0, True, True, None
    parts = summands(game)
    if len(parts) > 1:  # each part's first terms (its own cache): the largest count, all terms seen
        found = []
        for part in parts:
            estimate_nodes_detail(part, max_terms, work_elements)
            found.append(part.__dict__[_ESTIMATE_ATTRIBUTE]["estimates"][(max_terms, work_elements)])
        return (max(q for q, _, _, _ in found), sum(k for _, k, _, _ in found),
                any(g for _, _, g, _ in found), all(w for _, _, _, w in found), None)
    terms = game.n_terms()
    total = None if terms is None else int(terms) * (game.n_instances or 1)
    # the whole game: probe it in the route's own blocks and tasks, and keep them for the route
    route_elements = working_elements(8) if total is not None and max_terms >= total else None
    kept = None if route_elements is None else []
    nodes, seen, general, whole = 0, 0, False, True
    space = thread_workspace(work_elements)
    tasks = iter_tasks(game, "quadrature", route_elements or 4 * max_terms * d, work_elements)
    try:
        for task in tasks:
            if kept is not None:
                kept.append(task)
            a, c = task[4], task[5]
            take = min(len(a), max_terms - seen)
            whole = whole and take == len(a)
            a, c = a[:take], None if c is None else c[:take]
            general = general or c is not None
            seen += take
            if nodes < full and not alike_everywhere(task[3][:take], a, c):   # alike terms: not integrated
                nodes = max(nodes, _task_nodes(a, c, d, space))
            if nodes >= full and kept is None:  # the most any term needs: the count holds for all
                return nodes, seen, general, True, None
            if seen >= max_terms and kept is None:  # all seen only if there can be no more (not formed)
                whole = whole and total is not None and seen >= total
                break
    finally:
        tasks.close()
    if seen == 0:
        return full, 0, True, True, None
    if kept is not None:  # the generator ran out: every term was seen (instances may share terms)
        kept = ((route_elements, work_elements), kept) if whole else None
    return max(nodes, 1), seen, general, whole, kept


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
