"""The error the arena measured, as a guide beside a sampled estimate (``meta["arena_error"]``).

Takes a sampled estimator, the options of a call, the number of players and the evaluations it
used; hands on the relative squared error :math:`\\|\\hat\\phi - \\phi\\|^2 / \\|\\phi\\|^2` that
``benchmarks/bench_estimators.py --write-guide`` measured for that estimator at the nearest
(d, budget) of its run, on product-kernel models whose exact values are known -- **not** on the
model being explained, and said so in the label every answer carries.

The table is package data (``_arena_errors.json``, written by the benchmark), read on the first
sampled call, never at import. Nearest: first the measured d closest to the call's on a log
scale, then, at that d, the budget closest in multiples of d (``budget / d``, log scale); ties go
to the smaller. A call whose options change the estimator itself (e.g. ``paired=False``,
``focused=True``) gets no guide unless the run measured that variant (labelled as
``"kernel (replace=False)"``); options that do not change the estimate's accuracy (``level``,
intervals, progress, blocks) are not looked at.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._registry import Estimator

__all__ = ["measured_error", "guide_label", "nearest_row", "load_guide", "GUIDE_FILE", "GUIDE_LABEL", "IGNORED"]

#: The package data file the benchmark writes (``--write-guide``) and this module reads.
GUIDE_FILE = "_arena_errors.json"
#: What every answer says about where the number comes from.
GUIDE_LABEL = ("measured by the arena on other models (product-kernel SVR / kernel ridge / GP mean), "
               "not on yours")
#: Options that leave the estimate's accuracy as it is: not part of the variant looked up.
IGNORED = frozenset({"budget", "level", "interval", "intervals", "bootstrap", "progress", "max_elements",
                     "orderings", "target_width", "batch_size", "max_samples", "n_candidates", "temperature"})


@lru_cache(maxsize=1)
def load_guide() -> dict[str, Any]:
    """The table of ``_arena_errors.json`` (read once; an empty table when the file is missing)."""
    import json
    from importlib import resources

    source = resources.files(__package__) / GUIDE_FILE
    if not source.is_file():
        return {"errors": {}, "run": {}}
    return json.loads(source.read_text(encoding="utf-8"))


def guide_label(est: Estimator, options: dict[str, Any]) -> str | None:
    """The variant of ``est`` a call with ``options`` runs: its name, with the options it changes.

    None when an option that changes the estimator is not a plain value (a fixed design).

    Examples
    --------
    >>> from kernelxai.estimators import get_estimator
    >>> kernel = get_estimator("kernel")
    >>> guide_label(kernel, kernel.resolve_options({"budget": 200, "level": 0.9, "interval": "sandwich"}))
    'kernel'
    >>> guide_label(kernel, kernel.resolve_options({"replace": False}))
    'kernel (replace=False)'
    """
    accepted = est.accepted_options()
    changed = []
    for key, value in options.items():
        if key in IGNORED or key not in accepted:
            continue
        default = accepted[key].default
        if value is None and default is None:
            continue
        if not isinstance(value, (bool, int, float, str)):
            return None
        if isinstance(value, bool) == isinstance(default, bool) and value == default:
            continue
        changed.append(f"{key}={value!r}")
    return est.name if not changed else f"{est.name} ({', '.join(changed)})"


def nearest_row(rows: list[dict[str, Any]], d: int, budget: int) -> dict[str, Any] | None:
    """The row of ``rows`` (each with ``d`` and ``budget``) nearest to (d, budget), as the module says.

    Examples
    --------
    >>> rows = [{"d": 10, "budget": 50}, {"d": 10, "budget": 100}, {"d": 50, "budget": 250},
    ...         {"d": 50, "budget": 5000}]
    >>> nearest_row(rows, 12, 90)                  # d = 10 is nearest; 7.5x of 12 is nearest 10x of 10
    {'d': 10, 'budget': 100}
    >>> nearest_row(rows, 40, 4000)                # d = 50; 100x of 40 is nearest 100x of 50
    {'d': 50, 'budget': 5000}
    >>> nearest_row([], 10, 100) is None
    True
    """
    if not rows:
        return None
    dims = sorted({int(r["d"]) for r in rows})
    near_d = min(dims, key=lambda m: (abs(math.log(m / d)), m))
    at_d = sorted((r for r in rows if int(r["d"]) == near_d), key=lambda r: int(r["budget"]))
    multiple = budget / d
    return min(at_d, key=lambda r: (abs(math.log((int(r["budget"]) / near_d) / multiple)), int(r["budget"])))


def measured_error(est: Estimator, options: dict[str, Any], d: int, budget: int | None) -> dict[str, Any] | None:
    """The guide for a sampled call: the error the arena measured for this estimator near (d, budget).

    Parameters
    ----------
    est : Estimator
        The sampled estimator that answered.
    options : dict
        Its resolved options (which variant ran).
    d : int
        Players of the game.
    budget : int or None
        Game evaluations the call used.

    Returns
    -------
    dict or None
        ``relative_squared_error`` (the median over the run's three model families of their mean
        error), ``range`` (the smallest and largest family's), ``by_model``, ``d`` and ``budget``
        (where it was measured), ``asked`` (this call's d and budget), ``method`` (the variant),
        ``label`` (:data:`GUIDE_LABEL`) and ``run`` (which benchmark run). None for an exact
        estimator, a call whose budget reaches all :math:`2^d` coalitions (the regressions are then
        exact, and the arena measured below that), or a variant the run did not measure.

    Examples
    --------
    >>> from kernelxai.estimators import get_estimator
    >>> est = get_estimator("leverage_shap")
    >>> guide = measured_error(est, est.resolve_options({}), 30, 600)
    >>> guide["label"].startswith("measured by the arena on other models"), guide["asked"]
    (True, {'d': 30, 'budget': 600})
    """
    if est.exact or budget is None or budget <= 0 or (d < 60 and budget >= 2 ** d):
        return None
    name = guide_label(est, options)
    table = load_guide()
    row = nearest_row(table["errors"].get(name, []) if name is not None else [], d, budget)
    if row is None:
        return None
    return {"relative_squared_error": float(row["error"]), "range": [float(x) for x in row["range"]],
            "by_model": dict(row["by_model"]), "d": int(row["d"]), "budget": int(row["budget"]),
            "asked": {"d": int(d), "budget": int(budget)}, "method": name, "label": GUIDE_LABEL,
            "run": table["run"].get("summary", "")}
