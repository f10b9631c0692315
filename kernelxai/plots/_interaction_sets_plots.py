"""Plots of interactions of any order: the largest sets as a bar chart or as an UpSet-style plot.

Takes an Explanation whose ``interaction_orders`` hold sets of any size
(:func:`kernelxai.explain_interactions` with ``order=k``, ``sets=`` or ``top=``; an Explanation
with only the pairwise block ``interactions`` gives its pairs); hands back the matplotlib Axes
drawn on. :func:`set_table` -- the sets of one point (or their mean ``|value|`` over points),
largest first -- is shared with the network of pairs in ``_interaction_plots``.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..explanation._interaction_sets import SET_SEPARATOR
from ._plot_style import NEGATIVE, POSITIVE, as_explanation, feature_index, new_axes, row_position

if TYPE_CHECKING:
    from collections.abc import Sequence

    import shap
    from matplotlib.axes import Axes

    from ..explanation import Explanation

__all__ = ["interaction_bar", "interaction_upset", "SetTable", "set_table", "orders_of"]

#: colour of a mean ``|value|`` (no sign), as :func:`kernelxai.plots.bar` draws a global importance
UNSIGNED = "#7f7f7f"
#: the dots of the membership matrix: a member, and a feature not in the set
MEMBER, NON_MEMBER = "#333333", "#dddddd"


class SetTable(NamedTuple):
    """Sets of any size and one value each, largest ``|value|`` first."""

    sets: list[tuple[int, ...]]   # sorted feature positions, at most ``limit``
    values: np.ndarray            # (len(sets),)
    signed: bool                  # one point's values (else the mean |value| over points)
    what: str                     # "instance 3", "mean |value| over 20 instances" or ""
    index: str | None             # the interaction index ("k-SII", ...), when known
    total: int                    # sets held of the sizes asked for (and holding ``contains``), before ``limit``


def orders_of(expl):
    """``expl.interaction_orders``, or a ValueError that says how to compute them."""
    inter = expl.interaction_orders
    if inter is None or not any(t >= 1 for t in inter.sizes):
        held = "interaction_orders is None" if inter is None else "interaction_orders hold only the empty set"
        raise ValueError(
            f"this Explanation has no interactions ({held}); compute them with "
            "kx.explain_interactions(model, X, index=..., order=k) or kx.shapley_interactions(game)"
        )
    return inter


def _check_sizes(inter, order):
    """The set sizes to draw: all held (but the empty set) for None, else ``[order]`` if it is held."""
    held = [t for t in inter.sizes if t >= 1]
    if order is None:
        return held
    if isinstance(order, (bool, np.bool_)) or not isinstance(order, numbers.Integral) or order < 1:
        raise ValueError(f"order must be a positive integer (a set size) or None for all; got {order!r}")
    if int(order) not in held:
        raise ValueError(f"this Explanation holds no sets of order {order}; orders held: {held} "
                         f"(index {inter.index!r}; ask kx.explain_interactions(..., order={order}) for them)")
    return [int(order)]


def _block_at(b, row):
    """(sets (m, t), values (m,)) of one block at one point (``row`` None: the block has no instance axis)."""
    sets = b.sets[row] if b.layout == "top" and row is not None else b.sets
    vals = b.values if row is None else b.values[row]
    keep = (sets >= 0).all(axis=1) & np.isfinite(vals)      # padding of top blocks sliced by feature
    return sets[keep], vals[keep]


def _block_mean_abs(b, n):
    """(sets, mean |value| over the n points) of one block; a top block only when every point holds the same sets."""
    if b.layout != "top":
        return b.sets, np.abs(b.values).mean(axis=0)
    sets, vals = b.sets.reshape(-1, b.size), b.values.reshape(-1)
    keep = (sets >= 0).all(axis=1) & np.isfinite(vals)
    unique, inverse, counts = np.unique(sets[keep], axis=0, return_inverse=True, return_counts=True)
    if (counts != n).any():
        raise ValueError(
            f"the sets of order {b.size} are each point's own top= sets (they differ by point), so a mean over "
            "points is not defined: pass row=... to draw one point, or compute the sets of every point "
            "(order= without top=, or sets=...)")
    return unique, np.bincount(inverse.reshape(-1), weights=np.abs(vals[keep]), minlength=len(unique)) / n


def _holding(expl, sets, contains):
    """Which rows of ``sets`` (m, t) hold every feature of ``contains`` (names or positions)."""
    wanted = np.unique([feature_index(expl, f) for f in (
        (contains,) if isinstance(contains, (str, numbers.Integral)) else contains)])
    return np.isin(sets, wanted).sum(axis=1) == len(wanted), wanted


def _largest(scores, limit):
    """Positions of the ``limit`` largest scores, largest first, ties in order: a stable sort of the candidates
    at or above the limit-th largest only (a stable sort of 1.3 million triples takes most of a second)."""
    if limit is not None and limit < len(scores):
        kept = np.flatnonzero(scores >= np.partition(scores, len(scores) - limit)[len(scores) - limit])
        return kept[np.argsort(-scores[kept], kind="stable")][:limit]
    return np.argsort(-scores, kind="stable")


def set_table(expl: Explanation, row: int | None, order: int | None = None,
              contains: str | int | Sequence[str | int] | None = None, limit: int | None = None) -> SetTable:
    """The ``limit`` sets with the largest ``|value|`` of the sizes asked for (holding ``contains``), largest first.

    ``row`` an int: that point's signed values; None: the mean ``|value|`` over points (a single
    point: its signed values). A ValueError for an Explanation without interactions, an
    ``order`` not held, an unknown feature in ``contains``, no set left, or a mean over
    points of ``top=`` sets that differ by point. Vectorised per size: only the sets
    returned are made into tuples (C(200, 3) triples are 1.3 million).
    """
    inter = orders_of(expl)
    sizes = _check_sizes(inter, order)
    n = inter.n_instances
    if n is None:
        at, what = None, ""
    elif row is None:
        at, what = "mean", f"mean |value| over {n} instance{'s' if n > 1 else ''}"
    else:
        at = row_position(row, n)
        what = f"instance {at}"
    blocks = [_block_mean_abs(inter[t], n) if at == "mean" else _block_at(inter[t], at) for t in sizes]
    if contains is not None:
        masks = [_holding(expl, s, contains) for s, _ in blocks]
        if not any(k.any() for k, _ in masks):
            names = [expl.feature_names[j] for j in masks[0][1]]
            raise ValueError(f"no set of order {sizes if order is None else order} held here contains {names}")
        blocks = [(s[k], v[k]) for (s, v), (k, _) in zip(blocks, masks)]
    values = np.concatenate([np.asarray(v, dtype=float).reshape(-1) for _, v in blocks])
    if not len(values):
        raise ValueError(f"no sets of order {sizes if order is None else order} left to draw ({what or 'one point'})")
    which = np.concatenate([np.full(len(v), i) for i, (_, v) in enumerate(blocks)]).astype(np.int64)
    where = np.concatenate([np.arange(len(v)) for _, v in blocks]).astype(np.int64)
    first = _largest(np.abs(values), limit)
    sets = [tuple(int(j) for j in blocks[which[i]][0][where[i]]) for i in first]
    return SetTable(sets, values[first], at != "mean", what, inter.index, len(values))


def _check_max_sets(max_sets):
    if isinstance(max_sets, (bool, np.bool_)) or not isinstance(max_sets, numbers.Integral) or max_sets < 1:
        raise ValueError(f"max_sets must be a positive integer; got {max_sets!r}")
    return int(max_sets)


def _label(names, s):
    return SET_SEPARATOR.join(names[j] for j in s)


def _value_name(table):
    name = f"{table.index} interaction" if table.index else "interaction"
    return name if table.signed else f"mean |{name}|"


def _title(table, shown, order):
    head = f"{table.index + ' ' if table.index else ''}interactions" + (f" of order {order}" if order else "")
    if table.total > shown:
        head += f", the {shown} largest of {table.total}"
    return head + (f" ({table.what})" if table.what else "")


def _colors(table, values):
    if not table.signed:
        return [UNSIGNED] * len(values)
    return [POSITIVE if v >= 0 else NEGATIVE for v in values]


def interaction_bar(expl: Explanation | shap.Explanation, row: int | None = None, *, order: int | None = None,
                    max_sets: int = 15, contains: str | int | Sequence[str | int] | None = None,
                    ax: Axes | None = None, title: str | None = None, output: str | int | None = None) -> Axes:
    """Bar chart of the largest interactions of any order, one bar per set of features.

    The ``max_sets`` sets with the largest ``|value|`` -- of every order held, or of one
    (``order=k``) -- largest at the top, each labelled by its features' names joined
    ("age × bmi × bp"), its value written at the end of the bar and its order (the set's size)
    in the column on the right. One point (``row``) is drawn signed, red for positive and blue
    for negative; ``row=None`` draws the mean ``|value|`` over points, grey, as
    :func:`bar` draws a global importance.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        With interactions: ``expl.interaction_orders`` (from :func:`kernelxai.explain_interactions`
        with ``order=k``, ``sets=`` or ``top=``), or the pairwise block ``expl.interactions``.
    row : int, optional
        The point to draw (negative positions count from the end); None: the mean ``|value|``
        over points. Ignored for a single point.
    order : int, optional
        Only the sets of this size; None: every size held (but the empty set).
    max_sets : int, default 15
        Sets drawn, largest ``|value|`` first.
    contains : str or int or sequence of them, optional
        Only the sets that hold these features (names or positions).
    ax : matplotlib Axes, optional
        Default: a new figure sized to the sets drawn.
    title : str, optional
        Default: "<index> interactions, the N largest of M" with the order and the point shown.
    output : str or int, optional
        The output to draw for an Explanation with several outputs (a name or a position).

    Returns
    -------
    matplotlib Axes
        The bars are ``ax.patches``, top to bottom in ``ax.get_yticklabels()`` read bottom up;
        the orders are the tick labels of the secondary axis ``ax.child_axes[0]``.

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For an Explanation without interactions, an ``order`` not held, an unknown feature
        in ``contains`` (or no set holding them), a ``row`` out of range, ``max_sets`` that is
        not a positive integer, ``row=None`` over ``top=`` sets that differ by point, or an
        ``output`` missing, unknown or given for a single-output Explanation.

    See Also
    --------
    interaction_upset : the same sets with their members drawn as a dot matrix.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(40, 4))
    >>> model = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2] * X[:, 3])
    >>> e = kx.explain_interactions(model, X[:5], index="k-SII", order=3)
    >>> ax = kx.plots.interaction_bar(e, row=0, max_sets=4)
    >>> len(ax.patches), ax.get_title()
    (4, 'k-SII interactions, the 4 largest of 14 (instance 0)')
    >>> ax = kx.plots.interaction_bar(e, order=3, contains="x1")      # mean |value| of the triples with x1
    >>> [label.get_text() for label in ax.get_yticklabels()][-1]      # the largest, at the top
    'x1 × x2 × x3'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    expl = as_explanation(expl, output)
    max_sets = _check_max_sets(max_sets)
    table = set_table(expl, row, order, contains, max_sets)
    sets, values = table.sets[::-1], table.values[::-1]
    names = list(expl.feature_names)
    labels = [_label(names, s) for s in sets]
    rows = np.arange(len(sets))
    width = 0.07 * max((len(x) for x in labels), default=10)
    ax = new_axes(ax, (4.6 + width, 0.34 * len(sets) + 1.3))
    ax.barh(rows, values, color=_colors(table, values), height=0.7)
    ax.set_yticks(rows, labels)
    ax.set_ylim(-0.6, len(sets) - 0.4)
    ax.axvline(0, color="black", lw=0.8)
    _write_values(ax, rows, values)
    side = ax.secondary_yaxis("right")
    side.set_yticks(rows, [str(len(s)) for s in sets])
    side.tick_params(length=0, labelsize=8, labelcolor="#555555")
    side.spines["right"].set_visible(False)
    side.set_ylabel("order", color="#555555")
    ax.set_xlabel(_value_name(table))
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title or _title(table, len(sets), order))
    return ax


def _write_values(ax, rows, values):
    """Each bar's value just beyond its end, the x-limits widened to hold the texts."""
    span = float(np.abs(values).max()) if len(values) else 1.0
    span = span or 1.0
    lo, hi = min(0.0, float(values.min(initial=0.0))), max(0.0, float(values.max(initial=0.0)))
    pad = 0.18 * span
    ax.set_xlim(lo - (pad if lo < 0 else 0.0), hi + (pad if hi > 0 or lo == 0 else 0.02 * span))
    for y, v in zip(rows, values):
        ax.text(v + (0.015 * span if v >= 0 else -0.015 * span), y, f"{v:.3g}", va="center",
                ha="left" if v >= 0 else "right", fontsize=7, color="#333333")


def interaction_upset(expl: Explanation | shap.Explanation, row: int | None = None, *, order: int | None = None,
                      max_sets: int = 15, contains: str | int | Sequence[str | int] | None = None,
                      ax: Axes | None = None, title: str | None = None, output: str | int | None = None) -> Axes:
    """UpSet-style plot of the largest interactions of any order: values on top, members below.

    One column per set, largest ``|value|`` on the left: on top a bar of its value (one
    point, ``row``, signed: red positive, blue negative; ``row=None``: the mean ``|value|``
    over points, grey); below, a dot matrix with one row per feature met in the sets drawn
    (the feature in most of the drawn ``|value|`` at the top) where a set's members are dark
    dots joined by a line -- the number of dots is the set's order. With many features and
    sets of several sizes this reads better than labels joined by "×".

    Drawn with matplotlib alone rather than the ``upsetplot`` package: the figure is small
    (bars and dots), and plots should cost one dependency less; ``upsetplot`` also counts
    set intersections of data rows, not values of given sets.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        With interactions: ``expl.interaction_orders`` (from :func:`kernelxai.explain_interactions`
        with ``order=k``, ``sets=`` or ``top=``), or the pairwise block ``expl.interactions``.
    row : int, optional
        The point to draw (negative positions count from the end); None: the mean ``|value|``
        over points. Ignored for a single point.
    order : int, optional
        Only the sets of this size; None: every size held (but the empty set).
    max_sets : int, default 15
        Sets drawn, largest ``|value|`` first.
    contains : str or int or sequence of them, optional
        Only the sets that hold these features (names or positions).
    ax : matplotlib Axes, optional
        Where the bars go; the dot matrix is appended below it (it takes part of the space
        of ``ax``). Default: a new figure sized to the sets and features drawn.
    title : str, optional
        Default: "<index> interactions, the N largest of M" with the order and the point shown.
    output : str or int, optional
        The output to draw for an Explanation with several outputs (a name or a position).

    Returns
    -------
    matplotlib Axes
        The Axes of the bars (``ax.patches``, left to right). The dot matrix is the Axes of the
        same figure with gid ``"membership"``: its y tick labels name the features (top to
        bottom), its collection with gid ``"member"`` holds one dot (x = column of the set,
        y = row of the feature) per member.

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For an Explanation without interactions, an ``order`` not held, an unknown feature
        in ``contains`` (or no set holding them), a ``row`` out of range, ``max_sets`` that is
        not a positive integer, ``row=None`` over ``top=`` sets that differ by point, or an
        ``output`` missing, unknown or given for a single-output Explanation.

    See Also
    --------
    interaction_bar : the same sets as labelled horizontal bars.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(40, 4))
    >>> model = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2] * X[:, 3])
    >>> e = kx.explain_interactions(model, X[:5], index="Moebius", order=3)   # the triples only
    >>> ax = kx.plots.interaction_upset(e, row=0)
    >>> matrix = next(a for a in ax.figure.axes if a.get_gid() == "membership")
    >>> len(ax.patches), [label.get_text() for label in matrix.get_yticklabels()]
    (4, ['x0', 'x3', 'x1', 'x2'])
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    expl = as_explanation(expl, output)
    max_sets = _check_max_sets(max_sets)
    table = set_table(expl, row, order, contains, max_sets)
    sets, values = table.sets, table.values
    names = list(expl.feature_names)
    features = _matrix_rows(sets, values)
    m, f = len(sets), len(features)
    ax = new_axes(ax, (0.42 * m + 0.09 * max(len(names[j]) for j in features) + 1.8, 2.9 + 0.3 * f))
    cols = np.arange(m)
    ax.bar(cols, values, color=_colors(table, values), width=0.6)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_ylabel(_value_name(table))
    ax.spines[["top", "right", "bottom"]].set_visible(False)
    ax.tick_params(axis="x", bottom=False, labelbottom=False)
    if m <= 25:
        _write_column_values(ax, cols, values)
    ax.set_title(title or _title(table, m, order))
    _draw_membership(ax, sets, features, names, f)
    return ax


def _matrix_rows(sets, values):
    """The features met in ``sets``, the one with the largest total ``|value|`` first (ties: by position)."""
    members = np.array(sorted({j for s in sets for j in s}), dtype=np.int64)
    weight = np.zeros(len(members))
    where = {j: i for i, j in enumerate(members)}
    for s, v in zip(sets, np.abs(values)):
        weight[[where[j] for j in s]] += v
    return members[np.argsort(-weight, kind="stable")]


def _write_column_values(ax, cols, values):
    span = float(np.abs(values).max()) or 1.0
    lo, hi = min(0.0, float(values.min())), max(0.0, float(values.max()))
    ax.set_ylim(lo - (0.14 * span if lo < 0 else 0.0), hi + (0.14 * span if hi > 0 or lo == 0 else 0.0))
    for x, v in zip(cols, values):
        ax.text(x, v + (0.02 * span if v >= 0 else -0.02 * span), f"{v:.2g}", ha="center",
                va="bottom" if v >= 0 else "top", fontsize=7, color="#333333")


def _draw_membership(ax, sets, features, names, f):
    """The dot matrix below ``ax``: one row per feature (top to bottom), members dark and joined."""
    from mpl_toolkits.axes_grid1 import make_axes_locatable

    m = len(sets)
    tall = ax.get_position().height * ax.figure.get_size_inches()[1]      # inches of ax, bars and matrix
    rows = min(0.25 * f, 0.6 * tall)                                       # a row a quarter inch, at most 60%
    matrix = make_axes_locatable(ax).append_axes("bottom", size=f"{100 * rows / (tall - rows):.0f}%", pad=0.08,
                                                 sharex=ax)
    matrix.set_gid("membership")
    rank = {j: r for r, j in enumerate(features)}
    for r in range(0, f, 2):
        matrix.axhspan(r - 0.5, r + 0.5, color="#f4f4f4", zorder=0)
    grid_x, grid_y = np.meshgrid(np.arange(m), np.arange(f))
    matrix.scatter(grid_x.ravel(), grid_y.ravel(), s=55, color=NON_MEMBER, zorder=1, gid="grid")
    xs = np.concatenate([np.full(len(s), c) for c, s in enumerate(sets)])
    ys = np.concatenate([[rank[j] for j in s] for s in sets])
    for c, s in enumerate(sets):
        ranks = [rank[j] for j in s]
        matrix.plot([c, c], [min(ranks), max(ranks)], color=MEMBER, lw=2.2, zorder=2, solid_capstyle="round")
    matrix.scatter(xs, ys, s=55, color=MEMBER, zorder=3, gid="member")
    matrix.set_yticks(np.arange(f), [names[j] for j in features])
    matrix.set_ylim(f - 0.5, -0.5)
    matrix.set_xlim(-0.6, m - 0.4)
    matrix.tick_params(axis="both", length=0)
    matrix.tick_params(axis="x", labelbottom=False)
    for side in matrix.spines.values():
        side.set_visible(False)
    return matrix
