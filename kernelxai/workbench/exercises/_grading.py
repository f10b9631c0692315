"""The machinery of the exercise checks: the task registry, :func:`check` and what it needs to call a
student's function and read what it returns.

Takes a task id and the student's function; hands on a :class:`CheckResult` (printed ``✓``/``✗`` and
a hint). The topic modules register their tasks with :func:`register` and raise :class:`Fail` with
the hint; nothing here knows a task.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..._params import closest

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["check", "tasks", "describe", "results", "reset", "CheckResult", "UnknownTaskError", "PASS", "FAIL",
           "Fail", "NotAnswered", "StudentRaised", "register", "call_answer", "answer_array", "answer_scalar",
           "close_to", "fmt", "type_name"]

PASS, FAIL = "\u2713", "\u2717"   # ✓ ✗
_PACKAGE = __file__.rsplit("workbench", 1)[0]  # the kernelxai folder: its frames are not the student's


# --------------------------------------------------------------------------- #
# public API
# --------------------------------------------------------------------------- #
class UnknownTaskError(ValueError):
    """:func:`check` was given a task id that is not registered.

    A :class:`ValueError`; its message suggests the closest ids and lists every task.

    Examples
    --------
    >>> import kernelxai as kx
    >>> try:
    ...     kx.exercises.check("kernel-wieght", None)
    ... except kx.exercises.UnknownTaskError as error:
    ...     print(error)
    no exercise task 'kernel-wieght'; did you mean 'kernel-weight'? Tasks: shapley-exact, ...
    """


@dataclass
class CheckResult:
    """The outcome of one :func:`check`.

    Truthy exactly when the answer passed, so ``assert kx.exercises.check(...)``
    works as an nbgrader autograder test.

    Attributes
    ----------
    task : str
    passed : bool
    message : str
        The full line printed (``✓ ...`` or ``✗ ...``).
    hint : str or None
        What is wrong, for a failed check.

    Examples
    --------
    >>> import kernelxai as kx
    >>> result = kx.exercises.check("kernel-weight", lambda d, s: 1.0, seed=0, quiet=True)
    >>> result, bool(result)
    (CheckResult(task='kernel-weight', passed=False), False)
    >>> print(result.hint)
    check the weight of the empty coalition (s = 0): it is not a finite number -- ...
    """

    task: str
    passed: bool
    message: str
    hint: str | None = None

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return f"CheckResult(task={self.task!r}, passed={self.passed})"


@dataclass
class _Task:
    id: str
    title: str
    signature: str
    run: object            # run(answer, rng) -> success message; raises Fail
    notebook: str = ""


_TASKS: dict[str, _Task] = {}
_LOG: dict[str, bool] = {}


def tasks(notebook: str | None = None) -> list[str]:
    """The registered task ids (in registration order), optionally only those of one notebook.

    Parameters
    ----------
    notebook : str, optional
        An exercise notebook's name, e.g. ``"01-games-and-axioms"``.

    Returns
    -------
    list of str
        The ids :func:`check` accepts; empty for a notebook with no tasks (or a name that is
        not a notebook).

    Examples
    --------
    >>> import kernelxai as kx
    >>> kx.exercises.tasks("01-games-and-axioms")
    ['shapley-exact', 'taxi-shares', 'null-and-symmetric']
    >>> "kernel-weight" in kx.exercises.tasks()
    True
    """
    return [t.id for t in _TASKS.values() if notebook is None or t.notebook == notebook]


def describe(task_id: str) -> str:
    """One line: the task's title and the function it expects.

    Parameters
    ----------
    task_id : str
        A registered task id (see :func:`tasks`).

    Returns
    -------
    str
        ``"<id>: <title>; expects a function <signature>"``.

    Raises
    ------
    UnknownTaskError
        When ``task_id`` is not registered.
    TypeError
        When ``task_id`` is not a string.

    Examples
    --------
    >>> import kernelxai as kx
    >>> print(kx.exercises.describe("kernel-weight"))
    kernel-weight: the Shapley-kernel weight k(d, s) of a coalition of size s;
    expects a function kernel_weight(d, s) -> float
    """
    task = _lookup(task_id)
    return f"{task.id}: {task.title}; expects a function {task.signature}"


def results() -> dict[str, bool]:
    """``{task id: passed}`` for every task checked in this session (the last check counts).

    Returns
    -------
    dict
        A copy, in the order the tasks were first checked since the last :func:`reset`.

    Examples
    --------
    >>> import kernelxai as kx
    >>> kx.exercises.reset()
    >>> _ = kx.exercises.check("kernel-weight", None, quiet=True)
    >>> kx.exercises.results()
    {'kernel-weight': False}
    """
    return dict(_LOG)


def reset() -> None:
    """Forget the outcomes recorded by :func:`results`.

    Examples
    --------
    >>> import kernelxai as kx
    >>> _ = kx.exercises.check("t-interval", None, quiet=True)
    >>> kx.exercises.reset()
    >>> kx.exercises.results()
    {}
    """
    _LOG.clear()


def check(task_id: str, answer: Callable[..., Any], *, seed: int | np.random.Generator | None = None,
          quiet: bool = False) -> CheckResult:
    """Check a student's answer to exercise ``task_id`` on fresh random inputs.

    Parameters
    ----------
    task_id : str
        The id printed in the notebook, e.g. ``"shapley-exact"`` (see :func:`tasks`).
    answer : callable
        The student's function, passed itself (not called). ``None`` -- an
        answer not written yet -- is reported as a failed check.
    seed : None, int or numpy.random.Generator
        Randomness of the test inputs. ``None`` (default) draws new inputs on
        every call; fix it to reproduce a failure.
    quiet : bool
        Do not print the message (it is in the returned result).

    Returns
    -------
    CheckResult
        Truthy if the answer passed; ``message`` is the ``✓``/``✗`` line.

    Raises
    ------
    UnknownTaskError
        ``task_id`` is not a registered task.
    TypeError
        ``answer`` is neither a function nor None (e.g. a number or the
        result of calling the function).

    Examples
    --------
    >>> import math
    >>> import kernelxai as kx
    >>> def kernel_weight(d, s):
    ...     return math.inf if s in (0, d) else (d - 1) / (math.comb(d, s) * s * (d - s))
    >>> result = kx.exercises.check("kernel-weight", kernel_weight, seed=0)
    ✓ kernel-weight: equal to kx.games.shapley_kernel_weights for d = ...
    >>> bool(result)
    True
    """
    task = _lookup(task_id)
    if answer is not None and not callable(answer):
        raise TypeError(
            f"check({task.id!r}, ...) expects a function {task.signature}; got "
            f"{type_name(answer)}. Pass the function itself, without calling it: "
            f"check({task.id!r}, {task.signature.split('(')[0]})")
    rng = np.random.default_rng(seed)
    hint = None
    if answer is None:
        hint = (f"no answer yet: write the function {task.signature} and pass it "
                f"(the function itself) to check")
    else:
        try:
            done = task.run(answer, rng)
        except Fail as fail:
            hint = str(fail)
        except NotAnswered:
            hint = ("not answered yet: your function still raises NotImplementedError -- "
                    "replace `raise NotImplementedError()` by your code")
        except StudentRaised as err:
            hint = str(err)
    if hint is None:
        result = CheckResult(task.id, True, f"{PASS} {task.id}: {done}")
    else:
        result = CheckResult(task.id, False, f"{FAIL} {task.id}: {hint}", hint)
    _LOG[task.id] = result.passed
    if not quiet:
        print(result.message)
    return result


def _lookup(task_id):
    if not isinstance(task_id, str):
        raise TypeError(f"task_id must be a string such as 'shapley-exact'; got {type_name(task_id)}")
    if task_id not in _TASKS:
        close = closest(task_id, list(_TASKS), n=3)
        raise UnknownTaskError(
            f"no exercise task {task_id!r}"
            + (f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "")
            + f" Tasks: {', '.join(_TASKS)}")
    return _TASKS[task_id]


# --------------------------------------------------------------------------- #
# machinery: calling the student's function, reading what it returns
# --------------------------------------------------------------------------- #
class Fail(Exception):
    """The answer is wrong; the message is the hint."""


class NotAnswered(Exception):
    """The student's function raised NotImplementedError (nbgrader's stub)."""


class StudentRaised(Exception):
    """The student's function raised; the message says what, where and on which input."""


def type_name(x) -> str:
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape}"
    return f"{type(x).__name__} {x!r}" if isinstance(x, (int, float, str, bool)) else type(x).__name__


def call_answer(fn, args, context) -> object:
    """``fn(*args)``; NotImplementedError -> NotAnswered, other errors -> StudentRaised."""
    try:
        return fn(*args)
    except NotImplementedError:
        raise NotAnswered() from None
    except Exception as exc:  # the student's bug is reported, never raised
        frames = traceback.extract_tb(exc.__traceback__)[1:]   # [0] is this function
        own = [f for f in frames if "site-packages" not in f.filename and _PACKAGE not in f.filename]
        frame = (own or frames or [None])[-1]
        where = f" (line {frame.lineno}: `{(frame.line or '').strip()}`)" if frame is not None else ""
        raise StudentRaised(
            f"your function raised {type(exc).__name__}: {exc}{where}, called on {context}") from None


def answer_array(out, shape, what, context, finite=True) -> np.ndarray:
    """``out`` as a float array of ``shape``; a wrong shape or type, NaN or inf is a Fail."""
    if out is None:
        raise Fail(f"your function returned None on {context}: did you forget `return`?")
    try:
        arr = np.asarray(out, dtype=float)
    except (TypeError, ValueError):
        raise Fail(f"your function returned {type_name(out)} on {context}; expected {what}") from None
    if arr.shape != tuple(shape):
        if arr.size == int(np.prod(shape)) and arr.size:
            arr = arr.reshape(shape)   # (d, 1) or a list for (d,): accept the numbers
        else:
            raise Fail(f"your function returned shape {arr.shape} on {context}; expected {what} "
                       f"of shape {tuple(shape)}")
    bad = np.isnan(arr) if not finite else ~np.isfinite(arr)
    if np.any(bad):
        raise Fail(f"your function returned {'NaN' if not finite else 'NaN or inf'} on {context}")
    return arr


def answer_scalar(out, what, context, finite=True) -> float:
    return float(answer_array(out, (), what, context, finite))


def close_to(a, b, scale=1.0, rtol=1e-7) -> bool:
    return np.allclose(a, b, rtol=0.0, atol=rtol * max(1.0, float(scale)))


def fmt(x) -> str:
    return f"{x:.4g}"


def register(task_id, title, signature, notebook) -> Callable:
    def decorator(run):
        _TASKS[task_id] = _Task(task_id, title, signature, run, notebook)
        return run
    return decorator
