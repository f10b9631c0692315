"""Interaction plots: the pairwise interactions of an Explanation as a heatmap or a network, and
the feature that interacts most with a given one.

Takes an Explanation with an interaction block (:func:`kernelxai.explain_interactions`); hands
back the matplotlib Axes drawn on (or, for strongest_interaction, a feature position).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._interaction_sets_plots import set_table
from ._plot_style import (
    NEGATIVE,
    POSITIVE,
    as_explanation,
    check_max_display,
    feature_index,
    largest_first,
    new_axes,
    other_label,
    row_position,
)

if TYPE_CHECKING:
    import shap
    from matplotlib.axes import Axes

    from ..explanation import Explanation

__all__ = ["interaction_heatmap", "interaction_network", "strongest_interaction"]


def _interaction_matrix(expl, row):
    """(d, d) interaction matrix of one instance, or the mean ``|interaction|`` over instances."""
    if expl.interactions is None:
        raise ValueError(
            "this Explanation has no interaction block (interactions is None); compute one with "
            "kx.explain_interactions(model, X) or kx.shapley_interactions(game)"
        )
    block = np.asarray(expl.interactions, dtype=float)
    if block.ndim == 2:
        return block, "", None
    if row is None:
        return np.abs(block).mean(axis=0), "mean |interaction| over instances", None
    row = row_position(row, block.shape[0])
    return block[row], f"instance {row}", row


def interaction_heatmap(expl: Explanation | shap.Explanation, row: int | None = None, *, ax: Axes | None = None,
                        title: str | None = None, annotate: bool | None = None, max_display: int = 20,
                        output: str | int | None = None) -> Axes:
    """Heatmap of the pairwise interactions, with feature names on both axes.

    ``row=None`` shows the mean absolute interaction over instances (a global
    picture, sequential colours); an integer shows one instance's signed
    interactions (diverging colours, symmetric around 0). At most
    ``max_display`` features -- those with the largest total ``|interaction|`` --
    are shown. Numbers are written in the cells when at most 12 features are
    shown (``annotate`` overrides).

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        With an interaction block, ``expl.interactions`` of shape (n, d, d) (or (d, d)
        for a single instance), e.g. from :func:`kernelxai.explain_interactions`.
    row : int, optional
        The instance to show (negative positions count from the end); None: the mean
        ``|interaction|`` over instances. Ignored for a single instance.
    ax : matplotlib Axes, optional
        Default: a new figure sized to the features shown.
    title : str, optional
        Default: "pairwise interactions" with what is shown and how many features are
        hidden.
    annotate : bool, optional
        Write each off-diagonal interaction in its cell; default when at most 12 features
        are shown.
    max_display : int, default 20
        Features shown, by total ``|interaction|``, in their original order.
    output : str or int, optional
        The output to draw for an Explanation with several outputs (a name or a position).

    Returns
    -------
    matplotlib Axes
        The image is ``ax.images[0]``.

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For an Explanation without an interaction block, a ``row`` out of range, a
        ``max_display`` that is not a positive integer, or an ``output`` missing, unknown
        or given for a single-output Explanation.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> expl = kx.explain_interactions(model, X[:10])
    >>> ax = kx.plots.interaction_heatmap(expl, row=0)
    >>> ax.get_title(), ax.images[0].get_array().shape
    ('pairwise interactions (instance 0)', (3, 3))
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    expl = as_explanation(expl, output)
    matrix, what, _ = _interaction_matrix(expl, row)
    max_display = check_max_display(max_display)
    names = list(expl.feature_names)
    keep = np.sort(largest_first(np.abs(matrix).sum(axis=1), max_display))
    shown = matrix[np.ix_(keep, keep)]
    k = len(keep)
    ax = new_axes(ax, (0.45 * k + 2.6, 0.45 * k + 2.0))
    if row is None and shown.ndim == 2 and np.asarray(expl.interactions).ndim == 3:
        vmax = float(np.abs(shown).max()) or 1.0
        image = ax.imshow(shown, cmap="Reds", vmin=0.0, vmax=vmax)
    else:
        vmax = float(np.abs(shown).max()) or 1.0
        image = ax.imshow(shown, cmap="RdBu_r", vmin=-vmax, vmax=vmax)
    labels = [names[j] for j in keep]
    ax.set_xticks(range(k), labels, rotation=45, ha="right")
    ax.set_yticks(range(k), labels)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="interaction")
    if annotate is None:
        annotate = k <= 12
    if annotate:
        for a in range(k):
            for b in range(k):
                if a != b:
                    ax.text(b, a, f"{shown[a, b]:.2g}", ha="center", va="center", fontsize=7,
                            color="white" if abs(shown[a, b]) > 0.6 * vmax else "black")
    hidden = len(names) - k
    ax.set_title(title or ("pairwise interactions" + (f" ({what})" if what else "")
                           + (f"; {other_label(hidden)} not shown" if hidden else "")))
    return ax


def interaction_network(expl: Explanation | shap.Explanation, row: int | None = None, *, top: int = 10,
                        ax: Axes | None = None, title: str | None = None, output: str | int | None = None) -> Axes:
    """The strongest pairwise interactions as a graph (matplotlib only).

    Features sit on a circle; the ``top`` pairs with the largest ``|interaction|``
    (mean over instances when ``row`` is None) are edges whose width grows with
    the strength, red for positive and blue for negative (grey for the mean
    absolute value). Node size follows the feature's main effect: the ``|value|``
    of its set of one feature when the index has one for every feature (k-SII,
    STII, FSII, FBII: ``interaction_orders[1]``), else its ``|order-1 value|``
    (``values``); at one point a node is tinted by the sign of that effect.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        With pairs: ``expl.interaction_orders[2]`` of any index and layout (all pairs,
        ``sets=`` or ``top=``; e.g. from :func:`kernelxai.explain_interactions` with
        ``order >= 2``), or the pairwise block ``expl.interactions`` of shape (n, d, d)
        (or (d, d) for a single instance).
    row : int, optional
        The instance to show, with signed edges; None: the mean ``|interaction|`` over
        instances. Ignored for a single instance.
    top : int, default 10
        Most edges drawn (pairs with zero interaction are left out).
    ax : matplotlib Axes, optional
        Default: a new figure.
    title : str, optional
        Default: "N strongest interactions" with what is shown.
    output : str or int, optional
        The output to draw for an Explanation with several outputs (a name or a position).

    Returns
    -------
    matplotlib Axes
        The edges are the lines with gid ``"edge"``, the nodes the collection with gid ``"node"``.

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For ``top`` that is not a positive integer, an Explanation without interactions or
        without pairs (e.g. ``index="Moebius", order=3`` holds only triples), a ``row`` out
        of range, ``row=None`` over ``top=`` pairs that differ by point, or an ``output``
        missing, unknown or given for a single-output Explanation.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> ax = kx.plots.interaction_network(kx.explain_interactions(model, X[:10]), top=2)
    >>> ax.get_title(), len([line for line in ax.lines if line.get_gid() == "edge"])
    ('2 strongest interactions (mean |interaction| over instances)', 2)

    The pairs of an index of higher order (here the k-SII of order 3: main effects as node sizes):

    >>> e = kx.explain_interactions(model, X[:10], index="k-SII", order=3)
    >>> ax = kx.plots.interaction_network(e, row=0, top=3)
    >>> len([line for line in ax.lines if line.get_gid() == "edge"])
    3
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if isinstance(top, (bool, np.bool_)) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"top must be a positive integer; got {top!r}")
    expl = as_explanation(expl, output)
    table = set_table(expl, row, 2, limit=int(top))
    names = list(expl.feature_names)
    d = len(names)
    strength = table.values
    pairs = np.asarray(table.sets, dtype=np.int64).reshape(-1, 2)[np.abs(strength) > 0]
    strength = strength[np.abs(strength) > 0]
    ax = new_axes(ax, (5.5, 5.5))
    angle = np.pi / 2 - 2 * np.pi * np.arange(d) / d
    px, py = np.cos(angle), np.sin(angle)
    vmax = float(np.abs(strength).max()) if len(strength) else 1.0
    for (a, b), s in zip(pairs[::-1], strength[::-1]):
        color = (POSITIVE if s > 0 else NEGATIVE) if table.signed else "grey"
        ax.plot([px[a], px[b]], [py[a], py[b]], color=color, lw=0.8 + 6.0 * abs(s) / vmax,
                alpha=0.85, solid_capstyle="round", zorder=1, gid="edge")
    main = _main_effects(expl, row if table.signed else None)
    size = 80 + 600 * np.abs(main) / (np.abs(main).max() or 1.0)
    face = [_tint(POSITIVE if v > 0 else NEGATIVE) if table.signed and v != 0 else "#f0f0f0" for v in main]
    ax.scatter(px, py, s=size, color=face, edgecolors="#333333", zorder=2, gid="node")
    gap = np.sqrt(size) / 2 + 5                             # the node's radius in points, and a margin
    for j in range(d):
        ax.annotate(names[j], (px[j], py[j]), xytext=(gap[j] * px[j], gap[j] * py[j]), textcoords="offset points",
                    ha="left" if px[j] > 0.25 else "right" if px[j] < -0.25 else "center",
                    va="bottom" if py[j] > 0.25 else "top" if py[j] < -0.25 else "center", fontsize=8)
    ax.set_xlim(-1.45, 1.45)
    ax.set_ylim(-1.45, 1.45)
    ax.set_aspect("equal")
    ax.axis("off")
    what = table.what if table.signed else "mean |interaction| over instances"
    ax.set_title(title or (f"{len(strength)} strongest interactions" + (f" ({what})" if what else "")))
    return ax


def _tint(color, amount=0.55):
    """``color`` mixed with white (a light node face that keeps the label and edges readable)."""
    from matplotlib.colors import to_rgb

    return tuple(1 - amount * (1 - c) for c in to_rgb(color))


def _main_effects(expl, row):
    """Each feature's main effect at ``row`` (mean ``|.|`` over points when None): the index's sets of one
    feature when it holds every one of them, else the order-1 ``values``."""
    inter = expl.interaction_orders
    block = inter.blocks.get(1) if inter is not None else None
    if block is not None and block.layout == "dense":
        values = block.values
    else:
        values = np.asarray(expl.values, dtype=float)
    d = len(expl.feature_names)
    if values.ndim == 1:
        return values
    if row is not None:
        return values[row_position(row, values.shape[0])]
    return np.abs(values).reshape(-1, d).mean(axis=0)


def strongest_interaction(expl: Explanation | shap.Explanation, feature: str | int) -> int:
    """The feature that interacts most with ``feature``: largest mean ``|interaction|`` over instances.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        With an interaction block (``expl.interactions``) and a single output.
    feature : str or int
        The feature, by name or position.

    Returns
    -------
    int
        The position of the other feature (never ``feature`` itself; the first one on
        ties).

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For an unknown ``feature``, an Explanation without an interaction block, or one
        with several outputs.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> expl = kx.explain_interactions(model, X[:10])
    >>> [kx.plots.strongest_interaction(expl, name) for name in ["x0", "x1", "x2"]]
    [2, 0, 0]
    """
    expl = as_explanation(expl)
    j = feature_index(expl, feature)
    matrix, _, _ = _interaction_matrix(expl, None)
    scores = np.abs(matrix[j]).copy()
    scores[j] = -np.inf
    return int(np.argmax(scores))
