"""Values of a results JSON as the baselines see them: JSON pointers, numbers and lists of
numbers, equality that does not take True for 1, and short words for a value and for a change.

Takes parsed JSON (dicts, lists, strings, numbers, bools); hands the baseline modules
(:mod:`.notebook_baselines`, :mod:`.baseline_recording`) these helpers. Imports nothing of kernelxai.
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
    return "".join("/" + _escape(k) for k in keys)


def resolve_pointer(doc, pointer) -> object:
    """The value at ``pointer`` (RFC 6901, e.g. ``"/coverage/plain"`` or ``"/table/d/3"``) in ``doc``.

    Raises
    ------
    KeyError
        Naming the first part of the pointer that ``doc`` does not have.
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
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def is_numeric(x) -> bool:
    """Whether ``x`` is a number or a (nested, non-empty-or-empty) list of numbers only."""
    if is_number(x):
        return True
    return isinstance(x, list) and all(is_numeric(v) for v in x)


def same_value(a, b) -> bool:
    """Equality that does not take True for 1 (JSON's true is not the number 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return a == b


def short_text(x, digits=4) -> str:
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
    """How a recorded value changed: the pair for a number, the largest change for a list of numbers."""
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
    if isinstance(x, list):
        for i, v in enumerate(x):
            yield from flat_items(v, prefix + (i,))
    else:
        yield prefix, x


def shape_of(x) -> list[int]:
    if isinstance(x, list):
        return [len(x)] + (shape_of(x[0]) if x and all(isinstance(v, list) for v in x) else [])
    return []

