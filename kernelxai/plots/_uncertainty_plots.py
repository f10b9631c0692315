"""Plots of how sure attributions are: the density of attributions across instances (kde), the
posterior correlation of a Gaussian process's Shapley values (correlation) and a feature's posterior
mean, credible band and draws along its values (dependence_band).

Takes an Explanation (the GP plots need the covariances of :func:`kernelxai.explain_gp`); hands
back the matplotlib Axes drawn on. seaborn and scipy.stats are imported when a figure is drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._validation import check_rng
from ._plot_style import as_explanation, feature_index, new_axes, row_position

if TYPE_CHECKING:
    from collections.abc import Sequence

    import shap
    from matplotlib.axes import Axes

    from ..explanation import Explanation

__all__ = ["kde", "correlation", "dependence_band"]


def kde(expl: Explanation | shap.Explanation, features: Sequence[str | int] | None = None, *, ax: Axes | None = None,
        title: str | None = None, label: str | None = None, output: str | int | None = None) -> Axes:
    """Kernel density of the attributions of selected features across instances.

    One curve per feature (seaborn's ``kdeplot``); a feature whose attributions are all
    equal is drawn as a dashed vertical line at that value instead.

    Parameters
    ----------
    expl : Explanation or shap.Explanation
        Many instances (2-D values).
    features : list of str or int, optional
        The features to draw, by name or position; default all.
    ax : matplotlib Axes, optional
        Default: a new figure. Curves of several calls can share one Axes (e.g. two
        methods, told apart by ``label``).
    title : str, optional
    label : str, optional
        Prefix of the legend entries, ``"label: feature"``; default the feature names.
    output : str or int, optional
        The output to draw for an Explanation with several outputs (a name or a position).

    Returns
    -------
    matplotlib Axes
        With a legend of the features drawn.

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For one instance (1-D values), an unknown feature name or position, or an ``output``
        missing, unknown or given for a single-output Explanation.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> ax = kx.plots.kde(kx.explain(model, X), ["x0", "x2"], label="ridge")
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['ridge: x0', 'ridge: x2']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    import seaborn as sns

    expl = as_explanation(expl, output)
    if expl.values.ndim != 2:
        raise ValueError("kde needs many instances (2-D values)")
    # checked before a figure opens: a bad name or position leaves nothing behind
    picks = range(expl.values.shape[1]) if features is None else [feature_index(expl, f) for f in features]
    ax = new_axes(ax, (6, 4))
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



def _zero_variance(variances):
    """Which variances are negligible: at most 1e-10 of the largest (all, when that is 0)."""
    variances = np.clip(variances, 0.0, None)
    scale = variances.max() if variances.size else 0.0
    return variances <= 1e-10 * scale if scale > 0 else np.ones(variances.shape, dtype=bool)


def correlation(expl: Explanation | shap.Explanation, row: int = 0, *, ax: Axes | None = None, title: str | None = None,
                annotate: bool | None = None, output: str | int | None = None) -> Axes:
    r"""Heatmap of the correlations between the features' attributions at one point.

    The Shapley values of a random function (the posterior of a Gaussian
    process, say) are random and, in general, correlated: this draws the
    correlation matrix :math:`C_{jk} / \sqrt{C_{jj} C_{kk}}` of one point's covariance
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

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For an Explanation without a covariance block, a ``row`` out of range (or not
        0 for a single instance), or an ``output`` missing, unknown or given for a
        single-output Explanation.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> gp = GaussianProcessRegressor(alpha=0.1, optimizer=None).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> ax = kx.plots.correlation(kx.explain_gp(gp, X[:4]), row=1)
    >>> ax.get_title()
    'correlation of Shapley values (row 1)'
    >>> np.round(ax.images[0].get_array().data, 2)  # nearly uncorrelated here
    array([[ 1.  ,  0.09,  0.01],
           [ 0.09,  1.  , -0.05],
           [ 0.01, -0.05,  1.  ]])
    >>> import matplotlib.pyplot as plt; plt.close("all")

    Notes
    -----
    A feature whose attribution has zero variance (at most 1e-10 of the
    largest variance, i.e. a standard deviation below 1e-5 of the largest;
    e.g. a feature the kernel ignores) has no correlation:
    its row and column are masked and drawn light grey, and the title names
    it.
    """
    expl = as_explanation(expl, output)
    if expl.covariance is None:
        raise ValueError(
            "this Explanation has no covariance block (expl.covariance is None); explain with "
            "kx.explain_gp to get covariances of the Shapley values"
        )
    cov = np.asarray(expl.covariance, dtype=float)
    if cov.ndim == 3:
        row = row_position(row, cov.shape[0])
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
    ax = new_axes(ax, (0.45 * d + 3.0, 0.45 * d + 2.0))
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


def dependence_band(expl: Explanation, feature: str | int, *, n_draws: int = 20,
                    seed: int | np.random.Generator | None = 0, ax: Axes | None = None, title: str | None = None,
                    level: float = 0.95, output: str | int | None = None) -> Axes:
    r"""A feature's Shapley value along its values: posterior mean, credible band and draws.

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

    Raises
    ------
    TypeError
        When ``expl`` is neither a kernelxai nor a shap Explanation.
    ValueError
        For an Explanation without a joint covariance, with one point or without data,
        ``n_draws`` that is not a non-negative integer, ``level`` outside (0, 1), an
        unknown ``feature`` or one with non-numeric data, or an ``output`` missing,
        unknown or given for a single-output Explanation.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> gp = GaussianProcessRegressor(alpha=0.1, optimizer=None).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> expl = kx.explain_gp(gp, X[:8], joint=True)
    >>> ax = kx.plots.dependence_band(expl, "x0", n_draws=3, seed=0)
    >>> ax.get_title(), [line.get_gid() for line in ax.lines][:4]
    ('x0: mean, 95% band and 3 draws', ['draw', 'draw', 'draw', 'mean'])
    >>> import matplotlib.pyplot as plt; plt.close("all")

    Notes
    -----
    The draws are :math:`\text{mean} + V \sqrt{\max(w, 0)}\, z` with :math:`V \operatorname{diag}(w) V^\top` the
    symmetric eigen-decomposition of the feature's block of the joint
    covariance and :math:`z` standard normal: no jitter is added, and the small
    negative eigenvalues that rounding leaves in a positive semi-definite
    matrix are clipped to zero.
    """
    from scipy.stats import norm

    expl = as_explanation(expl, output)
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
    j = feature_index(expl, feature)
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

    ax = new_axes(ax, (6, 4))
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

