"""Self-checks for the exercise notebooks (``notebooks/exercises/``).

A task asks the student to write a small function -- the Shapley formula, a
marginal contribution along an ordering, the Shapley-kernel weight, the
R^2 of a sub-model, a conditional Gaussian, a kernel mean embedding, a
t-interval, ... -- and to hand the function itself to :func:`check`::

    def shapley(v, d):
        ...

    kx.exercises.check("shapley-exact", shapley)

The check calls the function on *fresh random inputs* (games, data sets,
models; a new draw on every call unless ``seed`` is given) and compares what
it returns with kernelxai's own implementation (``kx.shapley_values``,
``kx.explain_r2``, ``kx.values.Interventional``, ``kx.uncertainty.single_reference``,
...), so a number copied from somewhere cannot pass. Where kernelxai has no
public function for the quantity (the conditional Gaussian, the marginal
contributions along one ordering) the reference is a few lines in this
module, and ``tests/test_exercises.py`` checks those references against
brute force.

A wrong answer is never an exception: :func:`check` prints ``✗`` and a hint
that says *what* is wrong without giving the answer away (e.g. "efficiency
fails: your values sum to 3.2 but v(N) - v(∅) = 4.0"), and returns a falsy
:class:`CheckResult`. A function that still raises ``NotImplementedError``
(nbgrader's stub) is reported as not answered yet; any other exception it
raises is reported with its type, message and line. Only misuse raises: an
unknown task id (:class:`UnknownTaskError`, with the ids that exist) or an
answer that is not a function (``TypeError``).

>>> import kernelxai as kx
>>> r = kx.exercises.check("kernel-weight", lambda d, s: 1.0, quiet=True)
>>> bool(r)
False
"""

from __future__ import annotations

import difflib
import math
import traceback
from dataclasses import dataclass

import numpy as np

__all__ = ["check", "tasks", "describe", "results", "reset", "CheckResult", "UnknownTaskError"]

PASS, FAIL = "\u2713", "\u2717"   # ✓ ✗
_PACKAGE = __file__.rsplit("workbench", 1)[0]  # frames of kernelxai itself


# --------------------------------------------------------------------------- #
# public API
# --------------------------------------------------------------------------- #
class UnknownTaskError(ValueError):
    """:func:`check` was given a task id that is not registered."""


@dataclass
class CheckResult:
    """The outcome of one :func:`check`.

    Truthy exactly when the answer passed, so ``assert kx.exercises.check(...)``
    works as an nbgrader autograder test.

    Attributes
    ----------
    task : str
    passed : bool
    message : str
        The full line printed (``✓ ...`` or ``✗ ...``).
    hint : str or None
        What is wrong, for a failed check.
    """

    task: str
    passed: bool
    message: str
    hint: str | None = None

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return f"CheckResult(task={self.task!r}, passed={self.passed})"


@dataclass
class _Task:
    id: str
    title: str
    signature: str
    run: object            # run(answer, rng) -> success message; raises _Fail
    notebook: str = ""


_TASKS: dict[str, _Task] = {}
_LOG: dict[str, bool] = {}


def tasks(notebook=None):
    """The registered task ids (in registration order), optionally only those of one notebook.

    Parameters
    ----------
    notebook : str, optional
        An exercise notebook's name, e.g. ``"01-games-and-axioms"``.
    """
    return [t.id for t in _TASKS.values() if notebook is None or t.notebook == notebook]


def describe(task_id):
    """One line: the task's title and the function it expects."""
    task = _lookup(task_id)
    return f"{task.id}: {task.title}; expects a function {task.signature}"


def results():
    """``{task id: passed}`` for every task checked in this session (the last check counts)."""
    return dict(_LOG)


def reset():
    """Forget the outcomes recorded by :func:`results`."""
    _LOG.clear()


def check(task_id, answer, *, seed=None, quiet=False):
    """Check a student's answer to exercise ``task_id`` on fresh random inputs.

    Parameters
    ----------
    task_id : str
        The id printed in the notebook, e.g. ``"shapley-exact"`` (see :func:`tasks`).
    answer : callable
        The student's function, passed itself (not called). ``None`` -- an
        answer not written yet -- is reported as a failed check.
    seed : None, int or numpy.random.Generator
        Randomness of the test inputs. ``None`` (default) draws new inputs on
        every call; fix it to reproduce a failure.
    quiet : bool
        Do not print the message (it is in the returned result).

    Returns
    -------
    CheckResult
        Truthy if the answer passed; ``message`` is the ``✓``/``✗`` line.

    Raises
    ------
    UnknownTaskError
        ``task_id`` is not a registered task.
    TypeError
        ``answer`` is neither a function nor None (e.g. a number or the
        result of calling the function).
    """
    task = _lookup(task_id)
    if answer is not None and not callable(answer):
        raise TypeError(
            f"check({task.id!r}, ...) expects a function {task.signature}; got "
            f"{_type_name(answer)}. Pass the function itself, without calling it: "
            f"check({task.id!r}, {task.signature.split('(')[0]})")
    rng = np.random.default_rng(seed)
    hint = None
    if answer is None:
        hint = (f"no answer yet: write the function {task.signature} and pass it "
                f"(the function itself) to check")
    else:
        try:
            done = task.run(answer, rng)
        except _Fail as fail:
            hint = str(fail)
        except _NotAnswered:
            hint = ("not answered yet: your function still raises NotImplementedError -- "
                    "replace `raise NotImplementedError()` by your code")
        except _StudentRaised as err:
            hint = str(err)
    if hint is None:
        result = CheckResult(task.id, True, f"{PASS} {task.id}: {done}")
    else:
        result = CheckResult(task.id, False, f"{FAIL} {task.id}: {hint}", hint)
    _LOG[task.id] = result.passed
    if not quiet:
        print(result.message)
    return result


def _lookup(task_id):
    if not isinstance(task_id, str):
        raise TypeError(f"task_id must be a string such as 'shapley-exact'; got {_type_name(task_id)}")
    if task_id not in _TASKS:
        close = difflib.get_close_matches(task_id, list(_TASKS), n=3)
        raise UnknownTaskError(
            f"no exercise task {task_id!r}"
            + (f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "")
            + f" Tasks: {', '.join(_TASKS)}")
    return _TASKS[task_id]


# --------------------------------------------------------------------------- #
# machinery: calling the student's function, reading what it returns
# --------------------------------------------------------------------------- #
class _Fail(Exception):
    """The answer is wrong; the message is the hint."""


class _NotAnswered(Exception):
    """The student's function raised NotImplementedError (nbgrader's stub)."""


class _StudentRaised(Exception):
    """The student's function raised; the message says what, where and on which input."""


def _type_name(x):
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape}"
    return f"{type(x).__name__} {x!r}" if isinstance(x, (int, float, str, bool)) else type(x).__name__


def _call(fn, args, context):
    """``fn(*args)``; NotImplementedError -> _NotAnswered, other errors -> _StudentRaised."""
    try:
        return fn(*args)
    except NotImplementedError:
        raise _NotAnswered() from None
    except Exception as exc:  # the student's bug is reported, never raised
        frames = traceback.extract_tb(exc.__traceback__)[1:]   # [0] is this function
        own = [f for f in frames if "site-packages" not in f.filename and _PACKAGE not in f.filename]
        frame = (own or frames or [None])[-1]
        where = f" (line {frame.lineno}: `{(frame.line or '').strip()}`)" if frame is not None else ""
        raise _StudentRaised(
            f"your function raised {type(exc).__name__}: {exc}{where}, called on {context}") from None


def _array(out, shape, what, context, finite=True):
    """``out`` as a float array of ``shape``; a wrong shape or type, NaN or inf is a _Fail."""
    if out is None:
        raise _Fail(f"your function returned None on {context}: did you forget `return`?")
    try:
        arr = np.asarray(out, dtype=float)
    except (TypeError, ValueError):
        raise _Fail(f"your function returned {_type_name(out)} on {context}; expected {what}") from None
    if arr.shape != tuple(shape):
        if arr.size == int(np.prod(shape)) and arr.size:
            arr = arr.reshape(shape)   # (d, 1) or a list for (d,): accept the numbers
        else:
            raise _Fail(f"your function returned shape {arr.shape} on {context}; expected {what} "
                        f"of shape {tuple(shape)}")
    bad = np.isnan(arr) if not finite else ~np.isfinite(arr)
    if np.any(bad):
        raise _Fail(f"your function returned {'NaN' if not finite else 'NaN or inf'} on {context}")
    return arr


def _scalar(out, what, context, finite=True):
    return float(_array(out, (), what, context, finite))


def _close(a, b, scale=1.0, rtol=1e-7):
    return np.allclose(a, b, rtol=0.0, atol=rtol * max(1.0, float(scale)))


def _fmt(x):
    return f"{x:.4g}"


def _register(task_id, title, signature, notebook):
    def decorator(run):
        _TASKS[task_id] = _Task(task_id, title, signature, run, notebook)
        return run
    return decorator


# --------------------------------------------------------------------------- #
# games given to students: v(S) for S a collection of player indices
# --------------------------------------------------------------------------- #
def _random_table(rng, d, scale=10.0):
    """Worths of a random game over d players, indexed by bitmask (v(empty) not always 0)."""
    table = np.round(rng.normal(scale=scale, size=2**d), 3)
    table[0] = np.round(rng.normal(scale=scale / 3), 3) if rng.random() < 0.5 else 0.0
    return table


def _set_function(table, d):
    """v(S) for S any collection of player indices (tuple, list, set, range, index array) or a bool mask."""

    def v(S=()):
        if isinstance(S, np.ndarray) and S.dtype == bool:
            if S.shape != (d,):
                raise ValueError(f"a boolean coalition must have length {d}; got shape {S.shape}")
            members = np.flatnonzero(S)
        else:
            try:
                members = [int(i) for i in S]
            except TypeError:
                raise TypeError("v(S) takes a collection of player indices, e.g. v((0, 2)) or "
                                f"v([]) for the empty coalition; got {_type_name(S)}") from None
        mask = 0
        for i in members:
            if not 0 <= i < d:
                raise ValueError(f"player index {i} out of range: players are 0..{d - 1}")
            mask |= 1 << i
        return float(table[mask])

    return v


def _game_of(table):
    from ..games.core import TabularGame

    return TabularGame(table)


def _exact(table):
    from ..explainers.shapley import shapley_values

    return np.asarray(shapley_values(_game_of(table), method="exact").values, dtype=float).ravel()


def _popcount(masks):
    masks = np.asarray(masks, dtype=np.int64)
    return np.array([bin(int(m)).count("1") for m in masks])


def _variant_values(table, d, kind):
    """Values of common wrong formulas: 'banzhaf' (equal weights), 'skip_empty' (S = ∅ left out)."""
    masks = np.arange(2**d)
    sizes = _popcount(masks)
    out = np.zeros(d)
    for j in range(d):
        without = masks[(masks >> j) & 1 == 0]
        gains = table[without | (1 << j)] - table[without]
        s = sizes[without]
        if kind == "banzhaf":
            w = np.full(len(s), 1.0 / 2 ** (d - 1))
        else:
            w = np.array([math.factorial(k) * math.factorial(d - k - 1) / math.factorial(d) for k in s])
            if kind == "skip_empty":
                w = np.where(s == 0, 0.0, w)
        out[j] = (w * gains).sum()
    return out


# =========================================================================== #
# 01 games and axioms
# =========================================================================== #
_NB1 = "01-games-and-axioms"


@_register("shapley-exact", "the Shapley value of any game by enumerating coalitions",
           "shapley(v, d) -> array (d,)", _NB1)
def _check_shapley_exact(fn, rng):
    cases = []
    # a game with a null player and a symmetric pair first: the axioms give the sharpest hints
    d = 4
    base = rng.normal(size=2**d)
    table = np.zeros(2**d)
    for m in range(2**d):
        key = m & ~(1 << 3)                           # player 3 is null
        a, b = (key >> 1) & 1, (key >> 2) & 1          # players 1 and 2 are symmetric
        table[m] = base[(key & 1) | ((a | b) << 1) | ((a & b) << 2)]
    table -= table[0]
    table = np.round(10 * table, 3)
    cases.append(("a game with 4 players in which player 3 is a null player and players 1 and 2 "
                  "are symmetric", d, table, {"null": 3, "pair": (1, 2)}))
    for d in rng.permutation([2, 3, 5])[:3]:
        d = int(d)
        cases.append((f"a random game with {d} players", d, _random_table(rng, d), {}))
    for context, d, table, axioms in cases:
        v = _set_function(table, d)
        phi = _array(_call(fn, (v, d), context), (d,), "one value per player", context)
        truth = _exact(table)
        total = table[-1] - table[0]
        scale = np.abs(table).max()
        if _close(phi, truth, scale):
            continue
        if _close(phi, _variant_values(table, d, "banzhaf"), scale):
            raise _Fail("your values weight every coalition equally (that is the Banzhaf value); the "
                        "Shapley value weights a coalition S by |S|! (d - |S| - 1)! / d!")
        if _close(phi, _variant_values(table, d, "skip_empty"), scale):
            raise _Fail("check the empty coalition: S = ∅ is one of the coalitions a player can join, "
                        "with weight 0! (d-1)! / d! = 1/d")
        if not _close(phi.sum(), total, scale):
            raise _Fail(f"efficiency fails: your values sum to {_fmt(phi.sum())} but "
                        f"v(N) - v(∅) = {_fmt(total)} on {context}")
        if "null" in axioms and abs(phi[axioms['null']]) > 1e-7 * scale:
            raise _Fail(f"null player fails: player {axioms['null']} adds nothing to any coalition of "
                        f"{context}, yet gets {_fmt(phi[axioms['null']])}")
        if "pair" in axioms and abs(phi[axioms['pair'][0]] - phi[axioms['pair'][1]]) > 1e-7 * scale:
            i, j = axioms["pair"]
            raise _Fail(f"symmetry fails: players {i} and {j} are interchangeable in {context}, yet get "
                        f"{_fmt(phi[i])} and {_fmt(phi[j])}")
        raise _Fail(f"your values add up (efficiency holds) but are not the Shapley values of {context}: "
                    "check the weight |S|! (d - |S| - 1)! / d! and that the sum runs over the "
                    "coalitions S without player j")
    return "equal to kx.shapley_values on 4 games (2 to 5 players), the axioms hold"


def _max_game_values(alone):
    from ..games.core import FunctionGame
    from ..explainers.shapley import shapley_values

    alone = np.asarray(alone, dtype=float)
    game = FunctionGame(lambda z: np.where(z.any(axis=1), (z * alone).max(axis=1), 0.0), len(alone))
    return np.asarray(shapley_values(game, method="exact").values, dtype=float).ravel()


@_register("taxi-shares", "who pays what when a group pays the fare of its farthest member",
           "taxi_shares(alone) -> array (len(alone),)", _NB1)
def _check_taxi_shares(fn, rng):
    cases = [np.array([6.0, 12.0, 42.0])]
    for d in (2, 4, 6):
        fares = rng.integers(1, 40, size=d).astype(float)
        if d >= 4:
            fares[rng.integers(d)] = fares[rng.integers(d)]      # a tie: symmetry matters
        cases.append(fares)
    for fares in cases:
        context = f"fares alone {fares.tolist()}"
        got = _array(_call(fn, (fares.copy(),), context), fares.shape, "one share per passenger", context)
        truth = _max_game_values(fares)
        if _close(got, truth, fares.max()):
            continue
        if not _close(got.sum(), fares.max(), fares.max()):
            raise _Fail(f"efficiency fails: the shares must add up to the fare of the whole group, "
                        f"{_fmt(fares.max())}; yours add up to {_fmt(got.sum())} ({context})")
        ties = [(i, j) for i in range(len(fares)) for j in range(i + 1, len(fares)) if fares[i] == fares[j]]
        for i, j in ties:
            if not _close(got[i], got[j], fares.max()):
                raise _Fail(f"symmetry fails: passengers {i} and {j} have the same fare alone but pay "
                            f"{_fmt(got[i])} and {_fmt(got[j])} ({context})")
        raise _Fail(f"the shares add up but are not the Shapley values ({context}): who shares "
                    "the cheapest leg of the trip, and who shares the next one?")
    return "right for the lecture's taxi (Amy 2, Bob 5, Claire 35) and for 3 random groups"


@_register("null-and-symmetric", "a game with a null player and two interchangeable players",
           "make_game(d, pair, null) -> kx.Game", _NB1)
def _check_null_and_symmetric(fn, rng):
    from ..games.core import Game, all_coalitions, tabulate
    from ..explainers.shapley import shapley_values

    for d in (3, int(rng.integers(4, 7))):
        players = rng.permutation(d)
        pair, null = (int(players[0]), int(players[1])), int(players[2])
        context = f"make_game(d={d}, pair={pair}, null={null})"
        game = _call(fn, (d, pair, null), context)
        if not isinstance(game, Game):
            raise _Fail(f"{context} returned {_type_name(game)}; expected a kernelxai game "
                        "(kx.TabularGame or kx.FunctionGame)")
        if game.n_players != d or game.n_instances is not None:
            raise _Fail(f"{context} returned a game with {game.n_players} players"
                        f"{'' if game.n_instances is None else ' and several instances'}; expected "
                        f"{d} players and one worth per coalition")
        try:
            table = np.asarray(tabulate(game), dtype=float)
        except NotImplementedError:
            raise _NotAnswered() from None
        except Exception as exc:
            raise _StudentRaised(f"evaluating your game raised {type(exc).__name__}: {exc} ({context})") from None
        z = all_coalitions(d)
        scale = max(1.0, np.abs(table).max())
        for m in range(2**d):
            if (m >> null) & 1 == 0 and abs(table[m | (1 << null)] - table[m]) > 1e-9 * scale:
                S = np.flatnonzero(z[m]).tolist()
                raise _Fail(f"player {null} is not a null player: v({S}) = {_fmt(table[m])} but "
                            f"v({sorted(S + [null])}) = {_fmt(table[m | (1 << null)])} ({context})")
        a, b = pair
        for m in range(2**d):
            if (m >> a) & 1 == 0 and (m >> b) & 1 == 0:
                va, vb = table[m | (1 << a)], table[m | (1 << b)]
                if abs(va - vb) > 1e-9 * scale:
                    S = np.flatnonzero(z[m]).tolist()
                    raise _Fail(f"players {a} and {b} are not interchangeable: v({sorted(S + [a])}) = "
                                f"{_fmt(va)} but v({sorted(S + [b])}) = {_fmt(vb)} ({context})")
        if abs(table[-1] - table[0] - 1.0) > 1e-9:
            raise _Fail(f"v(N) - v(∅) = {_fmt(table[-1] - table[0])}; the task asks for 1 ({context})")
        phi = np.asarray(shapley_values(game, method="exact").values, dtype=float).ravel()
        if abs(phi[null]) > 1e-9 * scale or abs(phi[a] - phi[b]) > 1e-9 * scale:  # pragma: no cover
            raise RuntimeError("kx.shapley_values violates the null-player or symmetry axiom: a bug")
    return ("the null player gets 0 and the pair equal shares (kx.shapley_values), "
            "for 2 random choices of d, pair and null player")


# =========================================================================== #
# 02 exact and permutation estimation
# =========================================================================== #
_NB2 = "02-exact-and-permutation"


def _ordering_reference(table, order):
    out = np.empty(len(order))
    mask = 0
    for player in order:
        out[player] = table[mask | (1 << int(player))] - table[mask]
        mask |= 1 << int(player)
    return out


@_register("ordering-contributions", "each player's marginal contribution along one ordering",
           "contributions(v, order) -> array (d,)", _NB2)
def _check_ordering_contributions(fn, rng):
    for d in (3, 5, 6):
        table = _random_table(rng, d)
        order = rng.permutation(d)
        context = f"a random game with {d} players and order={order.tolist()}"
        got = _array(_call(fn, (_set_function(table, d), order.copy()), context), (d,),
                     "one contribution per player", context)
        truth = _ordering_reference(table, order)
        scale = np.abs(table).max()
        if _close(got, truth, scale):
            continue
        total = table[-1] - table[0]
        if not _close(got.sum(), total, scale):
            raise _Fail(f"the contributions along an ordering add up to v(N) - v(∅) = {_fmt(total)}; "
                        f"yours add up to {_fmt(got.sum())} ({context})")
        if _close(got, truth[order], scale):
            raise _Fail("entry j must be the contribution of player j, not of the j-th player to "
                        f"join ({context})")
        raise _Fail(f"not the marginal contributions v(P ∪ {{j}}) - v(P), P = the players before j "
                    f"in the ordering ({context})")
    return "right on 3 random games and orderings"


def _ordering_moments(table, d):
    """Mean and standard deviation (over all d! orderings) of each player's contribution."""
    import itertools

    samples = np.array([_ordering_reference(table, order) for order in itertools.permutations(range(d))])
    return samples.mean(axis=0), samples.std(axis=0)


@_register("permutation-estimate", "the Shapley value estimated from random orderings",
           "permutation_shapley(v, d, n_orderings, rng) -> array (d,)", _NB2)
def _check_permutation_estimate(fn, rng):
    # an additive game: every ordering gives the exact values
    d = 5
    weights = np.round(rng.normal(size=d) * 5, 2)
    masks = np.arange(2**d)
    table = ((masks[:, None] >> np.arange(d)) & 1) @ weights + 1.5
    context = f"an additive game with {d} players and 3 orderings"
    got = _array(_call(fn, (_set_function(table, d), d, 3, np.random.default_rng(rng.integers(2**32))),
                       context), (d,), "one estimate per player", context)
    if not _close(got, weights, np.abs(table).max()):
        if _close(got, 3 * weights, np.abs(table).max()):
            raise _Fail(f"on {context} your estimate is 3 times the truth: average over the "
                        "orderings, do not add them up")
        raise _Fail(f"on {context} every ordering gives each player its own weight, so any number of "
                    "orderings must return the exact values; yours differ -- check the marginal "
                    "contributions along one ordering")
    # a random game: unbiased, within sampling error, efficient, and it uses rng
    d, n = 4, 3000
    table = _random_table(rng, d)
    mean, sd = _ordering_moments(table, d)
    context = f"a random game with {d} players and {n} orderings"
    v = _set_function(table, d)
    got = _array(_call(fn, (v, d, n, np.random.default_rng(rng.integers(2**32))), context), (d,),
                 "one estimate per player", context)
    scale = np.abs(table).max()
    total = table[-1] - table[0]
    if not _close(got.sum(), total, scale, rtol=1e-6):
        raise _Fail(f"every ordering's contributions add up to v(N) - v(∅) = {_fmt(total)}, so their "
                    f"mean must too; yours adds up to {_fmt(got.sum())} ({context})")
    z = np.abs(got - mean) / np.maximum(sd / np.sqrt(n), 1e-12 * scale)
    if z.max() > 6:
        raise _Fail(f"on {context} your estimate is {z.max():.0f} standard errors away from the "
                    "Shapley value: draw each ordering uniformly (rng.permutation(d)) and average "
                    "the marginal contributions")
    again = _array(_call(fn, (v, d, n, np.random.default_rng(rng.integers(2**32))), context), (d,),
                   "one estimate per player", context)
    if np.array_equal(again, got) and sd.max() > 0:
        raise _Fail("two calls with different rng gave identical estimates: draw the orderings "
                    "with the rng you are given (e.g. rng.permutation(d))")
    return "exact on an additive game, unbiased and efficient on a random one (against all d! orderings)"


# =========================================================================== #
# 03 KernelSHAP as weighted least squares
# =========================================================================== #
_NB3 = "03-kernelshap-wls"


@_register("kernel-weight", "the Shapley-kernel weight k(d, s) of a coalition of size s",
           "kernel_weight(d, s) -> float", _NB3)
def _check_kernel_weight(fn, rng):
    from ..games.core import shapley_kernel_weights

    ds = [int(rng.integers(5, 9)), int(rng.integers(9, 16)), 3]
    for d in ds:
        truth = shapley_kernel_weights(d, np.arange(d + 1))
        got = np.empty(d + 1)
        for s in range(d + 1):
            context = f"kernel_weight(d={d}, s={s})"
            got[s] = _scalar(_call(fn, (d, s), context), "a number", context, finite=False)
        inner = slice(1, d)
        for s in (0, d):
            if np.isfinite(got[s]):
                raise _Fail(f"check the weight of the {'empty' if s == 0 else 'full'} coalition (s = {s}): "
                            "it is not a finite number -- the empty and full coalitions are "
                            "constraints of the regression (return math.inf)")
        if np.allclose(got[inner], truth[inner], rtol=1e-9, atol=0):
            continue
        ratio = got[inner] / truth[inner]
        if np.allclose(ratio, ratio[0], rtol=1e-9) and ratio[0] > 0:
            raise _Fail(f"for d = {d} your weights are proportional to the Shapley kernel but off by "
                        f"the factor {_fmt(ratio[0])}; the lecture's k(M, S) = (M - 1) / (C(M, |S|) |S| (M - |S|))")
        if not np.allclose(got[inner], got[inner][::-1], rtol=1e-9):
            raise _Fail(f"for d = {d} your weights are not symmetric: a coalition and its complement "
                        "must get the same weight, k(d, s) = k(d, d - s)")
        raise _Fail(f"for d = {d} the weights differ from the Shapley kernel: is the binomial "
                    "coefficient C(d, s) in the denominator?")
    return f"equal to kx.games.shapley_kernel_weights for d = {', '.join(map(str, ds))}"


@_register("size-distribution", "the probability of each coalition size when sampling from the Shapley kernel",
           "size_probabilities(d) -> array (d - 1,)", _NB3)
def _check_size_distribution(fn, rng):
    from ..games.core import coalition_size_distribution, shapley_kernel_weights

    for d in (2, int(rng.integers(3, 8)), int(rng.integers(8, 20))):
        context = f"size_probabilities({d})"
        got = _array(_call(fn, (d,), context), (d - 1,), "probabilities of sizes 1..d-1", context)
        truth = coalition_size_distribution(d)[1]
        if np.allclose(got, truth, rtol=1e-9, atol=1e-15):
            continue
        if not np.isclose(got.sum(), 1.0, rtol=1e-9):
            raise _Fail(f"{context} sums to {_fmt(got.sum())}: probabilities must add up to 1")
        per = shapley_kernel_weights(d, np.arange(1, d))
        if np.allclose(got, per / per.sum(), rtol=1e-9):
            raise _Fail(f"{context}: you normalised the weight of *one* coalition; a size s holds "
                        "C(d, s) coalitions, each with weight k(d, s)")
        raise _Fail(f"{context} is not proportional to the total Shapley-kernel weight of each size")
    return "equal to kx.games.coalition_size_distribution for 3 values of d"


def _constrained_wls(Z, v, w):
    """Shapley-kernel WLS with the rows of infinite weight (empty, full) as exact constraints."""
    Z = np.asarray(Z, dtype=bool)
    empty, full = ~Z.any(axis=1), Z.all(axis=1)
    v0, v1 = v[empty][0], v[full][0]
    inner = ~(empty | full)
    zf = Z[inner].astype(float)
    y = v[inner] - v0
    design = zf[:, :-1] - zf[:, -1:]
    target = y - zf[:, -1] * (v1 - v0)
    sw = np.sqrt(w[inner] / w[inner].max())
    coef = np.linalg.lstsq(sw[:, None] * design, sw * target, rcond=None)[0]
    return np.append(coef, (v1 - v0) - coef.sum())


@_register("constrained-wls", "KernelSHAP: Shapley values as a weighted least-squares fit with two constraints",
           "kernel_shap(Z, v, w) -> array (d,)", _NB3)
def _check_constrained_wls(fn, rng):
    from ..games.core import all_coalitions, sample_coalitions, shapley_kernel_weights

    cases = []
    for d in (3, int(rng.integers(4, 7))):
        table = _random_table(rng, d)
        Z = all_coalitions(d)
        order = rng.permutation(len(Z))                      # rows in any order
        cases.append((f"all {2**d} coalitions of a random game with {d} players", Z[order],
                      table[order], shapley_kernel_weights(d, Z[order].sum(axis=1)), _exact(table)))
    d = 8
    table = _random_table(rng, d)
    inner = sample_coalitions(d, 60, rng, paired=True)
    Z = np.vstack([np.zeros(d, bool), inner, np.ones(d, bool)])
    masks = Z.astype(np.int64) @ (1 << np.arange(d))
    w = np.where(Z.any(axis=1) & ~Z.all(axis=1), 1.0, np.inf)
    cases.append((f"60 coalitions sampled from the Shapley kernel (weight 1 each) plus ∅ and N, "
                  f"{d} players", Z, table[masks], w, _constrained_wls(Z, table[masks], w)))
    for context, Z, v, w, truth in cases:
        d = Z.shape[1]
        got = _array(_call(fn, (Z.copy(), v.copy(), w.copy()), context), (d,), "one value per player",
                     context)
        scale = np.abs(v).max()
        err = np.abs(got - truth).max()
        if err <= 1e-7 * max(1.0, scale):
            continue
        v0, v1 = v[~Z.any(axis=1)][0], v[Z.all(axis=1)][0]
        if err < 1e-2 * max(1.0, scale):
            raise _Fail(f"close (max error {err:.1e}) but not exact ({context}): a large finite weight "
                        "only approximates the constraints -- eliminate one unknown instead")
        if not _close(got.sum(), v1 - v0, scale, rtol=1e-6):
            raise _Fail(f"efficiency fails: your values sum to {_fmt(got.sum())} but v(N) - v(∅) = "
                        f"{_fmt(v1 - v0)} ({context}); impose it as a constraint")
        raise _Fail(f"not the weighted least-squares solution ({context}): fit v(S) - v(∅) on the "
                    "players in S with the weights w, subject to sum(phi) = v(N) - v(∅)")
    return "exact with all coalitions (= kx.shapley_values) and right on a sampled design"


# =========================================================================== #
# 04 Shapley regression and group Shapley
# =========================================================================== #
_NB4 = "04-regression-and-groups"


def _regression_data(rng, n, d):
    A = rng.normal(size=(d, d)) / np.sqrt(d)
    X = rng.normal(size=(n, d)) @ (np.eye(d) + A) + rng.normal(size=d) * 3
    y = X @ rng.normal(size=d) + 0.5 * X[:, 0] ** 2 + rng.normal(size=n) + 5.0
    return X, y


def _r2_table(X, y):
    from ..games.core import all_coalitions
    from ..explainers.regression import R2Game

    d = X.shape[1]
    return R2Game(X, y)(all_coalitions(d))


@_register("r-squared", "the R² of the least-squares fit on a subset of the covariates",
           "r_squared(X, y, S) -> float", _NB4)
def _check_r_squared(fn, rng):
    for n, d in ((40, 3), (int(rng.integers(30, 90)), 4)):
        X, y = _regression_data(rng, n, d)
        table = _r2_table(X, y)
        for mask in [0, 2**d - 1] + [int(m) for m in rng.choice(np.arange(1, 2**d - 1), 3, replace=False)]:
            S = [j for j in range(d) if (mask >> j) & 1]
            context = f"random data (n={n}, d={d}) and S={S}"
            got = _scalar(_call(fn, (X.copy(), y.copy(), list(S)), context), "a number", context)
            if abs(got - table[mask]) <= 1e-8:
                continue
            if not S:
                raise _Fail(f"with no covariates the fit is the mean of y, so R² = 0; you returned "
                            f"{_fmt(got)}")
            Xs = X[:, S]
            beta = np.linalg.lstsq(Xs, y, rcond=None)[0]
            no_intercept = 1 - ((y - Xs @ beta) ** 2).sum() / ((y - y.mean()) ** 2).sum()
            if abs(got - no_intercept) <= 1e-8:
                raise _Fail(f"your fit has no intercept ({context}): add a column of ones (or centre "
                            "X and y)")
            raise _Fail(f"R² = 1 - RSS/TSS of the least-squares fit of y on the columns S and an "
                        f"intercept; yours differs ({context})")
    return "equal to kernelxai's R² game (kx.regression.R2Game) on 2 random data sets"


@_register("shapley-regression", "R² split over the covariates by the Shapley value",
           "r2_shapley(X, y) -> array (d,)", _NB4)
def _check_shapley_regression(fn, rng):
    from ..explainers.regression import explain_r2

    for n, d in ((50, 3), (int(rng.integers(40, 100)), int(rng.integers(4, 7)))):
        X, y = _regression_data(rng, n, d)
        context = f"random data (n={n}, d={d})"
        got = _array(_call(fn, (X.copy(), y.copy()), context), (d,), "one share per covariate", context)
        truth = np.asarray(explain_r2(X, y).values, dtype=float).ravel()
        if np.allclose(got, truth, atol=1e-8, rtol=0):
            continue
        full = truth.sum()
        if abs(got.sum() - full) > 1e-8:
            raise _Fail(f"the shares must add up to the R² of the full model, {_fmt(full)}; yours add up "
                        f"to {_fmt(got.sum())} ({context})")
        raise _Fail(f"the shares add up but are not the Shapley values of v(S) = R²_S ({context})")
    return "equal to kx.explain_r2 on 2 random data sets"


@_register("group-shapley", "Shapley values with groups of players as the players",
           "group_shapley(v, d, groups) -> array (len(groups),)", _NB4)
def _check_group_shapley(fn, rng):
    from ..games.core import TabularGame
    from ..explainers.shapley import shapley_values

    for d in (4, int(rng.integers(5, 8))):
        table = _random_table(rng, d)
        perm = rng.permutation(d)
        cuts = np.sort(rng.choice(np.arange(1, d), size=2, replace=False))
        groups = [sorted(g.tolist()) for g in np.split(perm, cuts)]
        context = f"a random game with {d} players and groups={groups}"
        got = _array(_call(fn, (_set_function(table, d), d, [list(g) for g in groups]), context),
                     (len(groups),), "one value per group", context)
        truth = np.asarray(shapley_values(TabularGame(table).grouped(groups)).values, dtype=float).ravel()
        scale = np.abs(table).max()
        if _close(got, truth, scale):
            continue
        total = table[-1] - table[0]
        if not _close(got.sum(), total, scale):
            raise _Fail(f"efficiency fails: your group values sum to {_fmt(got.sum())} but v(N) - v(∅) = "
                        f"{_fmt(total)} ({context})")
        summed = np.array([_exact(table)[g].sum() for g in groups])
        if _close(got, summed, scale):
            raise _Fail("you summed the feature-level Shapley values within each group; group Shapley "
                        "treats each group as one player (the two agree only for special games)")
        raise _Fail(f"not the Shapley values of the game whose players are the groups ({context}): "
                    "a coalition of groups switches on every feature of its groups")
    return "equal to kx.shapley_values on the grouped game (GroupedGame), 2 random partitions"


# =========================================================================== #
# 05 dependent features and conditional estimators
# =========================================================================== #
_NB5 = "05-dependent-features"


def _random_gaussian(rng, d):
    A = rng.normal(size=(d, d))
    Sigma = A @ A.T / d + 0.2 * np.eye(d)
    return rng.normal(size=d), Sigma


def _conditional(mu, Sigma, S, x):
    d = len(mu)
    S = sorted(S)
    T = [j for j in range(d) if j not in S]
    if not T:
        return np.zeros(0), np.zeros((0, 0))
    if not S:
        return mu[T].copy(), Sigma[np.ix_(T, T)].copy()
    coef = np.linalg.solve(Sigma[np.ix_(S, S)], Sigma[np.ix_(S, T)])
    mean = mu[T] + (x[S] - mu[S]) @ coef
    cov = Sigma[np.ix_(T, T)] - Sigma[np.ix_(T, S)] @ coef
    return mean, cov


@_register("conditional-gaussian", "the distribution of the absent features given the present ones",
           "conditional_gaussian(mu, Sigma, S, x) -> (mean, cov)", _NB5)
def _check_conditional_gaussian(fn, rng):
    for d in (3, int(rng.integers(4, 7))):
        mu, Sigma = _random_gaussian(rng, d)
        x = rng.normal(size=d) * 2
        sizes = [0, 1, d - 1]
        for k in sizes:
            S = sorted(rng.choice(d, size=k, replace=False).tolist())
            T = [j for j in range(d) if j not in S]
            context = f"a random Gaussian with d={d}, S={S}"
            out = _call(fn, (mu.copy(), Sigma.copy(), list(S), x.copy()), context)
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise _Fail(f"return a pair (mean, cov); got {_type_name(out)} ({context})")
            mean = _array(out[0], (len(T),), "the conditional mean of the absent features", context)
            cov = _array(out[1], (len(T), len(T)), "the conditional covariance", context)
            m_true, c_true = _conditional(mu, Sigma, S, x)
            ok_m = np.allclose(mean, m_true, atol=1e-8 * (1 + np.abs(m_true).max()))
            ok_c = np.allclose(cov, c_true, atol=1e-8 * (1 + np.abs(c_true).max()))
            if ok_m and ok_c:
                continue
            if not S and not ok_m:
                raise _Fail("with nothing observed (S = ∅) the conditional mean is the mean itself")
            if ok_m:
                raise _Fail(f"the mean is right but the covariance is not ({context}): "
                            "Sigma_TT - Sigma_TS Sigma_SS^-1 Sigma_ST, which does not depend on x")
            if np.allclose(mean, mu[T]):
                raise _Fail(f"your mean ignores the observed features ({context}): "
                            "mu_T + Sigma_TS Sigma_SS^-1 (x_S - mu_S)")
            raise _Fail(f"the conditional mean is wrong ({context}); the absent features T are "
                        "the complement of S in increasing order")
    return "mean and covariance right for 6 coalitions of 2 random Gaussians"


def _linear_conditional_table(beta, mu, Sigma, x):
    d = len(beta)
    table = np.empty(2**d)
    for m in range(2**d):
        S = [j for j in range(d) if (m >> j) & 1]
        T = [j for j in range(d) if not (m >> j) & 1]
        mean, _ = _conditional(mu, Sigma, S, x)
        table[m] = beta[S] @ x[S] + beta[T] @ mean
    return table


@_register("linear-conditional-shapley", "exact conditional Shapley values of a linear model of Gaussian features",
           "linear_conditional_shapley(beta, mu, Sigma, x) -> array (d,)", _NB5)
def _check_linear_conditional(fn, rng):
    for d in (3, int(rng.integers(4, 7))):
        mu, Sigma = _random_gaussian(rng, d)
        beta = rng.normal(size=d) * 2
        x = mu + rng.normal(size=d) * 1.5
        context = f"a random linear model and Gaussian with d={d}"
        got = _array(_call(fn, (beta.copy(), mu.copy(), Sigma.copy(), x.copy()), context), (d,),
                     "one value per feature", context)
        table = _linear_conditional_table(beta, mu, Sigma, x)
        truth = _exact(table)
        scale = np.abs(table).max()
        if _close(got, truth, scale, rtol=1e-7):
            continue
        total = beta @ (x - mu)
        if not _close(got.sum(), total, scale, rtol=1e-7):
            raise _Fail(f"efficiency fails: the values must add up to f(x) - E f(X) = {_fmt(total)}; "
                        f"yours add up to {_fmt(got.sum())} ({context})")
        if _close(got, beta * (x - mu), scale, rtol=1e-7):
            raise _Fail("these are the interventional values beta_j (x_j - mu_j); the conditional "
                        "game fills the absent features with E[X_T | X_S = x_S], which moves with "
                        "the observed ones")
        raise _Fail(f"not the Shapley values of v(S) = beta . E[X | X_S = x_S] ({context})")
    return "equal to the exact conditional values (kx.shapley_values of the conditional game)"


# =========================================================================== #
# 06 Shapley values of kernel models via mean embeddings
# =========================================================================== #
_NB6 = "06-mean-embeddings"


def _random_kernel_model(rng, n, d):
    from ..kernels.core import RBF
    from ..models.core import KernelExpansion

    X = rng.normal(size=(n, d))
    lengthscale = rng.uniform(0.7, 2.0, size=d)
    return KernelExpansion(X, rng.normal(size=n), RBF(lengthscale), intercept=float(rng.normal())), lengthscale


@_register("mean-embedding", "the kernel mean embedding of the absent features, at every training point",
           "absent_embedding(background, X_train, lengthscale, S) -> array (n,)", _NB6)
def _check_mean_embedding(fn, rng):
    from ..kernels.core import RBF

    for d in (3, int(rng.integers(4, 7))):
        n, m = int(rng.integers(5, 20)), int(rng.integers(4, 15))
        X = rng.normal(size=(n, d))
        B = rng.normal(size=(m, d))
        ls = rng.uniform(0.5, 2.0, size=d)
        for k in (1, d - 1, 0, d):
            S = sorted(rng.choice(d, size=k, replace=False).tolist())
            absent = np.ones(d, dtype=bool)
            absent[S] = False
            context = f"random background (m={m}), training points (n={n}), d={d}, S={S}"
            got = _array(_call(fn, (B.copy(), X.copy(), ls.copy(), list(S)), context), (n,),
                         "one number per training point", context)
            truth = RBF(ls).gram(B, X, subset=absent).mean(axis=0)
            if np.allclose(got, truth, atol=1e-10):
                continue
            if k == d:
                raise _Fail("with every feature present nothing is absent: the empty product is 1, "
                            "so the embedding is 1 at every training point")
            present = RBF(ls).gram(B, X, subset=~absent).mean(axis=0)
            if 0 < k < d and np.allclose(got, present, atol=1e-10):
                raise _Fail(f"you used the present features S; the embedding is over the absent ones, "
                            f"the complement of S ({context})")
            if np.allclose(got, RBF(ls).gram(B, X, subset=absent).sum(axis=0), atol=1e-10):
                raise _Fail(f"average over the background points, do not add them up ({context})")
            raise _Fail(f"not (1/m) sum_b prod_(j not in S) exp(-(b_j - x_ij)^2 / (2 l_j^2)) ({context})")
    return "equal to kernelxai's RBF Gram matrices, averaged over the background, for 8 coalitions"


@_register("interventional-value", "the interventional value of a coalition from mean embeddings (RKHS-SHAP)",
           "interventional_value(model, background, x, S) -> float", _NB6)
def _check_interventional_value(fn, rng):
    from ..values import Interventional

    for d in (3, int(rng.integers(4, 6))):
        model, _ = _random_kernel_model(rng, int(rng.integers(8, 25)), d)
        B = rng.normal(size=(int(rng.integers(5, 15)), d))
        x = rng.normal(size=d)
        game = Interventional(model, B).game(x[None, :])
        for k in (1, d - 1, 0, d):
            S = sorted(rng.choice(d, size=k, replace=False).tolist())
            mask = np.zeros(d, dtype=bool)
            mask[S] = True
            context = f"a random RBF kernel model (d={d}), background of {len(B)} points, S={S}"
            got = _scalar(_call(fn, (model, B.copy(), x.copy(), list(S)), context), "a number", context)
            truth = float(np.asarray(game(mask[None, :])).ravel()[0])
            if abs(got - truth) <= 1e-9 * max(1.0, abs(truth)):
                continue
            if abs(got + model.intercept - truth) <= 1e-9 * max(1.0, abs(truth)):
                raise _Fail(f"you left out the model's intercept b = model.intercept ({context})")
            if k == 0:
                raise _Fail("for S = ∅ the value is the mean prediction over the background")
            if k == d:
                raise _Fail("for S = all features the value is the prediction f(x)")
            raise _Fail(f"not sum_i alpha_i K_S(x, x_i) mu_(not S)(x_i) + b ({context})")
    return "equal to kx.values.Interventional on 2 random kernel models, 8 coalitions"


@_register("marginal-value", "the same value by averaging model calls over the background",
           "marginal_value(predict, background, x, S) -> float", _NB6)
def _check_marginal_value(fn, rng):
    from ..values import Marginal

    for d in (3, int(rng.integers(4, 6))):
        model, _ = _random_kernel_model(rng, int(rng.integers(8, 25)), d)
        B = rng.normal(size=(int(rng.integers(5, 15)), d))
        x = rng.normal(size=d)
        game = Marginal(model.predict, B).game(x[None, :])
        for k in (1, d - 1, 0, d):
            S = sorted(rng.choice(d, size=k, replace=False).tolist())
            mask = np.zeros(d, dtype=bool)
            mask[S] = True
            context = f"a random model (d={d}), background of {len(B)} points, S={S}"
            got = _scalar(_call(fn, (model.predict, B.copy(), x.copy(), list(S)), context), "a number",
                          context)
            truth = float(np.asarray(game(mask[None, :])).ravel()[0])
            if abs(got - truth) <= 1e-9 * max(1.0, abs(truth)):
                continue
            if 0 < k < d:
                swapped = B.copy()
                keep = np.setdiff1d(np.arange(d), S)
                swapped[:, keep] = x[keep]
                if abs(float(model.predict(swapped).mean()) - got) <= 1e-9 * max(1.0, abs(truth)):
                    raise _Fail("you kept x on the absent features and the background on the present "
                                f"ones; it is the other way round ({context})")
            raise _Fail(f"not the mean over the background rows b of f(x_S, b_(not S)) ({context})")
    return "equal to kx.values.Marginal (model calls) on 2 random models, 8 coalitions"


# =========================================================================== #
# 07 how sure an explanation is
# =========================================================================== #
_NB7 = "07-how-sure"


@_register("t-interval", "a t-interval from i.i.d. per-sample estimates",
           "t_interval(samples, level) -> (lower, upper)", _NB7)
def _check_t_interval(fn, rng):
    from scipy import stats

    from ..estimators._common import t_interval

    for k, d, level in ((4, 3, 0.95), (int(rng.integers(5, 30)), 5, float(rng.choice([0.8, 0.9, 0.99])))):
        samples = rng.normal(size=(k, d)) * rng.uniform(0.5, 3, size=d) + rng.normal(size=d)
        context = f"{k} samples of {d} values, level={level}"
        out = _call(fn, (samples.copy(), level), context)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise _Fail(f"return a pair (lower, upper); got {_type_name(out)} ({context})")
        lo = _array(out[0], (d,), "one lower end per column", context)
        hi = _array(out[1], (d,), "one upper end per column", context)
        mean, se, t_lo, t_hi = t_interval(samples, level)
        if np.allclose(lo, t_lo, atol=1e-9) and np.allclose(hi, t_hi, atol=1e-9):
            continue
        if not np.allclose((lo + hi) / 2, mean, atol=1e-9):
            raise _Fail(f"the interval is centred on the sample mean of each column ({context})")
        half = (hi - lo) / 2
        t = stats.t.ppf(0.5 + level / 2, k - 1)
        z = stats.norm.ppf(0.5 + level / 2)
        sd0 = samples.std(axis=0, ddof=0) / np.sqrt(k)
        if np.allclose(half, z * se, atol=1e-9):
            raise _Fail(f"you used the normal quantile; with {k} samples use Student's t with "
                        f"{k - 1} degrees of freedom ({context})")
        if np.allclose(half, t * sd0, atol=1e-9):
            raise _Fail(f"the standard deviation needs ddof=1 (the sample standard deviation) ({context})")
        if np.allclose(half, t * se * np.sqrt(k), atol=1e-9):
            raise _Fail(f"the half-width is t times the standard *error* sd / sqrt(K) ({context})")
        raise _Fail(f"the half-width should be t_(K-1) * sd / sqrt(K) at the requested level ({context})")
    return "equal to kernelxai's t-interval (kx.shapley.t_interval) on 2 random samples"


@_register("single-reference", "attributions with standard errors from single-reference games",
           "single_reference_values(predict, x, references) -> (values, stderr)", _NB7)
def _check_single_reference(fn, rng):
    from ..uncertainty import single_reference

    d = 3
    w = rng.normal(size=d)

    def predict(A):
        A = np.asarray(A, dtype=float)
        return A @ w + A[:, 1] * A[:, 2] - 0.5 * np.sin(A[:, 0])

    for K in (5, int(rng.integers(6, 20))):
        refs = rng.normal(size=(K, d))
        x = rng.normal(size=d)
        context = f"x, {K} random references and f(x) = w.x + x1 x2 - sin(x0)/2"
        out = _call(fn, (predict, x.copy(), refs.copy()), context)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise _Fail(f"return a pair (values, stderr); got {_type_name(out)} ({context})")
        vals = _array(out[0], (d,), "one value per feature", context)
        se = _array(out[1], (d,), "one standard error per feature", context)
        e = single_reference(predict, x, refs, method="exact")
        truth, truth_se = np.ravel(e.values), np.ravel(e.stderr)
        ok_v = np.allclose(vals, truth, atol=1e-9)
        ok_s = np.allclose(se, truth_se, atol=1e-9)
        if ok_v and ok_s:
            continue
        if not ok_v:
            total = float(predict(x[None])[0] - predict(refs).mean())
            if abs(vals.sum() - total) > 1e-8:
                raise _Fail(f"the mean values must add up to f(x) - mean_k f(r_k) = {_fmt(total)}; yours "
                            f"add up to {_fmt(vals.sum())} ({context})")
            raise _Fail(f"the values are the mean over the references of the Shapley values of "
                        f"v_k(S) = f(x_S, r_k,(not S)) - f(r_k) ({context})")
        if np.allclose(se, truth_se * np.sqrt(K), atol=1e-9):
            raise _Fail(f"that is the standard deviation; the standard error divides it by sqrt(K) ({context})")
        raise _Fail(f"the values are right, the standard errors are not: sd over the K references "
                    f"(ddof=1) / sqrt(K) ({context})")
    return "equal to kx.uncertainty.single_reference on 2 random sets of references"
