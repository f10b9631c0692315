"""The Explanation: Shapley values with their base values, data and uncertainty, and its slicing.

Takes the arrays an estimator computed (values, base values, data, names, and
the optional axes: outputs, interactions, covariances, intervals). Hands on
:class:`Explanation` to plots, widgets and users: indexing by instance,
feature and output (``e[0]``, ``e[:, "age"]``, ``e[..., "setosa"]``), stacking
of chunks (:meth:`Explanation.concat`), and conversions, which
``kernelxai.explanation._interop`` carries out.

One class in one file, a little over 600 lines: the Explanation's axes (outputs,
interactions, covariance, intervals) are sliced, stacked and checked together,
so its indexing, ``concat`` and checks stay side by side; its conversions live in
``kernelxai.explanation._interop``.
"""

from __future__ import annotations

import json
import numbers
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _interop
from ._interaction_sets import InteractionBlock, Interactions
from ._tagged import decode, encode

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    import pandas as pd
    import shap
    import shapiq
    from numpy.typing import ArrayLike

__all__ = ["Explanation", "block_axes", "block_shape"]

#: the axes an Explanation can have, in the order in which they appear
AXES = ("instance", "feature", "output")

_PER_CELL = ("values", "stderr", "lower", "upper")
#: The arrays :meth:`Explanation.to_json` writes besides names, axes and meta.
_JSON_ARRAYS = ("values", "base_values", "data", "stderr", "lower", "upper", "interactions", "covariance",
                "joint_covariance")
_JSON_FORMAT = "kernelxai.Explanation"
_BLOCKS = ("interactions", "covariance")


def _is_int(key):
    return isinstance(key, (numbers.Integral, np.integer)) and not isinstance(key, (bool, np.bool_))


def _max_abs(arr):
    return float(np.max(np.abs(arr))) if arr.size else 0.0


def _base_values(base_values, axes, size):
    """One base value per instance and output (a scalar is spread); a float for a single explanation."""
    expected = tuple(size[a] for a in axes if a != "feature")
    base = np.asarray(base_values, dtype=float)
    if base.ndim == 0 and expected:
        base = np.full(expected, float(base))
    if base.shape != expected:
        if not expected:
            raise ValueError(
                f"a single explanation has one base value; got base_values of shape {base.shape}"
            )
        raise ValueError(
            f"base_values must be a scalar or have shape {expected} (one per "
            f"{' and '.join(a for a in axes if a != 'feature')}); got shape {base.shape}"
        )
    return base if base.ndim else float(base)


def _cell_data(data, axes, size):
    """The explained points' feature values: one per instance x feature (None stays None)."""
    if data is None:
        return None
    data = np.asarray(data)
    expected = tuple(size[a] for a in axes if a != "output")
    if data.shape != expected:
        where = "the shape of values" if "output" not in axes else "one entry per instance x feature"
        raise ValueError(f"data must have {where} {expected}; got shape {data.shape}")
    return data


def _feature_names(feature_names, n_features):
    """``n_features`` names as a list of str (``x0, x1, ...`` by default)."""
    if feature_names is None:
        feature_names = [f"x{j}" for j in range(n_features)]
    if isinstance(feature_names, (list, tuple)) and all(type(f) is str for f in feature_names):
        feature_names = list(feature_names)   # as kernelxai's games hold them: no array round trip
    else:
        feature_names = [str(f) for f in np.atleast_1d(np.asarray(feature_names, dtype=object))]
    if len(feature_names) != n_features:
        raise ValueError(
            f"feature_names has {len(feature_names)} entries; values have {n_features} feature(s)"
        )
    return feature_names


def _output_names(output_names, k):
    """``k`` distinct output names as a list of str (``output_0, ...`` by default)."""
    if output_names is None:
        output_names = [f"output_{j}" for j in range(k)]
    output_names = [str(o) for o in np.atleast_1d(np.asarray(output_names, dtype=object))]
    if len(output_names) != k:
        raise ValueError(
            f"output_names has {len(output_names)} entries; values have {k} output(s)"
        )
    if len(set(output_names)) != k:
        raise ValueError(f"output_names must be distinct; got {output_names}")
    return output_names


def _take(arr, labels, norm):
    """``arr`` (axes ``labels``) at the normalised keys ``norm`` of an index, one axis at a time.

    Right to left, so that an integer key dropping an axis does not move the axes still to
    be indexed; one axis at a time gives blocks (outer indexing, not numpy's fancy indexing).
    """
    for pos in reversed(range(len(labels))):
        k = norm.get(labels[pos])
        if k is None or (isinstance(k, slice) and k == slice(None)):
            continue
        arr = arr[(slice(None),) * pos + (k,)]
    return arr


def _check_pieces(pieces):
    """Refuse pieces :meth:`Explanation.concat` cannot stack: none, non-Explanations, or pieces that disagree."""
    if not pieces:
        raise ValueError("Explanation.concat needs at least one Explanation")
    bad = [type(p).__name__ for p in pieces if not isinstance(p, Explanation)]
    if bad:
        raise TypeError(f"Explanation.concat joins Explanations; got {', '.join(bad)}")
    first = pieces[0]
    for k, p in enumerate(pieces):
        if "instance" not in p.axes:
            raise ValueError(f"piece {k} has no instance axis (axes {p.axes}); concat stacks "
                             "explanations of several instances each")
        if p.axes != first.axes or p.values.shape[1:] != first.values.shape[1:]:
            raise ValueError(f"piece {k} has axes {p.axes} and shape {p.values.shape}; piece 0 "
                             f"has {first.axes} and {first.values.shape}")
        if list(p.feature_names) != list(first.feature_names) or \
                (p.output_names or None) != (first.output_names or None):
            raise ValueError(f"piece {k} names its features or outputs differently from piece 0")
        if p.joint_covariance is not None:
            raise ValueError("cannot concatenate explanations with a joint_covariance: the "
                             "covariances between instances of different pieces are unknown")


def block_axes(axes) -> tuple[str, ...]:
    """Axis labels of an interaction / covariance block of values with ``axes``: the feature axis twice."""
    labels = []
    for a in axes:
        labels += [a, a] if a == "feature" else [a]
    return tuple(labels)


def block_shape(axes, shape) -> tuple[int, ...]:
    """The shape of an interaction / covariance block of values with ``axes`` and ``shape``."""
    size = dict(zip(axes, shape))
    return tuple(size[a] for a in block_axes(axes))


class Explanation:
    """Attributions of one or many predictions (or of one statistic).

    Parameters
    ----------
    values : array (n, d), (d,), (n, d, k) or (d, k)
        Shapley values: instance x feature, with a trailing output axis of
        length ``k`` for multi-class / multi-output models. A 3-D array always
        has the output axis; a 2-D array is read as (d, k) only when
        ``output_names`` is given, as (n, d) otherwise.
    base_values : float or array (n,), (n, k), (k,)
        What the values are measured from, one per instance and output (a
        scalar is broadcast), so that ``base_values + values`` summed over the
        feature axis is the explained quantity (:attr:`output`).
    data : array (n, d) or (d,), optional
        Feature values of the explained instances. Data are per instance x
        feature and never have an output axis. Any dtype.
    feature_names : list of str, optional
        Default ``"x0", "x1", ...``.
    stderr, lower, upper : arrays like ``values``, optional
        Standard errors and interval bounds of sampled estimates.
    meta : dict, optional
        How the values were computed: ``value_function``, ``method``,
        ``budget``, ``level``, ... A sampled estimate carries ``arena_error``: the relative
        squared error the arena measured for its estimator near its d and budget, on other
        models (a guide, shown by the repr with that label; see
        :func:`kx.compare_estimators <kernelxai.compare_estimators>`).
    output_names : list of str, optional
        Names of the ``k`` outputs (default ``"output_0", ..., "output_{k-1}"``);
        giving them declares that ``values`` has an output axis.
    interactions : array (n, d, d) or (d, d), optional
        Pairwise interaction terms, with a trailing output axis ``k`` when
        ``values`` has one. Must be finite, symmetric in the two feature axes
        (to 1e-12 of the largest entry) and zero on the diagonal.
    covariance : array (n, d, d) or (d, d), optional
        Per explained instance, the d x d covariance of its Shapley values
        (trailing ``k`` with outputs). Must be finite and symmetric with a
        non-negative diagonal. When ``stderr`` is not given it is the square
        root of the diagonal.
    joint_covariance : array (n*d, n*d), optional
        Covariance of all Shapley values of all instances jointly (trailing
        ``k`` with outputs); row/column ``i * d + j`` is instance ``i``,
        feature ``j``. Needs both an instance and a feature axis. When
        ``covariance`` is not given it is taken from the diagonal blocks; when
        it is given the two must agree.
    axes : tuple of str, optional
        Advanced: the names of the axes of ``values``, a subsequence of
        ``("instance", "feature", "output")``. Inferred from ``values`` (see
        above) when omitted; slicing uses it to describe what is left.
    interaction_orders : Interactions, optional
        Interactions of any order (:class:`~kernelxai.explanation.Interactions`: per set
        size, the sets and their values, dense, by set or ``top=``), with the axes of
        ``values`` besides the features and the same feature names. See
        :attr:`interaction_orders`.

    Raises
    ------
    ValueError
        If an array does not have the shape ``values`` implies (see the table
        below), ``values`` has more than 3 axes, ``axes`` is not a subsequence
        of ``("instance", "feature", "output")`` matching ``values``,
        ``feature_names`` or ``output_names`` has the wrong length (or output
        names repeat), ``output_names`` are given for values without an output
        axis, or ``interactions``, ``covariance`` or ``joint_covariance``
        break their conditions above.

    Notes
    -----
    Shape contract. With ``n`` instances, ``d`` features and ``k`` outputs,
    every array lays its axes out in the order instance, feature, output and
    leaves out the axes it does not have:

    =================================  =====================  ===================
    attribute                          full shape             single instance
    =================================  =====================  ===================
    values, stderr, lower, upper       (n, d[, k])            (d[, k])
    base_values                        (n[, k])               float or (k,)
    data                               (n, d)                 (d,)
    interactions, covariance           (n, d, d[, k])         (d, d[, k])
    joint_covariance                   (n*d, n*d[, k])        not kept
    interaction_orders[t].values       (n, m[, k])            (m[, k])
    =================================  =====================  ===================

    ``interaction_orders`` holds, per set size t, m sets: all C(d, t) of them
    (``"dense"``, lexicographic), the sets asked for (``"sets"``) or each point's
    largest (``"top"``, sets (n, m, t)); ``interactions`` is its size-2 block as a
    symmetric matrix where all pairs were computed.

    Indexing follows numpy on ``values``, one key per axis, with names
    accepted for features and outputs and lists/arrays selecting a block on
    every axis (never numpy's pointwise pairing): ``e[0]`` is the first
    instance, ``e[:, "bmi"]`` one feature for all instances, ``e[:10, [0, 2]]``
    a block, ``e[..., "class_1"]`` or ``e[:, :, 1]`` one output (an ordinary
    (n, d) Explanation; the chosen output's name is recorded in
    ``meta["output"]``). Every array above is sliced consistently:
    interactions and covariance select the same features on both feature
    axes and are dropped when a single feature is picked by an integer or a
    name (the single feature's ``stderr`` remains); ``joint_covariance`` is
    sliced exactly while both the instance and the feature axis remain and
    dropped as soon as one of them is indexed by a single integer (the
    per-instance ``covariance`` remains); ``interaction_orders`` keep the sets
    within the kept features (``e[:, ["a", "b", "c"]]`` keeps the pairs and
    triples of a, b and c, renumbered) and are dropped with a single feature.

    Examples
    --------
    Explanations usually come from :func:`kernelxai.explain`; made by hand:

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> e = kx.Explanation([[1.0, -0.5, 2.0], [0.0, 1.5, -1.0]], base_values=10.0,
    ...                    data=[[3, 1, 0], [2, 2, 1]], feature_names=["age", "bmi", "bp"])
    >>> e, e.output   # base value plus the sum over the features
    (Explanation(shape=(2, 3), method='?'), array([12.5, 10.5]))
    >>> e[0].values, e[:, "bmi"].values
    (array([ 1. , -0.5,  2. ]), array([-0.5,  1.5]))
    >>> e.to_frame()
       age  bmi   bp
    0  1.0 -0.5  2.0
    1  0.0  1.5 -1.0

    With an output axis (a classifier's two classes):

    >>> m = kx.Explanation(np.zeros((2, 3, 2)), base_values=0.5, output_names=["no", "yes"])
    >>> m.axes, m[..., "yes"]
    (('instance', 'feature', 'output'), Explanation(shape=(2, 3), method='?', output='yes'))
    """

    def __init__(self, values: ArrayLike, base_values: float | ArrayLike = 0.0, data: ArrayLike | None = None,  # noqa: PLR0913 - the arrays and names of one explanation, as shap.Explanation's constructor
                 feature_names: Sequence[str] | None = None, stderr: ArrayLike | None = None,
                 lower: ArrayLike | None = None, upper: ArrayLike | None = None, meta: Mapping[str, Any] | None = None,
                 *, output_names: Sequence[str] | None = None, interactions: ArrayLike | None = None,
                 covariance: ArrayLike | None = None, joint_covariance: ArrayLike | None = None,
                 axes: Sequence[str] | None = None, interaction_orders: Interactions | None = None) -> None:
        values = np.asarray(values, dtype=float)
        self._axes = axes = self._infer_axes(values, output_names, axes)
        self.values = values
        size = dict(zip(axes, values.shape))
        self.base_values = _base_values(base_values, axes, size)
        self.data = _cell_data(data, axes, size)
        for name, arr in (("stderr", stderr), ("lower", lower), ("upper", upper)):
            if arr is not None:
                arr = np.asarray(arr, dtype=float)
                if arr.shape != values.shape:
                    raise ValueError(
                        f"{name} must have the shape of values {values.shape}; got {arr.shape}"
                    )
            setattr(self, name, arr)
        self.feature_names = _feature_names(feature_names, size.get("feature", 1))
        self.output_names = _output_names(output_names, size["output"]) if "output" in axes else output_names

        # blocks
        self.joint_covariance = self._check_joint(joint_covariance, values.shape)
        self.interactions = self._check_block("interactions", interactions)
        self.covariance = self._check_block("covariance", self._covariance_of_joint(covariance))
        if self.stderr is None and self.covariance is not None:
            self.stderr = np.sqrt(np.clip(self._block_diagonal(self.covariance), 0.0, None))
        self.meta = dict(meta or {})
        self._interaction_orders = None
        self.interaction_orders = interaction_orders

    # ------------------------------------------------------------- validation
    @staticmethod
    def _infer_axes(values, output_names, axes) -> tuple[str, ...]:
        if axes is not None:
            axes = tuple(axes)
            if len(set(axes)) != len(axes) or any(a not in AXES for a in axes) or \
                    list(axes) != [a for a in AXES if a in axes]:
                raise ValueError(
                    f"axes must be a subsequence of {AXES} in that order; got {axes}"
                )
        elif values.ndim > 3:
            raise ValueError(
                f"values must be (n, d), (d,), (n, d, k) or (d, k); got shape {values.shape}"
            )
        elif values.ndim == 3:
            axes = AXES
        elif output_names is not None:
            if values.ndim != 2:
                raise ValueError(
                    "with output_names, values must be (n, d, k) or, for a single instance, "
                    f"(d, k); got shape {values.shape}"
                )
            axes = ("feature", "output")
        else:
            axes = ("instance", "feature")[2 - values.ndim:]
        if len(axes) != values.ndim:
            raise ValueError(f"axes {axes} do not match values of shape {values.shape}")
        if output_names is not None and "output" not in axes:
            raise ValueError(
                f"output_names were given but values of shape {values.shape} have no output axis "
                f"(axes {axes})"
            )
        return axes

    def _block_axes(self):
        """Axis labels of an interaction / covariance block."""
        return block_axes(self._axes)

    def _block_shape(self):
        return block_shape(self._axes, self.values.shape)

    def _block_diagonal(self, block):
        """The diagonal of a block, laid out like ``values``."""
        p = self._axes.index("feature")
        return np.moveaxis(np.diagonal(block, axis1=p, axis2=p + 1), -1, p)

    def _check_block(self, name, block):
        if block is None:
            return None
        if "feature" not in self._axes:
            raise ValueError(f"{name} need a feature axis; values have axes {self._axes}")
        block = np.asarray(block, dtype=float)
        expected = self._block_shape()
        if block.shape != expected:
            raise ValueError(
                f"{name} must have shape {expected} ({' x '.join(self._block_axes())}); "
                f"got {block.shape}"
            )
        if not np.all(np.isfinite(block)):
            raise ValueError(f"{name} must be finite; got {int(np.sum(~np.isfinite(block)))} "
                             "non-finite entries")
        p = self._axes.index("feature")
        tol = 1e-12 * _max_abs(block)
        asym = _max_abs(block - np.swapaxes(block, p, p + 1))
        if asym > tol:
            raise ValueError(
                f"{name} must be symmetric in the two feature axes (to 1e-12 relative); "
                f"the largest asymmetry is {asym:.3g}"
            )
        diagonal = self._block_diagonal(block)
        if name == "interactions" and _max_abs(diagonal) > tol:
            raise ValueError(
                f"interactions must have a zero diagonal (a feature does not interact with "
                f"itself); the largest diagonal entry is {_max_abs(diagonal):.3g}"
            )
        if name == "covariance" and diagonal.size and diagonal.min() < -tol:
            raise ValueError(
                f"covariance must have a non-negative diagonal (variances); got {diagonal.min():.3g}"
            )
        return block

    def _covariance_of_joint(self, covariance):
        """``covariance``, or the diagonal blocks of ``joint_covariance`` (which it must then equal)."""
        if self.joint_covariance is None:
            return covariance
        blocks = self._joint_diagonal_blocks(self.joint_covariance)
        if covariance is None:
            return blocks
        covariance = np.asarray(covariance, dtype=float)
        if blocks.shape == covariance.shape and not np.allclose(
                blocks, covariance, rtol=1e-9, atol=1e-12 * _max_abs(blocks)):
            raise ValueError(
                "covariance must equal the diagonal blocks of joint_covariance; they differ by "
                f"up to {_max_abs(blocks - covariance):.3g}"
            )
        return covariance

    def _check_joint(self, joint, shape):
        if joint is None:
            return None
        if "instance" not in self._axes or "feature" not in self._axes:
            raise ValueError(
                "joint_covariance needs an instance and a feature axis; values have axes "
                f"{self._axes} (give a single instance's covariance as covariance=)"
            )
        joint = np.asarray(joint, dtype=float)
        cells = shape[0] * shape[1]
        expected = (cells, cells) + shape[2:]
        if joint.shape != expected:
            raise ValueError(
                f"joint_covariance must have shape {expected} (instance*feature x "
                f"instance*feature{' x output' if len(shape) == 3 else ''}); got {joint.shape}"
            )
        if not np.all(np.isfinite(joint)):
            raise ValueError("joint_covariance must be finite")
        tol = 1e-12 * _max_abs(joint)
        asym = _max_abs(joint - np.swapaxes(joint, 0, 1))
        if asym > tol:
            raise ValueError(
                f"joint_covariance must be symmetric (to 1e-12 relative); the largest asymmetry "
                f"is {asym:.3g}"
            )
        diagonal = np.diagonal(joint, axis1=0, axis2=1)
        if diagonal.size and diagonal.min() < -tol:
            raise ValueError(
                f"joint_covariance must have a non-negative diagonal; got {diagonal.min():.3g}"
            )
        return joint

    def _joint_diagonal_blocks(self, joint):
        n, d = self.values.shape[:2]
        four = joint.reshape((n, d, n, d) + joint.shape[2:])
        return np.moveaxis(np.diagonal(four, axis1=0, axis2=2), -1, 0)

    # ------------------------------------------------------------------ views
    @property
    def axes(self) -> tuple[str, ...]:
        """Names of the axes of ``values``, e.g. ``("instance", "feature", "output")``."""
        return self._axes

    @property
    def shape(self) -> tuple[int, ...]:
        return self.values.shape

    def __len__(self):
        return len(self.values)

    @property
    def has_outputs(self) -> bool:
        """Whether ``values`` has an output axis."""
        return "output" in self._axes

    @property
    def output(self) -> np.ndarray | float:
        """The explained quantity: ``base_values`` + ``values`` summed over the feature axis."""
        if "feature" in self._axes:
            return self.base_values + self.values.sum(axis=self._axes.index("feature"))
        return self.base_values + self.values

    @property
    def has_intervals(self) -> bool:
        return self.lower is not None and self.upper is not None

    @property
    def statistic(self) -> float | None:
        """The explained statistic (e.g. :math:`\\mathrm{MMD}^2` or HSIC) when the values split one; else None.

        Read from ``meta["statistic"]`` (set by :func:`kernelxai.explain_mmd`,
        :func:`kernelxai.explain_hsic`, ...); its name is ``meta["statistic_name"]``.
        """
        return self.meta.get("statistic")

    @property
    def p_value(self) -> float | None:
        """The statistic's permutation-test p-value (``meta["p_value"]``); None when absent.

        NaN when the test was skipped (``n_permutations=0``).
        """
        return self.meta.get("p_value")

    @property
    def interaction_orders(self) -> Interactions | None:
        """Interactions of any order, one block per set size (:class:`~kernelxai.explanation.Interactions`), or None.

        ``kx.explain_interactions`` and ``kx.shapley_interactions`` set it: per set size t the
        sets and their values -- ``"dense"`` (all C(d, t) sets, lexicographic; values (n, C(d, t))),
        ``"sets"`` (the sets asked for with ``sets=``) or ``"top"`` (each point's ``top=``
        largest). ``e.interaction_orders[3]`` is the block of triples,
        ``e.interaction_orders.value_of(("age", "bmi", "bp"))`` one set's values,
        ``e.interaction_orders.to_frame()`` one row per point x set. Slicing the Explanation
        by feature keeps the sets within the kept features.

        An Explanation that holds only the pairwise block ``interactions`` (the order-2 routes
        of SII, k-SII, STII and FSII, or one made by hand) gets it made from that block on
        access: the pairs as size 2, and ``values`` as size 1 when ``meta["interaction_sizes"]``
        lists 1 (k-SII, STII and FSII, whose order 2 means sizes 1 and 2).
        """
        if self._interaction_orders is not None:
            return self._interaction_orders
        if self.interactions is None:
            return None
        return self._orders_from_pairs()

    @interaction_orders.setter
    def interaction_orders(self, orders: Interactions | None) -> None:
        if orders is None:
            self._interaction_orders = None
            return
        if not isinstance(orders, Interactions):
            raise TypeError(f"interaction_orders must be a kernelxai.explanation.Interactions; got "
                            f"{type(orders).__name__}")
        if "feature" not in self._axes:
            raise ValueError(f"interaction_orders need a feature axis; values have axes {self._axes}")
        size = dict(zip(self._axes, self.values.shape))
        expected = tuple(a for a in self._axes if a != "feature")
        if orders.axes != expected:
            raise ValueError(f"interaction_orders must have the axes {expected} of values besides the features; "
                             f"got {orders.axes}")
        if orders.feature_names != list(self.feature_names):
            raise ValueError(f"interaction_orders name the features {orders.feature_names}; the values "
                             f"{list(self.feature_names)}")
        for b in orders.blocks.values():
            if "instance" in size and b.values.shape[0] != size["instance"]:
                raise ValueError(f"interaction_orders hold {b.values.shape[0]} points; values {size['instance']}")
            if "output" in size and b.values.shape[-1] != size["output"]:
                raise ValueError(f"interaction_orders hold {b.values.shape[-1]} outputs; values {size['output']}")
        self._interaction_orders = orders

    def _orders_from_pairs(self) -> Interactions:
        """The pairwise block (and the values, where ``meta["interaction_sizes"]`` says so) as Interactions."""
        p = self._axes.index("feature")
        d = self.values.shape[p]
        i, j = np.triu_indices(d, 1)
        pairs = self.interactions[(slice(None),) * p + (i, j)]
        blocks = [InteractionBlock(2, np.stack([i, j], axis=1), pairs, "dense")]
        if 1 in tuple(self.meta.get("interaction_sizes", (2,))):
            blocks.append(InteractionBlock(1, np.arange(d)[:, None], self.values, "dense"))
        return Interactions(blocks, self.feature_names, index=self.meta.get("index"),
                            order=self.meta.get("order"), axes=tuple(a for a in self._axes if a != "feature"))

    # --------------------------------------------------------------- indexing
    def __getitem__(self, key):
        keys = self._expand(key)
        size = dict(zip(self._axes, self.values.shape))
        norm = {axis: self._normalise(axis, k, size[axis]) for axis, k in zip(self._axes, keys)}
        kept = tuple(a for a in self._axes if not _is_int(norm[a]))
        sub = self._sliced_arrays(norm, kept)
        base = _take(np.asarray(self.base_values), tuple(a for a in self._axes if a != "feature"), norm)
        meta = self._sliced_meta(norm, kept)
        names = self.feature_names
        if "feature" in self._axes:
            names = list(np.atleast_1d(np.asarray(self.feature_names, dtype=object)[norm["feature"]]))
        outputs = None
        if "output" in self._axes:
            picked = np.asarray(self.output_names, dtype=object)[norm["output"]]
            if "output" in kept:
                outputs = list(picked)
            else:
                meta["output"] = str(picked)
        return Explanation(sub.pop("values"), base, feature_names=names, meta=meta,
                           output_names=outputs, axes=kept, **sub)

    def _sliced_arrays(self, norm, kept):
        """The per-cell arrays, data, blocks and joint covariance at the normalised keys ``norm``."""
        sub = {name: (None if getattr(self, name) is None else _take(getattr(self, name), self._axes, norm))
               for name in _PER_CELL}
        if self.data is not None:
            sub["data"] = _take(self.data, tuple(a for a in self._axes if a != "output"), norm)
        if "feature" in kept:
            for name in _BLOCKS:
                if getattr(self, name) is not None:
                    sub[name] = _take(getattr(self, name), self._block_axes(), norm)
        if self._interaction_orders is not None:
            sub["interaction_orders"] = self._interaction_orders.take(
                norm.get("instance"), norm.get("feature"), norm.get("output"))
        if self.joint_covariance is not None and "instance" in kept and "feature" in kept:
            n, d = self.values.shape[:2]
            cells = (np.arange(n)[norm["instance"]][:, None] * d
                     + np.arange(d)[norm["feature"]][None, :]).ravel()
            sub["joint_covariance"] = _take(self.joint_covariance[cells][:, cells],
                                            (None, None) + tuple(a for a in self._axes if a == "output"), norm)
        return sub

    def _sliced_meta(self, norm, kept):
        """``meta`` with its per-cell and per-block arrays sliced along (blocks dropped with the feature axis)."""
        meta = dict(self.meta)
        for key, arr in self.meta.items():
            if not isinstance(arr, np.ndarray) or arr.ndim == 0:
                continue
            if arr.shape == self.values.shape:
                meta[key] = _take(arr, self._axes, norm)
            elif arr.shape == self._block_shape():
                if "feature" in kept:
                    meta[key] = _take(arr, self._block_axes(), norm)
                else:
                    del meta[key]
        return meta

    def _expand(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        n_axes = len(self._axes)
        ellipses = [i for i, k in enumerate(keys) if k is Ellipsis]
        if len(ellipses) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        if ellipses:
            i = ellipses[0]
            fill = n_axes - (len(keys) - 1)
            if fill < 0:
                raise IndexError(
                    f"this Explanation has {n_axes} axes {self._axes}; got {len(keys) - 1} indices "
                    "besides '...'"
                )
            keys = keys[:i] + (slice(None),) * fill + keys[i + 1:]
        if len(keys) > n_axes:
            raise IndexError(
                f"this Explanation has {n_axes} axes {self._axes}; got {len(keys)} indices"
            )
        return keys + (slice(None),) * (n_axes - len(keys))

    def _normalise(self, axis, key, length):
        """An int (the axis is dropped), a slice or a 1-D integer array (the axis is kept)."""
        if key is None:
            raise IndexError("an Explanation cannot take new axes (None / np.newaxis)")
        if isinstance(key, slice):
            if any(isinstance(b, str) for b in (key.start, key.stop)):
                raise IndexError(f"slices by name are not supported on the {axis} axis; got {key}")
            return key
        if isinstance(key, (str, numbers.Integral, np.integer)) and not isinstance(key, (bool, np.bool_)):
            return self._position(axis, key)
        if isinstance(key, (list, tuple)) and not all(isinstance(k, (bool, np.bool_)) for k in key):
            return np.array([self._position(axis, k) for k in key], dtype=int)
        return self._normalise_array(axis, np.asarray(key), length)

    def _normalise_array(self, axis, arr, length):
        """A boolean mask, integer array or array of names on ``axis``: a 1-D integer array."""
        if arr.dtype == bool and arr.ndim:
            if arr.shape != (length,):
                raise IndexError(
                    f"a boolean mask on the {axis} axis must have length {length}; got shape {arr.shape}"
                )
            return np.flatnonzero(arr)
        if arr.ndim != 1:
            raise IndexError(f"index arrays must be 1-D; got shape {arr.shape} on the {axis} axis")
        if arr.size == 0 or arr.dtype.kind in "iu":
            return arr.astype(int)
        return np.array([self._position(axis, k) for k in arr.tolist()], dtype=int)

    def _position(self, axis, k):
        """The position of one key on ``axis``: an int, or a feature / output name."""
        names = {"feature": self.feature_names, "output": self.output_names}.get(axis)
        if isinstance(k, str):
            if names is None:
                raise IndexError(
                    f"names select features or outputs, not {axis}s; got {k!r} on the {axis} "
                    f"axis (axes are {self._axes}; e.g. e[:, {k!r}] or e[..., {k!r}])"
                )
            if k not in names:
                raise KeyError(f"unknown {axis} {k!r}; {axis}s are {names}")
            return names.index(k)
        if _is_int(k):
            return int(k)
        raise IndexError(
            f"cannot index the {axis} axis with {k!r} ({type(k).__name__}); use an int, "
            "a name, a slice, a list, or a boolean mask"
        )

    # ------------------------------------------------------------ conversions
    def to_frame(self) -> pd.DataFrame:
        """The values as a pandas DataFrame.

        Without outputs: one column per feature (one row per instance); for a
        single instance, one row per feature with the value, data, standard
        error and bounds where available. With outputs: one row per instance
        (one row for a single instance) and a column MultiIndex
        ``(output, feature)``.
        """
        return _interop.to_frame(self)

    def interactions_frame(self) -> pd.DataFrame:
        """The interaction block in long format, one row per pair ``i < j``.

        Columns ``instance``, (``output`` when there are outputs),
        ``feature_i``, ``feature_j``, ``value``; a single instance is
        instance 0.

        Raises
        ------
        ValueError
            When the Explanation has no interaction block.
        """
        return _interop.interactions_frame(self)

    def to_shap(self) -> shap.Explanation:
        """Convert to ``shap.Explanation`` (needs the optional ``shap`` package).

        Carries values, base values, data, feature names, output names (with
        outputs), ``lower``/``upper`` as ``lower_bounds``/``upper_bounds`` and
        ``stderr`` as ``error_std``. shap has no field for metadata, so
        :attr:`meta` is attached as the attribute ``kernelxai_meta`` (shap's
        own slicing does not carry it). Interactions and covariances are not
        converted: shap's interaction values are a different decomposition
        (main effects on the diagonal).
        """
        return _interop.to_shap(self)

    def to_shapiq(self) -> shapiq.InteractionValues | list[shapiq.InteractionValues]:
        """Convert the interactions of any order to ``shapiq.InteractionValues`` (optional package shapiq).

        One ``InteractionValues`` per instance (a list for several): the empty
        coalition holds the base value (also shapiq's ``baseline_value``), order-1
        entries the ``values``, and every set of :attr:`interaction_orders` its value
        (for pairwise results ``interactions[i, j]``, i < j), with the index named in
        ``meta["index"]`` (any of kernelxai's sixteen names, which are shapiq's),
        ``max_order`` the largest size held and ``estimated`` False for exact routes.
        Sizes not computed are absent (shapiq reads an absent set as 0). Single
        output only; :meth:`from_shapiq` converts back.
        """
        return _interop.to_shapiq(self)

    @classmethod
    def from_shapiq(cls, interaction_values: Any, feature_names: Sequence[str] | None = None) -> Explanation:
        """An Explanation from ``shapiq.InteractionValues`` of any order (one, or a list: one per point).

        ``values`` are the single players' entries, ``base_values`` shapiq's
        ``baseline_value``, :attr:`interaction_orders` every size >= 2 present (and size 1
        for k-SII, STII, FSII and FBII, whose order means all sizes up to k): dense where all
        C(d, t) sets are present, by set where every point has the same sets, per point
        (``"top"``, not certified) otherwise; ``interactions`` (n, d, d) when all pairs are
        present. ``meta`` records ``index``, ``order`` (``max_order``), ``exact`` and the
        source. shapiq itself is not imported.

        Parameters
        ----------
        interaction_values : shapiq.InteractionValues or list of them
            A list gives one point per element (as :meth:`to_shapiq` returns for several).
        feature_names : list of str, optional
            Default ``"x0", "x1", ...``.

        Raises
        ------
        TypeError
            Not InteractionValues (no ``interaction_lookup``, ``values``, ``n_players``, ...).
        ValueError
            An empty list, or points of different numbers of players.
        """
        return cls(**_interop.shapiq_fields(interaction_values, feature_names))

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        """The Explanation as JSON text (written to ``path`` too when given); :meth:`from_json` reads it back.

        Every array (values, base values, data, intervals, blocks, the interactions of any
        order) and ``meta`` round-trip exactly: floats are written with all their digits,
        non-finite numbers, tuples and arrays in ``meta`` are tagged (see
        ``kernelxai.explanation._tagged.encode``). Objects in ``meta`` that are not data
        (a model, a function) are written as their ``repr`` and come back as that string.
        """
        text = json.dumps(self._to_dict(), allow_nan=False)
        if path is not None:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        return text

    @classmethod
    def from_json(cls, source: str | os.PathLike | Mapping[str, Any]) -> Explanation:
        """The Explanation of :meth:`to_json`: from its text, a path to a file of it, or the parsed dict.

        Raises
        ------
        ValueError
            The JSON is not an Explanation written by :meth:`to_json`.
        """
        if isinstance(source, Mapping):
            data = source
        elif isinstance(source, str) and source.lstrip().startswith("{"):
            data = json.loads(source)
        else:
            with open(source, encoding="utf-8") as fh:
                data = json.load(fh)
        if data.get("format") != _JSON_FORMAT:
            raise ValueError(f"not an Explanation written by Explanation.to_json (format {data.get('format')!r}, "
                             f"expected {_JSON_FORMAT!r})")
        fields = {name: decode(data.get(name)) for name in _JSON_ARRAYS}
        orders = data.get("interaction_orders")
        return cls(fields.pop("values"), fields.pop("base_values"), feature_names=data["feature_names"],
                   meta=decode(data.get("meta")), output_names=data.get("output_names"),
                   axes=tuple(data["axes"]), interaction_orders=None if orders is None
                   else Interactions.from_dict(orders), **fields)

    def _to_dict(self) -> dict[str, Any]:
        """The JSON-able dict :meth:`to_json` writes."""
        out = {"format": _JSON_FORMAT, "version": 1, "axes": list(self._axes),
               "feature_names": list(self.feature_names),
               "output_names": None if self.output_names is None else list(self.output_names)}
        for name in _JSON_ARRAYS:
            value = getattr(self, name)
            out[name] = encode(value if isinstance(value, (float, type(None))) else np.asarray(value))
        out["meta"] = encode(self.meta)
        held = self._interaction_orders
        out["interaction_orders"] = None if held is None else held.to_dict()
        return out

    def _statistic_text(self):
        """``"MMD^2_u = 0.031, p = 0.005"``: the statistic and its p-value, for the repr."""
        name = self.meta.get("statistic_name", "statistic")
        text = f"{name} = {float(self.statistic):.3g}"
        p = self.p_value
        if p is None or not np.isfinite(p):
            return f"{text}, p not computed"
        return f"{text}, p = {float(p):.3g}"

    @classmethod
    def concat(cls, pieces: Iterable[Explanation], meta: dict[str, Any] | None = None) -> Explanation:
        """Explanations of different instances, stacked along the instance axis.

        For the pieces of one explanation computed in chunks of rows
        (:mod:`kernelxai.parallel`): values, base values, data, standard errors,
        bounds, interactions (of any order) and per-instance covariances are
        concatenated in order.

        Parameters
        ----------
        pieces : sequence of Explanation
            With an instance axis, the same axes, feature names and output names,
            and the same optional arrays (all or none of them have ``stderr``, ...).
        meta : dict, optional
            The result's ``meta``; default: the first piece's.

        Returns
        -------
        Explanation

        Raises
        ------
        ValueError
            No pieces, pieces that disagree, or a ``joint_covariance`` (the
            covariances between instances of different pieces are unknown).
        """
        pieces = list(pieces)
        _check_pieces(pieces)
        first = pieces[0]

        def stack(name):
            arrays = [getattr(p, name) for p in pieces]
            if all(a is None for a in arrays):
                return None
            if any(a is None for a in arrays):
                raise ValueError(f"{name} is given for some pieces and not for others")
            return np.concatenate([np.asarray(a) for a in arrays], axis=0)

        base = np.concatenate([np.asarray(p.base_values, dtype=float) for p in pieces], axis=0)
        held = [p._interaction_orders for p in pieces]  # noqa: SLF001 - the pieces are Explanations too
        if any(h is None for h in held) and not all(h is None for h in held):
            raise ValueError("interaction_orders are given for some pieces and not for others")
        orders = None if held[0] is None else Interactions.concat(held)
        return cls(stack("values"), base, data=stack("data"), feature_names=first.feature_names,
                   stderr=stack("stderr"), lower=stack("lower"), upper=stack("upper"),
                   meta=dict(first.meta) if meta is None else meta,
                   output_names=first.output_names, interactions=stack("interactions"),
                   covariance=stack("covariance"), axes=first.axes, interaction_orders=orders)

    @classmethod
    def from_shap(cls, explanation: Any) -> Explanation:
        """Convert a ``shap.Explanation`` (or anything with its attributes) to an Explanation.

        Reads ``values``, ``base_values``, ``data``, ``feature_names``,
        ``output_names``, ``lower_bounds``/``upper_bounds`` (as ``lower``/``upper``)
        and ``error_std`` (as ``stderr``); ``kernelxai_meta`` (left by
        :meth:`to_shap`) becomes :attr:`meta`. shap itself is not imported.

        2-D values are (instances, features) unless they are one instance of
        a multi-output explanation, (features, outputs): recognised by
        ``output_names`` of the trailing length, or by ``feature_names`` whose
        length matches the leading axis only.

        Raises
        ------
        TypeError
            When ``explanation`` has no ``values`` and ``base_values``.
        """
        return cls(**_interop.shap_fields(explanation))

    def __repr__(self):
        method = self.meta.get("method", "?")
        vf = self.meta.get("value_function")
        parts = [f"shape={self.values.shape}", f"method={method!r}"]
        if vf:
            parts.append(f"value_function={vf!r}")
        if self.output_names is not None:
            shown = self.output_names
            if len(shown) > 6:
                shown = [*shown[:3], "...", *shown[-2:]]
            parts.append(f"outputs={shown}")
        elif "output" in self.meta:
            parts.append(f"output={self.meta['output']!r}")
        if self.statistic is not None:
            parts.append(self._statistic_text())
        if self.has_intervals:
            parts.append("with intervals")
        for name in ("interactions", "covariance", "joint_covariance"):
            if getattr(self, name) is not None:
                parts.append(f"with {name.replace('_', ' ')}")
        if self._interaction_orders is not None:
            parts.append(f"with interactions of sizes {self._interaction_orders.sizes}")
        parts += self._guide_text()
        return f"Explanation({', '.join(parts)})"

    def _guide_text(self):
        """A sampled estimate's ``meta["arena_error"]`` in words, with its label (a list of none or one)."""
        guide = self.meta.get("arena_error")
        if not (isinstance(guide, dict) and "relative_squared_error" in guide):
            return []
        return [f"relative squared error ~{guide['relative_squared_error']:.1e} at d={guide.get('d')}, "
                f"budget={guide.get('budget')}: {guide.get('label', 'measured on other models')}"]
