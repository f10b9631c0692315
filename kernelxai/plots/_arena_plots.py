"""Plots of the arena (:func:`kx.compare_estimators <kernelxai.compare_estimators>`): error against
budget, and the coverage of stated intervals against budget.

Takes an :class:`~kernelxai.explainers.EstimatorComparison`; hands back the matplotlib Axes drawn on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..explainers._arena import EstimatorComparison
from ._plot_style import new_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["estimator_errors", "estimator_coverage"]

#: Errors of exact methods are drawn no lower than this (a log axis has no zero).
ERROR_FLOOR = 1e-16


def _check(result) -> EstimatorComparison:
    if not isinstance(result, EstimatorComparison):
        raise TypeError(f"expected the result of kx.compare_estimators (an EstimatorComparison); got "
                        f"{type(result).__name__}")
    return result


def _budget_ticks(ax, budgets):
    """Ticks at the budgets compared, labelled as plain numbers (no crowded minor labels of a log axis)."""
    from matplotlib.ticker import NullFormatter

    budgets = sorted(budgets)
    ax.set_xticks(budgets, [f"{b:g}" for b in budgets], fontsize="small")
    ax.xaxis.set_minor_formatter(NullFormatter())


def _run_errors(result):
    """Per method: (budgets, mean over seeds, lowest and highest seed) of the per-run mean error."""
    f = result.frame
    runs = f.groupby(["method", "budget", "seed"], sort=False, dropna=False)["error"].mean().reset_index()
    out = {}
    for method in result.methods:
        r = runs[runs["method"] == method]
        if r["budget"].isna().all():
            out[method] = None if r.empty else float(r["error"].mean())
            continue
        g = r.groupby("budget")["error"]
        out[method] = (g.mean().index.to_numpy(float), g.mean().to_numpy(), g.min().to_numpy(), g.max().to_numpy())
    return out


def estimator_errors(result: EstimatorComparison, *, ax: Axes | None = None, title: str | None = None,
                     band: bool = True) -> Axes:
    r"""Relative squared error against budget, log-log: one line per method, a band over seeds.

    The line is the mean over seeds of each run's mean error over the points
    (:math:`\|\hat\phi - \phi\|^2 / \|\phi\|^2`); the band spans the lowest and the highest seed. An
    exact method is a dashed horizontal line, or -- when its error is below :data:`ERROR_FLOOR`, as it
    should be -- only named in the legend with its error.

    Parameters
    ----------
    result : EstimatorComparison
        What :func:`kx.compare_estimators <kernelxai.compare_estimators>` returned.
    ax : matplotlib Axes, optional
        Default: a new figure.
    title : str, optional
    band : bool, default True
        Shade the range over seeds.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    TypeError
        ``result`` is not an EstimatorComparison.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: np.tanh(Z @ np.linspace(-1, 1, 8)), 8)
    >>> arena = kx.compare_estimators(g, methods=["kernel", "permutation", "exact"], budgets=[30, 90], seeds=2)
    >>> ax = kx.plots.estimator_errors(arena)
    >>> sorted(t.get_text() for t in ax.get_legend().get_texts())
    ['exact (exact; error 0e+00)', 'kernel', 'permutation']
    """
    result = _check(result)
    ax = new_axes(ax, (6.0, 4.0))
    exact = []
    for method, curve in _run_errors(result).items():
        if curve is None:
            continue
        if not isinstance(curve, tuple):
            exact.append((method, curve))
            continue
        budgets, mean, low, high = curve
        (line,) = ax.plot(budgets, mean, marker="o", ms=3, label=method)
        if band and len(budgets) > 1:
            ax.fill_between(budgets, low, high, color=line.get_color(), alpha=0.2, lw=0)
    for method, error in exact:   # a line at ~1e-30 would flatten the sampled ones: named in the legend
        if np.isfinite(error) and error > ERROR_FLOOR:
            ax.axhline(error, ls="--", lw=1, color="grey", label=f"{method} (exact)")
        else:
            ax.plot([], [], ls="--", lw=1, color="grey", label=f"{method} (exact; error {max(error, 0.0):.0e})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    if result.budgets:
        _budget_ticks(ax, result.budgets)
    d = result.truth.shape[1]
    ax.set_xlabel(f"budget (game evaluations; d = {d})")
    ax.set_ylabel(r"relative squared error $\|\hat\phi-\phi\|^2/\|\phi\|^2$")
    ax.set_title(title if title is not None else "Error against budget (band: range over seeds)")
    ax.legend(fontsize="small")
    return ax


def estimator_coverage(result: EstimatorComparison, *, ax: Axes | None = None, title: str | None = None,
                       tolerance: float = 0.02) -> Axes:
    """Empirical coverage of the stated intervals against budget, with the stated level.

    One line per method that states intervals: the share of (point, feature) pairs, over all
    seeds, whose interval holds the exact value. The stated level is a horizontal line, and
    ``level +- tolerance`` is shaded.

    Parameters
    ----------
    result : EstimatorComparison
    ax : matplotlib Axes, optional
    title : str, optional
    tolerance : float, default 0.02
        Half-width of the shaded band around the level.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    TypeError
        ``result`` is not an EstimatorComparison.
    ValueError
        No method of ``result`` states intervals.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: np.tanh(Z @ np.linspace(-1, 1, 8)), 8)
    >>> arena = kx.compare_estimators(g, methods=["kernel", "permutation"], budgets=[30, 90], seeds=2, level=0.9)
    >>> ax = kx.plots.estimator_coverage(arena)
    >>> ax.get_ylabel()
    'coverage (stated level 0.9)'
    """
    result = _check(result)
    s = result.summary().reset_index()
    s = s[s["coverage"].notna() & s["budget"].notna()]
    if s.empty:
        raise ValueError("no method of this comparison states intervals (coverage is NaN throughout)")
    ax = new_axes(ax, (6.0, 4.0))
    level = result.level
    if level is None:
        raise ValueError("this comparison asked for no intervals (level=None); run it with level=0.9 or 0.95")
    ax.axhspan(level - tolerance, level + tolerance, color="grey", alpha=0.15, lw=0,
               label=f"level ± {tolerance:g}")
    ax.axhline(level, color="grey", lw=1)
    for method in result.methods:
        r = s[s["method"] == method]
        if not r.empty:
            ax.plot(r["budget"].to_numpy(float), r["coverage"].to_numpy(float), marker="o", ms=3, label=method)
    ax.set_xscale("log")
    _budget_ticks(ax, s["budget"].unique())
    ax.set_xlabel(f"budget (game evaluations; d = {result.truth.shape[1]})")
    ax.set_ylabel(f"coverage (stated level {level:g})")
    ax.set_title(title if title is not None else "Coverage of the stated intervals")
    ax.legend(fontsize="small")
    return ax
