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
flops_per_second : float
    The rate used to turn cost models (floating-point operations) into
    seconds. The default, 1e9, is a deliberately modest figure for numpy on one
    core; estimates are meant to be right within a small factor.
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
    "flops_per_second": 1e9,
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
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise ValueError(f"{key} must be a positive number; got {value!r}")
    return float(value)


def get_config() -> dict[str, Any]:
    """The settings in force in this thread (a copy)."""
    return dict(_current())


def set_config(**settings) -> None:
    """Change settings for this thread and for threads started afterwards."""
    checked = {k: _check(k, v) for k, v in settings.items()}
    _global.update(checked)
    _current().update(checked)


@contextlib.contextmanager
def config_context(**settings) -> Iterator[dict[str, Any]]:
    """Settings for the duration of a ``with`` block (this thread only).

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
