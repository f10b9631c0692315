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
    """The seed every chunk gets: None becomes fresh entropy (an int), drawn once here.

    Parameters
    ----------
    seed : None, int or numpy.random.Generator
        The caller's seed.

    Returns
    -------
    int or numpy.random.Generator
        ``seed`` unchanged, or for None a fresh ``numpy.random.SeedSequence().entropy``.

    Examples
    --------
    >>> shared_seed(7), isinstance(shared_seed(None), int)
    (7, True)
    """
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    return seed


def chunk_rng(seed) -> int | np.random.Generator | None:
    """The chunk's own copy of a Generator (so that every chunk starts from the caller's state).

    Parameters
    ----------
    seed : None, int or numpy.random.Generator
        The seed every chunk gets (from :func:`shared_seed`).

    Returns
    -------
    int, numpy.random.Generator or None
        A deep copy of a Generator; any other seed unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> copy = chunk_rng(rng)
    >>> copy is rng, copy.random() == rng.random()
    (False, True)
    """
    return copy.deepcopy(seed) if isinstance(seed, np.random.Generator) else seed


def rng_state(rng) -> dict | None:
    """The state a chunk's Generator ended in (None for a seed that is not a Generator).

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        The seed a chunk ran with (from :func:`chunk_rng`).

    Returns
    -------
    dict or None
        ``rng.bit_generator.state`` for a Generator, else None.

    Examples
    --------
    >>> import numpy as np
    >>> rng_state(np.random.default_rng(0))["bit_generator"], rng_state(3)
    ('PCG64', None)
    """
    return rng.bit_generator.state if isinstance(rng, np.random.Generator) else None


def hand_back(seed, states) -> None:
    """Leave a caller's Generator where the serial call would have left it.

    Every chunk drew the same as the serial call, so the first chunk's end state is the
    serial call's; nothing happens for a seed that is not a Generator.

    Parameters
    ----------
    seed : None, int or numpy.random.Generator
        The caller's seed; a Generator is moved to ``states[0]`` in place.
    states : sequence of dict or None
        The chunks' end states (from :func:`rng_state`), in chunk order.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> chunk = chunk_rng(rng)
    >>> drawn = chunk.random(3)  # the chunk's draws
    >>> hand_back(rng, [rng_state(chunk)])
    >>> bool(rng.random() == np.random.default_rng(0).random(4)[3])
    True
    """
    if isinstance(seed, np.random.Generator) and states and states[0] is not None:
        seed.bit_generator.state = states[0]
