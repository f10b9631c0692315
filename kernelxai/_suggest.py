"""The one "did you mean" rule: the accepted names closest to a misspelt one.

Ground floor: imports nothing of kernelxai, so that the configuration (:mod:`kernelxai._config`),
the parameter checks (:mod:`kernelxai._params`) and every refusal above them suggest alike.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

__all__ = ["closest", "did_you_mean"]


def _abbreviates(short: str, long: str) -> bool:
    """Whether ``short`` is ``long`` with letters left out (its letters appear in ``long`` in order)."""
    letters = iter(long)
    return all(c in letters for c in short)


def closest(word: object, candidates: Iterable[object], n: int = 1, *, ignore_case: bool = True) -> list[str]:
    """The candidates closest to a misspelt ``word``, best first: the one "did you mean" rule.

    Close means :func:`difflib.get_close_matches` (similarity at least 0.6),
    case aside (``x`` for ``X``); among close candidates, those ``word``
    abbreviates (its letters in order, e.g. ``n_refs`` of ``n_references``,
    not of ``n_repeats``) come first.

    Parameters
    ----------
    word : object
        What was given (anything that is not a string matches nothing).
    candidates : iterable
        The accepted names (non-strings are compared by their ``str``).
    n : int, default 1
        At most this many suggestions.
    ignore_case : bool, default True
        Compare without case (keywords: ``x`` for ``X``); False where case makes
        two different names (a notebook's variables).

    Returns
    -------
    list of str
        At most ``n`` candidates, best first; empty when none is close.

    Examples
    --------
    >>> closest("bakground", ["background", "method", "value"])
    ['background']
    >>> closest("n_refs", ["n_repeats", "n_references"])
    ['n_references']
    >>> closest("zzz", ["background"])
    []
    """
    if not isinstance(word, str):
        return []
    names = [str(c) for c in candidates]
    fold = str.lower if ignore_case else str
    folded = {}
    for c in names:            # compared as folded (x for X), answered as accepted
        folded.setdefault(fold(c), c)
    close = difflib.get_close_matches(fold(word), list(folded), n=max(len(folded), 1))
    close = sorted(close, key=lambda c: not _abbreviates(fold(word), c))   # stable: similarity order kept
    return [folded[c] for c in close[:n]]


def did_you_mean(unknown: Sequence[object], candidates: Iterable[object]) -> str:
    """``"did you mean 'a' for 'b'?"`` for each unknown name that has a close candidate ("" if none).

    Examples
    --------
    >>> did_you_mean(["bakground", "zzz"], ["background", "value"])
    "did you mean 'background' for 'bakground'?"
    """
    candidates = list(candidates)
    hints = []
    for u in unknown:
        close = closest(str(u), candidates)
        if close:
            hints.append(f"did you mean {close[0]!r} for {str(u)!r}?")
    return " ".join(hints)
