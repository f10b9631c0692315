"""``kx.compare_estimators``: the arena -- every sampled Shapley estimator scored against the exact values.

Takes a fitted model (with the points, value function and background :func:`kx.explain
<kernelxai.explain>` takes) or a :class:`~kernelxai.games.Game`; hands back an
:class:`EstimatorComparison`: a tidy table with one row per method, budget, seed and point --
the relative squared error :math:`\\|\\hat\\phi - \\phi\\|^2 / \\|\\phi\\|^2` against the exact values,
the seconds and game evaluations of the run, and, for estimators that state intervals, how many
of the point's features the interval holds and how wide it is -- with a per-method, per-budget
summary. :mod:`kernelxai.plots` draws it (``estimator_errors``, ``estimator_coverage``).

Why it lives with the entry points and not in :mod:`kernelxai.estimators`: it builds the game
from a model exactly as ``kx.explain`` does (the value functions, the output plans, the model
intake), and the estimators' stage sits below all of that (it knows games only). The
estimators it compares are taken from the estimator registry by name, so an estimator
registered later joins the arena without a change here.

Exact values come from the exact route the game has: the polynomial-time product routes for
product-kernel models (``method="auto"``'s choice), enumeration of all coalitions up to
:data:`ARENA_ENUMERATION_PLAYERS` players; otherwise ``truth=`` must be given.
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._params import Anything, Data, InvalidOptionError, Real, Text, parameters, value_error
from ..estimators._choose import choose
from ..estimators._common import progress_bar
from ..estimators._registry import (
    Cost,
    NotApplicableError,
    check_cost,
    estimators,
    format_seconds,
    get_estimator,
)
from ..estimators._shapley import applicable_methods, run_resolved
from ..explanation import Explanation
from ..games import Game
from ._explain import _build_game, check_value_applies
from ._intake import intake

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import pandas as pd
    from numpy.typing import ArrayLike

    from ..estimators import Estimator

__all__ = ["compare_estimators", "EstimatorComparison", "DEFAULT_BUDGET_MULTIPLES", "ARENA_ENUMERATION_PLAYERS",
           "interval_options", "relative_errors"]

#: Budgets tried when none are given, as multiples of the number of players d.
DEFAULT_BUDGET_MULTIPLES = (2, 5, 10, 20, 50, 100, 200)
#: Games without a product route get exact values by enumeration up to this many players (2**16 coalitions).
ARENA_ENUMERATION_PLAYERS = 16
#: An interval holds the exact value when it does to within this share of the point's largest value
#: (an estimate that is exact -- all coalitions enumerated -- has an interval of zero width).
ROUNDING = 1e-9
#: The columns of :attr:`EstimatorComparison.frame`, in order.
COLUMNS = ("method", "budget", "seed", "point", "error", "evaluations", "seconds", "coverage", "width")


# --------------------------------------------------------------------------- #
# the result
# --------------------------------------------------------------------------- #
@dataclass
class EstimatorComparison:
    """What :func:`compare_estimators` measured: one row per method, budget, seed and point.

    Attributes
    ----------
    frame : pandas.DataFrame
        Tidy, one row per (method, budget, seed, point), columns :data:`COLUMNS`:
        ``method`` (its label), ``budget`` (game evaluations asked for; NaN for an exact method,
        which takes none), ``seed``, ``point`` (row of the explained points), ``error``
        (:math:`\\|\\hat\\phi - \\phi\\|^2 / \\|\\phi\\|^2` of that point; NaN where :math:`\\phi = 0`),
        ``evaluations`` (game evaluations the run used), ``seconds`` (of the whole run, all points
        at once), ``coverage`` (share of the point's features whose interval holds the exact value,
        to within :data:`ROUNDING` of the point's largest value; NaN for an estimator that states
        none, and an infinite interval -- the estimator could not estimate its spread at this
        budget -- counts as none) and ``width`` (mean interval width over those features).
    truth : ndarray (n, d)
        The exact values the estimates are scored against.
    truth_method : str
        How they were obtained: an exact method's name, or ``"given"``.
    level : float or None
        The level intervals were asked for (None: not asked for).
    feature_names : list of str
    skipped : list of (str, int, str)
        (method, budget, reason) of the runs not made (a budget below the estimator's minimum) or
        refused by the estimator (its message, e.g. a draw that identifies too few directions).
    estimated_seconds : float
        The cost guard's estimate of the whole comparison.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(60, 6))
    >>> krr = KernelRidge(kernel="rbf", gamma=0.2, alpha=0.1).fit(X, X[:, 0] * X[:, 1] + X[:, 2])
    >>> arena = kx.compare_estimators(krr, X[:3], background=X[:20], methods=["kernel", "permutation"],
    ...                               budgets=[20, 40], seeds=2)
    >>> arena                                        # d = 6: enumeration is the cheapest exact route
    EstimatorComparison(methods=['kernel', 'permutation'], budgets=[20, 40], seeds=2, points=3, d=6, truth='exact')
    >>> list(arena.summary().columns)
    ['evaluations', 'mean_error', 'median_error', 'coverage', 'width', 'seconds', 'runs']
    """

    frame: pd.DataFrame
    truth: np.ndarray
    truth_method: str
    level: float | None
    feature_names: list
    skipped: list = field(default_factory=list)
    estimated_seconds: float = float("nan")

    @property
    def methods(self) -> list[str]:
        """The method labels, in the order they were run."""
        return list(dict.fromkeys(self.frame["method"]))

    @property
    def budgets(self) -> list[int]:
        """The budgets of the sampled methods, ascending."""
        b = self.frame["budget"].dropna().unique()
        return sorted(int(x) for x in b)

    def summary(self) -> pd.DataFrame:
        """Per method and budget: mean and median error, coverage, width, evaluations, seconds.

        Returns
        -------
        pandas.DataFrame
            Indexed by (method, budget); ``mean_error`` is the mean over seeds and points of the
            relative squared error, ``median_error`` its median, ``coverage`` the share of all
            (point, feature) pairs whose interval holds the exact value (NaN without intervals),
            ``width`` the mean interval width, ``evaluations`` and ``seconds`` the mean per run,
            ``runs`` the number of runs (seeds).
        """
        f = self.frame
        grouped = f.groupby(["method", "budget"], sort=False, dropna=False)
        out = grouped.agg(evaluations=("evaluations", "mean"), mean_error=("error", "mean"),
                          median_error=("error", "median"), coverage=("coverage", "mean"),
                          width=("width", "mean"))
        runs = f.drop_duplicates(["method", "budget", "seed"]).groupby(["method", "budget"], sort=False,
                                                                        dropna=False)
        out["seconds"] = runs["seconds"].mean()
        out["runs"] = runs.size()
        return out

    def best(self) -> pd.Series:
        """The sampled method with the lowest mean error at each budget (a Series indexed by budget).

        Examples
        --------
        >>> import numpy as np, kernelxai as kx
        >>> g = kx.FunctionGame(lambda Z: Z @ np.linspace(-1, 1, 8) + Z[:, 0] * Z[:, 1], 8)
        >>> arena = kx.compare_estimators(g, methods=["kernel", "permutation"], budgets=[30, 80], seeds=3)
        >>> arena.best().to_dict()         # KernelSHAP's regression is exact on an additive part
        {30: 'kernel', 80: 'kernel'}
        """
        s = self.summary().reset_index()
        s = s[s["budget"].notna() & s["mean_error"].notna()]
        idx = s.groupby("budget")["mean_error"].idxmin()
        best = s.loc[idx].set_index("budget")["method"]
        best.index = best.index.astype(int)
        return best

    def __repr__(self) -> str:
        seeds = self.frame["seed"].dropna().nunique()
        return (f"EstimatorComparison(methods={self.methods}, budgets={self.budgets}, seeds={seeds}, "
                f"points={self.truth.shape[0]}, d={self.truth.shape[1]}, truth={self.truth_method!r})")


# --------------------------------------------------------------------------- #
# pieces
# --------------------------------------------------------------------------- #
def interval_options(est: Estimator, level: float) -> dict[str, Any]:
    """The options that ask ``est`` for intervals at ``level``, read from its declared options.

    ``level`` where it takes one; ``interval=`` set to its first declared kind where intervals
    are off unless asked for (KernelSHAP's ``"sandwich"``); ``intervals=True`` where it has that
    switch. An estimator that declares none of these states no intervals.

    Examples
    --------
    >>> from kernelxai.estimators import get_estimator
    >>> interval_options(get_estimator("kernel"), 0.9)
    {'level': 0.9, 'interval': 'sandwich'}
    >>> interval_options(get_estimator("exact"), 0.9)
    {}
    """
    accepted = est.accepted_options()
    out: dict[str, Any] = {}
    if "level" in accepted:
        out["level"] = level
    kind = accepted.get("interval")
    if kind is not None and kind.kind == "choice" and kind.default is None and kind.choices:
        out["interval"] = kind.choices[0]
    switch = accepted.get("intervals")
    if switch is not None and switch.kind == "bool":
        out["intervals"] = True
    return out


def _asked(est, level):
    """The interval options of a run: :func:`interval_options`, or with ``level=None`` a switch turned off."""
    if level is not None:
        return interval_options(est, level)
    switch = est.accepted_options().get("intervals")
    return {"intervals": False} if switch is not None and switch.kind == "bool" else {}


def relative_errors(estimate: ArrayLike, truth: ArrayLike) -> np.ndarray:
    r"""Per point :math:`\|\hat\phi - \phi\|^2 / \|\phi\|^2` (NaN where :math:`\phi = 0`).

    Examples
    --------
    >>> relative_errors([[1.0, 1.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 2.0]])
    array([1.  , 0.25])
    """
    estimate = np.atleast_2d(np.asarray(estimate, dtype=float))
    truth = np.atleast_2d(np.asarray(truth, dtype=float))
    norm = (truth ** 2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norm > 0, ((estimate - truth) ** 2).sum(axis=1) / norm, np.nan)


def _as_game(model_or_game, X, value, background, output) -> Game:
    """The game to compare on: the Game given, or the one ``kx.explain`` builds from the model."""
    if isinstance(model_or_game, Game):
        if X is not None or background is not None or output is not None:
            given = [k for k, v in (("X", X), ("background", background), ("output", output)) if v is not None]
            raise InvalidOptionError(
                f"{', '.join(given)} given with a Game: a Game already holds its instances and value "
                "function; pass X, value, background and output with a model instead")
        return model_or_game
    if X is None:
        raise InvalidOptionError("X=None of kx.compare_estimators: a model needs the points to explain, "
                                 "e.g. kx.compare_estimators(model, X[:20], background=X_train)")
    door = intake(model_or_game, output)
    if len(door.targets) > 1:
        names = [t.name for t in door.targets]
        raise ValueError(f"this model has {len(names)} outputs {names}: kx.compare_estimators compares one "
                         f"output at a time; pick one with output=... (as kx.explain takes it)")
    check_value_applies(door, model_or_game, value)
    target = door.targets[0]
    if door.plan is not None:
        background = door.plan.background_for(target.model, background)
    return _build_game(target, X, value, background, groups=None, group_names=None, options={}).game


def _methods(game, methods) -> list[tuple[str, Estimator, dict]]:
    """(label, estimator, options) of each method compared; default every sampled estimator that applies."""
    if methods is None:
        names = [n for n in applicable_methods(game) if not estimators()[n].exact]
        return [(n, get_estimator(n), {}) for n in names]
    if isinstance(methods, str):
        methods = [methods]
    if isinstance(methods, dict):
        items = [(str(label), spec) for label, spec in methods.items()]
    elif isinstance(methods, (list, tuple)):
        items = [(spec if isinstance(spec, str) else str(spec), spec) for spec in methods]
    else:
        raise value_error("kx.compare_estimators", "methods", methods,
                          "a list of method names or a dict {label: name or (name, options)}")
    out = []
    for label, spec in items:
        name, options = (spec, {}) if isinstance(spec, str) else (tuple(spec) + ({},))[:2]
        if not isinstance(name, str) or not isinstance(options, dict):
            raise value_error("kx.compare_estimators", f"methods[{label!r}]", spec,
                              "a method name or a (name, options) pair")
        est = get_estimator(name)
        reason = est.why_not(game)
        if reason is not None:
            raise NotApplicableError(
                f"method={name!r} ({est.description}) does not apply to this game: {reason}. Methods that "
                f"apply: {', '.join(repr(m) for m in applicable_methods(game))}")
        out.append((label, est, dict(options)))
    if len({label for label, _, _ in out}) < len(out):
        raise ValueError("methods names the same label twice; give a dict {label: (name, options)} for variants")
    return out


def _budgets(budgets, d) -> list[int]:
    if budgets is None:
        return [m * d for m in DEFAULT_BUDGET_MULTIPLES]
    if isinstance(budgets, (numbers.Integral, np.integer)) and not isinstance(budgets, bool):
        budgets = [budgets]
    ok = isinstance(budgets, (list, tuple, np.ndarray)) and len(budgets) > 0 and all(
        isinstance(b, (numbers.Integral, np.integer)) and not isinstance(b, bool) and b >= 1 for b in budgets)
    if not ok:
        raise value_error("kx.compare_estimators", "budgets", budgets,
                          f"a list of game-evaluation counts >= 1 (default {list(DEFAULT_BUDGET_MULTIPLES)} x d)")
    return sorted({int(b) for b in budgets})


def _seeds(seeds) -> list[int]:
    if isinstance(seeds, (numbers.Integral, np.integer)) and not isinstance(seeds, bool) and seeds >= 1:
        return list(range(int(seeds)))
    ok = isinstance(seeds, (list, tuple, np.ndarray, range)) and len(seeds) > 0 and all(
        isinstance(s, (numbers.Integral, np.integer)) and not isinstance(s, bool) and s >= 0 for s in seeds)
    if not ok:
        raise value_error("kx.compare_estimators", "seeds", seeds,
                          "a number of seeds >= 1 (seeds 0, 1, ...) or a list of integer seeds >= 0")
    return [int(s) for s in seeds]


def _truth_route(game, truth):
    """(given truth (n, d) or None, exact estimator or None, its options) -- refusing when there is none."""
    n, d = game.n_instances or 1, game.n_players
    if truth is not None:
        values = truth.values if isinstance(truth, Explanation) else truth
        values = np.asarray(values, dtype=float)
        values = values[None, :] if values.ndim == 1 else values   # a single game's values
        if values.shape != (n, d) or not np.isfinite(values).all():
            raise ValueError(f"truth must be the exact values, finite, of shape {(n, d)} (points x players); "
                             f"got shape {values.shape}")
        return values, None, None
    est, _ = choose(game)
    if not est.exact:
        if d > ARENA_ENUMERATION_PLAYERS:
            raise ValueError(
                f"no exact route for this game of {d} players: the product routes need a product game "
                f"(a product-kernel model with value='interventional' or 'functional_baseline') and "
                f"enumeration stops at {ARENA_ENUMERATION_PLAYERS} players. Pass the exact values as "
                "truth=... (e.g. kx.explain of the kernel model itself when the game is its model calls)")
        est = get_estimator("exact")
    return None, est, est.resolve_options({})


@dataclass
class _Run:
    """One run of the arena: a method at a budget and seed (budget and seed None for an exact method)."""

    label: str
    est: Estimator
    options: dict
    budget: int | None
    seed: int | None
    cost: Cost


def _plan(game, methods, budgets, seeds, level):
    """The runs to make and the (method, budget, reason) of those skipped."""
    d = game.n_players
    runs, skipped = [], []
    for label, est, given in methods:
        if est.exact:
            options = est.resolve_options({**_asked(est, level), **given})
            runs.append(_Run(label, est, options, None, None, est.cost(game, options)))
            continue
        minimum = est.min_budget(d) or 1
        for b in budgets:
            if b < minimum:
                skipped.append((label, b, f"below the smallest sensible budget of {est.name!r} "
                                          f"({minimum} for {d} players)"))
                continue
            options = est.resolve_options({**_asked(est, level), **given, "budget": b})
            cost = est.cost(game, options)
            runs += [_Run(label, est, options, b, s, cost) for s in seeds]
    return runs, skipped


def _measure(game, run, truth) -> dict:
    """Run one estimator and score it against ``truth``: the columns of its rows."""
    n, d = truth.shape
    start = time.perf_counter()
    e = run_resolved(game, run.est, None, dict(run.options), run.seed, None)
    seconds = time.perf_counter() - start
    values = np.asarray(e.values, dtype=float).reshape(n, d)
    coverage = width = np.full(n, np.nan)
    if e.lower is not None and e.upper is not None:
        lower = np.asarray(e.lower, dtype=float).reshape(n, d)
        upper = np.asarray(e.upper, dtype=float).reshape(n, d)
        slack = ROUNDING * np.abs(truth).max(axis=1, keepdims=True)   # an exact value's zero-width interval
        stated = np.isfinite(lower) & np.isfinite(upper)     # an infinite interval says nothing: not counted
        held = ((lower - slack <= truth) & (truth <= upper + slack) & stated).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            coverage = np.where(stated.any(axis=1), held / stated.sum(axis=1), np.nan)
            width = np.where(stated.any(axis=1), np.where(stated, upper - lower, 0.0).sum(axis=1) / stated.sum(axis=1),
                             np.nan)
    used = e.meta.get("budget")
    return {"method": [run.label] * n, "budget": np.full(n, np.nan if run.budget is None else float(run.budget)),
            "seed": np.full(n, np.nan if run.seed is None else float(run.seed)), "point": np.arange(n),
            "error": relative_errors(values, truth), "evaluations": np.full(n, np.nan if used is None else float(used)),
            "seconds": np.full(n, seconds), "coverage": coverage, "width": width}


# --------------------------------------------------------------------------- #
# the entry point
# --------------------------------------------------------------------------- #
@parameters("kx.compare_estimators", model_or_game=Anything(), X=Data(none=True), value=Text(),
            background=Data(none=True), methods=Anything(), budgets=Anything(), seeds=Anything(),
            truth=Anything(), level=Real(0.0, 1.0, none=True), output=Text(none=True))
def compare_estimators(model_or_game: Any, X: ArrayLike | None = None, value: str = "interventional",  # noqa: PLR0913 - kx.explain's model, points, value function and background, then the arena's keywords
                       background: ArrayLike | None = None, *,
                       methods: Sequence[str] | Mapping[str, str | tuple] | None = None,
                       budgets: Sequence[int] | None = None, seeds: int | Sequence[int] = 4,
                       truth: ArrayLike | Explanation | None = None, level: float | None = 0.95,
                       output: str | None = None) -> EstimatorComparison:
    r"""Score sampled Shapley estimators against the exact values, at several budgets and seeds (the arena).

    Each method runs at each budget (game evaluations) with each seed, on all points at once, and
    is scored per point by the relative squared error
    :math:`\|\hat\phi - \phi\|^2 / \|\phi\|^2` against the exact values :math:`\phi`; estimators that
    state intervals are asked for them at ``level`` and scored by their empirical coverage over
    (point, feature) pairs and their mean width. The whole comparison is priced by the cost guard
    before it starts (the sum of every run's estimate and the exact values'), and one progress bar
    counts its runs.

    It lives with the entry points, not in :mod:`kernelxai.estimators` (the issue's
    ``kx.estimators.compare``): from a model it builds the game ``kx.explain`` builds, and the
    estimators' stage knows games only. It takes the estimators from their registry by name, so
    every registered estimator -- one added later too -- can join.

    Parameters
    ----------
    model_or_game : model or Game
        Anything :func:`kx.explain <kernelxai.explain>` takes (a product-kernel model has exact
        values in polynomial time at any d), or a :class:`~kernelxai.Game` (``X``, ``background``
        and ``output`` are then not given).
    X : array (n, d) or DataFrame, optional
        The points, as for ``kx.explain``; needed with a model.
    value, background, output
        As for ``kx.explain``: the value function, its background sample and which output of the
        model (one output at a time).
    methods : list of str, or dict, optional
        Registered method names (:func:`kx.available_methods <kernelxai.available_methods>`), or
        ``{label: name}`` / ``{label: (name, options)}`` for variants of one estimator (e.g.
        ``{"permutation (antithetic)": ("permutation", {"antithetic": True})}``). Default: every
        registered sampled estimator that applies to the game. An exact method may be included
        (it runs once, without budget or seed; its error should be zero to rounding).
    budgets : list of int, optional
        Game evaluations per run; default :math:`2d, 5d, 10d, 20d, 50d, 100d, 200d`. A budget below
        an estimator's smallest sensible one is skipped (listed in ``skipped``).
    seeds : int or list of int, default 4
        ``k`` runs each with the seeds ``0..k-1``, or these seeds.
    truth : array (n, d) or Explanation, optional
        The exact values. Default: computed by the game's exact route -- the product routes for
        product-kernel models, enumeration up to :data:`ARENA_ENUMERATION_PLAYERS` players -- and
        refused, with this advice, when there is none (e.g. model calls at d = 50: pass the kernel
        model's exact values).
    level : float or None, default 0.95
        The level at which intervals are asked for and their coverage measured. None asks for
        none (an ``intervals=`` switch is turned off; an estimator that states them anyway is
        still scored at its own default level): faster where intervals cost more than the
        estimate (the sandwich intervals of the regressions at large d).

    Returns
    -------
    EstimatorComparison
        ``.frame`` (one row per method, budget, seed and point), ``.summary()`` (per method and
        budget), ``.best()``, ``.truth``; draw it with ``kx.plots.estimator_errors`` and
        ``kx.plots.estimator_coverage``.

    Raises
    ------
    ValueError
        No exact route and no ``truth``; ``truth`` of the wrong shape; an unknown method (with
        "did you mean"); a model with several outputs and no ``output=``.
    NotApplicableError
        A method that does not apply to the game.
    InvalidOptionError
        A misspelt keyword or a bad value (``budgets``, ``seeds``, ``level``, an estimator's option).
    CostLimitError
        The whole comparison would take longer than ``kx.config_context(max_cost=...)``.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.svm import SVR
    >>> X = np.random.default_rng(0).normal(size=(80, 8))
    >>> svr = SVR(gamma=0.1).fit(X, np.sin(X[:, 0]) + X[:, 1] * X[:, 2])
    >>> arena = kx.compare_estimators(svr, X[:4], background=X[:20], methods=["kernel", "permutation"],
    ...                               budgets=[16, 200], seeds=2)      # methods: default all sampled ones
    >>> s = arena.summary()
    >>> bool(s.loc[("permutation", 200), "mean_error"] < s.loc[("permutation", 16), "mean_error"])
    True
    >>> [why for method, budget, why in arena.skipped if method == "kernel"]   # KernelSHAP needs 2d + 2
    ["below the smallest sensible budget of 'kernel' (18 for 8 players)"]
    """
    game = _as_game(model_or_game, X, value, background, output)
    n, d = game.n_instances or 1, game.n_players
    compared = _methods(game, methods)
    given, truth_est, truth_options = _truth_route(game, truth)
    runs, skipped = _plan(game, compared, _budgets(budgets, d), _seeds(seeds), level)
    total = Cost(0.0) if truth_est is None else truth_est.cost(game, truth_options)
    for run in runs:
        total = total + run.cost
    show = check_cost(total, f"kx.compare_estimators ({len(runs)} runs of {len(compared)} method(s) on {n} "
                             f"point(s), {d} players)",
                      ["fewer or smaller budgets=...", "fewer seeds=...", "fewer points (rows of X)",
                       "fewer methods=..."])
    if given is None:
        given = np.asarray(run_resolved(game, truth_est, None, dict(truth_options), None, None).values,
                           dtype=float).reshape(n, d)
    columns: dict[str, list] = {c: [] for c in COLUMNS}
    with progress_bar(len(runs), f"comparing estimators (estimated {format_seconds(total.seconds)})", "run",
                      show) as bar:
        for run in runs:
            try:
                measured = _measure(game, run, given)
            except ValueError as err:   # an estimator refusing this draw (e.g. a budget that identifies too little)
                skipped.append((run.label, run.budget, f"seed {run.seed}: {err}"))
                measured = {}
            for key, vals in measured.items():
                columns[key].append(vals)
            bar.update(1)
    import pandas as pd

    frame = pd.DataFrame({c: np.concatenate(v) if v else [] for c, v in columns.items()}, columns=list(COLUMNS))
    frame["point"] = frame["point"].astype(int)
    return EstimatorComparison(frame, given, "given" if truth_est is None else truth_est.name, level,
                               list(game.player_names), skipped, total.seconds)
