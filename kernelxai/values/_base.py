"""The value-function base class and the registry ``kx.explain`` looks names up in.

A value function says what it means for a feature to be absent. Given a model
(a :class:`~kernelxai.models.KernelExpansion`, or a plain predict function for
the model-agnostic baselines) it turns points to explain into a
:class:`~kernelxai.games.Game`; it never knows about estimators.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._params import check_groups, closest
from .._params import resolve_groups as _resolve_groups
from .._validation import check_feature_names, feature_names_in
from ..games import Game

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike

__all__ = ["ValueFunction", "register", "get", "registered", "distinct_coalition_weights",
           "resolve_groups", "EmbeddingValueFunction", "default_background",
           "missing_background_error"]

_REGISTRY: dict[str, type] = {}

#: Numbers of per-feature kernel factors a product game keeps once computed (4 MiB): small
#: games' terms are read twice, by the product route's node-count probe and by the route.
SMALL_TERMS = 2**19


def register(name: str) -> Callable[[type], type]:
    """Class decorator: make a value function available as ``kx.explain(..., value=name)``.

    The class is stored in the registry under ``name`` (replacing any class
    registered under it before) and gets the attribute ``registered_name``.

    Parameters
    ----------
    name : str
        The name ``kx.explain(value=...)`` and :func:`get` accept.

    Returns
    -------
    callable
        The decorator; it returns the class unchanged (apart from
        ``registered_name``).

    Examples
    --------
    >>> import kernelxai as kx
    >>> @kx.values.register("my_marginal")
    ... class MyMarginal(kx.values.Marginal):
    ...     name = "my marginal"
    >>> kx.values.get("my_marginal") is MyMarginal, MyMarginal.registered_name
    (True, 'my_marginal')
    """

    def decorator(cls):
        _REGISTRY[name] = cls
        cls.registered_name = name
        return cls

    return decorator


def registered() -> list[str]:
    """Names accepted by ``kx.explain(value=...)``.

    Returns
    -------
    list of str
        The registered names, sorted.

    Examples
    --------
    >>> import kernelxai as kx
    >>> "interventional" in kx.values.registered(), "marginal" in kx.values.registered()
    (True, True)
    """
    return sorted(_REGISTRY)


def get(name: str) -> type:
    """The value function registered as ``name``.

    Parameters
    ----------
    name : str
        A name of :func:`registered`, e.g. ``"interventional"``.

    Returns
    -------
    type
        The value-function class (a :class:`ValueFunction` subclass).

    Raises
    ------
    ValueError
        ``name`` is not registered: the message lists the names that are and,
        when one is close, asks "did you mean ...?" (as for an unknown option).

    Examples
    --------
    >>> import kernelxai as kx
    >>> kx.values.get("marginal") is kx.values.Marginal
    True
    >>> kx.values.get("interventionl")
    Traceback (most recent call last):
    ...
    ValueError: unknown value function 'interventionl'; did you mean 'interventional'? Accepted: ...
    """
    if not isinstance(name, str) or name not in _REGISTRY:
        close = closest(name, registered())
        hint = f"; did you mean {close[0]!r}?" if close else "."
        raise ValueError(
            f"unknown value function {name!r}{hint} Accepted: {', '.join(repr(n) for n in registered())}"
        )
    return _REGISTRY[name]


def distinct_coalition_weights(z, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a coalition array and how each output combines them.

    Parameters
    ----------
    z : bool array (c, d)
    weights : array (c, q), optional
        Output r is sum_k weights[k, r] * (quantity of coalition k).

    Returns
    -------
    uniq : bool array (u, d)
        The distinct coalitions.
    W : array (u, q)
        Weight of each distinct coalition in each output; without ``weights``,
        q = c and output k is coalition k itself.
    """
    uniq, inverse = np.unique(z, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    if weights is None:
        W = np.zeros((len(uniq), len(z)))
        W[inverse, np.arange(len(z))] = 1.0
        return uniq, W
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 2 or weights.shape[0] != len(z) or not np.all(np.isfinite(weights)):
        raise ValueError(f"weights must be a finite array of shape ({len(z)}, q); "
                         f"got shape {weights.shape}")
    W = np.zeros((len(uniq), weights.shape[1]))
    np.add.at(W, inverse, weights)
    return uniq, W


def resolve_groups(groups, names) -> list[list[int]]:
    """Groups of feature indices from groups of indices or names (``names``: the game's features).

    The reading every entry point shares (``kernelxai._params.resolve_groups``): an
    unknown name is refused with the features' names and "did you mean".
    """
    return _resolve_groups(groups, names)


def missing_background_error(model, name="background") -> ValueError:
    """The ValueError for a model that keeps no training inputs to default a background to.

    Parameters
    ----------
    model : KernelExpansion (or object with ``X_train`` and ``source``)
    name : str
        The keyword the sample is passed as.
    """
    n = len(model.X_train)
    source = getattr(model, "source", None)
    kept = (f"this {source} keeps only its {n} support vectors" if source in ("SVC", "SVR", "NuSVC",
                                                                               "NuSVR")
            else f"this {source or 'model'} keeps only its {n} expansion points")
    direct = "" if name == "background" else f" ({name}=X_train when building the value function)"
    return ValueError(
        f"{kept}, not its training inputs; pass the data the explanation should be relative to, "
        f"e.g. kx.explain(model, X_test, background=X_train){direct}. The 'functional_baseline' "
        "value function needs no background"
    )


def default_background(model, background, name="background") -> ArrayLike:
    """The sample a value function averages over: ``background``, else the training inputs.

    Parameters
    ----------
    model : object
        The explained model; its ``X_train`` is the default when it holds the
        training inputs (``holds_training_inputs``, True unless the model
        says otherwise).
    background : array-like, DataFrame or None
        The sample given by the user; returned as is when not None.
    name : str
        The keyword it is passed as, used in error messages.

    Returns
    -------
    array-like
        ``background``, or ``model.X_train``.

    Raises
    ------
    ValueError
        If no background is given and the model keeps none: a model without
        ``X_train``, or one whose ``X_train`` are only expansion points (an
        SVM's support vectors), which would silently make the explanation
        relative to the support vectors.
    """
    if background is not None:
        return background
    X_train = getattr(model, "X_train", None)
    if X_train is None:
        raise ValueError(f"{name} is None and the model keeps no training inputs to default to; "
                         f"pass the data the explanation should be relative to ({name}=X_train)")
    if not getattr(model, "holds_training_inputs", True):
        raise missing_background_error(model, name)
    return X_train


class ValueFunction:
    """Base class of value functions.

    Subclasses implement :meth:`_game` (a Game over the d features for the rows
    of X, with ``data`` = X as an array and ``player_names`` from X's DataFrame
    columns if any, else from the model). ``kx.explain(method="auto")`` asks
    the estimators for their cost on the game; the game declares its cost
    (``evaluation_flops``) and abilities (its type). Group Shapley comes for
    free: a subclass passes ``groups``/``group_names`` on to
    :meth:`_set_groups` and :meth:`game` then returns the game whose players are
    the groups (still a ProductGame where the feature game is one).

    The base class takes no constructor arguments; subclasses take the model
    and their own options.

    Examples
    --------
    A toy value function that sets absent features to 0:

    >>> import numpy as np, kernelxai as kx
    >>> class ZeroBaseline(kx.values.ValueFunction):
    ...     name = "zero baseline"
    ...     def __init__(self, predict):
    ...         self.predict = predict
    ...     def _game(self, X):
    ...         X = np.asarray(X, dtype=float)
    ...         worths = lambda Z: np.stack([self.predict(X * z) for z in Z])
    ...         return kx.games.FunctionGame(worths, X.shape[1], n_instances=len(X), data=X)
    >>> game = ZeroBaseline(lambda P: P @ [1.0, 2.0]).game([[1.0, 3.0]])
    >>> game.meta["value_function"], np.round(kx.shapley_values(game).values, 6)
    ('zero baseline', array([[1., 6.]]))
    """

    #: name shown in Explanation.meta["value_function"]
    name = "value function"
    groups = None
    group_names = None

    def _set_groups(self, groups, group_names=None):
        groups = check_groups(groups, group_names)   # the structure every entry point checks
        if groups is not None:
            self.groups, self.group_names = groups, group_names

    def game(self, X: ArrayLike) -> Game:
        """A Game vectorised over the rows of X: features (or groups) are the players.

        Raises
        ------
        ValueError
            If X is a DataFrame whose columns differ in names or order from the
            model's feature names (or, for an unnamed model, from the
            background's), or if the value function fell back to the expansion
            points of a model that does not keep its training inputs.
        """
        self._check_inputs(X)
        g = self._game(X)
        if self.groups is not None:
            groups = resolve_groups(self.groups, g.player_names)
            g = g.grouped(groups, names=self.group_names)
        g.meta.setdefault("value_function", self.name)
        return g

    def expected_feature_names(self) -> list[str] | None:
        """The feature names, in order, that DataFrames explained by this value function must have.

        The model's real names (scikit-learn ``feature_names_in_``, or a
        KernelExpansion's names from a DataFrame or given), else the names of
        the background sample if it was a DataFrame (``background_names``),
        else None (anything with the right number of columns is accepted).
        """
        names = feature_names_in(getattr(self, "model", None))
        return names if names is not None else getattr(self, "background_names", None)

    def _check_inputs(self, X):
        model = getattr(self, "model", None)
        reference = ("the model was fitted with" if feature_names_in(model) is not None
                     else "the background has")
        check_feature_names(X, self.expected_feature_names(), "X", reference=reference)
        X_train = getattr(model, "X_train", None)
        if X_train is not None and not getattr(model, "holds_training_inputs", True):
            for attr in ("background", "data"):
                if getattr(self, attr, None) is X_train:  # defaulted to the support vectors
                    raise missing_background_error(model)

    def _game(self, X) -> Game:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


class EmbeddingValueFunction:
    """Ability: worths are inner products of f with (conditional) kernel mean embeddings.

    Declared by the interventional (KME) and observational (CME) value
    functions of kernel models; their Shapley functionals have finite RKHS
    norms (RKHS-SHAP Theorem 6), which :mod:`kernelxai.functionals` computes.
    """
