"""Interaction values of any order, as an Explanation holds them: per set size, the sets and their values.

Takes the blocks an interaction route computed (one per set size); hands on
:class:`Interactions`, which :class:`~kernelxai.Explanation` keeps as
``interaction_orders``: looked up by size (``e.interaction_orders[3]``, an
:class:`InteractionBlock`) or by set (:meth:`Interactions.value_of`), sliced with the
Explanation (by point, by feature name -- the sets within the kept features remain --
and by output), stacked by :meth:`Interactions.concat`, and written out as a long table
(:meth:`Interactions.to_frame`) or a JSON-able dict (:meth:`Interactions.to_dict`).

The layout
----------
Sets are rows of player positions (sorted, int64). Every array lays out its axes as the
Explanation does -- instance first, output last -- with the set axis between:

==========  ============================  ==============================  ==========================
layout      ``sets``                      ``values``                      when
==========  ============================  ==============================  ==========================
``dense``   (C(d, t), t), lexicographic   (n, C(d, t)[, k])               all sets of a size
``sets``    (m, t), in the order asked    (n, m[, k])                     ``sets=``: sparse by set
``top``     (n, m, t), per point          (n, m), largest abs first       ``top=``: per point
==========  ============================  ==============================  ==========================

A single point drops the leading ``n``. ``top`` blocks also hold ``certified`` (n,)
(the sets are provably the m largest) and ``evaluated`` (n,) (sets whose value was
computed); entries of a ``top`` block emptied by slicing features are padded with
player -1 and value NaN at the end of the point's row. ``top`` blocks hold one output.
"""

from __future__ import annotations

import itertools
import math
import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from ._tagged import decode, encode

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    import pandas as pd
    from numpy.typing import ArrayLike

__all__ = ["Interactions", "InteractionBlock", "LAYOUTS", "SET_SEPARATOR", "lexicographic_sets"]

#: The layouts of a block (module docstring).
LAYOUTS = ("dense", "sets", "top")
#: How :meth:`Interactions.to_frame` joins the names of a set's features.
SET_SEPARATOR = " × "


def lexicographic_sets(d, t) -> np.ndarray:
    """All sets of size ``t`` of players 0..d-1, one per row, in lexicographic order: (C(d, t), t) int64.

    Examples
    --------
    >>> lexicographic_sets(4, 2).tolist()
    [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    """
    m = math.comb(int(d), int(t))
    flat = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(int(d)), int(t))),
                       dtype=np.int64, count=m * int(t))
    return flat.reshape(m, int(t))


def _is_int(key):
    return isinstance(key, (numbers.Integral, np.integer)) and not isinstance(key, (bool, np.bool_))


class InteractionBlock:
    """The values of the sets of one size ``t`` (see the layouts in the module docstring).

    Parameters
    ----------
    size : int
        t, the number of features of each set.
    sets : int array (m, t) or, for ``"top"``, (n, m, t); None for ``"dense"``
        Rows of feature positions; ``"dense"`` blocks are all C(d, t) sets in lexicographic
        order (made from d when None).
    values : float array
        (n, m[, k]) (or (m[, k]) for a single point), one column per set.
    layout : {"dense", "sets", "top"}
    certified : bool array (n,), optional
        ``"top"`` only: whether the sets are provably the m largest (default False).
    evaluated : int array (n,), optional
        ``"top"`` only: how many sets of this size were computed (default m).
    stderr : float array, optional
        The shape of ``values``: each set's standard error or posterior standard deviation
        (``kx.explain_gp(..., index=...)`` gives the latter); None when not known.

    Attributes
    ----------
    size, sets, values, layout, certified, evaluated, stderr

    Examples
    --------
    >>> from kernelxai.explanation import InteractionBlock
    >>> b = InteractionBlock(2, [[0, 2], [1, 2]], [[0.5, -1.0]], layout="sets")    # two pairs, one point
    >>> b
    InteractionBlock(size=2, layout='sets', sets=(2, 2), values=(1, 2))
    """

    __slots__ = ("size", "layout", "sets", "values", "certified", "evaluated", "stderr")

    def __init__(self, size: int, sets: ArrayLike | None, values: ArrayLike, layout: str = "dense",
                 certified: ArrayLike | None = None, evaluated: ArrayLike | None = None,
                 stderr: ArrayLike | None = None) -> None:
        self.size, self.layout = int(size), layout
        self.sets = None if sets is None else np.asarray(sets, dtype=np.int64)
        self.values = np.asarray(values, dtype=float)
        self.certified = None if certified is None else np.asarray(certified, dtype=bool)
        self.evaluated = None if evaluated is None else np.asarray(evaluated, dtype=np.int64)
        self.stderr = None if stderr is None else np.asarray(stderr, dtype=float)

    def __repr__(self):
        return (f"InteractionBlock(size={self.size}, layout={self.layout!r}, sets={self.sets.shape}, "
                f"values={self.values.shape})")


class Interactions:
    """Interaction values of any order: one :class:`InteractionBlock` per set size.

    Parameters
    ----------
    blocks : dict int -> InteractionBlock, or iterable of InteractionBlock
    feature_names : list of str
        The d features the sets' positions refer to.
    index : str, optional
        The interaction index (``"k-SII"``, ``"Moebius"``, ...).
    order : int, optional
        The order asked for (what it means depends on the index: the user guide's table).
    axes : tuple of str, optional
        The axes of ``values`` besides the set axis: ``("instance",)`` (default when values
        have one more axis than a set axis), ``()`` for a single point, ``("instance",
        "output")`` or ``("output",)`` with outputs.
    covariance : float array, optional
        The covariance between all sets held, per point: (n, M, M[, k]) (or (M, M[, k]) for a
        single point) with M the number of sets of all blocks, rows and columns in the
        order of :meth:`covariance_labels` (the blocks by ascending size, each block's sets in
        its order); not with a ``"top"`` block. ``kx.explain_gp(..., index=...,
        set_covariance=True)`` gives the posterior covariance. Each block's ``stderr``
        (where given) is the square root of its diagonal.

    Raises
    ------
    ValueError
        A layout not in :data:`LAYOUTS`, arrays whose shapes disagree (with each other, with
        d or with ``axes``), a ``"dense"`` block that does not hold C(d, t) sets, a position
        out of range, a ``"top"`` block with an output axis, or a ``covariance`` of another
        shape, not symmetric, or beside a ``"top"`` block.

    Examples
    --------
    Usually from ``kx.explain_interactions(..., order=3)`` as ``e.interaction_orders``; by hand:

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from kernelxai.explanation import InteractionBlock, Interactions
    >>> vals = np.array([[0.5, -1.0, 0.25], [0.0, 2.0, -0.5]])        # 2 points, all 3 pairs of 3 features
    >>> inter = Interactions({2: InteractionBlock(2, None, vals)}, ["a", "b", "c"], index="SII", order=2)
    >>> inter
    Interactions(index='SII', order=2, sizes=[2], layouts=['dense'], features=3, points=2)
    >>> inter.value_of(("c", "a"))
    array([-1.,  2.])
    >>> inter.to_frame().head(3)
       point  order    set  value
    0      0      2  a × b   0.50
    1      0      2  a × c  -1.00
    2      0      2  b × c   0.25
    """

    def __init__(self, blocks: Mapping[int, InteractionBlock] | Iterable[InteractionBlock],
                 feature_names: Sequence[str], *, index: str | None = None, order: int | None = None,
                 axes: Sequence[str] | None = None, covariance: ArrayLike | None = None) -> None:
        items = blocks.values() if isinstance(blocks, dict) else blocks
        self.feature_names = [str(f) for f in feature_names]
        self.index = None if index is None else str(index)
        self.order = None if order is None else int(order)
        self.blocks: dict[int, InteractionBlock] = {}
        for b in items:
            if not isinstance(b, InteractionBlock):
                raise TypeError(f"blocks must be InteractionBlocks; got {type(b).__name__}")
            if b.size in self.blocks:
                raise ValueError(f"two blocks of size {b.size}")
            self.blocks[b.size] = b
        self.blocks = dict(sorted(self.blocks.items()))
        self.axes = self._infer_axes(axes)
        for b in self.blocks.values():
            self._check(b)
        self.covariance = self._check_covariance(covariance)

    # ------------------------------------------------------------- validation
    def _infer_axes(self, axes):
        if axes is not None:
            axes = tuple(axes)
            if axes not in ((), ("instance",), ("output",), ("instance", "output")):
                raise ValueError(f"axes must be (), ('instance',), ('output',) or ('instance', 'output'); "
                                 f"got {axes}")
            return axes
        if not self.blocks:
            return ("instance",)
        extra = next(iter(self.blocks.values())).values.ndim - 1
        return {0: (), 1: ("instance",), 2: ("instance", "output")}.get(extra, ("?",) * extra)

    def _check(self, b):
        if b.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}; got {b.layout!r}")
        self._check_sets(b)
        self._check_values(b)

    def _check_sets(self, b):
        d, t = len(self.feature_names), b.size
        lead = self._lead()
        if b.layout == "dense":
            if b.sets is None:
                b.sets = lexicographic_sets(d, t)
            if b.sets.shape != (math.comb(d, t), t):
                raise ValueError(f"a dense block of size {t} holds all C({d}, {t}) = {math.comb(d, t)} sets; "
                                 f"got sets of shape {b.sets.shape}")
        if b.sets is None:
            raise ValueError(f"a {b.layout!r} block needs its sets")
        if b.layout == "top":
            if "output" in self.axes:
                raise ValueError("a top block holds one output (its sets differ by point); pick one output")
            expected_sets = lead + (b.sets.shape[-2] if b.sets.ndim >= 2 else -1, t)
        else:
            expected_sets = (b.sets.shape[0] if b.sets.ndim else -1, t)
        if b.sets.shape != expected_sets:
            raise ValueError(f"sets of the {b.layout!r} block of size {t} must have shape "
                             f"{tuple('m' if s == -1 else s for s in expected_sets)}; got {b.sets.shape}")
        low = -1 if b.layout == "top" else 0
        if b.sets.size and (b.sets.min() < low or b.sets.max() >= d):
            raise ValueError(f"the block of size {t} names positions outside 0..{d - 1}")

    def _check_values(self, b):
        t, lead = b.size, self._lead()
        m = b.sets.shape[-2]
        expected = lead + (m,) + (() if "output" not in self.axes else (self._n_outputs_of(b),))
        if b.values.shape != expected:
            raise ValueError(f"values of the block of size {t} must have shape {expected} "
                             f"({' x '.join(self._value_axes())}); got {b.values.shape}")
        if b.stderr is not None and b.stderr.shape != b.values.shape:
            raise ValueError(f"stderr of the block of size {t} must have the shape of its values "
                             f"{b.values.shape}; got {b.stderr.shape}")
        if b.layout == "top":
            if b.certified is None:
                b.certified = np.zeros(lead, dtype=bool)
            if b.evaluated is None:
                b.evaluated = np.full(lead, m, dtype=np.int64)
            if b.certified.shape != lead or b.evaluated.shape != lead:
                raise ValueError(f"certified and evaluated of the top block of size {t} must have shape {lead}")
        first = next(iter(self.blocks.values()))
        if first.values.shape[:len(lead)] != b.values.shape[:len(lead)] or (
                "output" in self.axes and first.values.shape[-1] != b.values.shape[-1]):
            raise ValueError("the blocks hold different numbers of points or outputs")

    def _check_covariance(self, covariance):
        if covariance is None:
            return None
        C = np.asarray(covariance, dtype=float)
        if any(b.layout == "top" for b in self.blocks.values()):
            raise ValueError("a covariance between the sets needs the same sets at every point: not with a "
                             "'top' block")
        M = sum(b.sets.shape[0] for b in self.blocks.values())
        outputs = () if "output" not in self.axes else (self._n_outputs_of(next(iter(self.blocks.values()))),)
        expected = self._lead() + (M, M) + outputs
        if C.shape != expected:
            raise ValueError(f"covariance must have shape {expected} (the {M} sets of all blocks on both set "
                             f"axes); got {C.shape}")
        p = len(self._lead())
        asym = np.max(np.abs(C - np.swapaxes(C, p, p + 1)), initial=0.0)
        if not np.all(np.isfinite(C)) or asym > 1e-12 * max(np.max(np.abs(C), initial=0.0), 1e-300):
            raise ValueError("covariance must be finite and symmetric in its two set axes")
        return C

    def covariance_labels(self) -> list[str]:
        """The sets in the order of the rows and columns of :attr:`covariance`: the blocks by ascending
        size, each block's sets in its order (names joined by :data:`SET_SEPARATOR`, "" for the empty set).

        Raises
        ------
        ValueError
            With a ``"top"`` block (its sets differ by point).
        """
        if any(b.layout == "top" for b in self.blocks.values()):
            raise ValueError("top blocks hold different sets at every point; read .sets of each block")
        out = []
        for t, b in self.blocks.items():
            out += self.labels(b.sets) if t else [""] * len(b.sets)
        return out

    def _lead(self) -> tuple[int, ...]:
        """The shape of the instance axis ((n,) or ())."""
        if "instance" not in self.axes:
            return ()
        first = next(iter(self.blocks.values()), None)
        return () if first is None else first.values.shape[:1]

    def _n_outputs_of(self, b) -> int:
        return int(b.values.shape[-1]) if b.values.ndim else 0

    def _value_axes(self):
        return [a for a in self.axes if a == "instance"] + ["set"] + [a for a in self.axes if a == "output"]

    # ------------------------------------------------------------------ views
    @property
    def sizes(self) -> list[int]:
        """The set sizes held, ascending."""
        return list(self.blocks)

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def n_instances(self) -> int | None:
        """Points (None for a single point)."""
        lead = self._lead()
        return lead[0] if lead else None

    def __getitem__(self, size) -> InteractionBlock:
        if size not in self.blocks:
            raise KeyError(f"no sets of size {size!r} here; sizes held: {self.sizes}")
        return self.blocks[size]

    def __contains__(self, size):
        return size in self.blocks

    def __iter__(self):
        return iter(self.blocks)

    def __len__(self):
        return len(self.blocks)

    def __repr__(self):
        parts = [f"index={self.index!r}", f"order={self.order}", f"sizes={self.sizes}",
                 f"layouts={[b.layout for b in self.blocks.values()]}", f"features={self.n_features}"]
        if self.n_instances is not None:
            parts.append(f"points={self.n_instances}")
        if "output" in self.axes:
            parts.append("with outputs")
        if any(b.stderr is not None for b in self.blocks.values()):
            parts.append("with stderr")
        if self.covariance is not None:
            parts.append("with covariance")
        return f"Interactions({', '.join(parts)})"

    def positions(self, members: str | int | Iterable[str | int]) -> tuple[int, ...]:
        """A set given by feature names or positions, as sorted positions."""
        members = (members,) if isinstance(members, (str, numbers.Integral)) else tuple(members)
        out = []
        for p in members:
            if isinstance(p, str):
                if p not in self.feature_names:
                    raise KeyError(f"unknown feature {p!r}; features are {self.feature_names}")
                out.append(self.feature_names.index(p))
            elif _is_int(p) and 0 <= int(p) < self.n_features:
                out.append(int(p))
            else:
                raise KeyError(f"{p!r} is neither a feature name nor a position in 0..{self.n_features - 1}")
        if len(set(out)) != len(out):
            raise KeyError(f"{members!r} names a feature twice")
        return tuple(sorted(out))

    def value_of(self, members: str | int | Iterable[str | int]) -> np.ndarray:
        """The values of one set (feature names or positions, any order) at every point.

        Returns
        -------
        ndarray (n[, k]) (a float array of shape () or (k,) for a single point)
            For a ``"top"`` block NaN at points whose top sets do not include it.

        Raises
        ------
        KeyError
            No block of the set's size, or a ``"dense"``/``"sets"`` block without the set.
        """
        s = np.asarray(self.positions(members), dtype=np.int64)
        b = self[len(s)]
        if b.layout == "top":
            hit = (b.sets == s).all(axis=-1)                       # (n, m)
            vals = np.where(hit, b.values, 0.0).sum(axis=-1)
            return np.where(hit.any(axis=-1), vals, np.nan)
        where = np.flatnonzero((b.sets == s).all(axis=1)) if len(s) else np.arange(len(b.sets))[:1]
        if not len(where):
            raise KeyError(f"the set {tuple(self.feature_names[j] for j in s)} is not among those held")
        p = 1 if "instance" in self.axes else 0
        return np.take(b.values, where[0], axis=p)

    def labels(self, sets: ArrayLike) -> list[str]:
        """The sets' names: the feature names of each row joined by :data:`SET_SEPARATOR` ("" for the empty set)."""
        names, sets = self.feature_names, np.asarray(sets)
        return [SET_SEPARATOR.join(names[j] for j in row) for row in sets.reshape(-1, sets.shape[-1])]

    # ------------------------------------------------------------ conversions
    def to_frame(self) -> pd.DataFrame:
        """One row per point x set (x output): columns ``point``, (``output``), ``order``, ``set``, ``value``
        (and ``stderr`` when a block holds standard errors; NaN in the blocks without).

        ``order`` is the set's size and ``set`` its features' names joined by
        :data:`SET_SEPARATOR`; a single point is point 0; padded ``"top"`` entries are left out.
        Rows by point, then size, then the block's order of sets.
        """
        import pandas as pd

        frames = []
        outputs = "output" in self.axes
        with_stderr = any(b.stderr is not None for b in self.blocks.values())
        for t, b in self.blocks.items():
            vals = b.values if "instance" in self.axes else b.values[None]
            errs = np.full(vals.shape, np.nan) if b.stderr is None else \
                (b.stderr if "instance" in self.axes else b.stderr[None])
            n, m = vals.shape[:2]
            if b.layout == "top":
                sets = b.sets if "instance" in self.axes else b.sets[None]
                keep = (sets >= 0).all(axis=-1) if t else np.ones((n, m), bool)
                rows, cols = np.nonzero(keep)
                labels = np.asarray(self.labels(sets[rows, cols].reshape(-1, t)) if t else [""] * len(rows),
                                    dtype=object)
                frames.append(pd.DataFrame({"point": rows, "order": t, "set": labels,
                                            "value": vals[rows, cols], "stderr": errs[rows, cols]}))
                continue
            labels = np.asarray(self.labels(b.sets) if t else [""] * m, dtype=object)
            if outputs:
                k = vals.shape[2]
                frames.append(pd.DataFrame({
                    "point": np.repeat(np.arange(n), m * k),
                    "output": np.tile(np.repeat(np.arange(k), m), n),
                    "order": t, "set": np.tile(labels, n * k),
                    "value": vals.transpose(0, 2, 1).reshape(-1), "stderr": errs.transpose(0, 2, 1).reshape(-1)}))
            else:
                frames.append(pd.DataFrame({"point": np.repeat(np.arange(n), m), "order": t,
                                            "set": np.tile(labels, n), "value": vals.reshape(-1),
                                            "stderr": errs.reshape(-1)}))
        columns = ["point"] + (["output"] if outputs else []) + ["order", "set", "value"] \
            + (["stderr"] if with_stderr else [])
        if not frames:
            return pd.DataFrame({c: [] for c in columns})
        frame = pd.concat(frames, ignore_index=True)
        frame = frame.sort_values(["point"] + (["output"] if outputs else []), kind="stable")
        return frame.reset_index(drop=True)[columns]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (arrays tagged, non-finite numbers kept); :meth:`from_dict` reads it back exactly."""
        blocks = []
        for b in self.blocks.values():
            entry = {"size": b.size, "layout": b.layout, "values": encode(b.values),
                     "sets": None if b.layout == "dense" else encode(b.sets)}
            if b.layout == "top":
                entry["certified"] = encode(b.certified)
                entry["evaluated"] = encode(b.evaluated)
            if b.stderr is not None:
                entry["stderr"] = encode(b.stderr)
            blocks.append(entry)
        out = {"index": self.index, "order": self.order, "feature_names": list(self.feature_names),
               "axes": list(self.axes), "blocks": blocks}
        if self.covariance is not None:
            out["covariance"] = encode(self.covariance)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Interactions:
        """The :class:`Interactions` of :meth:`to_dict`."""
        blocks = [InteractionBlock(e["size"], None if e["sets"] is None else decode(e["sets"]),
                                   decode(e["values"]), e["layout"],
                                   decode(e.get("certified")), decode(e.get("evaluated")), decode(e.get("stderr")))
                  for e in data["blocks"]]
        return cls(blocks, data["feature_names"], index=data.get("index"), order=data.get("order"),
                   axes=tuple(data["axes"]), covariance=decode(data.get("covariance")))

    # ---------------------------------------------------------------- slicing
    def take(self, instance: int | slice | ArrayLike | None = None, feature: int | slice | ArrayLike | None = None,
             output: int | slice | ArrayLike | None = None) -> Interactions | None:
        """The blocks at normalised keys, as :class:`~kernelxai.Explanation` slices them.

        Each key is None (all), an int (the axis is dropped), a slice or a 1-D int array.
        Features: the sets within the kept features remain, renumbered (a ``"dense"`` block
        stays dense, in the new lexicographic order); None when one feature is picked by an
        int or a feature is repeated (sets of one feature twice have no value).
        """
        if feature is not None and _is_int(feature):
            return None
        d = self.n_features
        F = np.arange(d) if feature is None else np.arange(d)[feature]
        if len(np.unique(F)) != len(F):
            return None
        identity = len(F) == d and bool(np.all(F == np.arange(d)))
        axes = list(self.axes)
        has_instance = "instance" in self.axes and not _is_int(instance)
        blocks = [self._take_block(b, instance, output, None if identity else F, has_instance)
                  for b in self.blocks.values()]
        covariance = None
        if self.covariance is not None:
            covariance = self.covariance
            if "instance" in self.axes and instance is not None:
                covariance = covariance[instance]
            if "output" in self.axes and output is not None:
                covariance = covariance[..., output]
            if not identity:    # the positions of the kept sets, in their new order
                kept, offset = [], 0
                for t, b in self.blocks.items():
                    moved, _ = _remap(b.layout, t, np.arange(len(b.sets), dtype=float), b.sets, F, d, 0)
                    kept.append(offset + moved.astype(np.int64))
                    offset += len(b.sets)
                where, p = np.concatenate(kept), 1 if has_instance else 0
                covariance = np.take(np.take(covariance, where, axis=p), where, axis=p + 1)
        if "instance" in self.axes and _is_int(instance):
            axes.remove("instance")
        if "output" in self.axes and _is_int(output):
            axes.remove("output")
        names = [self.feature_names[j] for j in F]
        return Interactions(blocks, names, index=self.index, order=self.order, axes=tuple(axes),
                            covariance=covariance)

    def _take_block(self, b, instance, output, F, has_instance) -> InteractionBlock:
        """One block at the keys; ``F`` the kept features (None: all, in order)."""
        arrays = [b.values] + ([] if b.stderr is None else [b.stderr])
        sets, cert, ev = b.sets, b.certified, b.evaluated
        if "instance" in self.axes and instance is not None:
            arrays = [a[instance] for a in arrays]
            if b.layout == "top":
                sets, cert, ev = sets[instance], cert[instance], ev[instance]
        if "output" in self.axes and output is not None:
            arrays = [a[..., output] for a in arrays]
        if F is not None:
            remapped = [_remap(b.layout, b.size, a, sets, F, self.n_features, 1 if has_instance else 0)
                        for a in arrays]
            arrays, sets = [r[0] for r in remapped], remapped[0][1]
        return InteractionBlock(b.size, sets, arrays[0], b.layout, cert, ev, arrays[1] if len(arrays) > 1 else None)

    @classmethod
    def concat(cls, pieces: Iterable[Interactions]) -> Interactions:
        """The blocks of consecutive points stacked along the instance axis (same sets, sizes and layouts)."""
        pieces = list(pieces)
        first = pieces[0]
        for p in pieces:
            if "instance" not in p.axes or p.axes != first.axes or p.feature_names != first.feature_names \
                    or p.sizes != first.sizes or p.index != first.index or p.order != first.order:
                raise ValueError("Interactions.concat joins pieces of the same index, order, sizes, features and "
                                 "axes, each with an instance axis")
        blocks = []
        for t, b in first.blocks.items():
            parts = [p.blocks[t] for p in pieces]
            if any(q.layout != b.layout for q in parts):
                raise ValueError(f"the blocks of size {t} have different layouts")
            if b.layout == "top":
                if len({q.sets.shape[1:] for q in parts}) > 1:
                    raise ValueError(f"the top blocks of size {t} hold different numbers of sets")
                blocks.append(InteractionBlock(
                    t, np.concatenate([q.sets for q in parts]), np.concatenate([q.values for q in parts]),
                    "top", np.concatenate([q.certified for q in parts]),
                    np.concatenate([q.evaluated for q in parts]), _joined([q.stderr for q in parts], t)))
                continue
            if any(not np.array_equal(q.sets, b.sets) for q in parts):
                raise ValueError(f"the blocks of size {t} hold different sets")
            blocks.append(InteractionBlock(t, b.sets, np.concatenate([q.values for q in parts]), b.layout,
                                           stderr=_joined([q.stderr for q in parts], t)))
        covariance = _joined([p.covariance for p in pieces], "covariance")
        return cls(blocks, first.feature_names, index=first.index, order=first.order, axes=first.axes,
                   covariance=covariance)

    @classmethod
    def stack_outputs(cls, pieces: Iterable[Interactions]) -> Interactions:
        """The blocks of one output each, stacked on a trailing output axis (same sets; no ``"top"``)."""
        pieces = list(pieces)
        first = pieces[0]
        if any("output" in p.axes or p.sizes != first.sizes or p.feature_names != first.feature_names
               for p in pieces):
            raise ValueError("stack_outputs joins pieces of one output each, with the same sizes and features")
        blocks = []
        for t, b in first.blocks.items():
            parts = [p.blocks[t] for p in pieces]
            if b.layout == "top" or any(q.layout != b.layout or not np.array_equal(q.sets, b.sets) for q in parts):
                raise ValueError(f"the blocks of size {t} cannot share an output axis: top= sets differ by "
                                 "output (explain one output at a time, output=..., or ask for sets=)")
            errs = [q.stderr for q in parts]
            blocks.append(InteractionBlock(t, b.sets, np.stack([q.values for q in parts], axis=-1), b.layout,
                                           stderr=None if any(e is None for e in errs) else np.stack(errs, axis=-1)))
        covs = [p.covariance for p in pieces]
        return cls(blocks, first.feature_names, index=first.index, order=first.order,
                   axes=tuple(first.axes) + ("output",),
                   covariance=None if any(c is None for c in covs) else np.stack(covs, axis=-1))


def _joined(arrays, what):
    """The arrays of consecutive points concatenated, None when none has one; refused when some have."""
    if all(a is None for a in arrays):
        return None
    if any(a is None for a in arrays):
        label = "the covariance" if what == "covariance" else f"the stderr of the blocks of size {what}"
        raise ValueError(f"{label} is given for some pieces and not for others")
    return np.concatenate(arrays)


def _remap(layout, t, vals, sets, F, d, p):
    """(values, sets) of the sets within the features F, renumbered to positions in F (see ``take``)."""
    pos = np.full(d, -1, dtype=np.int64)
    pos[F] = np.arange(len(F))
    if layout != "top":
        mapped = pos[sets] if t else sets
        keep = (mapped >= 0).all(axis=1)
        new = np.sort(mapped[keep], axis=1)
        vals = np.take(vals, np.flatnonzero(keep), axis=p)
        if layout == "dense" and t:
            order = np.lexsort(new.T[::-1])
            new, vals = new[order], np.take(vals, order, axis=p)
        return vals, new
    valid = sets >= 0
    mapped = np.where(valid, pos[np.where(valid, sets, 0)], -1)
    keep = (mapped >= 0).all(axis=-1)
    mapped = np.where(keep[..., None], np.sort(mapped, axis=-1), -1)
    vals = np.where(keep, vals, np.nan)
    order = np.argsort(~keep, axis=-1, kind="stable")
    return np.take_along_axis(vals, order, axis=-1), np.take_along_axis(mapped, order[..., None], axis=-2)
