"""The Explanation's interop: pandas frames, shap and shapiq objects (both ways), and JSON.

Takes an :class:`~kernelxai.Explanation` (any object
with its attributes); hands on a pandas DataFrame (:func:`to_frame`,
:func:`interactions_frame`), a ``shap.Explanation`` (:func:`to_shap`),
``shapiq.InteractionValues`` of any order (:func:`to_shapiq`), or, from a
``shap.Explanation`` or ``shapiq.InteractionValues``, the arguments of the Explanation
constructor (:func:`shap_fields`, :func:`shapiq_fields`). pandas, shap and shapiq are
optional and imported when called (shapiq is not imported at all to read its objects).
The Explanation's methods of the same names call these; its JSON is
``kernelxai.explanation._tagged``'s.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ._interaction_sets import InteractionBlock, Interactions, lexicographic_sets

if TYPE_CHECKING:
    import pandas as pd
    import shap
    import shapiq

__all__ = ["to_frame", "interactions_frame", "to_shap", "to_shapiq", "shap_fields", "shapiq_fields",
           "UP_TO_K_INDICES"]

#: The indices whose ``order=k`` means every size 1..k (the others: exactly k, or 1). Mirrors the
#: declarations of ``kernelxai.estimators._interaction_indices`` (a test keeps them equal), and
#: shapiq's k-additive Shapley values.
UP_TO_K_INDICES = frozenset({"k-SII", "STII", "FSII", "FBII", "kADD-SHAP"})


def to_frame(explanation) -> pd.DataFrame:
    """The values as a pandas DataFrame.

    Without outputs: one column per feature (one row per instance); for a
    single instance, one row per feature with the value, data, standard
    error and bounds where available. With outputs: one row per instance
    (one row for a single instance) and a column MultiIndex
    ``(output, feature)``.
    """
    import pandas as pd

    if "output" in explanation.axes:
        arr = explanation.values
        if "instance" not in explanation.axes:
            arr = arr[None]
        if "feature" not in explanation.axes:
            arr = arr[:, None]
        rows, d, k = arr.shape
        columns = pd.MultiIndex.from_product([explanation.output_names, explanation.feature_names],
                                             names=["output", "feature"])
        return pd.DataFrame(arr.transpose(0, 2, 1).reshape(rows, k * d), columns=columns)
    if explanation.values.ndim == 2:
        return pd.DataFrame(explanation.values, columns=explanation.feature_names)
    if explanation.axes == ("instance",):
        return pd.DataFrame({explanation.feature_names[0]: explanation.values})
    frame = {"value": explanation.values}
    for name in ("data", "stderr", "lower", "upper"):
        if getattr(explanation, name) is not None:
            frame[name] = getattr(explanation, name)
    return pd.DataFrame(frame, index=explanation.feature_names)


def interactions_frame(explanation) -> pd.DataFrame:
    """The interaction block in long format, one row per pair ``i < j``.

    Columns ``instance``, (``output`` when there are outputs),
    ``feature_i``, ``feature_j``, ``value``; a single instance is
    instance 0.

    Raises
    ------
    ValueError
        When the Explanation has no interaction block.
    """
    import pandas as pd

    if explanation.interactions is None:
        raise ValueError(
            "this Explanation has no interaction block (interactions is None); build it "
            "with Explanation(..., interactions=array of shape (n, d, d))"
        )
    block = explanation.interactions if "instance" in explanation.axes else explanation.interactions[None]
    rows, d = block.shape[:2]
    i, j = np.triu_indices(d, 1)
    pairs = block[:, i, j]                          # (rows, P) or (rows, P, k)
    names = np.asarray(explanation.feature_names, dtype=object)
    if "output" in explanation.axes:
        k = pairs.shape[2]
        pairs = pairs.transpose(0, 2, 1)            # (rows, k, P)
        return pd.DataFrame({
            "instance": np.repeat(np.arange(rows), k * len(i)),
            "output": np.tile(np.repeat(np.asarray(explanation.output_names, dtype=object), len(i)), rows),
            "feature_i": np.tile(names[i], rows * k),
            "feature_j": np.tile(names[j], rows * k),
            "value": pairs.ravel(),
        })
    return pd.DataFrame({
        "instance": np.repeat(np.arange(rows), len(i)),
        "feature_i": np.tile(names[i], rows),
        "feature_j": np.tile(names[j], rows),
        "value": pairs.ravel(),
    })


def to_shap(explanation) -> shap.Explanation:
    """Convert to ``shap.Explanation`` (needs the optional ``shap`` package).

    Carries values, base values, data, feature names, output names (with
    outputs), ``lower``/``upper`` as ``lower_bounds``/``upper_bounds`` and
    ``stderr`` as ``error_std``. shap has no field for metadata, so
    :attr:`meta` is attached as the attribute ``kernelxai_meta`` (shap's
    own slicing does not carry it). Interactions and covariances are not
    converted: shap's interaction values are a different decomposition
    (main effects on the diagonal).
    """
    try:
        import shap
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "to_shap() needs the optional package shap; install it with "
            "`pip install kernelxai[shap]` or `pip install shap`"
        ) from None
    options = {
        "values": explanation.values,
        "base_values": explanation.base_values,
        "data": explanation.data,
        "feature_names": list(explanation.feature_names),
        "lower_bounds": explanation.lower,
        "upper_bounds": explanation.upper,
        "error_std": explanation.stderr,
    }
    if explanation.output_names is not None:
        options["output_names"] = list(explanation.output_names)
    converted = shap.Explanation(**options)
    converted.kernelxai_meta = dict(explanation.meta)
    return converted


def to_shapiq(explanation) -> shapiq.InteractionValues | list[shapiq.InteractionValues]:
    """Convert the interactions of any order to ``shapiq.InteractionValues`` (optional package shapiq).

    One ``InteractionValues`` per point (a list for several), through shapiq's documented
    constructor (``values``, ``index``, ``max_order``, ``min_order``, ``n_players``,
    ``interaction_lookup``, ``estimated``, ``baseline_value``): the empty set holds the
    base value (also ``baseline_value``), the single players the ``values`` (the index's
    values of sets of size 1), and every set the Explanation's ``interaction_orders``
    hold (for ``top=`` results, each point's own sets); ``index`` from ``meta["index"]``,
    ``max_order`` the largest size held, ``estimated`` True for sampled results. Sizes not
    computed are absent (shapiq reads an absent set as 0). Single output only.
    """
    orders = explanation.interaction_orders
    if orders is None:
        raise ValueError("to_shapiq() converts interactions; this Explanation has none "
                         "(compute them with kx.explain_interactions or kx.shapley_interactions)")
    if explanation.has_outputs:
        raise ValueError("to_shapiq() converts one output at a time: pick it with e[..., name]")
    try:
        import shapiq
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("to_shapiq() needs the optional package shapiq; install it with "
                          "`pip install kernelxai[shapiq]` or `pip install shapiq`") from None
    meta = explanation.meta
    index = meta.get("index") or orders.index or "SII"
    estimated = (not meta["exact"]) if "exact" in meta else str(meta.get("method", "")).startswith("sampled")
    values = np.atleast_2d(np.asarray(explanation.values, dtype=float))
    base = np.asarray(explanation.base_values, dtype=float).reshape(-1)
    n, d = values.shape
    per_point = "instance" in orders.axes
    head = [()] + [(j,) for j in range(d)]
    shared, tops = [], []
    for t, b in orders.blocks.items():
        if t <= 1:
            continue                                    # the empty set and the singles come first
        vals = b.values if per_point else b.values[None]
        if b.layout == "top":
            tops.append((b.sets if per_point else b.sets[None], vals))
        else:
            shared.append(([tuple(int(p) for p in row) for row in b.sets.tolist()], vals))
    max_order = max([1, *orders.sizes])
    out = []
    for a in range(n):
        keys = list(head)
        parts = [np.array([base[a]]), values[a]]
        for set_keys, vals in shared:
            keys += set_keys
            parts.append(vals[a])
        for sets, vals in tops:
            keep = (sets[a] >= 0).all(axis=-1)
            keys += [tuple(int(p) for p in row) for row in sets[a][keep].tolist()]
            parts.append(vals[a][keep])
        out.append(shapiq.InteractionValues(
            np.concatenate(parts), index=index, max_order=max_order, min_order=0, n_players=d,
            interaction_lookup={key: k for k, key in enumerate(keys)}, estimated=estimated,
            baseline_value=float(base[a])))
    return out if explanation.values.ndim == 2 else out[0]


def _read_interaction_values(iv) -> tuple[dict[tuple[int, ...], float], int]:
    """({set: value}, n_players) of a ``shapiq.InteractionValues`` (its ``interaction_lookup`` and ``values``)."""
    needed = ("interaction_lookup", "values", "n_players", "index", "max_order", "baseline_value")
    missing = [a for a in needed if not hasattr(iv, a)]
    if missing:
        raise TypeError(f"expected a shapiq.InteractionValues (or a list of them); {type(iv).__name__} has no "
                        f"{', '.join(missing)}")
    vals = np.asarray(iv.values, dtype=float).reshape(-1)
    entries = {tuple(sorted(int(p) for p in key)): float(vals[pos]) for key, pos in iv.interaction_lookup.items()}
    return entries, int(iv.n_players)


def shapiq_fields(interaction_values, feature_names=None) -> dict[str, Any]:
    """The Explanation constructor's arguments read from ``shapiq.InteractionValues`` (one, or a list: one per point).

    ``values`` are the single players' entries (0 where absent, as shapiq reads them),
    ``base_values`` the ``baseline_value``, ``interaction_orders`` every size >= 2 present
    (and size 1 for indices whose order means "up to k" -- k-SII, STII, FSII, FBII -- or at
    order 1): ``"dense"`` where all C(d, t) sets are present, ``"sets"`` where every point
    has the same sets, ``"top"`` (per point, largest first, not certified) otherwise; the
    pairs also as ``interactions`` (n, d, d) when all are present. ``meta``: ``index``,
    ``order`` (``max_order``), ``exact`` (not ``estimated``), ``budget``, ``source``.
    shapiq itself is not imported.

    Raises
    ------
    TypeError
        Not InteractionValues.
    ValueError
        An empty list, or points of different numbers of players.
    """
    single = not isinstance(interaction_values, (list, tuple))
    ivs = [interaction_values] if single else list(interaction_values)
    if not ivs:
        raise ValueError("from_shapiq needs at least one InteractionValues")
    read = [_read_interaction_values(iv) for iv in ivs]
    d = read[0][1]
    if any(p != d for _, p in read):
        raise ValueError(f"the InteractionValues have different numbers of players: {[p for _, p in read]}")
    entries = [e for e, _ in read]
    first = ivs[0]
    index, order = str(first.index), int(first.max_order)
    values = np.array([[e.get((j,), 0.0) for j in range(d)] for e in entries])
    base = np.array([float(iv.baseline_value) for iv in ivs])
    present = sorted({len(key) for e in entries for key in e} - {0})
    wanted = [t for t in present if t >= 2 or index in UP_TO_K_INDICES or order == 1]
    blocks = []
    for t in wanted:
        keysets = [[key for key in e if len(key) == t] for e in entries]
        if all(set(k) == set(keysets[0]) for k in keysets):
            m = len(keysets[0])
            if m == math.comb(d, t):
                sets, layout = lexicographic_sets(d, t), "dense"
            else:
                sets, layout = np.asarray(keysets[0], dtype=np.int64).reshape(m, t), "sets"
            keys = [tuple(row) for row in sets.tolist()]
            vals = np.array([[e[key] for key in keys] for e in entries])
            blocks.append(InteractionBlock(t, sets, vals, layout))
            continue
        m = max(len(k) for k in keysets)
        sets = np.full((len(entries), m, t), -1, dtype=np.int64)
        vals = np.full((len(entries), m), np.nan)
        for a, (e, keys) in enumerate(zip(entries, keysets)):
            keys = sorted(keys, key=lambda key: -abs(e[key]))
            sets[a, :len(keys)] = np.asarray(keys, dtype=np.int64).reshape(len(keys), t)
            vals[a, :len(keys)] = [e[key] for key in keys]
        blocks.append(InteractionBlock(t, sets, vals, "top", np.zeros(len(entries), bool),
                                       np.array([len(k) for k in keysets])))
    names = [f"x{j}" for j in range(d)] if feature_names is None else [str(f) for f in feature_names]
    orders = Interactions(blocks, names, index=index, order=order)
    pairs = None
    if 2 in orders and orders[2].layout == "dense":
        pairs = np.zeros((len(entries), d, d))
        i, j = orders[2].sets.T
        pairs[:, i, j] = pairs[:, j, i] = orders[2].values
    meta = {"index": index, "order": order, "exact": not bool(getattr(first, "estimated", False)),
            "source": "shapiq.InteractionValues"}
    budget = getattr(first, "estimation_budget", None)
    if budget is not None:
        meta["budget"] = budget
    if single:
        orders = orders.take(instance=0)
        values, base, pairs = values[0], float(base[0]), None if pairs is None else pairs[0]
    return {"values": values, "base_values": base, "feature_names": names, "meta": meta,
            "interactions": pairs, "interaction_orders": orders}


def shap_fields(explanation) -> dict[str, Any]:
    """The Explanation constructor's arguments read from a ``shap.Explanation`` (see ``Explanation.from_shap``).

    Returns
    -------
    dict
        ``values``, ``base_values``, ``data``, ``feature_names``, ``stderr``,
        ``lower``, ``upper``, ``meta`` and ``output_names``.

    Raises
    ------
    TypeError
        When ``explanation`` has no ``values`` and ``base_values``.
    """
    if not (hasattr(explanation, "values") and hasattr(explanation, "base_values")):
        raise TypeError(
            "expected a shap.Explanation (with .values and .base_values) or a kernelxai "
            f"Explanation; got {type(explanation).__name__}"
        )

    def attr(name):
        value = getattr(explanation, name, None)
        return None if value is None else np.asarray(value)

    values = np.asarray(explanation.values, dtype=float)
    base = attr("base_values")
    names = attr("feature_names")
    if names is not None and names.ndim > 1:     # shap keeps one list per row when sliced
        names = names[0]
    outputs = attr("output_names")
    output_names = None
    if values.ndim == 3 or (values.ndim == 2 and outputs is not None and outputs.ndim == 1
                            and len(outputs) == values.shape[1]):
        output_names = None if outputs is None else [str(o) for o in outputs]
    if values.ndim == 2 and output_names is None and names is not None and \
            len(names) == values.shape[0] != values.shape[1]:
        output_names = [f"output_{j}" for j in range(values.shape[1])]
    if values.ndim == 3 and output_names is None:
        output_names = [f"output_{j}" for j in range(values.shape[2])]
    if base is None:
        base = 0.0
    elif base.ndim and base.size == 1 and values.ndim == 1:
        base = base.reshape(())
    meta = dict(getattr(explanation, "kernelxai_meta", None) or {})
    meta.setdefault("source", "shap.Explanation")
    if output_names is None and outputs is not None and outputs.ndim == 0:
        meta.setdefault("output", str(outputs))     # one output picked in shap: e[:, :, "a"]
    return {"values": values, "base_values": base, "data": attr("data"),
            "feature_names": None if names is None else list(names),
            "stderr": attr("error_std"), "lower": attr("lower_bounds"),
            "upper": attr("upper_bounds"), "meta": meta, "output_names": output_names}
