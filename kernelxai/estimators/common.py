"""Pieces the estimators share: worths of one coalition per instance, blocked evaluation, t-intervals.

Takes a game's worths, a block budget or a sample of estimates; hands on worths
per instance, evaluation in blocks of coalitions, progress bars and t-intervals
to the estimators here and to the entry points above them.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import numpy as np

from .._config import progress_enabled, working_elements
from .._validation import check_level

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["as_instances", "evaluate_blocks", "t_interval", "block_elements", "progress_bar"]


def as_instances(worths, game) -> np.ndarray:
    """Worths of one coalition as an array (n,) (n = 1 for a single game)."""
    return np.atleast_1d(np.asarray(worths, dtype=float)).reshape(game.n_instances or 1)


def block_elements(max_elements) -> int:
    """The block budget in float64 elements: the option if given, else from the config."""
    return working_elements() if max_elements is None else int(max_elements)


@contextlib.contextmanager
def progress_bar(total, desc, unit, progress=None) -> Iterator[Any]:
    """A tqdm.auto bar when progress is on, else a do-nothing stand-in."""
    if not progress_enabled(progress):
        yield _NoBar()
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=desc, unit=unit, leave=False)
    try:
        yield bar
    finally:
        bar.close()


class _NoBar:
    def update(self, n=1):
        pass


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


def t_interval(samples, level=0.95, axis=0) -> tuple[np.ndarray | float, np.ndarray | float,
                                                     np.ndarray | float, np.ndarray | float]:
    """Mean, standard error (sd/sqrt(K), ddof 1) and t-interval over ``axis``.

    Valid for i.i.d. unbiased per-sample estimates (permutation samples,
    single-reference games); the t quantile has K-1 degrees of freedom.
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
