"""Interaction plots: the pairwise interactions of an Explanation as a heatmap or a network, and
the feature that interacts most with a given one.

Takes an Explanation with an interaction block (:func:`kernelxai.explain_interactions`); hands
back the matplotlib Axes drawn on (or, for strongest_interaction, a feature position).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

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
    absolute value). Node size follows the feature's mean ``|order-1 value|``.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        With an interaction block, ``expl.interactions`` of shape (n, d, d) (or (d, d)
        for a single instance), e.g. from :func:`kernelxai.explain_interactions`.
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
        The edges are the lines with gid ``"edge"``.

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For ``top`` that is not a positive integer, an Explanation without an interaction
        block, a ``row`` out of range, or an ``output`` missing, unknown or given for a
        single-output Explanation.

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
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    expl = as_explanation(expl, output)
    matrix, what, r = _interaction_matrix(expl, row)
    if isinstance(top, (bool, np.bool_)) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"top must be a positive integer; got {top!r}")
    names = list(expl.feature_names)
    d = len(names)
    iu, ju = np.triu_indices(d, k=1)
    strength = matrix[iu, ju]
    order = np.argsort(-np.abs(strength), kind="stable")[:top]
    order = order[np.abs(strength[order]) > 0]
    ax = new_axes(ax, (5.5, 5.5))
    angle = np.pi / 2 - 2 * np.pi * np.arange(d) / d
    px, py = np.cos(angle), np.sin(angle)
    vmax = float(np.abs(strength[order]).max()) if len(order) else 1.0
    signed = row is not None or np.asarray(expl.interactions).ndim == 2
    for e in order[::-1]:
        a, b, s = iu[e], ju[e], strength[e]
        color = (POSITIVE if s > 0 else NEGATIVE) if signed else "grey"
        ax.plot([px[a], px[b]], [py[a], py[b]], color=color, lw=0.8 + 6.0 * abs(s) / vmax,
                alpha=0.85, solid_capstyle="round", zorder=1, gid="edge")
    values = np.asarray(expl.values, dtype=float)
    size = np.abs(values if values.ndim == 1 else (values[r] if r is not None else values)).reshape(-1, d)
    size = size.mean(axis=0)
    size = 80 + 600 * size / (size.max() or 1.0)
    ax.scatter(px, py, s=size, color="#f0f0f0", edgecolors="#333333", zorder=2)
    for j in range(d):
        ax.annotate(names[j], (px[j], py[j]), xytext=(1.18 * px[j], 1.18 * py[j]), ha="center",
                    va="center", fontsize=8)
    ax.set_xlim(-1.45, 1.45)
    ax.set_ylim(-1.45, 1.45)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title or (f"{len(order)} strongest interactions" + (f" ({what})" if what else "")))
    return ax


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
