"""Plots of Explanations: bar, waterfall, beeswarm, dependence, KDE, correlation, dependence band,
interaction heatmap and network.

Every function takes an :class:`~kernelxai.Explanation` -- or a
``shap.Explanation``, converted with :meth:`Explanation.from_shap` (values, base
values, data, feature names, bounds) -- draws on ``ax`` (a new figure when
None) and returns the Axes. Plots know nothing about models,
kernels or value functions. An Explanation with an output axis (multi-class,
multi-output) is drawn one output at a time: pass ``output="a"`` (a name or a
position) to any plot, or pick it first, ``e[..., "a"]``.

matplotlib.pyplot (and seaborn) are imported only when a figure is drawn, so
importing this module is cheap and leaves the matplotlib backend alone.
"""

from __future__ import annotations

import numpy as np

from ..explanation.core import Explanation

__all__ = ["bar", "waterfall", "beeswarm", "dependence", "kde", "correlation", "dependence_band",
           "interaction_heatmap", "interaction_network", "strongest_interaction"]

POSITIVE = "#d6604d"
NEGATIVE = "#4393c3"


def _check(expl, output=None):
    """Our Explanation (a shap.Explanation is converted), reduced to one output if it has several."""
    if not isinstance(expl, Explanation):
        if not (hasattr(expl, "values") and hasattr(expl, "base_values")):
            raise TypeError(
                "expected a kernelxai Explanation or a shap.Explanation; got "
                f"{type(expl).__name__}"
            )
        expl = Explanation.from_shap(expl)
    if expl.has_outputs:
        names = list(expl.output_names)
        if output is None:
            raise ValueError(
                f"this Explanation has {len(names)} outputs {names}; pick one with e[..., {names[0]!r}] "
                f"(or output={names[0]!r})"
            )
        if isinstance(output, str) and output not in names:
            raise ValueError(f"unknown output {output!r}; outputs are {names}")
        expl = expl[..., output]
    elif output is not None:
        raise ValueError(f"output={output!r} given, but this Explanation has a single output")
    return expl


def _axes(ax, size):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=size)
    return ax


def _order(scores, max_display):
    order = np.argsort(-np.abs(scores), kind="stable")
    return order[:max_display]


def _check_max_display(max_display):
    if isinstance(max_display, (bool, np.bool_)) or not isinstance(max_display, (int, np.integer)) \
            or max_display < 1:
        raise ValueError(f"max_display must be a positive integer; got {max_display!r}")
    return int(max_display)


def _other_label(n_hidden):
    return f"{n_hidden} other feature{'s' if n_hidden > 1 else ''}"


def bar(expl, *, ax=None, max_display=12, title=None, output=None):
    """Bar chart of attributions.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        One instance (1-D values): each feature's phi, signed (red positive,
        blue negative), with interval whiskers when the Explanation has
        bounds -- e.g. :func:`kernelxai.explain_mmd`'s split of MMD^2. Many
        instances (2-D values): the global importance mean |phi| per feature.
    ax : matplotlib Axes, optional
    max_display : int, default 12
        Features shown, largest first. When some are hidden, one more row at
        the bottom, "N other features", pools them as shap does: the sum of
        their mean |phi| (many instances) or of their signed phi (one
        instance), drawn grey without whiskers.
    title : str, optional

    Returns
    -------
    matplotlib Axes
    """
    expl = _check(expl, output)
    max_display = _check_max_display(max_display)
    values = expl.values
    if values.ndim not in (1, 2):
        raise ValueError(f"bar needs 1-D or 2-D values; got shape {values.shape}")
    names = np.asarray(expl.feature_names, dtype=object)
    glob = values.ndim == 2
    scores = np.abs(values).mean(axis=0) if glob else values
    full = _order(scores, len(scores))
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
        labels.insert(0, _other_label(len(hidden)))
        colors.insert(0, "#bdbdbd")
        if lows is not None:
            lows.insert(0, 0.0)
            highs.insert(0, 0.0)
    rows = np.arange(len(heights))
    ax = _axes(ax, (6, 0.35 * len(heights) + 1.2))
    xerr = None if lows is None else np.vstack([lows, highs])
    ax.barh(rows, heights, color=colors, xerr=xerr,
            error_kw={"ecolor": "black", "capsize": 3, "lw": 1})
    ax.set_yticks(rows, labels)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("mean |Shapley value|" if glob else "Shapley value")
    if title:
        ax.set_title(title)
    return ax


def waterfall(expl, *, ax=None, max_display=10, title=None, output=None):
    """Waterfall of one instance: from the base value to the explained output.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        One instance (1-D values).
    ax : matplotlib Axes, optional
    max_display : int, default 10
        Features shown, largest |phi| at the top; the others are pooled into
        one bar, "N other features", at the bottom (the sum of their phi).
    title : str, optional

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Each bar is labelled with its phi just beyond its end -- beyond the
    whisker when the Explanation has bounds -- and the x-limits are widened
    until every label lies inside the axes, clear of the tick labels.
    """
    expl = _check(expl, output)
    max_display = _check_max_display(max_display)
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
            datum = expl.data[j]
            try:
                label = f"{label} = {float(datum):.3g}"
            except (TypeError, ValueError):
                label = f"{label} = {datum}"
        labels.append(label)
    steps = list(values[shown])
    lows, highs = [0.0] * len(shown), [0.0] * len(shown)
    if expl.has_intervals:
        lows = list(values[shown] - expl.lower[shown])
        highs = list(expl.upper[shown] - values[shown])
    if rest:
        labels.append(_other_label(len(rest)))
        steps.append(float(values[rest].sum()))
        lows.append(0.0)
        highs.append(0.0)
    steps, labels = steps[::-1], labels[::-1]
    lows, highs = lows[::-1], highs[::-1]
    base = float(expl.base_values)
    ax = _axes(ax, (7, 0.45 * len(steps) + 1.5))
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


def beeswarm(expl, *, ax=None, max_display=12, title=None, cmap="coolwarm", seed=0, output=None):
    """Beeswarm of many instances: one row per feature, colour = feature value.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        Many instances (2-D values).
    ax : matplotlib Axes, optional
    max_display : int, default 12
        Features shown, by mean |phi|, largest at the top. When some are
        hidden, one more row at the bottom, "N other features", shows per
        instance the sum of their phi (as shap does), in grey: it has no
        single feature value to colour by.
    title : str, optional
    cmap : str, default "coolwarm"
    seed : int or Generator, default 0
        Randomness of the vertical jitter.

    Returns
    -------
    matplotlib Axes
    """
    expl = _check(expl, output)
    max_display = _check_max_display(max_display)
    if expl.values.ndim != 2:
        raise ValueError("beeswarm needs many instances (2-D values)")
    values = expl.values
    names = np.asarray(expl.feature_names, dtype=object)
    full = _order(np.abs(values).mean(axis=0), values.shape[1])
    shown, hidden = full[:max_display][::-1], full[max_display:]
    offset = 1 if len(hidden) else 0
    ax = _axes(ax, (7, 0.4 * (len(shown) + offset) + 1.5))
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
    labels = ([_other_label(len(hidden))] if len(hidden) else []) + list(names[shown])
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


def dependence(expl, feature, *, ax=None, color_by=None, title=None, output=None):
    """Shapley value of ``feature`` against its value, one point per instance.

    ``color_by`` colours the points by another feature's value (a name or a
    position), or ``"interaction"``: by the feature that interacts most with
    ``feature`` (largest mean |interaction|; needs ``expl.interactions``).
    """
    expl = _check(expl, output)
    if expl.values.ndim != 2 or expl.data is None:
        raise ValueError("dependence needs many instances with their data")
    j = _feature_index(expl, feature)
    if isinstance(color_by, str) and color_by == "interaction" and "interaction" not in expl.feature_names:
        color_by = strongest_interaction(expl, j)
    k = None if color_by is None else _feature_index(expl, color_by)  # checked before drawing anything
    ax = _axes(ax, (5, 4))
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


def kde(expl, features=None, *, ax=None, title=None, label=None, output=None):
    """Kernel density of the attributions of selected features across instances."""
    import seaborn as sns

    expl = _check(expl, output)
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


def _feature_index(expl, feature):
    """Position of ``feature`` (a name or an integer position) among the Explanation's features."""
    names = list(expl.feature_names)
    if isinstance(feature, str):
        if feature not in names:
            raise ValueError(f"unknown feature {feature!r}; features are {names}")
        return names.index(feature)
    if isinstance(feature, (bool, np.bool_)) or not isinstance(feature, (int, np.integer)):
        raise ValueError(f"feature must be a feature name or an integer position; got {feature!r}")
    if not -len(names) <= feature < len(names):
        raise ValueError(f"feature {feature} is out of range for {len(names)} features {names}")
    return int(feature) % len(names)


def _row_position(row, n):
    """``row`` as a position in [0, n): an integer in [-n, n), else a ValueError."""
    if isinstance(row, (bool, np.bool_)) or not isinstance(row, (int, np.integer)) or not -n <= row < n:
        raise ValueError(f"row must be an integer position among the {n} explained points; got {row!r}")
    return int(row) % n


def _zero_variance(variances):
    """Which variances are negligible: at most 1e-10 of the largest (all, when that is 0)."""
    variances = np.clip(variances, 0.0, None)
    scale = variances.max() if variances.size else 0.0
    return variances <= 1e-10 * scale if scale > 0 else np.ones(variances.shape, dtype=bool)


def correlation(expl, row=0, *, ax=None, title=None, annotate=None, output=None):
    """Heatmap of the correlations between the features' attributions at one point.

    The Shapley values of a random function (the posterior of a Gaussian
    process, say) are random and, in general, correlated: this draws the
    correlation matrix ``C_jk / sqrt(C_jj C_kk)`` of one point's covariance
    block ``C = expl.covariance[row]`` (as :func:`kernelxai.explain_gp`
    gives it) on a diverging colour scale fixed to [-1, 1].

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        With a covariance block, ``expl.covariance`` of shape (n, d, d) (or
        (d, d) for a single instance).
    row : int, default 0
        The explained point (ignored, except that it must be 0, for a single
        instance).
    ax : matplotlib Axes, optional
    title : str, optional
        Default: "correlation of Shapley values (row r)".
    annotate : bool, optional
        Write each correlation in its cell; default when d <= 12.
    output : str or int, optional
        The output to draw for an Explanation with several outputs.

    Returns
    -------
    matplotlib Axes
        The image is ``ax.images[0]``; its data is a masked array of the
        correlations.

    Notes
    -----
    A feature whose attribution has zero variance (at most 1e-10 of the
    largest variance, i.e. a standard deviation below 1e-5 of the largest;
    e.g. a feature the kernel ignores) has no correlation:
    its row and column are masked and drawn light grey, and the title names
    it.
    """
    expl = _check(expl, output)
    if expl.covariance is None:
        raise ValueError(
            "this Explanation has no covariance block (expl.covariance is None); explain with "
            "kx.explain_gp to get covariances of the Shapley values"
        )
    cov = np.asarray(expl.covariance, dtype=float)
    if cov.ndim == 3:
        row = _row_position(row, cov.shape[0])
        cov = cov[row]
        where = f" (row {row})"
    else:
        if row not in (0, None):
            raise ValueError(f"this Explanation has a single instance; row must be 0, got {row!r}")
        where = ""
    d = cov.shape[0]
    names = list(expl.feature_names)
    if annotate is None:
        annotate = d <= 12
    variances = np.diagonal(cov)
    zero = _zero_variance(variances)
    sd = np.sqrt(np.clip(variances, 0.0, None))
    denom = np.outer(sd, sd)
    valid = ~(zero[:, None] | zero[None, :])
    corr = np.zeros_like(cov)
    np.divide(cov, denom, out=corr, where=valid)
    corr = np.clip(corr, -1.0, 1.0)
    corr[np.diag_indices(d)] = np.where(zero, 0.0, 1.0)
    image = np.ma.masked_array(corr, mask=~valid)

    import matplotlib as mpl

    cmap = mpl.colormaps["RdBu_r"].with_extremes(bad="#d9d9d9")
    ax = _axes(ax, (0.45 * d + 3.0, 0.45 * d + 2.0))
    im = ax.imshow(image, cmap=cmap, vmin=-1.0, vmax=1.0)
    ax.set_xticks(np.arange(d), names, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(np.arange(d), names)
    ax.figure.colorbar(im, ax=ax, label="correlation", fraction=0.046, pad=0.04)
    if annotate:
        for j, k in zip(*np.nonzero(valid)):
            ax.text(k, j, f"{corr[j, k]:.2f}", ha="center", va="center", fontsize=8,
                    color="white" if abs(corr[j, k]) > 0.6 else "black")
    text = f"correlation of Shapley values{where}" if title is None else title
    if zero.any():
        blank = [names[j] for j in np.flatnonzero(zero)]
        text += f"\ngrey: zero variance ({', '.join(blank)})"
    ax.set_title(text, fontsize=10)
    return ax


def dependence_band(expl, feature, *, n_draws=20, seed=0, ax=None, title=None, level=0.95,
                    output=None):
    """A feature's Shapley value along its values: posterior mean, credible band and draws.

    For an Explanation of a random function at many points with the joint
    covariance of all its Shapley values (``kx.explain_gp(..., joint=True)``),
    the Shapley values of one feature at the explained points are jointly
    Gaussian. This draws, against the feature's value ``expl.data[:, j]``
    (sorted), their mean, the pointwise credible band
    ``mean -/+ z sd`` (z the standard normal quantile of ``(1 + level) / 2``,
    1.96 at 95%) and ``n_draws`` joint draws -- Shapley values of draws of
    the function, the "explanation functions".

    Parameters
    ----------
    expl : Explanation
        Many points (2-D values) with ``data`` and ``joint_covariance``.
    feature : str or int
        The feature, by name or position.
    n_draws : int, default 20
        Joint draws to plot (0 for none).
    seed : int or numpy Generator, default 0
        Randomness of the draws.
    ax : matplotlib Axes, optional
    title : str, optional
    level : float, default 0.95
        Credible level of the band, in (0, 1).
    output : str or int, optional
        The output to draw for an Explanation with several outputs.

    Returns
    -------
    matplotlib Axes
        The band is the collection with gid ``"band"``, the mean the line
        with gid ``"mean"``, the draws the lines with gid ``"draw"``.

    Notes
    -----
    The draws are ``mean + V sqrt(max(w, 0)) z`` with ``V diag(w) V^T`` the
    symmetric eigen-decomposition of the feature's block of the joint
    covariance and z standard normal: no jitter is added, and the small
    negative eigenvalues that rounding leaves in a positive semi-definite
    matrix are clipped to zero.
    """
    from scipy.stats import norm

    from .._validation import check_rng

    expl = _check(expl, output)
    if expl.joint_covariance is None:
        raise ValueError(
            "dependence_band needs the joint covariance of the Shapley values across points "
            "(expl.joint_covariance is None); explain with kx.explain_gp(gp, X, joint=True)"
        )
    if expl.values.ndim != 2 or expl.data is None:
        raise ValueError("dependence_band needs many points (2-D values) with their data")
    if isinstance(n_draws, (bool, np.bool_)) or not isinstance(n_draws, (int, np.integer)) or n_draws < 0:
        raise ValueError(f"n_draws must be a non-negative integer; got {n_draws!r}")
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, float, np.floating)) \
            or not 0.0 < level < 1.0:
        raise ValueError(f"level must be a number in (0, 1); got {level!r}")
    j = _feature_index(expl, feature)
    n, d = expl.values.shape
    try:
        x = np.asarray(expl.data[:, j], dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"feature {expl.feature_names[j]!r} has non-numeric data; "
                         "dependence_band needs numbers on the x-axis") from None
    cells = np.arange(n) * d + j
    cov = np.asarray(expl.joint_covariance, dtype=float)[np.ix_(cells, cells)]
    cov = 0.5 * (cov + cov.T)
    mean = np.asarray(expl.values[:, j], dtype=float)
    sd = np.sqrt(np.clip(np.diagonal(cov), 0.0, None))
    z = float(norm.ppf(0.5 + level / 2))
    order = np.argsort(x, kind="stable")

    ax = _axes(ax, (6, 4))
    name = expl.feature_names[j]
    pct = f"{100 * level:g}%"
    if n_draws:
        w, V = np.linalg.eigh(cov)
        factor = V * np.sqrt(np.clip(w, 0.0, None))[None, :]
        # one row of normals per draw: the first k draws do not depend on n_draws
        draws = mean[:, None] + factor @ check_rng(seed).standard_normal((n_draws, n)).T
        for t in range(n_draws):
            ax.plot(x[order], draws[order, t], color="#4c72b0", lw=0.7, alpha=0.35, gid="draw",
                    label="draws" if t == 0 else "_nolegend_")
    ax.fill_between(x[order], (mean - z * sd)[order], (mean + z * sd)[order], color="#fdae6b",
                    alpha=0.35, lw=0, gid="band", label=f"{pct} credible band")
    ax.plot(x[order], mean[order], color="#b2182b", lw=1.6, marker="o", ms=3, gid="mean",
            label="posterior mean")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel(name)
    ax.set_ylabel(f"Shapley value of {name}")
    ax.legend(fontsize=8)
    ax.set_title(title if title is not None
                 else f"{name}: mean, {pct} band and {n_draws} draws", fontsize=10)
    return ax


# --------------------------------------------------------------------------- interactions
def _interaction_matrix(expl, row):
    """(d, d) interaction matrix of one instance, or the mean |interaction| over instances."""
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
    row = _row_position(row, block.shape[0])
    return block[row], f"instance {row}", row


def interaction_heatmap(expl, row=None, *, ax=None, title=None, annotate=None, max_display=20,
                        output=None):
    """Heatmap of the pairwise interactions, with feature names on both axes.

    ``row=None`` shows the mean absolute interaction over instances (a global
    picture, sequential colours); an integer shows one instance's signed
    interactions (diverging colours, symmetric around 0). At most
    ``max_display`` features -- those with the largest total |interaction| --
    are shown. Numbers are written in the cells when at most 12 features are
    shown (``annotate`` overrides).
    """
    expl = _check(expl, output)
    matrix, what, _ = _interaction_matrix(expl, row)
    max_display = _check_max_display(max_display)
    names = list(expl.feature_names)
    keep = np.sort(_order(np.abs(matrix).sum(axis=1), max_display))
    shown = matrix[np.ix_(keep, keep)]
    k = len(keep)
    ax = _axes(ax, (0.45 * k + 2.6, 0.45 * k + 2.0))
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
                           + (f"; {_other_label(hidden)} not shown" if hidden else "")))
    return ax


def interaction_network(expl, row=None, *, top=10, ax=None, title=None, output=None):
    """The strongest pairwise interactions as a graph (matplotlib only).

    Features sit on a circle; the ``top`` pairs with the largest |interaction|
    (mean over instances when ``row`` is None) are edges whose width grows with
    the strength, red for positive and blue for negative (grey for the mean
    absolute value). Node size follows the feature's mean |order-1 value|.
    """
    expl = _check(expl, output)
    matrix, what, r = _interaction_matrix(expl, row)
    if isinstance(top, (bool, np.bool_)) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"top must be a positive integer; got {top!r}")
    names = list(expl.feature_names)
    d = len(names)
    iu, ju = np.triu_indices(d, k=1)
    strength = matrix[iu, ju]
    order = np.argsort(-np.abs(strength), kind="stable")[:top]
    order = order[np.abs(strength[order]) > 0]
    ax = _axes(ax, (5.5, 5.5))
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


def strongest_interaction(expl, feature):
    """The feature that interacts most with ``feature``: largest mean |interaction| over instances."""
    expl = _check(expl)
    j = _feature_index(expl, feature)
    matrix, _, _ = _interaction_matrix(expl, None)
    scores = np.abs(matrix[j]).copy()
    scores[j] = -np.inf
    return int(np.argmax(scores))
