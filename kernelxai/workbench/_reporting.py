"""Helpers notebooks and benchmarks use: parameters, timing, and the JSON of key numbers.

Notebook parameters
-------------------
A notebook's ``parameters`` cell declares every size with :func:`default`, giving
the value of each mode (default, ``smoke=True``, ``paper=True``) and what is
accepted::

    import kernelxai as kx
    smoke = False
    paper = False
    seed = 0
    results_path = "../build/results/NAME.json"
    n_train = kx.workbench.default(600, smoke=200, paper=3000, minimum=10)

The next cell calls ``params = kx.workbench.resolve_parameters(globals())`` and
``globals().update(params)``. A name still holding a :class:`Default` was not
set by the caller and takes the value of the mode; a name holding a plain value
(injected by papermill, or typed by a user) was set by the caller and is kept,
whatever the mode. Every value is validated, and ``params`` (JSON-ready) is
written into the results with ``save_results(..., parameters=params)``.

A name the caller sets that the parameters cell does not assign (``-p n_perms 10``
for ``n_permutations``) stops the run in that call, naming it, listing the
accepted names and suggesting a close one. The runners check the names before
starting a kernel: :func:`notebook_parameters` reads a notebook's parameters
cell without running it and :func:`check_parameter_names` compares.

Writing files
-------------
Everything kernelxai writes goes through :func:`atomic_write`: a temporary file
in the target's directory, then :func:`os.replace`, so a failed write never
leaves a half-written file or destroys the previous one.
"""

from __future__ import annotations

import ast
import contextlib
import json
import linecache
import math
import numbers
import os
import tempfile
import time
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ._parameter_names import (
    check_parameter_names,
    names_set_after_the_parameters_cell,
    notebook_parameters,
    parameter_names,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping

__all__ = [
    "Default",
    "atomic_write",
    "check_parameter_names",
    "default",
    "notebook_parameters",
    "parameter_names",
    "resolve_parameters",
    "save_results",
    "timed",
    "to_jsonable",
]


# --------------------------------------------------------------------------- #
# atomic writes
# --------------------------------------------------------------------------- #
@contextlib.contextmanager
def atomic_write(path, mode="w", **open_kwargs) -> Iterator[IO[Any]]:
    """Open a temporary file next to ``path``; on success move it onto ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        The file to (re)write. Its parent directories are created.
    mode : {"w", "wb"}
        Text or binary.
    **open_kwargs
        Passed to :func:`open` (e.g. ``encoding``, ``newline``).

    Yields
    ------
    file object
        Write to it; when the ``with`` block ends without an exception the
        temporary file is flushed, synced and renamed onto ``path`` with
        :func:`os.replace` (atomic on POSIX and Windows). If the block raises,
        the temporary file is removed and ``path`` is left as it was.

    Raises
    ------
    ValueError
        When ``mode`` is not "w" or "wb", or ``path`` is empty.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "out", "note.txt")
    ...     with atomic_write(path) as fh:
    ...         _ = fh.write("all or nothing")
    ...     try:
    ...         with atomic_write(path) as fh:
    ...             _ = fh.write("half")
    ...             raise RuntimeError("failed midway")
    ...     except RuntimeError:
    ...         pass
    ...     print(open(path).read(), os.listdir(os.path.dirname(path)))
    all or nothing ['note.txt']
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write: mode must be 'w' or 'wb'; got {mode!r}")
    path = os.fspath(path)
    if not path:
        raise ValueError("atomic_write: path must be a non-empty path; got ''")
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    if mode == "w":
        open_kwargs.setdefault("encoding", "utf-8")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, **open_kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp creates 0600; give the file the permissions a plain open() would
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# --------------------------------------------------------------------------- #
# timing and JSON
# --------------------------------------------------------------------------- #
def timed(fn: Callable[[], Any], repeat: int = 1) -> tuple[Any, float]:
    """Call ``fn()`` ``repeat`` times; return (its last result, the best wall time in seconds).

    Parameters
    ----------
    fn : callable
        Called with no arguments (wrap arguments in a lambda or :func:`functools.partial`).
    repeat : int, default 1
        How many times to call it; the fastest call is reported, which is the least
        disturbed by other work on the machine.

    Returns
    -------
    result : object
        What the last call returned.
    seconds : float
        The shortest wall time of one call, from :func:`time.perf_counter`.

    Raises
    ------
    ValueError
        When ``repeat`` is less than 1.

    Examples
    --------
    >>> import kernelxai as kx
    >>> total, seconds = kx.workbench.timed(lambda: sum(range(1000)), repeat=3)
    >>> total, seconds >= 0
    (499500, True)
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    best, out = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


def to_jsonable(obj) -> Any:
    """Convert numpy scalars/arrays (and nested containers of them) to JSON types.

    Non-finite floats become the strings "nan", "inf" and "-inf" so that the
    JSON stays standard and a test can see them.

    Parameters
    ----------
    obj : object
        A value, or dicts, lists and tuples of values, nested to any depth.

    Returns
    -------
    object
        The same structure with dict keys made strings, tuples and arrays made lists, numpy
        bools, integers and floats made Python ones. Other values (strings, None, anything
        else) are returned as they are.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> to_jsonable({"phi": np.arange(3), 1: (np.bool_(True), np.float64("inf"))})
    {'phi': [0, 1, 2], '1': [True, 'inf']}
    """
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        x = float(obj)
        if math.isfinite(x):
            return x
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return obj


def save_results(path: str | os.PathLike | None, results: Mapping[str, Any], *, summary: str | None = None,
                 parameters: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Write a notebook's key numbers to ``path`` as JSON and return them.

    The file is written atomically (see :func:`atomic_write`): if ``results``
    cannot be serialised, a ``TypeError`` is raised and a previous file at
    ``path`` is left untouched.

    Parameters
    ----------
    path : str, os.PathLike or None
        Where to write (parent directories are created). None writes nothing.
    results : dict
        The numbers tests assert on.
    summary : str, optional
        One line shown in the table printed by ``make run``; stored under "summary".
    parameters : dict, optional
        The parameters the run actually used, as returned by
        :func:`resolve_parameters`; stored under "parameters".

    Returns
    -------
    dict
        What was (or, for ``path=None``, would have been) written: ``results`` with
        "summary" and "parameters" added, converted by :func:`to_jsonable`.

    Raises
    ------
    TypeError
        When ``results`` or ``parameters`` is not a dict, or a value cannot be written as
        JSON.

    Examples
    --------
    >>> import json, os, tempfile
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "results", "demo.json")
    ...     saved = kx.workbench.save_results(path, {"phi": np.array([0.5, -0.25])}, summary="two players",
    ...                             parameters={"seed": 0})
    ...     print(json.load(open(path)) == saved, saved["phi"])
    True [0.5, -0.25]
    """
    if not isinstance(results, dict):
        raise TypeError(f"save_results: results must be a dict; got {type(results).__name__}")
    payload = dict(results)
    if summary is not None:
        payload["summary"] = str(summary)
    if parameters is not None:
        if not isinstance(parameters, dict):
            raise TypeError("save_results: parameters must be a dict (from resolve_parameters); "
                            f"got {type(parameters).__name__}")
        payload["parameters"] = dict(parameters)
    payload = to_jsonable(payload)
    # serialise fully before touching the file system
    text = json.dumps(payload, indent=2, sort_keys=True, allow_nan=False)
    if path:
        with atomic_write(path) as fh:
            fh.write(text + "\n")
    return payload


# --------------------------------------------------------------------------- #
# notebook parameters
# --------------------------------------------------------------------------- #
_SAME = object()  # "same as value" for smoke= and paper=
_REGISTRY = "__kernelxai_parameter_defaults__"  # key in the notebook's own namespace
_MODE_FLAGS = ("smoke", "paper")


def _is_int(x):
    return isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_))


def _is_real(x):
    return (isinstance(x, (numbers.Real, np.integer, np.floating))
            and not isinstance(x, (bool, np.bool_)))


def _kind_of_value(v):
    """The kind of one mode value: bool, int, float, str or a list of one of the last three."""
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if _is_int(v):
        return "int"
    if _is_real(v):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, (list, tuple)):
        if len(v) == 0:
            raise ValueError("default: a list default must not be empty")
        if all(_is_int(e) for e in v):
            return "int-list"
        if all(_is_real(e) for e in v):
            return "float-list"
        if all(isinstance(e, str) for e in v):
            return "str-list"
        raise TypeError("default: a list default must hold only numbers or only strings; "
                        f"got {v!r}")
    raise TypeError("default: a default must be an int, float, bool, str, None or a list "
                    f"of numbers or strings; got {type(v).__name__} {v!r}")


def _kind_of(values):
    """The kind a parameter's non-None mode values share, or None (anything goes)."""
    kinds = {_kind_of_value(v) for v in values if v is not None}
    if kinds <= {"int", "float"} and "float" in kinds:
        kinds = {"float"}
    if kinds <= {"int-list", "float-list"} and "float-list" in kinds:
        kinds = {"float-list"}
    if len(kinds) > 1:
        raise TypeError(f"default: value, smoke and paper must be of one kind; got {sorted(kinds)}")
    return kinds.pop() if kinds else None


class Default:
    """A parameter's default for each mode, and what values it accepts.

    Made by :func:`default`; replaced by a plain value in
    :func:`resolve_parameters`. Using a Default as a number is an error on
    purpose: the notebook must call ``resolve_parameters`` first.

    Attributes
    ----------
    value, smoke, paper : object
        The value in the default mode, with ``smoke=True`` and with ``paper=True``.
    minimum, maximum : number or None
        Inclusive bounds (for lists: of every element).
    choices : tuple or None
        The accepted values (for lists: of every element).
    doc : str or None
        One line saying what the parameter is.
    kind : str or None
        "int", "float", "bool", "str", "int-list", "float-list", "str-list", or
        None when every default is None (anything is accepted).

    Parameters
    ----------
    value, smoke, paper, minimum, maximum, choices, doc
        As for :func:`default`, which is the way to make one.

    Raises
    ------
    TypeError
        When the defaults are of different kinds or of a kind not accepted, a bound is not a
        real number, bounds are given for a default that is not numeric, or ``doc`` is not a
        string.
    ValueError
        When ``minimum`` exceeds ``maximum``, ``choices`` or a list default is empty, or a
        mode's default is not itself accepted.

    Examples
    --------
    >>> import kernelxai as kx
    >>> n_train = kx.workbench.default(600, smoke=200, minimum=10, doc="training rows")
    >>> n_train
    default(600, smoke=200, minimum=10, doc='training rows')
    >>> n_train.for_mode(paper=True), n_train.accepted()
    (600, 'an integer >= 10')
    >>> try:
    ...     kx.workbench.default(5, minimum=10)
    ... except ValueError as error:
    ...     print(error)
    default: the value default 5 is not accepted: parameter <default> must be an integer >= 10; got 5
    """

    __slots__ = ("value", "smoke", "paper", "minimum", "maximum", "choices", "doc", "kind",
                 "allows_none")

    def __init__(self, value, *, smoke=_SAME, paper=_SAME, minimum=None, maximum=None,
                 choices=None, doc=None):
        self.value = value
        self.smoke = value if smoke is _SAME else smoke
        self.paper = value if paper is _SAME else paper
        modes = (self.value, self.smoke, self.paper)
        self.kind = _kind_of(modes)
        self.allows_none = any(v is None for v in modes)
        for name, bound in (("minimum", minimum), ("maximum", maximum)):
            if bound is not None and (not _is_real(bound) or math.isnan(float(bound))):
                raise TypeError(f"default: {name} must be a real number or None; got {bound!r}")
        if minimum is not None and maximum is not None and minimum > maximum:
            raise ValueError(f"default: minimum {minimum!r} exceeds maximum {maximum!r}")
        if (minimum is not None or maximum is not None) and self.kind not in (
                "int", "float", "int-list", "float-list"):
            raise TypeError(f"default: minimum/maximum apply to numbers; the default is {value!r}")
        if choices is not None:
            choices = tuple(choices)
            if not choices:
                raise ValueError("default: choices must not be empty")
        if doc is not None and not isinstance(doc, str):
            raise TypeError(f"default: doc must be a str or None; got {type(doc).__name__}")
        self.minimum, self.maximum, self.choices, self.doc = minimum, maximum, choices, doc
        for mode, v in zip(("value", "smoke", "paper"), modes):
            try:
                _validate("<default>", v, self)
            except ValueError as exc:
                raise ValueError(f"default: the {mode} default {v!r} is not accepted: {exc}") from None

    def for_mode(self, *, smoke=False, paper=False) -> Any:
        """The default value in the given mode."""
        return self.paper if paper else (self.smoke if smoke else self.value)

    def accepted(self) -> str:
        """Words saying which values are accepted, e.g. "an integer >= 10"."""
        return _describe(self)

    def __repr__(self):
        extra = "".join(f", {k}={getattr(self, k)!r}" for k in ("smoke", "paper")
                        if getattr(self, k) != self.value)
        extra += "".join(f", {k}={getattr(self, k)!r}" for k in ("minimum", "maximum", "choices", "doc")
                         if getattr(self, k) is not None)
        return f"default({self.value!r}{extra})"


def default(value: Any, *, smoke: Any = _SAME, paper: Any = _SAME, minimum: float | None = None,
            maximum: float | None = None, choices: Iterable[Any] | None = None, doc: str | None = None) -> Default:
    """Declare a notebook parameter: its value in each mode and what it accepts.

    Parameters
    ----------
    value : int, float, bool, str, list or None
        The value in the default mode; its type is the type every value given
        for this parameter must have (an int default accepts integers only,
        not bools; a float default any real number; a list of numbers a
        non-empty list of numbers of that kind). A None default (in any mode)
        additionally accepts None; if every mode's default is None, anything
        is accepted.
    smoke, paper : optional
        The value with ``smoke=True`` / ``paper=True``; the same as ``value``
        when not given.
    minimum, maximum : number, optional
        Inclusive bounds (for lists, of every element).
    choices : iterable, optional
        The accepted values (for lists, of every element).
    doc : str, optional
        One line saying what the parameter is.

    Returns
    -------
    Default
        Replaced by the value of the mode in :func:`resolve_parameters`.

    Notes
    -----
    Called at the top level of a notebook cell or script, ``default`` also
    records itself, under the name it is assigned to, in that namespace
    (key ``__kernelxai_parameter_defaults__``), so that a value papermill
    injects *after* the parameters cell is still validated against it.

    Examples
    --------
    >>> n_train = default(600, smoke=200, paper=3000, minimum=10)
    >>> n_train.for_mode(smoke=True)
    200
    """
    d = Default(value, smoke=smoke, paper=paper, minimum=minimum, maximum=maximum,
                choices=choices, doc=doc)
    import sys

    frame = sys._getframe(1)  # noqa: SLF001 - the caller's frame: the only way to see the name it assigns to
    try:
        if frame.f_globals is frame.f_locals:  # top level of a cell or script
            _register(frame, d)
    finally:
        del frame
    return d


def _register(frame, d):
    """Record ``d`` in the caller's namespace under the name it is being assigned to."""
    namespace = frame.f_globals
    registry = namespace.get(_REGISTRY)
    if not isinstance(registry, dict):
        registry = namespace[_REGISTRY] = {}
    # names of earlier Defaults, by identity, now that their assignments have run
    for key in [k for k in registry if isinstance(k, int)]:
        for name, obj in namespace.items():
            if obj is registry[key] and name != _REGISTRY:
                registry[name] = registry.pop(key)
                break
    name = _assigned_name(frame)
    if name is None:  # no source: remember it unnamed, named later by identity
        name = -(len(registry) + 1)
        while name in registry:
            name -= 1
    registry[name] = d


def _assigned_calls(tree):
    """``(name, call)`` of every ``name = call(...)`` (or ``name: type = call(...)``) in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target = node.target
        else:
            continue
        if isinstance(target, ast.Name) and isinstance(node.value, ast.Call):
            yield target, node.value


def _assigned_name(frame):
    """The variable the call running in ``frame`` is assigned to, read from the source."""
    code = frame.f_code
    lines = linecache.getlines(code.co_filename, frame.f_globals)
    if not lines:
        return None
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        return None
    position = None
    with contextlib.suppress(Exception):
        position = list(code.co_positions())[frame.f_lasti // 2]
    lineno = frame.f_lineno
    exact, near = [], []
    for target, call in _assigned_calls(tree):
        span = (call.lineno, call.end_lineno, call.col_offset, call.end_col_offset)
        if position is not None and tuple(position) == span:
            exact.append(target.id)
        elif call.lineno <= lineno <= call.end_lineno:
            near.append(target.id)
    if len(exact) == 1:
        return exact[0]
    if not exact and len(near) == 1:
        return near[0]
    return None


def _describe(d):
    """Words for what ``d`` accepts."""
    kind = d.kind
    if kind is None:
        return "anything"
    if d.choices is not None:
        listed = ", ".join(repr(c) for c in d.choices)
        words = f"one of {listed}"
        if kind.endswith("-list"):
            words = f"a non-empty list of values, each one of {listed}"
    else:
        noun = {"int": "an integer", "float": "a real number", "bool": "True or False",
                "str": "a string", "int-list": "a non-empty list of integers",
                "float-list": "a non-empty list of real numbers",
                "str-list": "a non-empty list of strings"}[kind]
        lo, hi = d.minimum, d.maximum
        if lo is not None and hi is not None:
            bound = f" in [{lo}, {hi}]"
        elif lo is not None:
            bound = f" >= {lo}"
        elif hi is not None:
            bound = f" <= {hi}"
        else:
            bound = ""
        if kind.endswith("-list") and bound:
            bound = f", each{bound}"
        words = noun + bound
    if d.allows_none:
        words += ", or None"
    return words


def _convert_scalar(x, kind):
    """``x`` as a plain Python value of ``kind``, or raise ValueError."""
    if kind == "int" and _is_int(x):
        return int(x)
    if kind == "float" and _is_real(x) and math.isfinite(float(x)):
        return int(x) if _is_int(x) else float(x)
    if kind == "bool" and isinstance(x, (bool, np.bool_)):
        return bool(x)
    if kind == "str" and isinstance(x, str):
        return x
    raise ValueError


def _in_range(x, d):
    if d.minimum is not None and x < d.minimum:
        return False
    if d.maximum is not None and x > d.maximum:
        return False
    return d.choices is None or x in d.choices


def _validate(name, value, d):
    """``value`` checked against ``d`` and converted to plain Python; ValueError otherwise."""
    if value is None and (d.allows_none or d.kind is None):
        return None
    if d.kind is None:
        return value
    fail = ValueError(f"parameter {name} must be {_describe(d)}; got {value!r}")
    try:
        if d.kind.endswith("-list"):
            if isinstance(value, np.ndarray):
                value = value.tolist()
            if not isinstance(value, (list, tuple)) or len(value) == 0:
                raise ValueError
            out = [_convert_scalar(v, d.kind[:-5]) for v in value]
            if not all(_in_range(v, d) for v in out):
                raise ValueError
            return out
        out = _convert_scalar(value, d.kind)
    except (ValueError, TypeError):
        raise fail from None
    if not _in_range(out, d):
        raise fail
    return out


def _declared_defaults(namespace):
    """The :class:`Default` of each declared parameter: registered by :func:`default`, or held by a name now."""
    declared = {}
    registry = namespace.get(_REGISTRY)
    if isinstance(registry, dict):
        declared.update((k, d) for k, d in registry.items() if isinstance(k, str))
    for name, v in namespace.items():
        if isinstance(v, Default) and not name.startswith("_"):
            declared[name] = v  # the Default the name holds now is the one that counts
    return declared


def _plain(namespace, name):
    """The value of ``name`` in ``namespace`` (a Default's default-mode value)."""
    v = namespace[name]
    return v.value if isinstance(v, Default) else v


def _mode_flags(namespace):
    """``{"smoke": bool, "paper": bool}`` (False when absent); not both True."""
    params = {}
    for flag in _MODE_FLAGS:
        v = _plain(namespace, flag) if flag in namespace else False
        if not isinstance(v, (bool, np.bool_)):
            raise ValueError(f"parameter {flag} must be True or False; got {v!r}")
        params[flag] = bool(v)
    if params["smoke"] and params["paper"]:
        raise ValueError("parameters smoke and paper cannot both be True; got smoke=True, paper=True "
                         "(choose one mode: smoke for quick tests, paper for the paper's setting)")
    return params


def _results_path(v):
    """``results_path`` as a non-empty string, or None (write nothing)."""
    if isinstance(v, os.PathLike):
        v = os.fspath(v)
    if v is not None and (not isinstance(v, str) or not v):
        raise ValueError("parameter results_path must be a non-empty string (or None to write "
                         f"nothing); got {v!r}")
    return v


def resolve_parameters(namespace: dict[str, Any]) -> dict[str, Any]:
    """Replace every :class:`Default` by its value for the mode; validate everything.

    Parameters
    ----------
    namespace : dict
        The notebook's ``globals()`` after its parameters cell (and papermill's
        injected cell) ran. Read: ``smoke`` and ``paper`` (bools, not both True;
        False when absent), ``seed`` (a non-negative integer), ``results_path``
        (a non-empty string, or None to write nothing) and every parameter
        declared with :func:`default`. ``namespace`` itself is not changed.
        In a Jupyter kernel, the cells run since the parameters cell that only
        assign values (papermill's injected cell) are read from the input
        history ``_ih``: a name they set that the parameters cell does not
        assign is refused before anything else.

    Returns
    -------
    dict
        Every parameter actually used, as plain JSON-ready values: the mode
        flags, ``seed`` and ``results_path`` (when present) and each declared
        parameter: the caller's value where the name holds a plain value (set
        by papermill or the user, kept in every mode), else the default of the
        mode (``paper`` if ``paper=True``, else ``smoke`` if ``smoke=True``,
        else ``value``). Apply it with ``globals().update(params)`` and record it
        with ``save_results(results_path, results, parameters=params)``.

    Raises
    ------
    ValueError
        Naming the parameter, the value received and what is accepted, e.g.
        ``parameter n_samples must be an integer >= 10; got -10``; or naming a
        parameter the notebook does not have, with the accepted names and a
        close one (:func:`check_parameter_names`), e.g. ``unknown parameter
        'n_perms' (did you mean 'n_permutations'?); this notebook accepts: ...``.
    TypeError
        When ``namespace`` is not a dict.

    Examples
    --------
    The second cell of a notebook, here with a dict for its ``globals()``:

    >>> import kernelxai as kx
    >>> namespace = {"smoke": True, "seed": 0, "results_path": None,
    ...              "n_train": kx.workbench.default(600, smoke=200, minimum=10)}
    >>> kx.workbench.resolve_parameters(namespace)
    {'smoke': True, 'paper': False, 'seed': 0, 'results_path': None, 'n_train': 200}
    >>> namespace["seed"] = -1  # as papermill's ``-p seed -1`` would set it
    >>> try:
    ...     kx.workbench.resolve_parameters(namespace)
    ... except ValueError as error:
    ...     print(error)
    parameter seed must be a non-negative integer; got -1
    """
    if not isinstance(namespace, dict):
        raise TypeError(f"resolve_parameters: namespace must be a dict such as globals(); "
                        f"got {type(namespace).__name__}")
    declared = _declared_defaults(namespace)
    since = names_set_after_the_parameters_cell(namespace)
    if since is not None:  # a name papermill injected that the parameters cell does not assign
        check_parameter_names(since[0], [*since[1], *declared])
    params = _mode_flags(namespace)
    if "seed" in namespace:
        v = _plain(namespace, "seed")
        if not _is_int(v) or v < 0:
            raise ValueError(f"parameter seed must be a non-negative integer; got {v!r}")
        params["seed"] = int(v)
    if "results_path" in namespace:
        params["results_path"] = _results_path(_plain(namespace, "results_path"))

    reserved = set(_MODE_FLAGS) | {"seed", "results_path"}
    for name, d in declared.items():
        if name in reserved:
            continue
        if name in namespace and not isinstance(namespace[name], Default):
            value = namespace[name]  # set by the caller: kept in every mode
        else:
            value = d.for_mode(smoke=params["smoke"], paper=params["paper"])
        params[name] = to_jsonable(_validate(name, value, d))
    return params
