"""The estimator contract and its registry.

An estimator turns a :class:`~kernelxai.games.Game` into Shapley values. Each
one is a subclass of :class:`Estimator` that declares

* ``name`` and ``aliases`` -- what ``kx.shapley_values(game, method=...)`` accepts;
* ``requires`` -- the game type (ability) it needs, e.g. ``ProductGame``;
* ``exact`` -- exact to rounding, or a sampled estimate;
* ``options`` -- its keyword options with defaults and checks; sampled
  estimators share one budget keyword, ``budget`` (game evaluations, i.e.
  coalitions evaluated), and keep their old names as aliases;
* :meth:`Estimator.cost` -- floating-point operations and peak memory for a
  given game, used by ``method="auto"``, the progress bar and the cost ceiling;
* :meth:`Estimator.run` -- the computation, returning an :class:`EstimatorResult`.

Adding an estimator is one module and one :func:`register` call; the contract
tests in ``tests/test_contract.py`` are generated from this registry.

This module imports nothing from the rest of the estimators package, so every
estimator module can import it without cycles.
"""

from __future__ import annotations

import difflib
import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._config import get_config
from ..games import Game

__all__ = ["Option", "Cost", "EstimatorResult", "Estimator", "register", "get_estimator",
           "available_methods", "estimators", "InvalidOptionError", "CostLimitError",
           "NotApplicableError", "COMMON_OPTIONS", "check_cost", "format_seconds"]


class InvalidOptionError(TypeError, ValueError):
    """An option the estimator does not accept, or a value it cannot take."""


class NotApplicableError(TypeError, ValueError):
    """The estimator does not apply to this game."""


class CostLimitError(RuntimeError):
    """The estimated cost is above ``max_cost``; raised before any work is done."""


# --------------------------------------------------------------------------- #
# options
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class Option:
    """A keyword option: default, kind and range.

    ``kind`` is one of ``"int"``, ``"float"``, ``"bool"``, ``"level"`` (a number
    in (0, 1)), ``"choice"`` (one of ``choices``) or ``"any"``. ``None`` is
    always accepted when it is the default.
    """

    default: object = None
    kind: str = "any"
    minimum: float | None = None
    choices: tuple = ()
    doc: str = ""
    nullable: bool = False

    def describe(self) -> str:
        if self.kind == "int":
            return f"an integer >= {self.minimum if self.minimum is not None else 1}"
        if self.kind == "float":
            return "a number" + (f" > {self.minimum}" if self.minimum is not None else "")
        if self.kind == "bool":
            return "True or False"
        if self.kind == "level":
            return "a number strictly between 0 and 1"
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        return "any value"

    def check(self, name, value, method) -> Any:
        if value is None and (self.default is None or self.nullable):
            return None
        ok = True
        if self.kind == "int":
            ok = (not isinstance(value, bool) and isinstance(value, (numbers.Integral, np.integer))
                  and value >= (self.minimum if self.minimum is not None else 1))
            value = int(value) if ok else value
        elif self.kind == "float":
            ok = (not isinstance(value, bool) and isinstance(value, numbers.Real) and np.isfinite(value)
                  and (self.minimum is None or value > self.minimum))
            value = float(value) if ok else value
        elif self.kind == "bool":
            ok = isinstance(value, (bool, np.bool_))
            value = bool(value) if ok else value
        elif self.kind == "level":
            ok = not isinstance(value, bool) and isinstance(value, numbers.Real) and 0 < value < 1
            value = float(value) if ok else value
        elif self.kind == "choice":
            ok = value in self.choices
        if not ok:
            raise InvalidOptionError(
                f"option {name}={value!r} of method={method!r} must be {self.describe()}")
        return value


#: Options every estimator accepts.
COMMON_OPTIONS = {
    "max_elements": Option(None, "int", 1, doc="float64 elements of one block of game evaluations "
                                              "(default: from kx.config_context(max_memory=...))"),
    "progress": Option(None, "any", doc="show a progress bar: True, False, or None (config: 'auto')"),
}


# --------------------------------------------------------------------------- #
# cost and result
# --------------------------------------------------------------------------- #
@dataclass
class Cost:
    """Estimated work of one call: floating-point operations, peak bytes, game evaluations."""

    flops: float
    memory: float = 0.0
    evaluations: int | None = None
    detail: str = ""

    @property
    def seconds(self) -> float:
        """Estimated seconds at ``kx.get_config()["flops_per_second"]``."""
        return float(self.flops) / get_config()["flops_per_second"]

    def __add__(self, other):
        ev = None if self.evaluations is None and other.evaluations is None else \
            (self.evaluations or 0) + (other.evaluations or 0)
        return Cost(self.flops + other.flops, max(self.memory, other.memory), ev,
                    "; ".join(x for x in (self.detail, other.detail) if x))


def format_seconds(s) -> str:
    """'0.4 s', '12 s', '3.1 min', '2.5 h', '4.0 days'."""
    if s < 10:
        return f"{s:.1g} s" if s < 1 else f"{s:.1f} s"
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


@dataclass
class EstimatorResult:
    """What an estimator returns; :func:`kernelxai.shapley_values` turns it into an Explanation.

    Attributes
    ----------
    values : ndarray (n, d)
    base_values : ndarray (n,) or None
        v(empty); None lets the caller evaluate it.
    stderr, lower, upper : ndarray (n, d) or None
        Standard errors and interval bounds of sampled estimates.
    covariance : ndarray (n, d, d) or None
        Per-instance covariance of the estimates, where the estimator has one.
    budget : int or None
        Game evaluations used (coalitions evaluated); 0 for routes that
        evaluate no coalition.
    meta : dict
        Anything else worth keeping (sampling scheme, interval kind, ...).
    """

    values: np.ndarray
    base_values: np.ndarray | None = None
    stderr: np.ndarray | None = None
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    covariance: np.ndarray | None = None
    budget: int | None = None
    meta: dict = field(default_factory=dict)


def check_cost(flops, what, advice=()) -> bool:
    """The cost guard for work that is not an estimator (permutation tests, ...).

    Raises :class:`CostLimitError` when ``flops`` exceed ``max_cost`` seconds
    at the configured rate; returns whether a progress bar should be shown
    (the config's ``progress``, or "auto" and more than ``progress_after``
    seconds).
    """
    config = get_config()
    seconds = float(flops) / config["flops_per_second"]
    if config["max_cost"] is not None and seconds > config["max_cost"]:
        raise CostLimitError(
            f"{what} would take about {format_seconds(seconds)} (~{flops:.1e} floating-point "
            f"operations), more than max_cost={format_seconds(config['max_cost'])}. To make it "
            "affordable: " + "; ".join(advice or ["a smaller problem"])
            + ". To run it anyway: `with kx.config_context(max_cost=None): ...`")
    if config["progress"] == "auto":
        return seconds > config["progress_after"]
    return config["progress"] is True


# --------------------------------------------------------------------------- #
# the base class
# --------------------------------------------------------------------------- #
class Estimator:
    """Base class of Shapley-value estimators (see the module docstring)."""

    name = "?"
    aliases: tuple = ()
    #: the game type this estimator needs (a class from kernelxai.games)
    requires = Game
    exact = True
    #: may method="auto" choose it?
    auto = False
    #: one line for listings and error messages
    description = ""
    options: dict = {}
    #: old option name -> new option name (kept for one release)
    option_aliases: dict = {}

    # ------------------------------------------------------------ applicability
    def why_not(self, game) -> str | None:
        """None if the estimator applies to ``game``, else the reason (a sentence)."""
        if not isinstance(game, self.requires):
            return (f"it needs a {self.requires.__name__} ({self._requirement()}) and this game is a "
                    f"{type(game).__name__}")
        return None

    def _requirement(self):
        return (self.requires.__doc__ or "").strip().splitlines()[0].rstrip(".") if self.requires.__doc__ \
            else self.requires.__name__

    def auto_eligible(self, game) -> bool:
        """May ``method="auto"`` pick this estimator for ``game`` (besides applying to it)?"""
        return self.auto

    # ----------------------------------------------------------------- options
    def accepted_options(self) -> dict[str, Option]:
        return {**COMMON_OPTIONS, **self.options}

    def resolve_options(self, options) -> dict[str, Any]:
        """Validated options with defaults filled in; aliases mapped to their new names."""
        accepted = self.accepted_options()
        given = dict(options)
        for old, new in self.option_aliases.items():
            if old in given:
                if new in given:
                    raise InvalidOptionError(
                        f"method={self.name!r}: give either {new}= or its old name {old}=, not both")
                given[new] = self._from_alias(old, given.pop(old))
        unknown = [k for k in given if k not in accepted]
        if unknown:
            raise InvalidOptionError(self.unknown_message(unknown))
        out = {k: opt.default for k, opt in accepted.items()}
        for k, v in given.items():
            out[k] = accepted[k].check(k, v, self.name)
        return out

    def _from_alias(self, old, value):
        """Convert the value of an old option name to the new option (identity by default)."""
        return value

    def _alias_int(self, old, value, minimum):
        """The value of an old integer option (``n_coalitions``, ...), checked against ``minimum``."""
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
            raise InvalidOptionError(f"option {old}={value!r} of method={self.name!r} must be an "
                                     f"integer >= {minimum}")
        return int(value)

    def option_names(self) -> list[str]:
        names = list(self.accepted_options())
        names += [f"{old} (old name of {new})" for old, new in self.option_aliases.items()]
        return names

    def unknown_message(self, unknown, extra="") -> str:
        names = list(self.accepted_options()) + list(self.option_aliases)
        hints = []
        for u in unknown:
            close = difflib.get_close_matches(u, names, n=1)
            if close:
                hints.append(f"did you mean {close[0]!r} for {u!r}?")
        s = "s" if len(unknown) > 1 else ""
        return (f"unknown option{s} {', '.join(repr(u) for u in unknown)} for method={self.name!r}. "
                f"It accepts: {', '.join(self.option_names())}.{extra}"
                + (" " + " ".join(hints) if hints else ""))

    def min_budget(self, n_players) -> int | None:
        """Smallest sensible ``budget`` (game evaluations) for ``n_players``; None if exact."""
        return None

    # -------------------------------------------------------------------- work
    def cost(self, game, options) -> Cost:  # pragma: no cover - abstract
        raise NotImplementedError

    def advice(self, game, options) -> list[str]:
        """What would make this call cheaper (sentences), for the cost-ceiling message."""
        return []

    def run(self, game, rng, options) -> EstimatorResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self):
        kind = "exact" if self.exact else "sampled"
        return f"<estimator {self.name!r} ({kind}; requires {self.requires.__name__})>"


# --------------------------------------------------------------------------- #
# the registry
# --------------------------------------------------------------------------- #
_REGISTRY: dict[str, Estimator] = {}
_ALIASES: dict[str, str] = {}


def register(cls) -> type[Estimator]:
    """Class decorator: make ``cls`` available as ``method=cls.name`` (and its aliases)."""
    if not (isinstance(cls, type) and issubclass(cls, Estimator)):
        raise TypeError(f"register expects an Estimator subclass; got {cls!r}")
    names = (cls.name,) + tuple(cls.aliases)
    taken = [n for n in names if n in _REGISTRY or n in _ALIASES or n == "auto"]
    if taken:
        raise ValueError(f"method name(s) {taken} already registered")
    instance = cls()
    _REGISTRY[cls.name] = instance
    for alias in cls.aliases:
        _ALIASES[alias] = cls.name
    return cls


def available_methods() -> list[str]:
    """Names accepted by ``kx.shapley_values(method=...)`` (aliases included), plus "auto"."""
    return sorted(set(_REGISTRY) | set(_ALIASES) | {"auto"})


def estimators() -> dict[str, Estimator]:
    """The registered estimators (one instance each), by name."""
    return dict(_REGISTRY)


def get_estimator(name) -> Estimator:
    """The estimator registered under ``name`` or one of its aliases."""
    if isinstance(name, Estimator):
        return name
    key = _ALIASES.get(name, name)
    if key not in _REGISTRY:
        close = difflib.get_close_matches(str(name), available_methods(), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"unknown method {name!r}; accepted: "
                         f"{', '.join(repr(m) for m in available_methods())}.{hint}")
    return _REGISTRY[key]
