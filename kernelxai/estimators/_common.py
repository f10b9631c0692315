"""Pieces the estimators share: worths of one coalition per instance, blocked evaluation, t-intervals.

Takes a game's worths, a block budget or a sample of estimates; hands on worths
per instance, evaluation in blocks of coalitions, progress bars and t-intervals
to the estimators here and to the entry points above them.

One call shows one progress bar: the first :func:`progress_bar` opened in a
call is the call's bar (its description carries the estimate set by
:func:`call_estimate`); stages opened inside it (the coalitions of a value
function, inside an estimator's bar) report into that bar's postfix instead of
opening their own. The open bar is a context variable, so concurrent calls in
other threads each have their own.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from .._config import progress_enabled, working_elements
from .._validation import check_level

if TYPE_CHECKING:
    from collections.abc import Iterator

    from numpy.typing import ArrayLike

__all__ = ["as_instances", "evaluate_blocks", "t_interval", "block_elements", "progress_bar",
           "progress_iter", "call_estimate", "bar_open"]

#: The bar of the call running in this context (None: no bar is open).
_OPEN_BAR: contextvars.ContextVar[Any] = contextvars.ContextVar("kernelxai_open_bar", default=None)
#: The call's estimated time, for the description of its bar (None: not estimated).
_ESTIMATE: contextvars.ContextVar[str | None] = contextvars.ContextVar("kernelxai_estimate", default=None)


def as_instances(worths, game) -> np.ndarray:
    """Worths of one coalition as an array (n,) (n = 1 for a single game)."""
    return np.atleast_1d(np.asarray(worths, dtype=float)).reshape(game.n_instances or 1)


def block_elements(max_elements) -> int:
    """The block budget in float64 elements: the option if given, else from the config."""
    return working_elements() if max_elements is None else int(max_elements)


def bar_open() -> bool:
    """Whether a call's bar is open in this context (a call made inside it is a nested stage)."""
    return _OPEN_BAR.get() is not None


@contextlib.contextmanager
def call_estimate(text) -> Iterator[None]:
    """Within the block, the bar a call opens says ``estimated <text>`` in its description."""
    token = _ESTIMATE.set(text)
    try:
        yield
    finally:
        _ESTIMATE.reset(token)


@contextlib.contextmanager
def progress_bar(total, desc, unit, progress=None) -> Iterator[Any]:
    """The call's tqdm.auto bar when progress is on, else a do-nothing stand-in.

    Inside a bar already open in this context, a stand-in that reports this
    stage's count into that bar's postfix (no second bar). The bar opened here
    is the open one for the block.
    """
    bar, opened = _bar(total, desc, unit, progress)
    if not opened:
        yield bar
        return
    token = _OPEN_BAR.set(bar)
    try:
        yield bar
    finally:
        _OPEN_BAR.reset(token)
        bar.close()


def progress_iter(items, desc, unit="it", progress=None) -> Iterator[Any]:
    """Yield ``items`` (a sized iterable), counting them on a bar as :func:`progress_bar` does.

    An innermost stage: a bar it opens is not the open one for stages inside
    its loop (a generator cannot hold a context variable safely).
    """
    bar, opened = _bar(len(items), desc, unit, progress)
    try:
        for item in items:
            yield item
            bar.update(1)
    finally:
        if opened:
            bar.close()


def _bar(total, desc, unit, progress):
    """(bar, whether it is a new tqdm bar): a stand-in when progress is off or a bar is open."""
    if not progress_enabled(progress):
        return _NoBar(), False
    outer = _OPEN_BAR.get()
    if outer is not None:
        return _Stage(outer, desc, total), False
    from tqdm.auto import tqdm

    estimate = _ESTIMATE.get()
    if estimate is not None:
        desc = f"{desc} (estimated {estimate})"
    return tqdm(total=total, desc=desc, unit=unit, leave=False), True


class _NoBar:
    def update(self, n=1):
        pass


class _Stage:
    """A stage inside the call's bar: its count shown in the bar's postfix, at most ~10 times a second."""

    def __init__(self, bar, desc, total):
        self.bar, self.desc, self.total, self.done, self.shown = bar, desc, total, 0, 0.0

    def update(self, n=1):
        self.done += n
        now = time.monotonic()
        refresh = now - self.shown >= 0.1
        if refresh:
            self.shown = now
        of = "" if self.total is None else f"/{self.total}"
        self.bar.set_postfix_str(f"{self.desc} {self.done}{of}", refresh=refresh)


def evaluate_blocks(game, coalitions, max_elements=None, progress=None, desc="coalitions") -> np.ndarray:
    """Evaluate ``game`` on many coalitions in blocks; returns (m, n)."""
    n = game.n_instances or 1
    max_elements = block_elements(max_elements)
    step = max(1, max_elements // max(n * game.n_players, 1))
    out = np.empty((len(coalitions), n))
    with progress_bar(len(coalitions), desc, "coalition", progress) as bar:
        for start in range(0, len(coalitions), step):
            block = coalitions[start:start + step]
            out[start:start + len(block)] = game(block).reshape(len(block), n)
            bar.update(len(block))
    return out


def t_interval(samples: ArrayLike, level: float = 0.95,
               axis: int = 0) -> tuple[np.ndarray | float, np.ndarray | float,
                                                     np.ndarray | float, np.ndarray | float]:
    r"""Mean, standard error (:math:`s/\sqrt{K}`, ddof 1) and t-interval over ``axis``.

    Valid for i.i.d. unbiased per-sample estimates (permutation samples,
    single-reference games); the t quantile has :math:`K-1` degrees of freedom.

    Parameters
    ----------
    samples : array_like
        :math:`K` independent estimates along ``axis`` (:math:`K \ge 2`); any other axes are
        kept (e.g. (K, n, d) gives results of shape (n, d)).
    level : float, default 0.95
        Level of the two-sided interval, strictly between 0 and 1.
    axis : int, default 0
        The axis of the samples.

    Returns
    -------
    mean, stderr, lower, upper : ndarray or float
        The sample mean, its standard error, and the interval bounds
        :math:`\bar x \mp t_{K-1}\big((1 + \text{level})/2\big)\, \text{stderr}`; shaped as ``samples``
        without ``axis`` (numpy scalars for 1-D samples).

    Raises
    ------
    ValueError
        Fewer than 2 samples along ``axis``, or ``level`` not in (0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.estimators import t_interval
    >>> mean, se, lo, hi = t_interval(np.array([1.0, 2.0, 3.0, 4.0]))
    >>> float(mean), round(float(se), 4), round(float(lo), 4), round(float(hi), 4)
    (2.5, 0.6455, 0.4457, 4.5543)
    >>> per_player = np.array([[1.0, 2.0], [3.0, 5.0], [2.0, 4.0]])   # 3 samples, 2 players
    >>> mean, se, lo, hi = t_interval(per_player, level=0.9)
    >>> np.round(lo, 4), np.round(hi, 4)
    (array([0.3141, 1.0915]), array([3.6859, 6.2419]))
    """
    level = check_level(level)
    samples = np.asarray(samples, dtype=float)
    k = samples.shape[axis]
    if k < 2:
        raise ValueError(
            f"an interval needs at least 2 independent samples; got {k}. "
            "With one sample there is no estimate of the spread"
        )
    from scipy import stats  # deferred: scipy.stats takes ~0.5 s to import

    mean = samples.mean(axis=axis)
    stderr = samples.std(axis=axis, ddof=1) / np.sqrt(k)
    half = stats.t.ppf(0.5 + level / 2, k - 1) * stderr
    return mean, stderr, mean - half, mean + half
