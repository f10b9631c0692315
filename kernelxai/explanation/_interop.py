"""The Explanation's interop: pandas frames, shap and shapiq objects, and back from shap.

Takes an :class:`~kernelxai.Explanation` (any object
with its attributes); hands on a pandas DataFrame (:func:`to_frame`,
:func:`interactions_frame`), a ``shap.Explanation`` (:func:`to_shap`),
``shapiq.InteractionValues`` (:func:`to_shapiq`), or, from a
``shap.Explanation``, the arguments of the Explanation constructor
(:func:`shap_fields`). pandas, shap and shapiq are optional and imported when
called. The Explanation's methods of the same names call these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    import shap
    import shapiq

__all__ = ["to_frame", "interactions_frame", "to_shap", "to_shapiq", "shap_fields"]


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
    """Convert the interaction block to ``shapiq.InteractionValues`` (optional package shapiq).

    One ``InteractionValues`` per instance (a list for several): the empty
    coalition holds the base value, order-1 entries the ``values``, order-2
    entries ``interactions[i, j]`` (i < j), with the index named in
    ``meta["index"]`` (``"SII"``, ``"k-SII"``, ``"STII"``, ``"FSII"``) and
    ``estimated`` False for exact routes. Single output only.
    """
    if explanation.interactions is None:
        raise ValueError("to_shapiq() converts interactions; this Explanation has none "
                         "(compute them with kx.explain_interactions or kx.shapley_interactions)")
    if explanation.has_outputs:
        raise ValueError("to_shapiq() converts one output at a time: pick it with e[..., name]")
    try:
        import shapiq
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("to_shapiq() needs the optional package shapiq; install it with "
                          "`pip install kernelxai[shapiq]` or `pip install shapiq`") from None
    index = explanation.meta.get("index", "SII")
    estimated = str(explanation.meta.get("method", "")).startswith("sampled")
    values = np.asarray(explanation.values, dtype=float)
    block = np.asarray(explanation.interactions, dtype=float)
    base = np.asarray(explanation.base_values, dtype=float)
    single = values.ndim == 1
    values, block, base = np.atleast_2d(values), block.reshape((-1,) + block.shape[-2:]), base.reshape(-1)
    d = values.shape[1]
    iu, ju = np.triu_indices(d, k=1)
    out = []
    for a in range(values.shape[0]):
        scores = {(): float(base[a])}
        scores.update({(j,): float(values[a, j]) for j in range(d)})
        scores.update({(int(i), int(j)): float(block[a, i, j]) for i, j in zip(iu, ju)})
        out.append(shapiq.InteractionValues(
            np.array(list(scores.values())), index=index, max_order=2, min_order=0, n_players=d,
            interaction_lookup={key: k for k, key in enumerate(scores)}, estimated=estimated,
            baseline_value=float(base[a])))
    return out[0] if single else out


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
