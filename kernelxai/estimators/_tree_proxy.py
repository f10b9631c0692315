r"""Boosted regression trees on coalitions, and their odd Fourier coefficients: OddSHAP's proxy.

Takes coalitions (a boolean matrix) and a game's worths on them; hands on the Fourier (parity)
coefficients of a boosted-tree fit of the game, for the odd interactions it holds, so that
``method="oddshap"`` can put the largest of them into its regression
(:mod:`kernelxai.estimators._oddshap`).

The trees. Gradient boosting for squared loss, grown leaf-wise as LightGBM grows them (the
proxy of Fumagalli et al. 2026, whose settings are LightGBM's defaults with a depth of at most 10):
:data:`ROUNDS` rounds at learning rate :data:`RATE`, each tree split at the leaf whose best split
lowers the squared error most, up to :data:`LEAVES` leaves, depth :data:`DEPTH`, at least
:data:`MIN_LEAF` coalitions per leaf. The inputs are binary, so a split is a player, "out" to one
side and "in" to the other; the error reduction of every player's split at a node is one matrix
product over the node's coalitions (the smaller child's; the larger one's follows by
subtraction). Deterministic: no subsampling, ties to the lower player.

The spectrum. A leaf whose path fixes the players :math:`P` (each :math:`j \in P` in or out of the
coalition) is the product of indicators :math:`(1 + \sigma_j \chi_j(S)) / 2`, with
:math:`\chi_j(S) = 1 - 2\,[j \in S]` and :math:`\sigma_j = +1` for "out", :math:`-1` for "in". A leaf of
value :math:`c` therefore adds :math:`c\, 2^{-|P|} \prod_{j \in T} \sigma_j` to the Fourier coefficient of
:math:`\chi_T` for every :math:`T \subseteq P`, and the fitted ensemble's spectrum is the sum over its
leaves -- exact, and confined to the sets of players that share a path.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

__all__ = ["ROUNDS", "RATE", "LEAVES", "DEPTH", "MIN_LEAF", "boosted_leaves", "odd_spectrum", "proxy_work"]

#: Boosting rounds, learning rate, leaves per tree, depth and coalitions per leaf (LightGBM's defaults,
#: the depth as in the OddSHAP paper).
ROUNDS, RATE, LEAVES, DEPTH, MIN_LEAF = 100, 0.1, 31, 10, 20


def _best_split(count, total, n_in, s_in, min_leaf):
    """(gain, player) of the node's best split; gain <= 0 when no split is allowed or helps."""
    n_out, s_out = count - n_in, total - s_in
    ok = (n_in >= min_leaf) & (n_out >= min_leaf)
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(ok, s_in ** 2 / n_in + s_out ** 2 / n_out, -np.inf) - total ** 2 / count
    j = int(np.argmax(gain))
    return float(gain[j]), j


class _Node:
    """A leaf while the tree grows: its coalitions, path, sums and best split."""

    def __init__(self, rows, path, count, total, n_in, s_in, min_leaf, depth_left):
        self.rows, self.path = rows, path
        self.count, self.total, self.n_in, self.s_in = count, total, n_in, s_in
        self.gain, self.player = (_best_split(count, total, n_in, s_in, min_leaf)
                                  if depth_left > 0 and count >= 2 * min_leaf else (-np.inf, -1))


def _grow(Zb, Zf, r, min_leaf, scale):
    """One tree fitted to ``r`` (K,) on the coalitions (``Zb`` bool, ``Zf`` float, (K, d)), leaf-wise.

    Returns its leaves as (path players (L,), path signs (L,): +1 out, -1 in, value) and the fitted values (K,).
    """
    K = len(r)
    R = np.column_stack([r, np.ones(K)]).astype(Zf.dtype)
    sums = (Zf.T @ R).astype(float)
    root = _Node(np.arange(K), (), float(K), float(r.sum()), sums[:, 1], sums[:, 0], min_leaf, DEPTH)
    leaves = [root]
    while len(leaves) < LEAVES:
        best = max(range(len(leaves)), key=lambda i: leaves[i].gain)
        node = leaves[best]
        if not node.gain > 1e-12 * scale:
            break
        j = node.player
        inside = Zb[node.rows, j]
        rows_in, rows_out = node.rows[inside], node.rows[~inside]
        small_is_in = len(rows_in) <= len(rows_out)
        small = rows_in if small_is_in else rows_out
        part = (Zf[small].T @ R[small]).astype(float)                     # (d, 2): sums of r, counts in S
        direct = (float(len(small)), float(r[small].sum()), part[:, 1], part[:, 0])
        rest = (node.count - direct[0], node.total - direct[1], node.n_in - direct[2], node.s_in - direct[3])
        stats_in, stats_out = (direct, rest) if small_is_in else (rest, direct)
        depth_left = DEPTH - len(node.path) - 1
        children = [_Node(rows_out, node.path + ((j, 1),), *stats_out, min_leaf, depth_left),
                    _Node(rows_in, node.path + ((j, -1),), *stats_in, min_leaf, depth_left)]
        leaves[best:best + 1] = children
    fitted = np.empty(K)
    out = []
    for leaf in leaves:
        value = float(r[leaf.rows].mean())
        fitted[leaf.rows] = value
        players = np.array([p for p, _ in leaf.path], dtype=np.intp)
        signs = np.array([s for _, s in leaf.path], dtype=float)
        out.append((players, signs, value))
    return out, fitted


def boosted_leaves(Z: np.ndarray, y: np.ndarray, min_leaf: int = MIN_LEAF) -> tuple[float, list]:
    """Boosted trees fitted to ``y`` (K,) on the coalitions ``Z`` (K, d): (base value, every leaf).

    Each leaf is (path players, path signs, value already scaled by the learning rate). Stops
    early when a tree finds no split that lowers the error.
    """
    Zb = np.asarray(Z, dtype=bool)
    Zf = Zb.astype(np.float32)    # the split search's sums in single precision: half the memory; values exact
    y = np.asarray(y, dtype=float)
    base = float(y.mean())
    r = y - base
    scale = float(r @ r) or 1.0
    leaves = []
    for _ in range(ROUNDS):
        tree, fitted = _grow(Zb, Zf, r, min_leaf, scale)
        if len(tree) == 1:
            break
        r = r - RATE * fitted
        leaves += [(players, signs, RATE * value) for players, signs, value in tree]
    return base, leaves


def odd_spectrum(leaves: list, d: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The leaves' Fourier coefficients of the odd interactions of at least three players.

    Returns, for each odd size 3, 5, ... (up to the longest path), the distinct sets (n_s, s) in
    lexicographic order and their coefficients (n_s,); sizes no path reaches are left out.
    """
    by_length: dict[int, list] = {}
    for players, signs, value in leaves:
        by_length.setdefault(len(players), []).append((players, signs, value))
    pieces: dict[int, list] = {}
    for length, group in by_length.items():
        P = np.array([g[0] for g in group]).reshape(len(group), length)
        S = np.array([g[1] for g in group]).reshape(len(group), length)
        V = np.array([g[2] for g in group]) * 2.0 ** -length
        for size in range(3, length + 1, 2):
            pos = np.array(list(combinations(range(length), size)), dtype=np.intp)
            sets = np.sort(P[:, pos], axis=2).reshape(-1, size)
            coef = (V[:, None] * S[:, pos].prod(axis=2)).ravel()
            pieces.setdefault(size, []).append((sets, coef))
    sets_out, coef_out = [], []
    for size in sorted(pieces):
        sets = np.concatenate([p[0] for p in pieces[size]])
        coef = np.concatenate([p[1] for p in pieces[size]])
        if size * np.log2(max(d, 2)) < 62:   # one integer key per set (digits base d): a fast 1-d unique
            keys = sets @ (d ** np.arange(size - 1, -1, -1, dtype=np.int64))
            _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            unique = sets[first]
        else:
            unique, inverse = np.unique(sets, axis=0, return_inverse=True)
        sets_out.append(unique)
        coef_out.append(np.bincount(inverse.ravel(), weights=coef, minlength=len(unique)))
    return sets_out, coef_out


def proxy_work(n_rows: int, d: int) -> tuple[float, float]:
    """(elementwise operations, Python-level steps) of one proxy fit and spectrum on ``n_rows`` coalitions.

    Per round, the split search gathers each node's smaller child (at most half its parent's rows)
    and sums over it, about ``n_rows d`` elements per level for ~log2(LEAVES) levels, with the
    root's sums; counted as 15 operations per coalition and player per round, and ~18 steps per
    leaf (the node's bookkeeping) -- fitted to timings on the development machine (d = 20-200,
    400-10,000 coalitions: 0.25-3 s); the spectrum ~2^(DEPTH-1) odd sets per leaf.
    """
    flops = ROUNDS * 15.0 * n_rows * d + ROUNDS * LEAVES * 2.0 ** (DEPTH - 1) * DEPTH
    steps = ROUNDS * LEAVES * 18.0
    return flops, steps
