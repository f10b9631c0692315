"""The games handed to students: random worth tables over d players, ``v(S)`` as a function of a
collection of player indices, and the reference values the checks compare with (the exact Shapley
values, and two common wrong formulas, to name a mistake).

Takes a worth table indexed by bitmask; hands the topic modules ``v`` and the reference values.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ...estimators._shapley import shapley_values
from ...games import TabularGame
from ._grading import type_name

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["random_table", "set_function", "game_of", "exact_shapley", "variant_values"]


def random_table(rng, d, scale=10.0) -> np.ndarray:
    """Worths of a random game over d players, indexed by bitmask (v(empty) not always 0)."""
    table = np.round(rng.normal(scale=scale, size=2**d), 3)
    table[0] = np.round(rng.normal(scale=scale / 3), 3) if rng.random() < 0.5 else 0.0
    return table


def set_function(table, d) -> Callable:
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
                                f"v([]) for the empty coalition; got {type_name(S)}") from None
        mask = 0
        for i in members:
            if not 0 <= i < d:
                raise ValueError(f"player index {i} out of range: players are 0..{d - 1}")
            mask |= 1 << i
        return float(table[mask])

    return v


def game_of(table) -> TabularGame:
    return TabularGame(table)


def exact_shapley(table) -> np.ndarray:
    return np.asarray(shapley_values(game_of(table), method="exact").values, dtype=float).ravel()


def _popcount(masks):
    masks = np.asarray(masks, dtype=np.int64)
    return np.array([bin(int(m)).count("1") for m in masks])


def variant_values(table, d, kind) -> np.ndarray:
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
