"""The value-function base class and the registry ``kx.explain`` looks names up in.

A value function says what it means for a feature to be absent. Given a model
(a :class:`~kernelxai.models.KernelExpansion`, or a plain predict function for
the model-agnostic baselines) it turns points to explain into a
:class:`~kernelxai.games.Game`; it never knows about estimators.
"""

from __future__ import annotations

import numpy as np

from ..games import Game

__all__ = ["ValueFunction", "register", "get", "registered", "distinct_coalition_weights"]

_REGISTRY: dict[str, type] = {}


def register(name):
    """Class decorator: make a value function available as ``kx.explain(..., value=name)``."""

    def decorator(cls):
        _REGISTRY[name] = cls
        cls.registered_name = name
        return cls

    return decorator


def registered():
    """Names accepted by ``kx.explain(value=...)``."""
    return sorted(_REGISTRY)


def get(name):
    if name not in _REGISTRY:
        raise ValueError(
            f"unknown value function {name!r}; accepted: {', '.join(repr(n) for n in registered())}"
        )
    return _REGISTRY[name]


def distinct_coalition_weights(z, weights=None):
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


class ValueFunction:
    """Base class of value functions.

    Subclasses implement :meth:`_game` (a Game over the d features for the rows
    of X, with ``data`` = X as an array and ``player_names`` from X's DataFrame
    columns if any, else from the model) and may override :meth:`auto_method`, the estimator
    ``kx.explain(method="auto")`` uses for their games. Group Shapley comes for
    free: a subclass passes ``groups``/``group_names`` on to
    :meth:`_set_groups` and :meth:`game` then returns the game whose players are
    the groups (still a ProductGame where the feature game is one).
    """

    #: name shown in Explanation.meta["value_function"]
    name = "value function"
    groups = None
    group_names = None

    def _set_groups(self, groups, group_names=None):
        if groups is None:
            if group_names is not None:
                raise ValueError("group_names given without groups")
            return
        groups = [[int(i) for i in g] for g in groups]
        if group_names is not None and len(group_names) != len(groups):
            raise ValueError(f"{len(group_names)} group_names for {len(groups)} groups")
        self.groups, self.group_names = groups, group_names

    def game(self, X) -> Game:
        """A Game vectorised over the rows of X: features (or groups) are the players."""
        g = self._game(X)
        if self.groups is not None:
            g = g.grouped(self.groups, names=self.group_names)
        g.meta.setdefault("value_function", self.name)
        return g

    def _game(self, X) -> Game:  # pragma: no cover - abstract
        raise NotImplementedError

    def auto_method(self, game) -> str:
        """Default estimator: exact enumeration up to 12 players, else KernelSHAP."""
        return "exact" if game.n_players <= 12 else "kernel"

    def __repr__(self):
        return f"{type(self).__name__}()"
