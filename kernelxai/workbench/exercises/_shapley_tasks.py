"""Checks of the exercise notebooks 01 (games and axioms: the Shapley formula, the taxi fare, a game
with a null player and a symmetric pair) and 02 (exact and permutation estimation: contributions
along an ordering, the permutation estimate).

Takes nothing; registers its tasks with ``_grading.register`` when imported. The references
:func:`ordering_reference` and :func:`ordering_moments` are checked against brute force by the tests.
"""

from __future__ import annotations

import itertools

import numpy as np

from ...estimators._shapley import shapley_values
from ...games import FunctionGame, Game, all_coalitions, tabulate
from ._grading import Fail, NotAnswered, StudentRaised, answer_array, call_answer, close_to, fmt, register, type_name
from ._student_games import exact_shapley, random_table, set_function, variant_values

# =========================================================================== #
# 01 games and axioms
# =========================================================================== #
_NB1 = "01-games-and-axioms"


@register("shapley-exact", "the Shapley value of any game by enumerating coalitions",
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
        cases.append((f"a random game with {d} players", d, random_table(rng, d), {}))
    for context, d, table, axioms in cases:
        v = set_function(table, d)
        phi = answer_array(call_answer(fn, (v, d), context), (d,), "one value per player", context)
        truth = exact_shapley(table)
        total = table[-1] - table[0]
        scale = np.abs(table).max()
        if close_to(phi, truth, scale):
            continue
        if close_to(phi, variant_values(table, d, "banzhaf"), scale):
            raise Fail("your values weight every coalition equally (that is the Banzhaf value); the "
                       "Shapley value weights a coalition S by |S|! (d - |S| - 1)! / d!")
        if close_to(phi, variant_values(table, d, "skip_empty"), scale):
            raise Fail("check the empty coalition: S = ∅ is one of the coalitions a player can join, "
                       "with weight 0! (d-1)! / d! = 1/d")
        if not close_to(phi.sum(), total, scale):
            raise Fail(f"efficiency fails: your values sum to {fmt(phi.sum())} but "
                       f"v(N) - v(∅) = {fmt(total)} on {context}")
        if "null" in axioms and abs(phi[axioms['null']]) > 1e-7 * scale:
            raise Fail(f"null player fails: player {axioms['null']} adds nothing to any coalition of "
                       f"{context}, yet gets {fmt(phi[axioms['null']])}")
        if "pair" in axioms and abs(phi[axioms['pair'][0]] - phi[axioms['pair'][1]]) > 1e-7 * scale:
            i, j = axioms["pair"]
            raise Fail(f"symmetry fails: players {i} and {j} are interchangeable in {context}, yet get "
                       f"{fmt(phi[i])} and {fmt(phi[j])}")
        raise Fail(f"your values add up (efficiency holds) but are not the Shapley values of {context}: "
                   "check the weight |S|! (d - |S| - 1)! / d! and that the sum runs over the "
                   "coalitions S without player j")
    return "equal to kx.shapley_values on 4 games (2 to 5 players), the axioms hold"


def _max_game_values(alone):
    alone = np.asarray(alone, dtype=float)
    game = FunctionGame(lambda z: np.where(z.any(axis=1), (z * alone).max(axis=1), 0.0), len(alone))
    return np.asarray(shapley_values(game, method="exact").values, dtype=float).ravel()


@register("taxi-shares", "who pays what when a group pays the fare of its farthest member",
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
        got = answer_array(call_answer(fn, (fares.copy(),), context), fares.shape, "one share per passenger", context)
        truth = _max_game_values(fares)
        if close_to(got, truth, fares.max()):
            continue
        if not close_to(got.sum(), fares.max(), fares.max()):
            raise Fail(f"efficiency fails: the shares must add up to the fare of the whole group, "
                       f"{fmt(fares.max())}; yours add up to {fmt(got.sum())} ({context})")
        ties = [(i, j) for i in range(len(fares)) for j in range(i + 1, len(fares)) if fares[i] == fares[j]]
        for i, j in ties:
            if not close_to(got[i], got[j], fares.max()):
                raise Fail(f"symmetry fails: passengers {i} and {j} have the same fare alone but pay "
                           f"{fmt(got[i])} and {fmt(got[j])} ({context})")
        raise Fail(f"the shares add up but are not the Shapley values ({context}): who shares "
                   "the cheapest leg of the trip, and who shares the next one?")
    return "right for the lecture's taxi (Amy 2, Bob 5, Claire 35) and for 3 random groups"


def _answer_table(fn, d, pair, null, context):
    """The student's game for ``(d, pair, null)`` and its worths of every coalition (by bitmask)."""
    game = call_answer(fn, (d, pair, null), context)
    if not isinstance(game, Game):
        raise Fail(f"{context} returned {type_name(game)}; expected a kernelxai game "
                   "(kx.TabularGame or kx.FunctionGame)")
    if game.n_players != d or game.n_instances is not None:
        raise Fail(f"{context} returned a game with {game.n_players} players"
                   f"{'' if game.n_instances is None else ' and several instances'}; expected "
                   f"{d} players and one worth per coalition")
    try:
        table = np.asarray(tabulate(game), dtype=float)
    except NotImplementedError:
        raise NotAnswered() from None
    except Exception as exc:
        raise StudentRaised(f"evaluating your game raised {type(exc).__name__}: {exc} ({context})") from None
    return game, table


def _check_null_player(table, d, null, scale, context):
    z = all_coalitions(d)
    for m in range(2**d):
        if (m >> null) & 1 == 0 and abs(table[m | (1 << null)] - table[m]) > 1e-9 * scale:
            S = np.flatnonzero(z[m]).tolist()
            raise Fail(f"player {null} is not a null player: v({S}) = {fmt(table[m])} but "
                       f"v({sorted(S + [null])}) = {fmt(table[m | (1 << null)])} ({context})")


def _check_interchangeable(table, d, a, b, scale, context):
    z = all_coalitions(d)
    for m in range(2**d):
        if (m >> a) & 1 == 0 and (m >> b) & 1 == 0:
            va, vb = table[m | (1 << a)], table[m | (1 << b)]
            if abs(va - vb) > 1e-9 * scale:
                S = np.flatnonzero(z[m]).tolist()
                raise Fail(f"players {a} and {b} are not interchangeable: v({sorted(S + [a])}) = "
                           f"{fmt(va)} but v({sorted(S + [b])}) = {fmt(vb)} ({context})")


@register("null-and-symmetric", "a game with a null player and two interchangeable players",
          "make_game(d, pair, null) -> kx.Game", _NB1)
def _check_null_and_symmetric(fn, rng):
    for d in (3, int(rng.integers(4, 7))):
        players = rng.permutation(d)
        pair, null = (int(players[0]), int(players[1])), int(players[2])
        context = f"make_game(d={d}, pair={pair}, null={null})"
        game, table = _answer_table(fn, d, pair, null, context)
        scale = max(1.0, np.abs(table).max())
        _check_null_player(table, d, null, scale, context)
        a, b = pair
        _check_interchangeable(table, d, a, b, scale, context)
        if abs(table[-1] - table[0] - 1.0) > 1e-9:
            raise Fail(f"v(N) - v(∅) = {fmt(table[-1] - table[0])}; the task asks for 1 ({context})")
        phi = np.asarray(shapley_values(game, method="exact").values, dtype=float).ravel()
        if abs(phi[null]) > 1e-9 * scale or abs(phi[a] - phi[b]) > 1e-9 * scale:  # pragma: no cover
            raise RuntimeError("kx.shapley_values violates the null-player or symmetry axiom: a bug")
    return ("the null player gets 0 and the pair equal shares (kx.shapley_values), "
            "for 2 random choices of d, pair and null player")


# =========================================================================== #
# 02 exact and permutation estimation
# =========================================================================== #
_NB2 = "02-exact-and-permutation"


def ordering_reference(table, order) -> np.ndarray:
    out = np.empty(len(order))
    mask = 0
    for player in order:
        out[player] = table[mask | (1 << int(player))] - table[mask]
        mask |= 1 << int(player)
    return out


@register("ordering-contributions", "each player's marginal contribution along one ordering",
          "contributions(v, order) -> array (d,)", _NB2)
def _check_ordering_contributions(fn, rng):
    for d in (3, 5, 6):
        table = random_table(rng, d)
        order = rng.permutation(d)
        context = f"a random game with {d} players and order={order.tolist()}"
        got = answer_array(call_answer(fn, (set_function(table, d), order.copy()), context), (d,),
                           "one contribution per player", context)
        truth = ordering_reference(table, order)
        scale = np.abs(table).max()
        if close_to(got, truth, scale):
            continue
        total = table[-1] - table[0]
        if not close_to(got.sum(), total, scale):
            raise Fail(f"the contributions along an ordering add up to v(N) - v(∅) = {fmt(total)}; "
                       f"yours add up to {fmt(got.sum())} ({context})")
        if close_to(got, truth[order], scale):
            raise Fail("entry j must be the contribution of player j, not of the j-th player to "
                       f"join ({context})")
        raise Fail(f"not the marginal contributions v(P ∪ {{j}}) - v(P), P = the players before j "
                   f"in the ordering ({context})")
    return "right on 3 random games and orderings"


def ordering_moments(table, d) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation (over all d! orderings) of each player's contribution."""
    samples = np.array([ordering_reference(table, order) for order in itertools.permutations(range(d))])
    return samples.mean(axis=0), samples.std(axis=0)


@register("permutation-estimate", "the Shapley value estimated from random orderings",
          "permutation_shapley(v, d, n_orderings, rng) -> array (d,)", _NB2)
def _check_permutation_estimate(fn, rng):
    # an additive game: every ordering gives the exact values
    d = 5
    weights = np.round(rng.normal(size=d) * 5, 2)
    masks = np.arange(2**d)
    table = ((masks[:, None] >> np.arange(d)) & 1) @ weights + 1.5
    context = f"an additive game with {d} players and 3 orderings"
    got = answer_array(call_answer(fn, (set_function(table, d), d, 3, np.random.default_rng(rng.integers(2**32))),
                                   context), (d,), "one estimate per player", context)
    if not close_to(got, weights, np.abs(table).max()):
        if close_to(got, 3 * weights, np.abs(table).max()):
            raise Fail(f"on {context} your estimate is 3 times the truth: average over the "
                       "orderings, do not add them up")
        raise Fail(f"on {context} every ordering gives each player its own weight, so any number of "
                   "orderings must return the exact values; yours differ -- check the marginal "
                   "contributions along one ordering")
    # a random game: unbiased, within sampling error, efficient, and it uses rng
    d, n = 4, 3000
    table = random_table(rng, d)
    mean, sd = ordering_moments(table, d)
    context = f"a random game with {d} players and {n} orderings"
    v = set_function(table, d)
    got = answer_array(call_answer(fn, (v, d, n, np.random.default_rng(rng.integers(2**32))), context), (d,),
                       "one estimate per player", context)
    scale = np.abs(table).max()
    total = table[-1] - table[0]
    if not close_to(got.sum(), total, scale, rtol=1e-6):
        raise Fail(f"every ordering's contributions add up to v(N) - v(∅) = {fmt(total)}, so their "
                   f"mean must too; yours adds up to {fmt(got.sum())} ({context})")
    z = np.abs(got - mean) / np.maximum(sd / np.sqrt(n), 1e-12 * scale)
    if z.max() > 6:
        raise Fail(f"on {context} your estimate is {z.max():.0f} standard errors away from the "
                   "Shapley value: draw each ordering uniformly (rng.permutation(d)) and average "
                   "the marginal contributions")
    again = answer_array(call_answer(fn, (v, d, n, np.random.default_rng(rng.integers(2**32))), context), (d,),
                         "one estimate per player", context)
    if np.array_equal(again, got) and sd.max() > 0:
        raise Fail("two calls with different rng gave identical estimates: draw the orderings "
                   "with the rng you are given (e.g. rng.permutation(d))")
    return "exact on an additive game, unbiased and efficient on a random one (against all d! orderings)"
