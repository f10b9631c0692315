"""Declared parameters of the public entry points, checked by one mechanism with one message format.

Every public function (``kx.explain``, ``kx.explain_gp``, ``kx.ShapleyPrior``, ...)
declares its parameters once, next to its signature, with :func:`parameters`:

>>> @parameters("kx.toy", method=OneOf("exact", "sampled"), budget=Integer(1, none=True), seed=Seed())
... def toy(X, method="exact", *, budget=None, seed=None):
...     return method, budget, seed
>>> toy(None, "sampled", budget=10, random_state=3)      # random_state: scikit-learn's name of seed
('sampled', 10, 3)
>>> toy(None, budgte=10)
Traceback (most recent call last):
...
kernelxai._params.InvalidOptionError: 'budgte' is not an argument of kx.toy. kx.toy takes: X, method, budget, seed.
did you mean 'budget' for 'budgte'?
>>> toy(None, method="sampeld")
Traceback (most recent call last):
...
kernelxai._params.InvalidOptionError: method='sampeld' of kx.toy must be one of 'exact', 'sampled';
did you mean 'sampled'?

Before the function runs, the wrapper

* maps ``random_state=`` to ``seed=`` (the name scikit-learn users write) for
  every function that takes a seed, and refuses both at once;
* refuses keywords the function does not take -- and, for a function whose
  ``**options`` go on to an estimator or a value function, keywords none of
  them takes -- naming what each accepts, with "did you mean ...?" from
  :func:`closest`, the one helper every such suggestion in kernelxai comes from;
* checks each given value against its declared constraint (:class:`Integer`,
  :class:`Real`, :class:`Boolean`, :class:`OneOf`, :class:`Seed`,
  :class:`Data`, :class:`Groups`, ...) and refuses it with
  ``"{name}={value} of {entry} must be {what is accepted}"``;
* densifies a scipy sparse ``X`` / background (:class:`Data`, through
  ``kernelxai._validation.densify``), so every entry point takes sparse
  input as ``kx.explain`` does.

Refusals are :class:`InvalidOptionError` (a TypeError and a ValueError).
Cross-parameter rules (``budget`` only with ``method="sampled"``, a DataFrame's
columns against the model's) stay in the function: a declaration says what
one parameter accepts. The declaration is kept on the function as
``__kx_parameters__`` (:class:`Declaration`), which the contract test of the
entry points (``tests/test_entry_contract.py``) reads.

This module is ground floor: it imports nothing from the stages of kernelxai.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._suggest import closest, did_you_mean
from ._validation import densify, is_sparse

__all__ = ["InvalidOptionError", "closest", "did_you_mean", "unknown_keywords_error", "value_error",
           "show", "Constraint", "Anything", "Integer", "Real", "Boolean", "OneOf", "Text", "Seed",
           "Data", "Groups", "Names", "InstanceOf", "Checked", "Either", "Declaration", "parameters", "ALIASES",
           "check_groups", "resolve_groups"]

#: Other names of a parameter: ``random_state`` is how scikit-learn users write ``seed``.
ALIASES = {"random_state": "seed"}


class InvalidOptionError(TypeError, ValueError):
    """A keyword the function (or what it passes keywords to) does not take, or a value it cannot take.

    Raised by every public entry point before any work is done. The message
    lists what is accepted and suggests the closest name for a misspelt one.
    A ``TypeError`` and a ``ValueError``, so either ``except`` clause catches
    it. Public as ``kx.estimators.InvalidOptionError``.

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> try:
    ...     kx.shapley_values(g, method="permutation", n_perms=10, seed=0)
    ... except kx.estimators.InvalidOptionError as err:
    ...     print(err)
    'n_perms' is not an argument of kx.shapley_values, nor an option of method='permutation'. It accepts: ...
    did you mean 'n_permutations' for 'n_perms'?
    """


# --------------------------------------------------------------------------- #
# the messages
# --------------------------------------------------------------------------- #
def unknown_keywords_error(entry: str | None, unknown: Sequence[object], takes: Sequence[str] = (),
                           others: Sequence[tuple] = ()) -> InvalidOptionError:
    """The one message for keywords nobody takes: what each taker accepts, and "did you mean".

    Parameters
    ----------
    entry : str or None
        The function called (``"kx.explain"``); None when the keywords went
        straight to what ``others`` names (an estimator's options).
    unknown : sequence of str
        The keywords refused.
    takes : sequence of str
        ``entry``'s own arguments.
    others : sequence of (str, sequence of str) or (str, sequence of str, str)
        What else takes keywords, in the order the sentence names them (e.g.
        ``("the 'interventional' value function", [...])``,
        ``("method='kernel'", [...])``), with their names; a third element
        replaces the listing of those names by a sentence saying where to find
        them (the names still feed "did you mean").

    Returns
    -------
    InvalidOptionError
        ``"'x' is not an argument of {entry}, nor an option of {A} or of {B}.
        It accepts: ...; {A} accepts: ...; {entry} takes: .... did you mean ...?"``

    Examples
    --------
    >>> print(unknown_keywords_error("kx.explain_mmd", ["n_permutation"], ["X", "Z", "n_permutations"],
    ...                              [("method='product'", ["max_elements", "progress"])]))
    'n_permutation' is not an argument of kx.explain_mmd, nor an option of method='product'. It accepts:
    max_elements, progress; kx.explain_mmd takes: X, Z, n_permutations. did you mean 'n_permutations' for
    'n_permutation'?
    """
    one = len(unknown) == 1
    quoted = ", ".join(repr(str(u)) for u in unknown)
    whos = [who for who, *_ in others]
    if entry is not None:
        head = f"{quoted} {'is not an argument' if one else 'are not arguments'} of {entry}"
        if whos:
            head += f", nor {'an option' if one else 'options'} of " + " or of ".join(whos)
    else:
        head = f"{quoted} {'is not an option' if one else 'are not options'} of " + " or of ".join(whos)
    lists, candidates = [], list(takes)
    for k, (who, names, *listed) in enumerate(reversed(others)):
        candidates += list(names)
        lists.append(listed[0] if listed else f"{'It' if k == 0 else who} accepts: {', '.join(names) or 'no options'}")
    if entry is not None:
        lists.append(f"{entry} takes: {', '.join(takes) or 'no keywords'}")
    hint = did_you_mean(unknown, candidates)
    return InvalidOptionError(f"{head}. {'; '.join(lists)}." + (f" {hint}" if hint else ""))


def show(value: object) -> str:
    """A short rendering of a refused value: ``repr`` of a scalar, the type and shape of an array."""
    if value is None or isinstance(value, (bool, numbers.Number, np.generic)):
        return repr(value)
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    shape = getattr(value, "shape", None)
    if shape is not None and not callable(shape):
        return f"<{type(value).__name__} of shape {tuple(shape)}>"
    if isinstance(value, (list, tuple)):
        text = repr(value)
        return text if len(text) <= 60 else f"<{type(value).__name__} of length {len(value)}>"
    return f"<{type(value).__name__}>"


def value_error(owner: str, name: str, value: object, description: str,
                candidates: Iterable[object] | None = None) -> InvalidOptionError:
    """The one message for a refused value: ``"{name}={value} of {owner} must be {description}"``.

    Parameters
    ----------
    owner : str
        The function (``"kx.explain_gp"``) or what takes the option (``"method='kernel'"``).
    name : str
        The parameter (an estimator's options say ``"option budget"``).
    value : object
        What was given (shown short, :func:`show`).
    description : str
        What is accepted.
    candidates : iterable, optional
        The accepted names of a choice, for "did you mean ...?".

    Examples
    --------
    >>> print(value_error("kx.explain_gp", "budget", 0, "an integer >= 1"))
    budget=0 of kx.explain_gp must be an integer >= 1
    >>> print(value_error("kx.ShapleyPrior", "method", "prodcut", "one of 'auto', 'product'",
    ...                   ["auto", "product"]))
    method='prodcut' of kx.ShapleyPrior must be one of 'auto', 'product'; did you mean 'product'?
    """
    close = closest(value, candidates) if candidates is not None else []
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return InvalidOptionError(f"{name}={show(value)} of {owner} must be {description}{hint}")


# --------------------------------------------------------------------------- #
# the constraints
# --------------------------------------------------------------------------- #
class _Refused(Exception):
    """A value a constraint does not take (the wrapper turns it into :func:`value_error`)."""


@dataclass(frozen=True)
class Constraint:
    """What one parameter accepts. ``none=True`` also accepts None.

    A subclass implements :meth:`describe` and :meth:`convert` (the accepted
    value, possibly converted, or :class:`_Refused`); :meth:`check` is what
    the wrapper calls.
    """

    none: bool = field(default=False, kw_only=True)

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def convert(self, value: Any, name: str) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def candidates(self) -> Sequence[object] | None:
        """The accepted names of a choice (for "did you mean"), else None."""
        return None

    def description(self) -> str:
        return self.describe() + (" or None" if self.none else "")

    def check(self, owner: str, name: str, value: Any) -> Any:
        """``value`` as the function receives it, or :class:`InvalidOptionError` naming what is accepted."""
        if value is None and self.none:
            return None
        try:
            return self.convert(value, name)
        except _Refused:
            raise value_error(owner, name, value, self.description(), self.candidates()) from None


def _is_int(value: object) -> bool:
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Anything(Constraint):
    """Any value (a parameter declared for its name only)."""

    def describe(self) -> str:
        return "any value"

    def convert(self, value: Any, name: str) -> Any:
        return value


@dataclass(frozen=True)
class Integer(Constraint):
    """An integer (not a bool) in ``[minimum, maximum]``; None bounds are open. Returned as ``int``."""

    minimum: int | None = 1
    maximum: int | None = None

    def describe(self) -> str:
        if self.minimum is not None and self.maximum is not None:
            return f"an integer in [{self.minimum}, {self.maximum}]"
        if self.minimum is not None:
            return f"an integer >= {self.minimum}"
        if self.maximum is not None:
            return f"an integer <= {self.maximum}"
        return "an integer"

    def convert(self, value: Any, name: str) -> int:
        if not _is_int(value) or (self.minimum is not None and value < self.minimum) \
                or (self.maximum is not None and value > self.maximum):
            raise _Refused
        return int(value)


@dataclass(frozen=True)
class Real(Constraint):
    """A finite real number with optional bounds (``closed`` says which bounds are included).

    ``closed`` is ``"neither"``, ``"left"``, ``"right"`` or ``"both"``. Returned as ``float``.
    """

    minimum: float | None = None
    maximum: float | None = None
    closed: str = "neither"

    def describe(self) -> str:
        lo = self.closed in ("left", "both")
        hi = self.closed in ("right", "both")
        if self.minimum is not None and self.maximum is not None:
            return (f"a number in {'[' if lo else '('}{self.minimum:g}, {self.maximum:g}"
                    f"{']' if hi else ')'}")
        if self.minimum is not None:
            return f"a number {'>=' if lo else '>'} {self.minimum:g}"
        if self.maximum is not None:
            return f"a number {'<=' if hi else '<'} {self.maximum:g}"
        return "a finite number"

    def convert(self, value: Any, name: str) -> float:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating)) \
                or not np.isfinite(value):
            raise _Refused
        lo = self.closed in ("left", "both")
        hi = self.closed in ("right", "both")
        if self.minimum is not None and not (value >= self.minimum if lo else value > self.minimum):
            raise _Refused
        if self.maximum is not None and not (value <= self.maximum if hi else value < self.maximum):
            raise _Refused
        return float(value)


@dataclass(frozen=True)
class Boolean(Constraint):
    """True or False (numpy booleans too). Returned as ``bool``."""

    def describe(self) -> str:
        return "True or False"

    def convert(self, value: Any, name: str) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise _Refused
        return bool(value)


@dataclass(frozen=True)
class OneOf(Constraint):
    """One of the given values (compared with ``==``); a misspelt name gets "did you mean"."""

    choices: tuple = ()

    def __init__(self, *choices: object, none: bool = False) -> None:
        object.__setattr__(self, "choices", tuple(choices))
        object.__setattr__(self, "none", none)

    def describe(self) -> str:
        return "one of " + ", ".join(repr(c) for c in self.choices)

    def candidates(self) -> Sequence[object]:
        return self.choices

    def convert(self, value: Any, name: str) -> Any:
        try:
            ok = any(type(value) is type(c) and value == c for c in self.choices) or (
                not isinstance(value, str) and value in self.choices)
        except (TypeError, ValueError):   # an array compared with a string
            ok = False
        if not ok:
            raise _Refused
        return value


@dataclass(frozen=True)
class Text(Constraint):
    """A string (a name looked up later, e.g. in a registry that lists its own names)."""

    def describe(self) -> str:
        return "a string"

    def convert(self, value: Any, name: str) -> str:
        if not isinstance(value, str):
            raise _Refused
        return value


@dataclass(frozen=True)
class Seed(Constraint):
    """None, an integer >= 0, a ``numpy.random.Generator`` or a ``SeedSequence``."""

    none: bool = field(default=True, kw_only=True)

    def describe(self) -> str:
        return "an integer >= 0, a numpy.random.Generator"

    def convert(self, value: Any, name: str) -> Any:
        if isinstance(value, (np.random.Generator, np.random.SeedSequence)) or (_is_int(value) and value >= 0):
            return value
        raise _Refused


@dataclass(frozen=True)
class Data(Constraint):
    """Rows of numbers: an array, a DataFrame (columns kept) or a scipy sparse matrix (densified).

    A sparse matrix becomes a dense ndarray when its dense copy fits in
    ``kx.get_config()["max_memory"]`` and is refused by name otherwise
    (``kernelxai._validation.densify``); everything else is handed on as
    given -- its shape, values and columns are checked where the function
    knows what they must be.
    """

    def describe(self) -> str:
        return "an array, a DataFrame or a scipy sparse matrix"

    def convert(self, value: Any, name: str) -> Any:
        if is_sparse(value):
            return densify(value, name)
        if value is None or isinstance(value, (str, bytes, dict, set)) or callable(value):
            raise _Refused
        return value


@dataclass(frozen=True)
class Groups(Constraint):
    """Groups of features: a list of lists of feature indices or names (read against the features later)."""

    def describe(self) -> str:
        return "a list of lists of feature indices or names, e.g. [[0, 1], [2]] or [['age', 'sex'], ['bmi']]"

    def convert(self, value: Any, name: str) -> list[list[Any]]:
        if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple, np.ndarray)):
            raise _Refused
        out = []
        for g in value:
            if not isinstance(g, (list, tuple, np.ndarray, range)):
                raise _Refused
            out.append(list(g))
        return out


@dataclass(frozen=True)
class Names(Constraint):
    """A list of strings (feature names, group names)."""

    def describe(self) -> str:
        return "a list of strings"

    def convert(self, value: Any, name: str) -> list[str]:
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, np.ndarray)) \
                or not all(isinstance(v, str) for v in value):
            raise _Refused
        return list(value)


@dataclass(frozen=True)
class InstanceOf(Constraint):
    """An instance of one of ``types``; ``what`` says it in words (e.g. "a kernelxai Game")."""

    types: tuple = ()
    what: str = ""

    def describe(self) -> str:
        return self.what or " or ".join(f"a {t.__name__}" for t in self.types)

    def convert(self, value: Any, name: str) -> Any:
        if not isinstance(value, self.types):
            raise _Refused
        return value


@dataclass(frozen=True)
class Checked(Constraint):
    """A value checked by a function of its own (``check(value) -> value``, raising with its own message).

    For parameters many entry points share and one checker already owns, e.g.
    ``n_jobs`` (``kernelxai.parallel._chunking.check_n_jobs``): declared here, refused there.
    """

    checker: Callable[[Any], Any] | None = None

    def describe(self) -> str:
        doc = (getattr(self.checker, "__doc__", None) or "").strip().splitlines()
        return doc[0].rstrip(".") if doc else "a value its checker accepts"

    def check(self, owner: str, name: str, value: Any) -> Any:
        return self.checker(value)

    def convert(self, value: Any, name: str) -> Any:
        return self.checker(value)


@dataclass(frozen=True)
class Either(Constraint):
    """Any of several constraints (the first that takes the value converts it)."""

    options: tuple = ()

    def __init__(self, *options: Constraint, none: bool = False) -> None:
        object.__setattr__(self, "options", tuple(options))
        object.__setattr__(self, "none", none)

    def describe(self) -> str:
        return " or ".join(c.description() for c in self.options)

    def candidates(self) -> Sequence[object] | None:
        names = [n for c in self.options for n in (c.candidates() or ())]
        return names or None

    def convert(self, value: Any, name: str) -> Any:
        for c in self.options:
            if value is None and c.none:
                return None
            try:
                return c.convert(value, name)
            except _Refused:
                continue
        raise _Refused


# --------------------------------------------------------------------------- #
# groups of features: one reading for every entry point
# --------------------------------------------------------------------------- #
def check_groups(groups, group_names=None, name="groups") -> list[list] | None:
    """The structure of ``groups=`` as every entry point takes it: lists of feature indices or names.

    Parameters
    ----------
    groups : list of lists of int or str, or None
        Each inner list is one group of features (by position or by name).
    group_names : list of str, optional
        One name per group; only with ``groups``.
    name : str
        The argument's name, used in error messages.

    Returns
    -------
    list of lists, or None
        The groups as lists (members unchanged: names are resolved against the
        features by :func:`resolve_groups`).

    Raises
    ------
    ValueError
        ``groups`` is not a list of lists, a group is empty, ``group_names``
        is given without ``groups`` or with another length.

    Examples
    --------
    >>> check_groups([("u", "v"), ["w"]])
    [['u', 'v'], ['w']]
    >>> check_groups("u")
    Traceback (most recent call last):
    ...
    ValueError: groups must be a list of lists of feature indices or names, e.g. [[0, 1], [2]] or ...
    """
    if groups is None:
        if group_names is not None:
            raise ValueError(f"group_names given without {name}")
        return None
    if isinstance(groups, (str, bytes, dict)) or not isinstance(groups, (list, tuple, np.ndarray)) or not all(
            isinstance(g, (list, tuple, np.ndarray, range)) for g in groups):
        raise ValueError(f"{name} must be a list of lists of feature indices or names, e.g. "
                         f"[[0, 1], [2]] or [['age', 'sex'], ['bmi']]; got {groups!r}")
    out = [list(g) for g in groups]
    if any(len(g) == 0 for g in out):
        raise ValueError(f"every group needs at least one feature; got {name}={out!r}")
    if group_names is not None and len(group_names) != len(out):
        raise ValueError(f"{len(group_names)} group_names for {len(out)} groups")
    return out


def resolve_groups(groups, names, name="groups") -> list[list[int]]:
    """Groups of feature indices from groups of indices or names; ``names`` are the features, in order.

    The one place a group member is read: a string is a feature name (refused,
    with the names accepted and "did you mean", when the features have no such
    name), an integer a position. Whether the groups partition the features
    is the grouped game's check.

    Parameters
    ----------
    groups : list of lists of int or str
    names : sequence of str
        The features' names, in order.
    name : str
        The argument's name, used in error messages.

    Returns
    -------
    list of lists of int

    Raises
    ------
    ValueError
        An unknown name, an index out of range, or a member that is neither.

    Examples
    --------
    >>> resolve_groups([["u", "v"], [2]], ["u", "v", "w"])
    [[0, 1], [2]]
    >>> resolve_groups([["u", "vv"]], ["u", "v", "w"])
    Traceback (most recent call last):
    ...
    ValueError: unknown feature 'vv' in groups; the features are ['u', 'v', 'w']; did you mean 'v'?
    """
    names = [str(c) for c in names]
    position = {c: j for j, c in enumerate(names)}
    out = []
    for g in groups:
        members = []
        for item in g:
            if isinstance(item, str):
                if item not in position:
                    close = closest(item, names)
                    hint = f"; did you mean {close[0]!r}?" if close else ""
                    raise ValueError(f"unknown feature {item!r} in {name}; the features are {names}{hint}")
                members.append(position[item])
            elif isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
                if not 0 <= item < len(names):
                    raise ValueError(f"feature index {item} in {name} is out of range for "
                                     f"{len(names)} features")
                members.append(int(item))
            else:
                raise ValueError(f"{name} hold feature indices or names; got {item!r}")
        out.append(members)
    return out


# --------------------------------------------------------------------------- #
# the declaration
# --------------------------------------------------------------------------- #
#: What takes the keywords a function passes on (``**options``): a function of the call's
#: arguments returning ``[(who, names)]`` (see :func:`unknown_keywords_error`).
Consumers = Callable[[dict], Sequence[tuple]]


class Declaration:
    """The declared parameters of one public function (kept on it as ``__kx_parameters__``).

    Attributes
    ----------
    entry : str
        The name users call it by (``"kx.explain_gp"``), used in every message.
    names : tuple of str
        The parameters of its signature (``self`` left out), in order.
    constraints : dict of str to Constraint
        What each declared parameter accepts (parameters that arrive through
        ``**options``, such as ``kx.explain``'s ``seed``, may be declared too).
    aliases : dict of str to str
        Other name -> parameter (``random_state`` -> ``seed`` where a seed is taken).
    consumers : callable or None
        For a function with ``**options``: who takes them (their names are
        accepted, the rest refused with all the lists). None: the function
        checks its ``**options`` itself (``kx.explain``, whose value function
        is known only once the model is converted).
    """

    def __init__(self, func: Callable, entry: str, constraints: dict[str, Constraint],
                 consumers: Consumers | None, aliases: dict[str, str]) -> None:
        params = inspect.signature(func).parameters
        self.entry = entry
        self.names = tuple(k for k, p in params.items() if k != "self"
                           and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
        self.var_keyword = any(p.kind is p.VAR_KEYWORD for p in params.values())
        unknown = [k for k in constraints if k not in self.names and not self.var_keyword]
        if unknown:
            raise TypeError(f"{entry}: constraints for {unknown}, which are not parameters of it")
        self.constraints = dict(constraints)
        self.consumers = consumers
        takes_seed = "seed" in self.names or "seed" in self.constraints
        self.aliases = {old: new for old, new in aliases.items()
                        if new in self.names or new in self.constraints
                        if new != "seed" or takes_seed}
        self.keywords = frozenset(self.names) | frozenset(self.constraints)
        #: the defaults of the signature (what the consumers see for parameters not given)
        self.defaults = {k: p.default for k, p in params.items() if p.default is not p.empty}
        #: the parameters that may be given by position (``self`` included), in order
        self.positional = tuple(k for k, p in params.items()
                                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        positions = {k: i for i, k in enumerate(self.positional)}
        #: (name, position in *args or None, constraint)
        self._checks = tuple((k, positions.get(k), c) for k, c in self.constraints.items())

    def accepted(self) -> list[str]:
        """The keywords the function takes by name (its own and the declared ones)."""
        return list(self.names) + [k for k in self.constraints if k not in self.names]

    def check(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """The call's ``(args, kwargs)`` checked and converted (or an InvalidOptionError)."""
        if kwargs:
            for old, new in self.aliases.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InvalidOptionError(
                            f"{self.entry} got both {new}= and {old}= (another name of {new}, as "
                            f"scikit-learn writes it); give one")
                    kwargs[new] = kwargs.pop(old)
            unknown = [k for k in kwargs if k not in self.keywords]
            if unknown and (not self.var_keyword or self.consumers is not None):
                self._refuse_unknown(unknown, args, kwargs)
        converted = None
        for name, pos, constraint in self._checks:
            if name in kwargs:
                kwargs[name] = constraint.check(self.entry, name, kwargs[name])
            elif pos is not None and pos < len(args):
                value = constraint.check(self.entry, name, args[pos])
                if value is not args[pos]:
                    converted = list(args) if converted is None else converted
                    converted[pos] = value
        return (args if converted is None else tuple(converted)), kwargs

    def _refuse_unknown(self, unknown: list[str], args: tuple, kwargs: dict) -> None:
        others = []
        if self.consumers is not None:
            given = {**self.defaults, **dict(zip(self.positional, args)), **kwargs}
            others = list(self.consumers(given))
            taken = {n for _, names, *_ in others for n in names}
            unknown = [k for k in unknown if k not in taken]
            if not unknown:
                return
        raise unknown_keywords_error(self.entry, unknown, self.accepted(), others)

    def __repr__(self) -> str:
        return f"Declaration({self.entry!r}, {sorted(self.constraints)})"


def parameters(entry: str, *, consumers: Consumers | None = None, aliases: dict[str, str] | None = None,
               **constraints: Constraint) -> Callable[[Callable], Callable]:
    """Declare a public function's parameters; the returned decorator checks every call.

    Parameters
    ----------
    entry : str
        The name users call the function by (``"kx.explain_mmd"``; a method:
        ``"kx.ShapleyPrior.fit"``), used in every message.
    consumers : callable, optional
        For a function with ``**options``: ``consumers(arguments)`` returns
        ``[(who, names)]``, what takes the options given the call's other
        arguments (e.g. ``[("method='product'", [...])]``). Keywords none of
        them takes are refused with every list. Without it, ``**options`` are
        handed on unchecked (the function checks them itself).
    aliases : dict, optional
        Other names of parameters (default :data:`ALIASES`: ``random_state``
        for ``seed``, where the function takes a seed).
    **constraints : Constraint
        What each parameter accepts (parameters left out are not checked).

    Returns
    -------
    callable
        A decorator. The decorated function keeps its name, signature and
        docstring (``functools.wraps``) and carries its :class:`Declaration`
        as ``__kx_parameters__``.

    Examples
    --------
    >>> @parameters("kx.first_rows", X=Data(), n=Integer(1))
    ... def first_rows(X, n=1):
    ...     return X[:n]
    >>> import scipy.sparse as sp
    >>> first_rows(sp.eye(3, format="csr"), 2)            # sparse input: densified
    array([[1., 0., 0.],
           [0., 1., 0.]])
    >>> first_rows([[1.0]], n=0)
    Traceback (most recent call last):
    ...
    kernelxai._params.InvalidOptionError: n=0 of kx.first_rows must be an integer >= 1
    """
    def decorate(func: Callable) -> Callable:
        declaration = Declaration(func, entry, constraints, consumers,
                                  ALIASES if aliases is None else aliases)
        check = declaration.check

        @functools.wraps(func)
        def checked(*args: Any, **kwargs: Any) -> Any:
            args, kwargs = check(args, kwargs)
            return func(*args, **kwargs)

        checked.__kx_parameters__ = declaration
        return checked

    return decorate
