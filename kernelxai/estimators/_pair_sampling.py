"""Complementary pairs of coalitions drawn without replacement, stratified by size (a sampling design).

Takes a number of players, a budget of pairs and a target distribution over coalition sizes; hands
on distinct complementary pairs (S, D minus S), the stratum (size class) of each, and each
stratum's population and sample size, so that a regression over the pairs can weight every pair
by its inverse inclusion probability and estimate its sampling variance. Used by
``method="leverage_shap"``, ``"polyshap"`` and ``"kernel"`` with ``replace=False``.

The design. A pair {S, S^c} is identified by its smaller member; its *class* h = min(|S|, d-|S|)
runs over 1..floor(d/2). Class h < d/2 holds N_h = C(d, h) pairs; the middle class h = d/2 (d
even) holds C(d, d/2)/2, its members identified by the one that contains the last player. Each
class gets a number k_h of pairs, fixed in advance: the budget is spread in proportion to the
target's mass of the class (water-filling: a class whose share exceeds its N_h pairs is taken
whole, a *census*, and the rest is spread over the others, as Musco & Witter's min(1, c l_S)
inclusion probabilities do), with at least two pairs per class where the budget allows (one
otherwise), so that every pair has a known, positive inclusion probability k_h / N_h and every
sampled class can estimate its own spread. Within a class the k_h pairs are a simple random
sample without replacement. Because k_h is fixed, the number of game evaluations is exactly
2 (v(empty), v(all)) + 2 sum_h k_h.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["PairDesign", "allocate_pairs", "draw_pairs", "size_class_mass", "n_classes",
           "class_populations", "uniform_subsets"]

#: Classes are censused exactly (unranked from a permutation) when N_h <= this many times k_h.
_DENSE_FACTOR = 4


@dataclass
class PairDesign:
    """Distinct complementary pairs and the strata they were drawn from.

    Attributes
    ----------
    first : ndarray of bool (K, d)
        One member of each pair; its complement is the other. Pairs are grouped by class.
    stratum : ndarray of int (K,)
        The class index (0-based, class h = index + 1) of each pair.
    population : ndarray of float (H,)
        N_h, pairs in each class (float: may exceed 2**63).
    taken : ndarray of int (H,)
        k_h, pairs drawn from each class.
    """

    first: np.ndarray
    stratum: np.ndarray
    population: np.ndarray
    taken: np.ndarray

    @property
    def census(self) -> np.ndarray:
        """Classes taken whole (no sampling variance), shape (H,)."""
        return self.taken >= self.population

    @property
    def n_evaluations(self) -> int:
        """Game evaluations of the design: both members of every pair, v(empty) and v(all)."""
        return 2 * int(self.taken.sum()) + 2


def n_classes(d: int) -> int:
    """Number of pair classes, floor(d / 2)."""
    return d // 2


def class_populations(d: int) -> np.ndarray:
    """N_h, the number of complementary pairs whose smaller member has h players, h = 1..floor(d/2).

    As floats (C(d, h) overflows integers for large d; above ~1e308 it is ``inf``, which is fine:
    such a class is never censused).
    """
    h = np.arange(1, n_classes(d) + 1)
    with np.errstate(over="ignore"):
        pop = np.array([float(math.comb(d, int(k))) if d <= 1020 else _log_comb_float(d, int(k))
                        for k in h])
    middle = 2 * h == d
    pop[middle] /= 2.0
    return pop


def _log_comb_float(d, k):
    value = math.lgamma(d + 1) - math.lgamma(k + 1) - math.lgamma(d - k + 1)
    return math.exp(value) if value < 709 else math.inf


def size_class_mass(d: int, target: str) -> np.ndarray:
    """Target share of pairs per class (unnormalised), shape (floor(d/2),).

    ``"leverage"``: every coalition size gets the same mass (the leverage scores of the KernelSHAP
    regression, Musco & Witter 2025, Lemma: l_S proportional to 1 / C(d, |S|)); ``"kernel"``: size
    s gets the Shapley kernel's mass (d-1) / (s (d-s)). A class holds two sizes (h and d-h) and a
    pair two coalitions, so its pair mass is the mass of size h (half of it for the middle class,
    whose two members share one size).
    """
    h = np.arange(1, n_classes(d) + 1, dtype=float)
    if target == "leverage":
        mass = np.ones_like(h)
    elif target == "kernel":
        mass = 1.0 / (h * (d - h))
    else:  # pragma: no cover - callers pass one of the two
        raise ValueError(f"unknown target {target!r}; expected 'leverage' or 'kernel'")
    return np.where(2 * h == d, 0.5 * mass, mass)


def allocate_pairs(population: np.ndarray, mass: np.ndarray, n_pairs: int) -> np.ndarray:
    """k_h: pairs per class, summing to ``n_pairs``, as close to ``mass`` as the classes allow.

    Water-filling: k_h = clip(c mass_h, floor_h, N_h) with c such that the sum is ``n_pairs``,
    where floor_h = min(N_h, 2) if the budget allows two pairs per class, else min(N_h, 1); then
    rounded to integers by largest remainders (ties to the smaller class). The caller checks that
    ``n_pairs`` is at least the number of classes and below the total of ``population``.
    """
    pop = np.asarray(population, dtype=float)
    two = np.minimum(pop, 2.0)
    floor = two if two.sum() <= n_pairs else np.minimum(pop, 1.0)
    lo, hi = 0.0, 1.0
    while np.clip(hi * mass, floor, pop).sum() < n_pairs:
        hi *= 2.0
    for _ in range(200):  # bisection on c: the allocation is continuous and nondecreasing in c
        mid = 0.5 * (lo + hi)
        if np.clip(mid * mass, floor, pop).sum() < n_pairs:
            lo = mid
        else:
            hi = mid
    share = np.clip(hi * mass, floor, pop)
    taken = np.floor(share + 1e-9).astype(np.int64)
    short = n_pairs - int(taken.sum())
    remainder = np.where(taken < pop, share - taken, -np.inf)
    order = np.argsort(-remainder, kind="stable")
    while short > 0:
        room = order[taken[order] < pop[order]]
        step = room[:short]
        taken[step] += 1
        short -= len(step)
    while short < 0:  # rounding up overshot: take back from the classes above their floor
        over = np.flatnonzero(taken > floor)
        give = over[np.argsort(share[over] - taken[over])][: -short]
        taken[give] -= 1
        short += len(give)
    return taken


def draw_pairs(d: int, taken: np.ndarray, rng: np.random.Generator) -> PairDesign:
    """Draw ``taken[h-1]`` distinct pairs uniformly from each class h (a stratified sample without replacement)."""
    population = class_populations(d)
    blocks, strata = [], []
    for index, k in enumerate(taken):
        k = int(k)
        if k == 0:
            continue
        h = index + 1
        middle = 2 * h == d
        # the middle class: a pair is the member holding the last player, i.e. h - 1 of the others
        n, r = (d - 1, h - 1) if middle else (d, h)
        if population[index] <= _DENSE_FACTOR * k:
            subsets = _unrank(rng.permutation(int(population[index]))[:k], n, r)
        else:
            subsets = _distinct_random_subsets(n, r, k, rng)
        if middle:
            subsets = np.concatenate([subsets, np.ones((k, 1), dtype=bool)], axis=1)
        blocks.append(subsets)
        strata.append(np.full(k, index))
    first = np.concatenate(blocks) if blocks else np.zeros((0, d), dtype=bool)
    stratum = np.concatenate(strata) if strata else np.zeros(0, dtype=np.int64)
    return PairDesign(first, stratum, population, np.asarray(taken, dtype=np.int64))


def _comb_table(n, r):
    """T[c, i] = C(c, i) for c < n, i <= r, in int64 (the caller keeps every entry below 2**62)."""
    table = np.zeros((max(n, 1), r + 1), dtype=np.int64)
    table[:, 0] = 1
    for c in range(1, n):
        table[c, 1:] = table[c - 1, 1:] + table[c - 1, :-1]
    return table


def _unrank(ranks, n, r):
    """The r-subsets of {0..n-1} with the given colex ranks (combinatorial number system), (k, n) bool."""
    ranks = np.asarray(ranks, dtype=np.int64).copy()
    out = np.zeros((len(ranks), n), dtype=bool)
    if r == 0:
        return out
    table = _comb_table(n, r)
    rows = np.arange(len(ranks))
    for i in range(r, 0, -1):
        c = np.searchsorted(table[:, i], ranks, side="right") - 1   # the largest c with C(c, i) <= rank
        out[rows, c] = True
        ranks -= table[c, i]
    return out


def uniform_subsets(keys: np.ndarray, sizes) -> np.ndarray:
    """Rows of bool: in row i, the ``sizes[i]`` players with the smallest ``keys[i]`` (uniform given i.i.d. keys).

    ``sizes`` is one int or one per row; a partial sort per row (argpartition), not a full one.
    """
    m, n = keys.shape
    sizes = np.broadcast_to(np.asarray(sizes), (m,))
    out = np.zeros((m, n), dtype=bool)
    for size in np.unique(sizes):
        rows = np.flatnonzero(sizes == size)
        if size <= 0:
            continue
        if size >= n:
            out[rows] = True
            continue
        picked = np.argpartition(keys[rows], size - 1, axis=1)[:, :size]
        out[rows[:, None], picked] = True
    return out


def _distinct_random_subsets(n, r, k, rng):
    """k distinct uniform r-subsets of {0..n-1} (rejection of repeats; used where k <= C(n, r) / 4)."""
    found = np.zeros((0, n), dtype=bool)
    while len(found) < k:
        need = k - len(found)
        fresh = uniform_subsets(rng.random((need + need // 8 + 1, n)), r)
        pool = np.concatenate([found, fresh])
        _, first = np.unique(np.packbits(pool, axis=1), axis=0, return_index=True)
        found = pool[np.sort(first)][:k]
    return found
