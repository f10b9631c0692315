"""One place for the knobs that bound memory, running time and progress output.

``kx.config_context(max_memory=..., max_cost=..., progress=...)`` sets them for
a block of code (thread-local, so concurrent explanations do not see each
other's settings); :func:`get_config` reads them where chunks are sized and
where an estimator decides whether to show a progress bar or to refuse.

Keys
----
max_memory : int
    Bytes one block of intermediate arrays may take (default 256 MiB; from
    65536 to 2**62). Every chunked computation sizes its blocks from this,
    through :func:`working_elements`.
max_cost : float or None
    Estimated seconds above which an estimator refuses to start and says what
    would make the call affordable (default 1800 s = 30 min; positive and
    finite; None: never refuse).
progress : {"auto", True, False}
    Progress bars: "auto" shows one when the estimated time exceeds
    ``progress_after`` seconds.
progress_after : float
    Seconds of estimated work above which "auto" shows a progress bar (default
    2; positive and finite -- ``progress=False`` never shows one).
flops_per_second : float or None
    None (the default): cost estimates price each kind of work at the rate
    measured on this machine (:func:`kernelxai.calibrate`: elementwise passes,
    dense linear algebra, Python-level steps; model calls are timed on a probe
    of the model). A number overrides the calibration: every operation is priced
    at that one rate (the same estimate on every machine); finite and at least
    1 operation a second.

Every value is checked when it is set (:func:`set_config`, :func:`config_context`):
a value out of range -- an infinite or NaN number among them -- is refused then,
with a message naming the key and what it accepts, never later in a call.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from ._suggest import closest

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["get_config", "set_config", "config_context", "working_elements", "progress_enabled"]

_DEFAULTS = {
    "max_memory": 2**28,
    "max_cost": 1800.0,
    "progress": "auto",
    "progress_after": 2.0,
    "flops_per_second": None,
}

_global = dict(_DEFAULTS)
_local = threading.local()


def _current():
    if not hasattr(_local, "config"):
        _local.config = dict(_global)
    return _local.config


#: the largest max_memory: far above any machine's memory, and below what a C integer can hold
#: (block sizes derived from it are passed to NumPy)
MAX_MEMORY_LIMIT = 2**62
#: the slowest flops_per_second: one operation a second (a slower rate would price a modest call
#: at more seconds than a float can hold)
MIN_FLOPS_PER_SECOND = 1.0

#: what each key accepts, as the refusals say it
_ACCEPTED = {
    "max_memory": "a whole number of bytes from 65536 (64 KiB) to 2**62",
    "max_cost": "a positive finite number of seconds, or None never to refuse",
    "progress": "'auto', True or False",
    "progress_after": "a positive finite number of seconds (progress=False never shows a bar)",
    "flops_per_second": "a finite rate of at least 1 operation a second, or None for the rates measured "
                        "on this machine",
}


def _refuse(key, value):
    return ValueError(f"{key}={value!r} of kx.set_config / kx.config_context must be {_ACCEPTED[key]}")


def _real(key, value, minimum, none):
    """``value`` as a float when it is a finite real number > 0 and >= ``minimum`` (None too when ``none``)."""
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _refuse(key, value)
    number = float(value)
    if not (math.isfinite(number) and number > 0.0 and number >= minimum):
        raise _refuse(key, value)
    return number


def _check(key, value):
    """The value to store for ``key``, or a ValueError naming the key and what it accepts."""
    if key not in _DEFAULTS:
        close = closest(key, _DEFAULTS)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown configuration key {key!r}{hint}; accepted: {', '.join(sorted(_DEFAULTS))}")
    if key == "max_memory":
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
                or not 2**16 <= value <= MAX_MEMORY_LIMIT:
            raise _refuse(key, value)
        return int(value)
    if key == "progress":
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if isinstance(value, str) and value == "auto":
            return "auto"
        raise _refuse(key, value)
    if key == "max_cost":
        return _real(key, value, 0.0, none=True)
    if key == "progress_after":
        return _real(key, value, 0.0, none=False)
    return _real(key, value, MIN_FLOPS_PER_SECOND, none=True)   # flops_per_second


def get_config() -> dict[str, Any]:
    """The settings in force in this thread (a copy).

    Returns
    -------
    dict
        A new dict with the keys ``max_memory``, ``max_cost``, ``progress``,
        ``progress_after`` and ``flops_per_second`` (see the module's Keys).
        Changing it changes nothing: use :func:`set_config` or
        :func:`config_context`.

    Examples
    --------
    >>> import kernelxai as kx
    >>> config = kx.get_config()
    >>> sorted(config)
    ['flops_per_second', 'max_cost', 'max_memory', 'progress', 'progress_after']
    >>> config["max_memory"] = 1  # a copy: the setting in force is unchanged
    >>> kx.get_config()["max_memory"] > 1
    True
    """
    return dict(_current())


def set_config(**settings: Any) -> None:
    """Change settings for this thread and for threads started afterwards.

    The change lasts until the next call; to change a setting for a block of
    code only, use :func:`config_context`.

    Parameters
    ----------
    **settings
        Keys and new values: ``max_memory`` (int bytes, 65536 to 2**62),
        ``max_cost`` (positive finite seconds, or None never to refuse),
        ``progress`` ("auto", True or False), ``progress_after`` (positive
        finite seconds) and ``flops_per_second`` (a finite rate of at least 1,
        or None for the rates measured on this machine). Keys not given keep
        their value.

    Raises
    ------
    ValueError
        For an unknown key or a value out of range (infinite and NaN numbers
        included), naming the key and what it accepts; then nothing is changed.

    Examples
    --------
    >>> import kernelxai as kx
    >>> before = kx.get_config()["progress"]
    >>> kx.set_config(progress=False)
    >>> kx.get_config()["progress"]
    False
    >>> kx.set_config(progress=before)
    >>> try:
    ...     kx.set_config(max_cost=-1)
    ... except ValueError as error:
    ...     print(error)
    max_cost=-1 of kx.set_config / kx.config_context must be a positive finite number of seconds, or None ...
    """
    checked = {k: _check(k, v) for k, v in settings.items()}
    _global.update(checked)
    _current().update(checked)


@contextlib.contextmanager
def config_context(**settings: Any) -> Iterator[dict[str, Any]]:
    """Settings for the duration of a ``with`` block (this thread only).

    On leaving the block, by the end or by an exception, this thread's settings
    are restored as they were on entering it.

    Parameters
    ----------
    **settings
        Keys and values as for :func:`set_config`: ``max_memory``, ``max_cost``,
        ``progress``, ``progress_after``, ``flops_per_second``.

    Yields
    ------
    dict
        A copy of the settings in force inside the block.

    Raises
    ------
    ValueError
        For an unknown key or a value out of range, before the block runs.

    Examples
    --------
    >>> import kernelxai as kx
    >>> with kx.config_context(max_memory=2**26, max_cost=None):
    ...     kx.get_config()["max_memory"]
    67108864
    """
    checked = {k: _check(k, v) for k, v in settings.items()}
    config = _current()
    saved = dict(config)
    config.update(checked)
    try:
        yield get_config()
    finally:
        config.clear()
        config.update(saved)


def working_elements(share=1) -> int:
    """float64 elements one block may hold: ``max_memory // 8 // share``."""
    return max(1, _current()["max_memory"] // 8 // int(share))


def progress_enabled(progress=None) -> bool:
    """Resolve a ``progress`` argument: True/False as given, None from the config.

    ``kx.shapley_values`` sets the config's "auto" to True or False for the
    duration of a call, from its cost estimate; code below it asks here.
    """
    if progress is None:
        progress = _current()["progress"]
    return progress is True
