"""Pairwise Shapley interactions by enumeration of all 2**d coalitions.

Takes a game and an index; hands on the order-1 terms, the pairs, v(empty), v(N) and the
absolute mass of the sum (for the efficiency check) of every instance. Each index is
sum_T c(T) v(T) with coefficients that depend on |T| and on whether i and j are in T
(``_interaction_index``), so the pairs of all instances come from one matrix product
of the coefficient table with the table of worths, streamed in blocks of coalitions.
"""

from __future__ import annotations

import numpy as np

from ..games import bitmasks_to_coalitions
from ._common import block_elements, progress_bar
from ._interaction_index import CoefficientTables

__all__ = ["exact_interactions"]


def exact_interactions(game, index, max_elements, progress) -> dict:
    """Order-1 terms and pairs of ``index`` (a name of ``INDICES``) by enumeration.

    Parameters
    ----------
    game : Game
    index : str
        One of ``kernelxai.estimators._interaction_index.INDICES`` (checked by the caller).
    max_elements : int or None
        float64 elements of one block of coalitions.
    progress : bool or None

    Returns
    -------
    dict
        ``values`` (n, d) order-1 terms, ``pairs`` (n, d, d), ``v_empty`` and ``v_full`` (n,),
        ``mass`` (n,) the absolute size of the sums (the scale of the efficiency check) and
        ``budget`` (game evaluations)

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> res = exact_interactions(g, "k-SII", max_elements=None, progress=False)
    >>> res["values"].round(12), res["budget"]     # order-1 terms of k-SII; 2**3 coalitions
    (array([[1., 0., 0.]]), 8)
    >>> res["pairs"][0].round(12)
    array([[0., 0., 0.],
           [0., 0., 2.],
           [0., 2., 0.]])
    """
    d, n = game.n_players, game.n_instances or 1
    tables = CoefficientTables(index, d)
    step = max(1, min(2**d, block_elements(max_elements) // (d * d + 2 * d + n)))
    pairs = np.zeros((d * d, n))
    order1 = np.zeros((d, n))
    mass = np.zeros(n)
    v_empty = v_full = None
    with progress_bar(2**d, f"exact {index}", "coalition", progress) as bar:
        for start in range(0, 2**d, step):
            masks = np.arange(start, min(2**d, start + step), dtype=np.int64)
            z = bitmasks_to_coalitions(masks, d)
            V = np.asarray(game(z), dtype=float).reshape(len(z), n)
            if start == 0:
                v_empty = V[0].copy()
            if masks[-1] == 2**d - 1:
                v_full = V[-1].copy()
            c1, c2 = tables.coefficients(z)
            pairs += c2.reshape(len(z), d * d).T @ V
            order1 += c1.T @ V
            mass += (np.abs(c2).sum(axis=(1, 2)) + np.abs(c1).sum(axis=1)) @ np.abs(V)
            bar.update(len(z))
    return {"values": order1.T, "pairs": pairs.T.reshape(n, d, d), "v_empty": v_empty,
            "v_full": v_full, "mass": mass, "budget": 2**d}
