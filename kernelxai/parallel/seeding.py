"""The randomness of chunks: every chunk draws what the serial call draws.

Takes the caller's ``seed`` (None, an int or a ``numpy.random.Generator``) and hands
on the seed every chunk gets, each chunk's own copy of it, and the caller's
Generator left where the serial call would leave it.
"""

from __future__ import annotations

import copy

import numpy as np

__all__ = ["shared_seed", "chunk_rng", "rng_state", "hand_back"]


def shared_seed(seed) -> int | np.random.Generator:
    """The seed every chunk gets: None becomes fresh entropy (an int), drawn once here."""
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    return seed


def chunk_rng(seed) -> int | np.random.Generator | None:
    """The chunk's own copy of a Generator (so that every chunk starts from the caller's state)."""
    return copy.deepcopy(seed) if isinstance(seed, np.random.Generator) else seed


def rng_state(rng) -> dict | None:
    """The state a chunk's Generator ended in (None for a seed that is not a Generator)."""
    return rng.bit_generator.state if isinstance(rng, np.random.Generator) else None


def hand_back(seed, states) -> None:
    """Leave a caller's Generator where the serial call would have left it."""
    if isinstance(seed, np.random.Generator) and states and states[0] is not None:
        seed.bit_generator.state = states[0]
