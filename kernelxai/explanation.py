"""The Explanation: Shapley values with their base values, data and uncertainty."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["Explanation"]

_PER_CELL = ("values", "data", "stderr", "lower", "upper")


class Explanation:
    """Attributions of one or many predictions (or of one statistic).

    Parameters
    ----------
    values : array (n, d) or (d,)
        Shapley values: row = explained instance, column = feature (player).
    base_values : array (n,) or float
        What the values are measured from, so that
        ``values.sum(-1) + base_values`` is the explained quantity.
    data : array like ``values``, optional
        Feature values of the explained instances.
    feature_names : list of str, optional
    stderr, lower, upper : arrays like ``values``, optional
        Standard errors and interval bounds of sampled estimates.
    meta : dict, optional
        How the values were computed: ``value_function``, ``method``,
        ``budget``, ``level``, ...

    Indexing follows numpy on ``values``: ``e[0]`` is the first instance,
    ``e[:, "bmi"]`` one feature for all instances, ``e[:10, [0, 2]]`` a block.
    """

    def __init__(self, values, base_values=0.0, data=None, feature_names=None,
                 stderr=None, lower=None, upper=None, meta=None, *, axes=None):
        values = np.asarray(values, dtype=float)
        if values.ndim > 2:
            raise ValueError(f"values must be 1-D or 2-D; got shape {values.shape}")
        if axes is None:
            axes = ("instance", "feature")[2 - values.ndim:]
        if len(axes) != values.ndim:
            raise ValueError(f"axes {axes} do not match values of shape {values.shape}")
        self._axes = tuple(axes)
        self.values = values
        n_rows = values.shape[0] if "instance" in axes else None
        base = np.asarray(base_values, dtype=float)
        if n_rows is not None and base.ndim == 0:
            base = np.full(n_rows, float(base))
        if n_rows is not None and base.shape != (n_rows,):
            raise ValueError(f"base_values must have shape ({n_rows},); got {base.shape}")
        if n_rows is None and base.ndim:
            raise ValueError(f"a single explanation has one base value; got shape {base.shape}")
        self.base_values = base if base.ndim else float(base)
        for name, arr in (("data", data), ("stderr", stderr), ("lower", lower), ("upper", upper)):
            if arr is not None:
                arr = np.asarray(arr, dtype=float) if name != "data" else np.asarray(arr)
                if arr.shape != values.shape:
                    raise ValueError(
                        f"{name} must have the shape of values {values.shape}; got {arr.shape}"
                    )
            setattr(self, name, arr)
        n_features = values.shape[-1] if self._axes[-1:] == ("feature",) else 1
        if feature_names is None:
            feature_names = [f"x{j}" for j in range(n_features)]
        feature_names = [str(f) for f in np.atleast_1d(feature_names)]
        if len(feature_names) != n_features:
            raise ValueError(
                f"feature_names has {len(feature_names)} entries; values have {n_features} feature(s)"
            )
        self.feature_names = feature_names
        self.meta = dict(meta or {})

    # ------------------------------------------------------------------ views
    @property
    def shape(self):
        return self.values.shape

    def __len__(self):
        return len(self.values)

    @property
    def output(self):
        """The explained quantity: ``base_values + values.sum(-1)`` (per instance)."""
        if self._axes[-1:] == ("feature",):
            return self.base_values + self.values.sum(axis=-1)
        return self.base_values + self.values

    @property
    def has_intervals(self):
        return self.lower is not None and self.upper is not None

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        if len(keys) > len(self._axes):
            raise IndexError(
                f"this Explanation has {len(self._axes)} axes {self._axes}; got {len(keys)} indices"
            )
        keys = keys + (slice(None),) * (len(self._axes) - len(keys))
        index, axes = [], []
        rows, cols = slice(None), slice(None)
        for axis, k in zip(self._axes, keys):
            if axis == "feature":
                k = cols = self._column_index(k)
            else:
                rows = k
            index.append(k)
            if not isinstance(k, (numbers.Integral, np.integer)):
                axes.append(axis)
        index = tuple(index)
        sub = {name: (None if getattr(self, name) is None else getattr(self, name)[index])
               for name in _PER_CELL}
        base = self.base_values
        if "instance" in self._axes:
            base = np.asarray(self.base_values)[rows]
        names = list(np.atleast_1d(np.asarray(self.feature_names, dtype=object)[cols]))
        return Explanation(sub.pop("values"), base, feature_names=names, meta=self.meta,
                           axes=tuple(axes), **sub)

    def _column_index(self, cols):
        names = self.feature_names or []

        def one(c):
            if isinstance(c, str):
                if c not in names:
                    raise KeyError(f"unknown feature {c!r}; features are {names}")
                return names.index(c)
            return c

        if isinstance(cols, str):
            return one(cols)
        if isinstance(cols, (list, tuple)) or (isinstance(cols, np.ndarray) and cols.dtype.kind in "OU"):
            return [one(c) for c in cols]
        return cols

    # ------------------------------------------------------------ conversions
    def to_frame(self):
        """The values as a pandas DataFrame (one column per feature).

        For a single instance the frame has one row per feature with the
        value, data, standard error and bounds where available.
        """
        import pandas as pd

        if self.values.ndim == 2:
            return pd.DataFrame(self.values, columns=self.feature_names)
        if self._axes == ("instance",):
            return pd.DataFrame({self.feature_names[0]: self.values})
        frame = {"value": self.values}
        for name in ("data", "stderr", "lower", "upper"):
            if getattr(self, name) is not None:
                frame[name] = getattr(self, name)
        return pd.DataFrame(frame, index=self.feature_names)

    def to_shap(self):
        """Convert to ``shap.Explanation`` (needs the optional ``shap`` package)."""
        try:
            import shap
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError(
                "to_shap() needs the optional package shap; install it with "
                "`pip install kernelxai[shap]` or `pip install shap`"
            ) from None
        return shap.Explanation(
            values=self.values,
            base_values=self.base_values,
            data=self.data,
            feature_names=self.feature_names,
        )

    def __repr__(self):
        method = self.meta.get("method", "?")
        vf = self.meta.get("value_function")
        extra = f", value_function={vf!r}" if vf else ""
        ci = ", with intervals" if self.has_intervals else ""
        return f"Explanation(shape={self.values.shape}, method={method!r}{extra}{ci})"
