"""One place for the knobs that bound memory, running time and progress output.

``kx.config_context(max_memory=..., max_cost=..., progress=...)`` sets them for
a block of code (thread-local, so concurrent explanations do not see each
other's settings); :func:`get_config` reads them where chunks are sized and
where an estimator decides whether to show a progress bar or to refuse.

Keys
----
max_memory : int
    Bytes one block of intermediate arrays may take (default 256 MiB). Every
    chunked computation sizes its blocks from this, through
    :func:`working_elements`.
max_cost : float or None
    Estimated seconds above which an estimator refuses to start and says what
    would make the call affordable (default 1800 s = 30 min; None: never refuse).
progress : {"auto", True, False}
    Progress bars: "auto" shows one when the estimated time exceeds
    ``progress_after`` seconds.
progress_after : float
    Seconds of estimated work above which "auto" shows a progress bar (default 2).
flops_per_second : float or None
    None (the default): cost estimates price each kind of work at the rate
    measured on this machine (:func:`kernelxai.calibrate`: elementwise passes,
    dense linear algebra, Python-level steps; model calls are timed on a probe
    of the model). A number overrides the calibration: every operation is priced
    at that one rate (the same estimate on every machine).
"""

from __future__ import annotations

import contextlib
import numbers
import threading
from typing import TYPE_CHECKING, Any

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


def _check(key, value):
    if key not in _DEFAULTS:
        raise ValueError(f"unknown configuration key {key!r}; accepted: {', '.join(sorted(_DEFAULTS))}")
    if key == "max_memory":
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 2**16:
            raise ValueError(f"max_memory must be a number of bytes >= 65536; got {value!r}")
        return int(value)
    if key == "max_cost":
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
            raise ValueError(f"max_cost must be a positive number of seconds or None; got {value!r}")
        return float(value)
    if key == "progress":
        if value not in ("auto", True, False):
            raise ValueError(f"progress must be 'auto', True or False; got {value!r}")
        return value
    if key == "flops_per_second" and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise ValueError(f"{key} must be a positive number; got {value!r}")
    return float(value)


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


def set_config(**settings) -> None:
    """Change settings for this thread and for threads started afterwards.

    The change lasts until the next call; to change a setting for a block of
    code only, use :func:`config_context`.

    Parameters
    ----------
    **settings
        Keys and new values: ``max_memory`` (int bytes, at least 65536),
        ``max_cost`` (positive seconds, or None never to refuse), ``progress``
        ("auto", True or False), ``progress_after`` (positive seconds) and
        ``flops_per_second`` (a positive rate, or None for the rates measured on
        this machine). Keys not given keep their value.

    Raises
    ------
    ValueError
        For an unknown key or a value out of range; then nothing is changed.

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
    max_cost must be a positive number of seconds or None; got -1
    """
    checked = {k: _check(k, v) for k, v in settings.items()}
    _global.update(checked)
    _current().update(checked)


@contextlib.contextmanager
def config_context(**settings) -> Iterator[dict[str, Any]]:
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
