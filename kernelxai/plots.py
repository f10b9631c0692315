"""Plots of Explanations: bar, waterfall, beeswarm, dependence, KDE.

Every function takes an :class:`~kernelxai.Explanation`, draws on ``ax`` (a new
figure when None) and returns the Axes. Plots know nothing about models,
kernels or value functions. An Explanation with an output axis (multi-class,
multi-output) is drawn one output at a time: pick it first, ``e[..., "a"]``.

matplotlib.pyplot (and seaborn) are imported only when a figure is drawn, so
importing this module is cheap and leaves the matplotlib backend alone.
"""

from __future__ import annotations

import numpy as np

from .explanation import Explanation

__all__ = ["bar", "waterfall", "beeswarm", "dependence", "kde"]

POSITIVE = "#d6604d"
NEGATIVE = "#4393c3"


def _check(expl):
    if not isinstance(expl, Explanation):
        raise TypeError(f"expected a kernelxai Explanation; got {type(expl).__name__}")
    if expl.has_outputs:
        names = list(expl.output_names)
        raise ValueError(
            f"this Explanation has {len(names)} outputs {names}; pick one with e[..., {names[0]!r}]"
        )
    return expl


def _axes(ax, size):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=size)
    return ax


def _order(scores, max_display):
    order = np.argsort(-np.abs(scores), kind="stable")
    return order[:max_display]


def bar(expl, *, ax=None, max_display=12, title=None):
    """Bar chart of attributions.

    One instance (1-D values): each feature's phi, signed, with interval
    whiskers when the Explanation has bounds. Many instances (2-D values): the
    global importance mean |phi| per feature.
    """
    expl = _check(expl)
    values = expl.values
    names = np.asarray(expl.feature_names, dtype=object)
    glob = values.ndim == 2
    scores = np.abs(values).mean(axis=0) if glob else values
    order = _order(scores, max_display)[::-1]
    ax = _axes(ax, (6, 0.35 * len(order) + 1.2))
    colors = ["#7f7f7f"] * len(order) if glob else [POSITIVE if v >= 0 else NEGATIVE for v in scores[order]]
    xerr = None
    if not glob and expl.has_intervals:
        xerr = np.vstack([scores[order] - expl.lower[order], expl.upper[order] - scores[order]])
    ax.barh(np.arange(len(order)), scores[order], color=colors, xerr=xerr,
            error_kw={"ecolor": "black", "capsize": 3, "lw": 1})
    ax.set_yticks(np.arange(len(order)), names[order])
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("mean |Shapley value|" if glob else "Shapley value")
    if title:
        ax.set_title(title)
    return ax


def waterfall(expl, *, ax=None, max_display=10, title=None):
    """Waterfall of one instance: from the base value to the explained output.

    Features beyond ``max_display`` are pooled into one bar. Error bars show
    the interval of each attribution when the Explanation has bounds.
    """
    expl = _check(expl)
    if expl.values.ndim != 1:
        raise ValueError("waterfall shows one instance; index the Explanation first, e.g. expl[0]")
    values = expl.values
    names = list(expl.feature_names)
    order = list(_order(values, len(values)))
    shown, rest = order[:max_display], order[max_display:]
    labels = []
    for j in shown:
        label = names[j]
        if expl.data is not None:
            label = f"{label} = {float(expl.data[j]):.3g}"
        labels.append(label)
    steps = list(values[shown])
    lows, highs = [], []
    if expl.has_intervals:
        lows = list(values[shown] - expl.lower[shown])
        highs = list(expl.upper[shown] - values[shown])
    if rest:
        labels.append(f"{len(rest)} other features")
        steps.append(values[rest].sum())
        if expl.has_intervals:
            lows.append(0.0)
            highs.append(0.0)
    steps, labels = steps[::-1], labels[::-1]
    lows, highs = lows[::-1], highs[::-1]
    base = float(expl.base_values)
    ax = _axes(ax, (7, 0.45 * len(steps) + 1.5))
    # bars run bottom (smallest |phi|) to top (largest): the walk starts at the
    # base value at the bottom and ends at the output at the top, as in shap
    starts = base + np.concatenate([[0.0], np.cumsum(steps)[:-1]])
    for i, (start, step) in enumerate(zip(starts, steps)):
        ax.barh(i, step, left=start, color=POSITIVE if step >= 0 else NEGATIVE)
        if expl.has_intervals and (lows[i] or highs[i]):
            ax.errorbar(start + step, i, xerr=[[lows[i]], [highs[i]]], fmt="none",
                        ecolor="black", capsize=3, lw=1)
        ax.text(start + step, i, f" {step:+.3g}", va="center",
                ha="left" if step >= 0 else "right", fontsize=8)
    ax.set_yticks(np.arange(len(steps)), labels)
    ax.axvline(base, color="grey", ls="--", lw=0.8)
    output = base + float(np.sum(values))
    ax.axvline(output, color="black", ls=":", lw=0.8)
    ax.set_xlabel(f"base value {base:.3g}  \u2192  output {output:.3g}")
    if title:
        ax.set_title(title)
    return ax


def beeswarm(expl, *, ax=None, max_display=12, title=None, cmap="coolwarm", seed=0):
    """Beeswarm of many instances: one row per feature, colour = feature value."""
    expl = _check(expl)
    if expl.values.ndim != 2:
        raise ValueError("beeswarm needs many instances (2-D values)")
    values = expl.values
    names = np.asarray(expl.feature_names, dtype=object)
    order = _order(np.abs(values).mean(axis=0), max_display)[::-1]
    ax = _axes(ax, (7, 0.4 * len(order) + 1.5))
    rng = np.random.default_rng(seed)
    scatter = None
    for row, j in enumerate(order):
        phi = values[:, j]
        jitter = _swarm_offsets(phi, rng)
        if expl.data is not None:
            x = np.asarray(expl.data[:, j], dtype=float)
            lo, hi = np.nanpercentile(x, [5, 95])
            colour = np.clip((x - lo) / (hi - lo), 0, 1) if hi > lo else np.full_like(x, 0.5)
        else:
            colour = np.full(len(phi), 0.5)
        scatter = ax.scatter(phi, row + jitter, c=colour, cmap=cmap, vmin=0, vmax=1, s=10,
                             alpha=0.8, linewidths=0)
    ax.set_yticks(np.arange(len(order)), names[order])
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


def dependence(expl, feature, *, ax=None, color_by=None, title=None):
    """Shapley value of ``feature`` against its value, one point per instance."""
    expl = _check(expl)
    if expl.values.ndim != 2 or expl.data is None:
        raise ValueError("dependence needs many instances with their data")
    j = expl.feature_names.index(feature) if isinstance(feature, str) else int(feature)
    ax = _axes(ax, (5, 4))
    x = np.asarray(expl.data[:, j], dtype=float)
    kwargs = {"color": "#4c72b0"}
    if color_by is not None:
        k = expl.feature_names.index(color_by) if isinstance(color_by, str) else int(color_by)
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


def kde(expl, features=None, *, ax=None, title=None, label=None):
    """Kernel density of the attributions of selected features across instances."""
    import seaborn as sns

    expl = _check(expl)
    if expl.values.ndim != 2:
        raise ValueError("kde needs many instances (2-D values)")
    ax = _axes(ax, (6, 4))
    picks = range(expl.values.shape[1]) if features is None else [
        expl.feature_names.index(f) if isinstance(f, str) else int(f) for f in features
    ]
    for j in picks:
        column = expl.values[:, j]
        name = expl.feature_names[j] if label is None else f"{label}: {expl.feature_names[j]}"
        if np.ptp(column) > 0:
            sns.kdeplot(x=column, ax=ax, label=name, fill=False)
        else:
            ax.axvline(column[0], label=name, ls="--")
    ax.set_xlabel("Shapley value")
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title)
    return ax
