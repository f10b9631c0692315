"""Values of a results JSON as the baselines see them: JSON pointers, numbers and lists of
numbers, equality that does not take True for 1, and short words for a value and for a change.

Takes parsed JSON (dicts, lists, strings, numbers, bools); hands the baseline modules
(``_notebook_baselines``, ``_baseline_recording``) these helpers. Imports nothing of kernelxai.
"""

from __future__ import annotations

import json
import numbers
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["pointer_of", "resolve_pointer", "is_number", "is_numeric", "same_value", "short_text",
           "describe_change", "flat_items", "shape_of"]


# --------------------------------------------------------------------------- #
# JSON pointers
# --------------------------------------------------------------------------- #
def _escape(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def pointer_of(keys) -> str:
    """The JSON pointer (RFC 6901) that walks ``keys`` from the top of a document.

    Parameters
    ----------
    keys : iterable of str or int
        Dict keys and list indices, outermost first. In each, ``~`` is written ``~0``
        and ``/`` is written ``~1``.

    Returns
    -------
    str
        ``"/key/key/..."``; ``""`` (the whole document) for no keys. The inverse of
        :func:`resolve_pointer`.

    Examples
    --------
    >>> pointer_of(["table", "d/x", 3])
    '/table/d~1x/3'
    >>> pointer_of([])
    ''
    """
    return "".join("/" + _escape(k) for k in keys)


def resolve_pointer(doc, pointer) -> object:
    """The value at ``pointer`` (RFC 6901, e.g. ``"/coverage/plain"`` or ``"/table/d/3"``) in ``doc``.

    Parameters
    ----------
    doc : object
        Parsed JSON: dicts, lists, strings, numbers, bools, None.
    pointer : str
        ``""`` for the whole of ``doc``, otherwise ``"/"``-separated dict keys and list
        indices (``~1`` stands for ``/`` and ``~0`` for ``~`` in a key).

    Returns
    -------
    object
        The part of ``doc`` the pointer names (not a copy).

    Raises
    ------
    ValueError
        When ``pointer`` is neither ``""`` nor a string starting with ``/``.
    KeyError
        Naming the first part of the pointer that ``doc`` does not have.

    Examples
    --------
    >>> from kernelxai.check import resolve_pointer
    >>> results = {"coverage": {"plain": 0.93}, "table": {"d": [2, 4, 8, 16]}}
    >>> resolve_pointer(results, "/table/d/3")
    16
    >>> try:
    ...     resolve_pointer(results, "/coverage/scaled")
    ... except KeyError as error:
    ...     print(error)
    "the results have no '/coverage/scaled'"
    """
    if pointer == "":
        return doc
    if not isinstance(pointer, str) or not pointer.startswith("/"):
        raise ValueError(f"a JSON pointer is '' or starts with '/'; got {pointer!r}")
    node, walked = doc, ""
    for raw in pointer[1:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and re.fullmatch(r"0|[1-9][0-9]*", key) and int(key) < len(node):
            node = node[int(key)]
        else:
            raise KeyError(f"the results have no {walked + '/' + raw!r}")
        walked += "/" + raw
    return node


# --------------------------------------------------------------------------- #
# comparing one number
# --------------------------------------------------------------------------- #
def is_number(x) -> bool:
    """Whether ``x`` is a real number and not a bool (JSON's true is not the number 1).

    Parameters
    ----------
    x : object
        Any value.

    Returns
    -------
    bool
        True for ints, floats and other :class:`numbers.Real` (numpy scalars too), False for
        bools and everything else.

    Examples
    --------
    >>> is_number(0.5), is_number(3), is_number(True), is_number("3")
    (True, True, False, False)
    """
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def is_numeric(x) -> bool:
    """Whether ``x`` is a number or a (nested, non-empty-or-empty) list of numbers only.

    Parameters
    ----------
    x : object
        Parsed JSON.

    Returns
    -------
    bool
        True for a number (see :func:`is_number`) or a list, nested to any depth, whose
        leaves are all numbers; an empty list counts. False when a bool, string, None or
        dict appears anywhere.

    Examples
    --------
    >>> is_numeric([[0.1, 2], [3, 4.5]]), is_numeric([]), is_numeric([1, True]), is_numeric({"a": 1})
    (True, True, False, False)
    """
    if is_number(x):
        return True
    return isinstance(x, list) and all(is_numeric(v) for v in x)


def same_value(a, b) -> bool:
    """Equality that does not take True for 1 (JSON's true is not the number 1).

    Parameters
    ----------
    a, b : object
        Parsed JSON values. Lists are compared entry by entry and dicts key by key, with the
        same rule at every depth.

    Returns
    -------
    bool
        True when they are equal with ``==`` and no bool stands where the other has a
        number (``1 == 1.0`` still holds).

    Examples
    --------
    >>> same_value(1, 1.0), same_value(True, 1), same_value({"a": [1, True]}, {"a": [1, 1]})
    (True, False, False)
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return a == b


def short_text(x, digits=4) -> str:
    """A few characters that show a value in a one-line message.

    Parameters
    ----------
    x : object
        Parsed JSON.
    digits : int, default 4
        Significant digits for a float.

    Returns
    -------
    str
        A float with ``digits`` significant digits, an int in full, anything else as JSON,
        cut to 60 characters (ending in ``...``) when it is longer.

    Examples
    --------
    >>> short_text(3.14159265), short_text(7), short_text({"a": [1, 2]})
    ('3.142', '7', '{"a": [1, 2]}')
    >>> len(short_text(list(range(40))))
    60
    """
    if is_number(x):
        return f"{x:.{digits}g}" if isinstance(x, float) else str(x)
    text = json.dumps(x, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _pair(a, b):
    """``a -> b`` with as many digits as it takes to tell them apart (4 to 17)."""
    if is_number(a) and is_number(b):
        for digits in range(4, 18):
            left, right = f"{a:.{digits}g}", f"{b:.{digits}g}"
            if left != right:
                return f"{left} -> {right}"
    return f"{short_text(a)} -> {short_text(b)}"


def describe_change(before, after) -> str:
    """How a recorded value changed: the pair for a number, the largest change for a list of numbers.

    Parameters
    ----------
    before, after : object
        Parsed JSON: the baseline's value and the new run's value at one pointer.

    Returns
    -------
    str
        For two numbers, ``"before -> after"`` with as many significant digits (4 to 17) as
        it takes to tell them apart. For numeric lists of one shape, how many entries moved
        and the pair at the index that moved most. For other lists of one length, the first
        entry that differs; for lists of different lengths, the two lengths (and, for lists
        of strings, what was added and removed).

    Examples
    --------
    >>> describe_change(0.12345, 0.12346)
    '0.12345 -> 0.12346'
    >>> describe_change([1.0, 2.0, 3.0], [1.0, 2.5, 3.0])
    '1 of 3 entries changed, most at [1]: 2 -> 2.5'
    >>> describe_change(["a", "b"], ["a", "c", "d"])
    '2 -> 3 entries, added ["c", "d"], removed ["b"]'
    """
    if is_numeric(before) and is_numeric(after) and isinstance(before, list) and shape_of(before) == shape_of(after) \
            and len(list(flat_items(before))) == len(list(flat_items(after))):
        moves = [(abs(a - b), i, b, a) for (i, a), (_, b) in zip(flat_items(after), flat_items(before))]
        size, index, b, a = max(moves)
        at = "".join(f"[{i}]" for i in index)
        moved = sum(1 for m in moves if m[0] != 0)
        return f"{moved} of {len(moves)} entries changed, most at {at}: {_pair(b, a)}"
    if isinstance(before, list) and isinstance(after, list):
        if len(before) == len(after):
            differ = [i for i, (b, a) in enumerate(zip(before, after)) if not same_value(a, b)]
            more = f" (and {len(differ) - 1} more)" if len(differ) > 1 else ""
            return f"[{differ[0]}] {short_text(before[differ[0]])} -> {short_text(after[differ[0]])}{more}"
        text = f"{len(before)} -> {len(after)} entries"
        if all(isinstance(x, str) for x in before + after):
            added = [x for x in after if x not in before]
            removed = [x for x in before if x not in after]
            text += ((f", added {short_text(added)}" if added else "")
                     + (f", removed {short_text(removed)}" if removed else ""))
        return text
    return _pair(before, after)


def flat_items(x, prefix=()) -> Iterator[tuple[tuple, object]]:
    """The leaves of a nested list with their indices, in row-major order.

    Parameters
    ----------
    x : object
        A list, nested to any depth, or a single value (which is its own only leaf).
    prefix : tuple, default ()
        Indices put in front of every leaf's own (used by the recursion).

    Yields
    ------
    tuple of (tuple of int, object)
        ``(index, value)``: the index path to a leaf that is not a list, and that leaf.
        An empty list yields nothing.

    Examples
    --------
    >>> list(flat_items([[1, 2], [3]]))
    [((0, 0), 1), ((0, 1), 2), ((1, 0), 3)]
    """
    if isinstance(x, list):
        for i, v in enumerate(x):
            yield from flat_items(v, prefix + (i,))
    else:
        yield prefix, x


def shape_of(x) -> list[int]:
    """The shape of a nested list, as numpy would read it along its first entries.

    Parameters
    ----------
    x : object
        Parsed JSON.

    Returns
    -------
    list of int
        ``[]`` for a value that is not a list; otherwise its length followed by the shape of
        its first entry when every entry is a list. Ragged lists are not detected beyond the
        first entry.

    Examples
    --------
    >>> shape_of([[1, 2], [3, 4], [5, 6]]), shape_of([]), shape_of(0.5)
    ([3, 2], [0], [])
    """
    if isinstance(x, list):
        return [len(x)] + (shape_of(x[0]) if x and all(isinstance(v, list) for v in x) else [])
    return []

