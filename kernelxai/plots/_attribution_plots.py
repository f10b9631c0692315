"""Attribution plots: bar, waterfall, beeswarm and dependence.

Takes an Explanation (or a shap.Explanation): one instance for the waterfall, many for the
beeswarm and the dependence plot, either for the bar chart. Hands back the matplotlib Axes drawn on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._interaction_plots import strongest_interaction
from ._plot_style import (
    NEGATIVE,
    POSITIVE,
    as_explanation,
    check_max_display,
    feature_index,
    largest_first,
    new_axes,
    other_label,
)

if TYPE_CHECKING:
    import shap
    from matplotlib.axes import Axes

    from ..explanation import Explanation

__all__ = ["bar", "waterfall", "beeswarm", "dependence"]


def bar(expl: Explanation | shap.Explanation, *, ax: Axes | None = None, max_display: int = 12,
        title: str | None = None, output: str | int | None = None) -> Axes:
    """Bar chart of attributions.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        One instance (1-D values): each feature's phi, signed (red positive,
        blue negative), with interval whiskers when the Explanation has
        bounds -- e.g. :func:`kernelxai.explain_mmd`'s split of MMD^2. Many
        instances (2-D values): the global importance mean ``|phi|`` per feature.
    ax : matplotlib Axes, optional
    max_display : int, default 12
        Features shown, largest first. When some are hidden, one more row at
        the bottom, "N other features", pools them as shap does: the sum of
        their mean ``|phi|`` (many instances) or of their signed phi (one
        instance), drawn grey without whiskers.
    title : str, optional
    output : str or int, optional
        The output to draw for an Explanation with several outputs (a name or a position).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For values that are neither 1-D nor 2-D, a ``max_display`` that is not a positive
        integer, or an ``output`` missing, unknown or given for a single-output Explanation.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> X = np.random.default_rng(0).normal(size=(30, 3))
    >>> e = kx.explain(lambda Z: Z[:, 0] - 2 * Z[:, 1], X[:10], background=X)
    >>> ax = kx.plots.bar(e[0])   # one instance: signed values
    >>> ax = kx.plots.bar(e)      # ten instances: mean |phi| per feature
    >>> ax.get_xlabel(), len(ax.patches)
    ('mean |Shapley value|', 3)
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    expl = as_explanation(expl, output)
    max_display = check_max_display(max_display)
    values = expl.values
    if values.ndim not in (1, 2):
        raise ValueError(f"bar needs 1-D or 2-D values; got shape {values.shape}")
    names = np.asarray(expl.feature_names, dtype=object)
    glob = values.ndim == 2
    scores = np.abs(values).mean(axis=0) if glob else values
    full = largest_first(scores, len(scores))
    shown, hidden = full[:max_display], full[max_display:]
    heights = list(scores[shown][::-1])
    labels = list(names[shown][::-1])
    colors = ["#7f7f7f"] * len(shown) if glob else [POSITIVE if v >= 0 else NEGATIVE
                                                      for v in heights]
    lows = highs = None
    if not glob and expl.has_intervals:
        lows = list((scores - expl.lower)[shown][::-1])
        highs = list((expl.upper - scores)[shown][::-1])
    if len(hidden):
        heights.insert(0, float(scores[hidden].sum()))
        labels.insert(0, other_label(len(hidden)))
        colors.insert(0, "#bdbdbd")
        if lows is not None:
            lows.insert(0, 0.0)
            highs.insert(0, 0.0)
    rows = np.arange(len(heights))
    ax = new_axes(ax, (6, 0.35 * len(heights) + 1.2))
    xerr = None if lows is None else np.vstack([lows, highs])
    ax.barh(rows, heights, color=colors, xerr=xerr,
            error_kw={"ecolor": "black", "capsize": 3, "lw": 1})
    ax.set_yticks(rows, labels)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("mean |Shapley value|" if glob else "Shapley value")
    if title:
        ax.set_title(title)
    return ax


def _feature_label(name, datum):
    """``name = value`` of a waterfall bar (the value to 3 digits when it is a number); the name without data."""
    if datum is None:
        return name
    try:
        return f"{name} = {float(datum):.3g}"
    except (TypeError, ValueError):
        return f"{name} = {datum}"


def waterfall(expl: Explanation | shap.Explanation, *, ax: Axes | None = None, max_display: int = 10,
              title: str | None = None, output: str | int | None = None) -> Axes:
    """Waterfall of one instance: from the base value to the explained output.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        One instance (1-D values).
    ax : matplotlib Axes, optional
    max_display : int, default 10
        Features shown, largest ``|phi|`` at the top; the others are pooled into
        one bar, "N other features", at the bottom (the sum of their phi).
    title : str, optional
    output : str or int, optional
        The output to draw for an Explanation with several outputs (a name or a position).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For more than one instance (2-D values: index one first, ``expl[0]``), a
        ``max_display`` that is not a positive integer, or an ``output`` missing,
        unknown or given for a single-output Explanation.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> ax = kx.plots.waterfall(kx.explain(model, X[:1])[0], max_display=2)
    >>> [label.get_text().split(" = ")[0] for label in ax.get_yticklabels()]  # bottom to top
    ['1 other feature', 'x0', 'x1']
    >>> import matplotlib.pyplot as plt; plt.close("all")

    Notes
    -----
    Each bar is labelled with its phi just beyond its end -- beyond the
    whisker when the Explanation has bounds -- and the x-limits are widened
    until every label lies inside the axes, clear of the tick labels.
    """
    expl = as_explanation(expl, output)
    max_display = check_max_display(max_display)
    if expl.values.ndim != 1:
        raise ValueError("waterfall shows one instance; index the Explanation first, e.g. expl[0]")
    values = expl.values
    names = list(expl.feature_names)
    order = list(largest_first(values, len(values)))
    shown, rest = order[:max_display], order[max_display:]
    labels = [_feature_label(names[j], None if expl.data is None else expl.data[j]) for j in shown]
    steps = list(values[shown])
    lows, highs = [0.0] * len(shown), [0.0] * len(shown)
    if expl.has_intervals:
        lows = list(values[shown] - expl.lower[shown])
        highs = list(expl.upper[shown] - values[shown])
    if rest:
        labels.append(other_label(len(rest)))
        steps.append(float(values[rest].sum()))
        lows.append(0.0)
        highs.append(0.0)
    steps, labels = steps[::-1], labels[::-1]
    lows, highs = lows[::-1], highs[::-1]
    base = float(expl.base_values)
    ax = new_axes(ax, (7, 0.45 * len(steps) + 1.5))
    # bars run bottom (smallest |phi|) to top (largest): the walk starts at the
    # base value at the bottom and ends at the output at the top, as in shap
    starts = base + np.concatenate([[0.0], np.cumsum(steps)[:-1]])
    texts = []
    from matplotlib.transforms import ScaledTranslation

    # labels sit 5 points beyond their anchor: clear of the whisker caps (3 points wide)
    nudge = {"left": ax.transData + ScaledTranslation(5 / 72, 0, ax.figure.dpi_scale_trans),
             "right": ax.transData + ScaledTranslation(-5 / 72, 0, ax.figure.dpi_scale_trans)}
    for i, (start, step) in enumerate(zip(starts, steps)):
        end = start + step
        ax.barh(i, step, left=start, color=POSITIVE if step >= 0 else NEGATIVE)
        if lows[i] or highs[i]:
            ax.errorbar(end, i, xerr=[[lows[i]], [highs[i]]], fmt="none",
                        ecolor="black", capsize=3, lw=1)
        # the label sits beyond the far end of the bar and of its whisker
        if step >= 0:
            anchor, ha = max(end, end + highs[i], start), "left"
        else:
            anchor, ha = min(end, end - lows[i], start), "right"
        texts.append(ax.text(anchor, i, f"{step:+.3g}" if step else "0", va="center", ha=ha,
                             fontsize=8, transform=nudge[ha]))
    ax.set_yticks(np.arange(len(steps)), labels)
    ax.axvline(base, color="grey", ls="--", lw=0.8)
    output = base + float(np.sum(values))
    ax.axvline(output, color="black", ls=":", lw=0.8)
    ax.set_xlabel(f"base value {base:.3g}  \u2192  output {output:.3g}")
    if title:
        ax.set_title(title)
    _fit_texts(ax, texts)
    return ax


def _fit_texts(ax, texts, rounds=8):
    """Widen the x-limits until every text lies inside the axes (texts keep their pixel size).

    A text anchored at data x reaching w pixels beyond its anchor (its width
    and any offset) needs, for xlim (a, b) over W pixels, b >= x + w (b - a) / W
    (left-aligned, reaching right) or a <= x - w (b - a) / W (right-aligned);
    a few fixed-point rounds settle it unless the texts are wider than the axes.
    """
    if not texts:
        return
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    anchors = np.array([t.get_position()[0] for t in texts])
    right = np.array([t.get_horizontalalignment() == "left" for t in texts])
    pixels = ax.transData.transform(np.c_[anchors, np.zeros_like(anchors)])[:, 0]
    boxes = [t.get_window_extent(renderer) for t in texts]
    widths = np.array([box.x1 - px if r else px - box.x0
                       for box, px, r in zip(boxes, pixels, right)])
    for _ in range(rounds):
        a, b = ax.get_xlim()
        pixels = ax.get_window_extent(renderer).width
        if pixels <= 0:
            return
        per_pixel = (b - a) / pixels
        pad = 6 * fig.dpi / 72 * per_pixel        # 6 points between a label and the frame
        need_b = np.max(anchors[right] + widths[right] * per_pixel) + pad if right.any() else b
        need_a = np.min(anchors[~right] - widths[~right] * per_pixel) - pad if (~right).any() else a
        if need_b <= b and need_a >= a:
            return
        ax.set_xlim(min(a, need_a), max(b, need_b))


def beeswarm(expl: Explanation | shap.Explanation, *, ax: Axes | None = None, max_display: int = 12,
             title: str | None = None, cmap: str = "coolwarm", seed: int | np.random.Generator | None = 0,
             output: str | int | None = None) -> Axes:
    """Beeswarm of many instances: one row per feature, colour = feature value.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        Many instances (2-D values).
    ax : matplotlib Axes, optional
    max_display : int, default 12
        Features shown, by mean ``|phi|``, largest at the top. When some are
        hidden, one more row at the bottom, "N other features", shows per
        instance the sum of their phi (as shap does), in grey: it has no
        single feature value to colour by.
    title : str, optional
    cmap : str, default "coolwarm"
    seed : int or Generator, default 0
        Randomness of the vertical jitter.
    output : str or int, optional
        The output to draw for an Explanation with several outputs (a name or a position).

    Returns
    -------
    matplotlib Axes
        With a colour bar ("feature value", low to high) when the Explanation has data.

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For one instance (1-D values), a ``max_display`` that is not a positive integer,
        or an ``output`` missing, unknown or given for a single-output Explanation.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> ax = kx.plots.beeswarm(kx.explain(model, X[:10]), seed=0)
    >>> [label.get_text() for label in ax.get_yticklabels()]  # bottom to top
    ['x1', 'x2', 'x0']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    expl = as_explanation(expl, output)
    max_display = check_max_display(max_display)
    if expl.values.ndim != 2:
        raise ValueError("beeswarm needs many instances (2-D values)")
    values = expl.values
    names = np.asarray(expl.feature_names, dtype=object)
    full = largest_first(np.abs(values).mean(axis=0), values.shape[1])
    shown, hidden = full[:max_display][::-1], full[max_display:]
    offset = 1 if len(hidden) else 0
    ax = new_axes(ax, (7, 0.4 * (len(shown) + offset) + 1.5))
    rng = np.random.default_rng(seed)
    if len(hidden):
        pooled = values[:, hidden].sum(axis=1)
        ax.scatter(pooled, _swarm_offsets(pooled, rng), color="#9e9e9e", s=10, alpha=0.8,
                   linewidths=0)
    scatter = None
    for row, j in enumerate(shown, start=offset):
        phi = values[:, j]
        jitter = _swarm_offsets(phi, rng)
        colour = np.full(len(phi), 0.5)
        if expl.data is not None:
            try:
                x = np.asarray(expl.data[:, j], dtype=float)
            except (TypeError, ValueError):     # non-numeric data: no colour scale
                x = None
            if x is not None and np.isfinite(x).any():
                lo, hi = np.nanpercentile(x, [5, 95])
                colour = np.clip((x - lo) / (hi - lo), 0, 1) if hi > lo else np.full_like(x, 0.5)
        scatter = ax.scatter(phi, row + jitter, c=colour, cmap=cmap, vmin=0, vmax=1, s=10,
                             alpha=0.8, linewidths=0)
    labels = ([other_label(len(hidden))] if len(hidden) else []) + list(names[shown])
    ax.set_yticks(np.arange(len(labels)), labels)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_xlabel("Shapley value")
    if scatter is not None and expl.data is not None:
        cbar = ax.figure.colorbar(scatter, ax=ax, ticks=[0, 1], aspect=40, pad=0.02)
        cbar.ax.set_yticklabels(["low", "high"])
        cbar.set_label("feature value")
    if title:
        ax.set_title(title)
    return ax


def _swarm_offsets(phi, rng, width=0.35):
    """Vertical offsets that grow with the local density of ``phi``."""
    if len(phi) < 2 or np.ptp(phi) == 0:
        return rng.uniform(-width / 3, width / 3, len(phi))
    bins = np.linspace(phi.min(), phi.max(), 60)
    idx = np.clip(np.digitize(phi, bins) - 1, 0, len(bins) - 2)
    counts = np.bincount(idx, minlength=len(bins) - 1)
    spread = width * counts[idx] / counts.max()
    return rng.uniform(-1, 1, len(phi)) * spread


def dependence(expl: Explanation | shap.Explanation, feature: str | int, *, ax: Axes | None = None,
               color_by: str | int | None = None, title: str | None = None, output: str | int | None = None) -> Axes:
    """Shapley value of ``feature`` against its value, one point per instance.

    ``color_by`` colours the points by another feature's value (a name or a
    position), or ``"interaction"``: by the feature that interacts most with
    ``feature`` (largest mean ``|interaction|``; needs ``expl.interactions``).

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        Many instances (2-D values) with their ``data``; with bounds, each point gets
        a vertical interval bar.
    feature : str or int
        The feature on the x-axis, by name or position.
    ax : matplotlib Axes, optional
        Default: a new figure.
    color_by : str or int, optional
        A feature whose values colour the points (with a colour bar), or
        ``"interaction"``; None: one colour.
    title : str, optional
    output : str or int, optional
        The output to draw for an Explanation with several outputs (a name or a position).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For one instance or an Explanation without data, an unknown ``feature`` or
        ``color_by``, ``color_by="interaction"`` without an interaction block, or an
        ``output`` missing, unknown or given for a single-output Explanation.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> expl = kx.explain_interactions(model, X[:10])
    >>> ax = kx.plots.dependence(expl, "x1", color_by="interaction")
    >>> ax.get_ylabel(), ax.figure.axes[-1].get_ylabel()  # coloured by x0, x1's strongest partner
    ('Shapley value of x1', 'x0')
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    expl = as_explanation(expl, output)
    if expl.values.ndim != 2 or expl.data is None:
        raise ValueError("dependence needs many instances with their data")
    j = feature_index(expl, feature)
    if isinstance(color_by, str) and color_by == "interaction" and "interaction" not in expl.feature_names:
        color_by = strongest_interaction(expl, j)
    k = None if color_by is None else feature_index(expl, color_by)  # checked before drawing anything
    ax = new_axes(ax, (5, 4))
    x = np.asarray(expl.data[:, j], dtype=float)
    kwargs = {"color": "#4c72b0"}
    if color_by is not None:
        kwargs = {"c": np.asarray(expl.data[:, k], dtype=float), "cmap": "coolwarm"}
    points = ax.scatter(x, expl.values[:, j], s=12, alpha=0.8, linewidths=0, **kwargs)
    if expl.has_intervals:
        ax.errorbar(x, expl.values[:, j],
                    yerr=[expl.values[:, j] - expl.lower[:, j], expl.upper[:, j] - expl.values[:, j]],
                    fmt="none", ecolor="grey", alpha=0.4, lw=0.8)
    if color_by is not None:
        ax.figure.colorbar(points, ax=ax, label=expl.feature_names[k])
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel(expl.feature_names[j])
    ax.set_ylabel(f"Shapley value of {expl.feature_names[j]}")
    if title:
        ax.set_title(title)
    return ax


