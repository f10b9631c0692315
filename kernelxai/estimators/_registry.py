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

import numbers
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._calibration import Work
from .._config import get_config
from .._params import InvalidOptionError, closest, unknown_keywords_error, value_error
from ..games import Game

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["Option", "Cost", "EstimatorResult", "Estimator", "register", "get_estimator",
           "available_methods", "estimators", "InvalidOptionError", "CostLimitError",
           "NotApplicableError", "COMMON_OPTIONS", "CALL_STEPS", "check_cost", "format_seconds"]


class NotApplicableError(TypeError, ValueError):
    """The estimator does not apply to this game.

    Raised by :func:`kernelxai.shapley_values` when the game lacks what the
    method requires (e.g. ``method="product"`` on a game without product
    structure); the message says why and lists the methods that do apply.

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> kx.shapley_values(g, method="product")
    Traceback (most recent call last):
    ...
    kernelxai.estimators._registry.NotApplicableError: method='product' (...) does not apply to this game: ...
    """


class CostLimitError(RuntimeError):
    """The estimated cost is above ``max_cost``; raised before any work is done.

    ``max_cost`` is a number of seconds set with ``kx.config_context(max_cost=...)``
    (None never refuses). The message gives the estimate and what would make
    the call affordable.

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> with kx.config_context(max_cost=1e-12):
    ...     kx.shapley_values(g)
    Traceback (most recent call last):
    ...
    kernelxai.estimators._registry.CostLimitError: method='exact' would take about ...
    """


# --------------------------------------------------------------------------- #
# options
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class Option:
    """A keyword option: default, kind and range.

    ``kind`` is one of ``"int"``, ``"float"``, ``"bool"``, ``"level"`` (a number
    in (0, 1)), ``"choice"`` (one of ``choices``) or ``"any"``. ``None`` is
    always accepted when it is the default.

    Parameters
    ----------
    default : object, default None
        The value used when the option is not given.
    kind : {"int", "float", "bool", "level", "choice", "any"}, default "any"
        What values :meth:`check` accepts: an integer >= ``minimum`` (1 if
        ``minimum`` is None), a finite number > ``minimum`` (any finite number
        if None), True or False, a number strictly between 0 and 1, one of
        ``choices``, or anything.
    minimum : float or None
        The lower bound of ``"int"`` (inclusive) and ``"float"`` (exclusive) options.
    choices : tuple
        The accepted values of a ``"choice"`` option.
    doc : str
        One line for listings of the estimator's options.
    nullable : bool, default False
        Accept None even when the default is not None.

    Examples
    --------
    >>> from kernelxai.estimators import Option
    >>> budget = Option(None, "int", 3, doc="game evaluations")
    >>> budget.describe()
    'an integer >= 3'
    >>> budget.check("budget", 100, method="kernel")
    100
    >>> budget.check("budget", 2, method="kernel")
    Traceback (most recent call last):
    ...
    kernelxai._params.InvalidOptionError: option budget=2 of method='kernel' must be an integer >= 3
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

    def check(self, name: str, value: Any, method: str) -> Any:
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
            raise value_error(f"method={method!r}", f"option {name}", value, self.describe())
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
#: Python-level steps every call of an estimator through ``kx.explain`` takes besides its
#: arithmetic -- checking the input, converting the model, building the game and the
#: Explanation. Measured on the development machine, a whole call on a tiny problem (one point,
#: five training rows; its arithmetic nothing) of the functional baseline, interventional exact and
#: product routes: 0.31-0.49 ms, 101-156 steps at the step rate calibrated in the same process
#: (3.0-3.1 us; the observational route 0.88 ms, 290 steps, counts its own per coalition); 400,
#: then 250, before the per-call costs were trimmed (#25).
CALL_STEPS = 150.0


@dataclass
class Cost:
    """Estimated work of one call, by kind, with its peak memory and game evaluations.

    The kinds are elementwise operations, dense linear algebra, Python-level steps and timed
    model calls, each priced at its own rate measured on this machine (:func:`kernelxai.calibrate`).

    Parameters
    ----------
    flops : float
        Elementwise operations.
    memory : float
        Peak bytes.
    evaluations : int or None
        Game evaluations (coalitions).
    detail : str
        What the work is, in words (for messages).
    blas_flops : float
        Operations of dense linear algebra (matrix products, Cholesky factorisations, solves).
    steps : float
        Python-level steps (blocks, coalitions of a loop in Python).
    model_seconds : float
        Seconds of model calls, timed on a probe of the model.

    Examples
    --------
    Every estimator's :meth:`Estimator.cost` returns one; ``kx.shapley_values``
    compares its ``seconds`` with ``max_cost``:

    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> est = kx.estimators.get_estimator("exact")
    >>> cost = est.cost(g, est.resolve_options({}))
    >>> cost.flops > 0, cost.evaluations, isinstance(cost.seconds, float)   # 2**3 coalitions
    (True, 8, True)
    >>> both = cost + cost                        # work adds up; memory is the larger peak
    >>> both.flops == 2 * cost.flops, both.memory == cost.memory, both.evaluations
    (True, True, 16)
    """

    flops: float
    memory: float = 0.0
    evaluations: int | None = None
    detail: str = ""
    blas_flops: float = 0.0
    steps: float = 0.0
    model_seconds: float = 0.0

    @classmethod
    def of(cls, work: Work, memory: float = 0.0, evaluations: int | None = None, detail: str = "",
           flops: float = 0.0, steps: float = 0.0) -> Cost:
        """The cost of one call: ``work`` (a game's), the estimator's own ``flops`` and ``steps``, and
        :data:`CALL_STEPS` (what every call does besides: checks, set-up, the Explanation)."""
        return cls(work.flops + float(flops), memory, evaluations, detail, work.blas_flops,
                   work.steps + float(steps) + CALL_STEPS, work.model_seconds)

    @property
    def ops(self) -> float:
        """Every counted operation, elementwise and BLAS alike (what partitions and comparisons use)."""
        return self.work.ops

    @property
    def work(self) -> Work:
        """The work by kind, without memory and evaluations."""
        return Work(self.flops, self.blas_flops, self.steps, self.model_seconds)

    @property
    def seconds(self) -> float:
        """Estimated seconds: each kind at this machine's rate (:func:`kernelxai.calibrate`)."""
        return self.work.seconds

    def __add__(self, other):
        ev = None if self.evaluations is None and other.evaluations is None else \
            (self.evaluations or 0) + (other.evaluations or 0)
        return Cost(self.flops + other.flops, max(self.memory, other.memory), ev,
                    "; ".join(x for x in (self.detail, other.detail) if x),
                    self.blas_flops + other.blas_flops, self.steps + other.steps,
                    self.model_seconds + other.model_seconds)


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

    The fields are the constructor's parameters, in this order (only ``values`` is required).

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

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> est = kx.estimators.get_estimator("permutation")
    >>> result = est.run(g, np.random.default_rng(0), est.resolve_options({"budget": 60}))
    >>> result.values.shape, result.stderr.shape, result.budget
    ((1, 3), (1, 3), 60)
    """

    values: np.ndarray
    base_values: np.ndarray | None = None
    stderr: np.ndarray | None = None
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    covariance: np.ndarray | None = None
    budget: int | None = None
    meta: dict = field(default_factory=dict)


def check_cost(work, what, advice=()) -> bool:
    """The cost guard for work that is not an estimator (permutation tests, ...).

    Raises :class:`CostLimitError` when ``work`` (a ``kernelxai._calibration.Work``, a
    :class:`Cost`, or a number of elementwise operations) would take more than ``max_cost``
    seconds at this machine's rates; returns whether a progress bar should be shown (the
    config's ``progress``, or "auto" and more than ``progress_after`` seconds).
    """
    config = get_config()
    if isinstance(work, Cost):
        work = work.work
    elif not isinstance(work, Work):
        work = Work(flops=float(work))
    seconds = work.seconds
    if config["max_cost"] is not None and seconds > config["max_cost"]:
        raise CostLimitError(
            f"{what} would take about {format_seconds(seconds)}, more than "
            f"max_cost={format_seconds(config['max_cost'])}. To make it "
            "affordable: " + "; ".join(advice or ["a smaller problem"])
            + ". To run it anyway: `with kx.config_context(max_cost=None): ...`")
    if config["progress"] == "auto":
        return seconds > config["progress_after"]
    return config["progress"] is True


# --------------------------------------------------------------------------- #
# the base class
# --------------------------------------------------------------------------- #
class Estimator:
    """Base class of Shapley-value estimators, each a ``method=`` of :func:`kernelxai.shapley_values`.

    A subclass sets the class attributes below and implements :meth:`cost`
    and :meth:`run`; :func:`register` makes it a ``method=`` of
    :func:`kernelxai.shapley_values`, which checks applicability
    (:meth:`why_not`) and options (:meth:`resolve_options`) and asks for the
    cost before calling :meth:`run`. Takes no constructor arguments: the
    registry holds one instance per class.

    Attributes
    ----------
    name : str
        The ``method=`` name; ``aliases`` (tuple of str) are accepted too.
    requires : type
        The game class (from :mod:`kernelxai.games`) the estimator needs.
    exact : bool
        Exact to rounding (True) or a sampled estimate.
    auto : bool
        Whether ``method="auto"`` may choose it.
    description : str
        One line for listings and error messages.
    options : dict of str to Option
        Its own keyword options (``COMMON_OPTIONS`` are added).
    option_aliases : dict of str to str
        Old option name -> new option name.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> est = kx.estimators.get_estimator("exact")
    >>> est, est.why_not(g) is None
    (<estimator 'exact' (exact; requires Game)>, True)
    >>> est.run(g, np.random.default_rng(0), est.resolve_options({})).values.round(12)
    array([[1., 1., 1.]])
    >>> kx.estimators.get_estimator("product").why_not(g)
    'it needs a ProductGame (...) and this game is a FunctionGame'
    """

    name = "?"
    aliases: tuple = ()
    #: the game type this estimator needs (a class from kernelxai.games)
    requires = Game
    exact = True
    #: does :meth:`run` draw random numbers? False: it is given ``rng=None`` when no seed was
    #: asked for (seeding a generator from the operating system costs ~0.05 ms a call, #25)
    uses_rng = True
    #: may method="auto" choose it?
    auto = False
    #: one line for listings and error messages
    description = ""
    options: dict = {}
    #: old option name -> new option name (kept for one release)
    option_aliases: dict = {}

    # ------------------------------------------------------------ applicability
    def why_not(self, game: Game) -> str | None:
        """None if the estimator applies to ``game``, else the reason (a sentence)."""
        if not isinstance(game, self.requires):
            return (f"it needs a {self.requires.__name__} ({self._requirement()}) and this game is a "
                    f"{type(game).__name__}")
        return None

    def _requirement(self):
        return (self.requires.__doc__ or "").strip().splitlines()[0].rstrip(".") if self.requires.__doc__ \
            else self.requires.__name__

    def auto_eligible(self, game: Game) -> bool:
        """May ``method="auto"`` pick this estimator for ``game`` (besides applying to it)?"""
        return self.auto

    # ----------------------------------------------------------------- options
    def accepted_options(self) -> dict[str, Option]:
        return {**COMMON_OPTIONS, **self.options}

    def resolve_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
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
            raise value_error(f"method={self.name!r}", f"option {old}", value, f"an integer >= {minimum}")
        return int(value)

    def option_names(self) -> list[str]:
        names = list(self.accepted_options())
        names += [f"{old} (old name of {new})" for old, new in self.option_aliases.items()]
        return names

    def unknown_message(self, unknown: Sequence[str], extra: str = "") -> str:
        """The message for options this estimator does not take (the one format every refusal of kernelxai uses)."""
        names = list(self.accepted_options()) + list(self.option_aliases)
        message = str(unknown_keywords_error(None, unknown, others=[(f"method={self.name!r}", names)]))
        return message + extra

    def min_budget(self, n_players: int) -> int | None:
        """Smallest sensible ``budget`` (game evaluations) for ``n_players``; None if exact."""
        return None

    # -------------------------------------------------------------------- work
    def cost(self, game: Game, options: dict[str, Any]) -> Cost:  # pragma: no cover - abstract
        raise NotImplementedError

    def advice(self, game: Game, options: dict[str, Any]) -> list[str]:
        """What would make this call cheaper (sentences), for the cost-ceiling message."""
        return []

    def run(self, game: Game, rng: np.random.Generator,
            options: dict[str, Any]) -> EstimatorResult:  # pragma: no cover - abstract
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
    """Class decorator: make ``cls`` available as ``method=cls.name`` (and its aliases).

    One instance of ``cls`` is made and kept; from then on
    :func:`get_estimator`, :func:`available_methods` and
    ``kx.shapley_values(game, method=cls.name)`` know it.

    Parameters
    ----------
    cls : type
        A subclass of :class:`Estimator`.

    Returns
    -------
    type
        ``cls`` itself, so ``@register`` can decorate the class definition.

    Raises
    ------
    TypeError
        ``cls`` is not a subclass of :class:`Estimator`.
    ValueError
        Its name or an alias is already registered, or is ``"auto"``.

    Examples
    --------
    >>> from kernelxai.estimators import Estimator, register
    >>> @register
    ... class Enumeration(Estimator):
    ...     name = "exact"     # taken by the registered enumeration: refused
    Traceback (most recent call last):
    ...
    ValueError: method name(s) ['exact'] already registered
    """
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
    """Names accepted by ``kx.shapley_values(method=...)`` (aliases included), plus "auto".

    Returns
    -------
    list of str
        Sorted.

    Examples
    --------
    >>> import kernelxai as kx
    >>> kx.available_methods()
    ['auto', 'bayes', 'bayes_shap', 'brute', 'exact', ...]
    >>> "permutation" in kx.available_methods()
    True
    """
    return sorted(set(_REGISTRY) | set(_ALIASES) | {"auto"})


def estimators() -> dict[str, Estimator]:
    """The registered estimators (one instance each), by name.

    Aliases are not keys; the dictionary is a copy, so changing it does not
    change the registry.

    Returns
    -------
    dict of str to Estimator

    Examples
    --------
    >>> from kernelxai.estimators import estimators
    >>> registered = estimators()
    >>> registered["permutation"]
    <estimator 'permutation' (sampled; requires Game)>
    >>> sorted(name for name, est in registered.items() if est.exact)
    ['exact', 'newton', 'product', 'stable']
    """
    return dict(_REGISTRY)


def get_estimator(name: str | Estimator) -> Estimator:
    """The estimator registered under ``name`` or one of its aliases.

    Parameters
    ----------
    name : str or Estimator
        A method name or alias (not ``"auto"``: :func:`choose` picks for a
        game); an Estimator is returned as it is.

    Returns
    -------
    Estimator
        The registered instance.

    Raises
    ------
    ValueError
        No estimator is registered under ``name``; the message lists the
        accepted names and the closest one.

    Examples
    --------
    >>> from kernelxai.estimators import get_estimator
    >>> get_estimator("quadrature")     # an alias of "product"
    <estimator 'product' (exact; requires ProductGame)>
    >>> get_estimator("kernal")
    Traceback (most recent call last):
    ...
    ValueError: unknown method 'kernal'; did you mean 'kernel'? Accepted: ...
    """
    if isinstance(name, Estimator):
        return name
    key = _ALIASES.get(name, name)
    if key not in _REGISTRY:
        close = closest(name, available_methods())
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"unknown method {name!r}{hint} Accepted: "
                         f"{', '.join(repr(m) for m in available_methods())}")
    return _REGISTRY[key]
