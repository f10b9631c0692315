"""Joining the chunks' results: one Explanation, and one ``meta``, as one call would report them.

Takes the Explanations of consecutive chunks of rows and hands on their
concatenation, with ``meta["parallel"]`` saying how the rows ran.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..explanation import Explanation

__all__ = ["PER_ROW_META", "MAX_META", "merge_meta", "concat_results"]

#: ``meta`` entries with one entry per explained row (concatenated across chunks)
PER_ROW_META = ("interactions_stderr", "interactions_lower", "interactions_upper", "s2",
                "covariance_mc_stderr")
#: ``meta`` entries that are bounds over the rows (the largest is kept)
MAX_META = ("efficiency_error", "error_bound", "perturbations_to_go")


def _same(a, b):
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return bool(np.array_equal(a, b))
        except Exception:  # pragma: no cover - incomparable contents
            return False
    try:
        return bool(a == b)
    except Exception:  # pragma: no cover - objects without a truth value of ==
        return False


def merge_meta(pieces) -> dict:
    """The ``meta`` of Explanations of consecutive chunks, as one call would report it.

    Entries with one value per row (:data:`PER_ROW_META`) are concatenated, bounds over
    rows (:data:`MAX_META`) take the largest, entries equal in every chunk are kept;
    anything else becomes the list of the chunks' values and its key is listed in
    ``meta["parallel"]["per_chunk"]``.

    Parameters
    ----------
    pieces : sequence of Explanation
        The Explanations of consecutive chunks of rows, in row order.

    Returns
    -------
    dict
        The merged ``meta``, keys in order of first appearance, plus
        ``"parallel": {"per_chunk": [...]}`` naming the keys kept as per-chunk lists.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> a = kx.Explanation(np.ones((2, 3)), meta={"method": "exact", "efficiency_error": 1e-9, "seconds": 0.1})
    >>> b = kx.Explanation(np.ones((1, 3)), meta={"method": "exact", "efficiency_error": 3e-9, "seconds": 0.2})
    >>> merge_meta([a, b])
    {'method': 'exact', 'efficiency_error': 3e-09, 'seconds': [0.1, 0.2], 'parallel': {'per_chunk': ['seconds']}}
    """
    metas = [p.meta for p in pieces]
    keys = list(dict.fromkeys(k for m in metas for k in m))
    out, per_chunk = {}, []
    for key in keys:
        vals = [m.get(key) for m in metas]
        if key in PER_ROW_META and all(isinstance(v, np.ndarray) for v in vals):
            out[key] = np.concatenate(vals, axis=0)
        elif key in MAX_META and all(isinstance(v, numbers.Real) for v in vals):
            out[key] = max(vals)
        elif all(_same(vals[0], v) for v in vals[1:]):
            out[key] = vals[0]
        else:
            out[key] = vals
            per_chunk.append(key)
    out["parallel"] = {"per_chunk": per_chunk}
    return out


def concat_results(pieces, overrides=None, **parallel) -> Explanation:
    """One Explanation from the chunks' Explanations.

    ``overrides`` replace ``meta`` entries (values for the whole call, e.g. its
    estimated seconds); ``parallel`` goes to ``meta["parallel"]``.

    Parameters
    ----------
    pieces : sequence of Explanation
        The Explanations of consecutive chunks of rows, in row order (joined with
        :meth:`Explanation.concat <kernelxai.Explanation.concat>`).
    overrides : dict, optional
        ``meta`` entries for the whole call; they replace the merged entries (and are no
        longer listed as per-chunk).
    **parallel
        Entries for ``meta["parallel"]`` (e.g. ``n_jobs=...``, ``backend=...``), next to
        ``"chunks"`` (the number of pieces) and ``"per_chunk"`` (see :func:`merge_meta`).

    Returns
    -------
    Explanation
        The rows of all pieces, in order, with the merged ``meta``.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> a = kx.Explanation(np.ones((2, 3)), meta={"seconds": 0.1})
    >>> b = kx.Explanation(np.zeros((1, 3)), meta={"seconds": 0.2})
    >>> expl = concat_results([a, b], overrides={"seconds": 0.3}, n_jobs=2)
    >>> expl.values.shape, expl.meta["seconds"], expl.meta["parallel"]
    ((3, 3), 0.3, {'n_jobs': 2, 'chunks': 2, 'per_chunk': []})
    """
    meta = merge_meta(pieces)
    overrides = dict(overrides or {})
    meta.update(overrides)
    info = meta.pop("parallel")
    info["per_chunk"] = [k for k in info["per_chunk"] if k not in overrides]
    meta["parallel"] = {**parallel, "chunks": len(pieces), **info}
    return Explanation.concat(pieces, meta=meta)
