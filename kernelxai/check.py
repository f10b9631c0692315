"""The notebooks as regression tests: recorded baselines, drift, and ``python -m kernelxai.check``.

Every notebook writes its key numbers to a results JSON. A *baseline*,
``notebooks/baselines/NAME.json``, records, for the default and the smoke
mode, the numbers of that JSON that are compared, each with the value of a
reference run, a tolerance and the reason for that tolerance::

    {"notebook": "01-shapley-games", "format": 1,
     "modes": {"default": {
         "parameters": {...},                  # the run's parameters (results_path left out)
         "recorded": {"python": "3.11.9", "numpy": "2.1.3", ...},
         "seconds": 7.1,                       # reported, never compared
         "numbers": {
             "/taxi": {"value": [2.0, 5.0, 35.0], "abs": 1e-10, "rel": 0.0,
                       "reason": "closed form: Shapley values of the taxi game"},
             "/coverage/plain": {"value": 0.9475, "abs": 0.044, "rel": 0.0,
                                 "reason": "Monte Carlo: 4 standard errors of a coverage over 400 runs"}}},
       "smoke": {...}}}

A number is addressed by a JSON pointer (RFC 6901: ``/key/key/index``, with
``~1`` for a ``/`` and ``~0`` for a ``~`` inside a key). A numeric value (or a
nested list of numbers) is within tolerance when every element ``x`` satisfies
``|x - value| <= abs + rel * |value|``; any other value (a string, a bool, a
ranking) must be equal. Timings are never compared (see :func:`is_timing_key`).

The comparison is made only when the run used the baseline's parameters: a
size the caller set on purpose (a test running fewer permutations) skips it,
while a parameter that differs *without* the caller setting it means that the
notebook's defaults changed since the baseline was recorded, which is reported
as drift. Re-recording (``make run ACCEPT=1``, :func:`record`) keeps the
compared pointers, tolerances and reasons and replaces the values.

Usage::

    python -m kernelxai.check [--smoke] [--only NAME ...] [--output DIR] [--timeout S]

runs the notebooks shipped with kernelxai (or, from a clone, the repository's
``notebooks/``) with papermill, compares every results JSON with its baseline
and writes ``report.md`` and ``report.html`` in DIR (default
``kernelxai-check``). It exits 0 when every notebook ran and every compared
number is within its tolerance, 1 otherwise.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import html
import importlib.util
import json
import math
import numbers
import os
import platform
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Comparison",
    "NumberCheck",
    "auto_numbers",
    "baselines_dir",
    "compare",
    "compare_notebook",
    "comparable",
    "environment",
    "is_timing_key",
    "load_baseline",
    "main",
    "mode_of",
    "notebooks_dir",
    "record",
    "resolve_pointer",
    "run_check",
    "write_baseline",
]

#: version of the baseline file format
FORMAT = 1
#: the modes that have baselines (paper runs are too slow to record)
MODES = ("default", "smoke")
#: keys of a results JSON that are never compared: free text, the run's parameters, our own annotation
_NOT_NUMBERS = ("summary", "parameters", "compared")
_TIMING_WORDS = {"second", "seconds", "secs", "sec", "time", "times", "timing", "timings", "runtime",
                 "elapsed", "wall", "ms"}


# --------------------------------------------------------------------------- #
# where the notebooks are
# --------------------------------------------------------------------------- #
def notebooks_dir(package=None):
    """The directory of the notebooks: the repository's ``notebooks/`` or the copy shipped in the package.

    From a clone (including an editable install) the repository's notebooks
    are used, so that ``python -m kernelxai.check`` checks what the clone
    holds; from an installed wheel, the copy in ``kernelxai/_notebooks``.

    Parameters
    ----------
    package : path, optional
        The kernelxai package directory (default: the one imported).

    Raises
    ------
    FileNotFoundError
        When neither exists (a build of kernelxai without its notebooks).
    """
    package = Path(package) if package is not None else Path(__file__).resolve().parent
    repo = package.parent / "notebooks"
    if (package.parent / "pyproject.toml").is_file() and any(repo.glob("[0-9][0-9]-*.ipynb")):
        return repo
    shipped = package / "_notebooks"
    if any(shipped.glob("[0-9][0-9]-*.ipynb")):
        return shipped
    raise FileNotFoundError(
        f"kernelxai's notebooks are neither in {shipped} (an installed wheel) nor in {repo} (a clone); "
        "reinstall kernelxai from a wheel or run from a clone of the repository")


def baselines_dir(notebooks=None):
    """``baselines/`` next to the notebooks (``notebooks`` defaults to :func:`notebooks_dir`)."""
    return Path(notebooks if notebooks is not None else notebooks_dir()) / "baselines"


# --------------------------------------------------------------------------- #
# results JSON helpers
# --------------------------------------------------------------------------- #
def mode_of(results):
    """"smoke", "paper" or "default": the mode a results JSON was produced in (from its parameters)."""
    params = results.get("parameters") or {}
    if params.get("paper"):
        return "paper"
    return "smoke" if params.get("smoke") else "default"


def is_timing_key(key):
    """Whether a results key holds a timing (reported, never compared).

    A key is a timing when one of its words (split at anything but letters
    and digits, lower-cased) is one of second(s), secs, sec, time(s),
    timing(s), runtime, elapsed, wall or ms, or when it ends in a lower-case
    word ``s``: ``"seconds"``, ``"r2_seconds"``, ``"seconds per point"``,
    ``"timing"``, ``"fit_s"`` (but not ``"lam_S"``, a regularisation
    strength). Numbers derived from timings under other names (a ratio of two
    run times, a fitted growth exponent) are not recognised: leave them out
    of a baseline.
    """
    key = str(key)
    words = [w for w in re.split(r"[^a-z0-9]+", key.lower()) if w]
    return bool(words) and (any(w in _TIMING_WORDS for w in words) or bool(re.search(r"(^|[^A-Za-z0-9])s$", key)))


def comparable(results):
    """``results`` without what may differ between two identical runs: timings, the summary, results_path.

    Timing keys (:func:`is_timing_key`) are removed at every depth, with
    everything under them; ``summary`` (free text that may quote a timing),
    ``compared`` (written by the drift check) and ``parameters.results_path``
    are removed at the top. Two runs of a seeded notebook on one machine give
    equal ``comparable`` results.
    """
    def strip(obj):
        if isinstance(obj, dict):
            return {k: strip(v) for k, v in obj.items() if not is_timing_key(k)}
        if isinstance(obj, list):
            return [strip(v) for v in obj]
        return obj

    out = strip({k: v for k, v in results.items() if k not in ("summary", "compared")})
    if isinstance(out.get("parameters"), dict):
        out["parameters"] = {k: v for k, v in out["parameters"].items() if k != "results_path"}
    return out


def _run_parameters(results):
    return {k: v for k, v in (results.get("parameters") or {}).items() if k != "results_path"}


# --------------------------------------------------------------------------- #
# JSON pointers
# --------------------------------------------------------------------------- #
def _escape(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def _pointer(keys):
    return "".join("/" + _escape(k) for k in keys)


def resolve_pointer(doc, pointer):
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
def _is_number(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _numeric(x):
    """Whether ``x`` is a number or a (nested, non-empty-or-empty) list of numbers only."""
    if _is_number(x):
        return True
    return isinstance(x, list) and all(_numeric(v) for v in x)


def _same(a, b):
    """Equality that does not take True for 1 (JSON's true is not the number 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def _short(x, digits=4):
    if _is_number(x):
        return f"{x:.{digits}g}" if isinstance(x, float) else str(x)
    text = json.dumps(x, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _pair(a, b):
    """``a -> b`` with as many digits as it takes to tell them apart (4 to 17)."""
    if _is_number(a) and _is_number(b):
        for digits in range(4, 18):
            left, right = f"{a:.{digits}g}", f"{b:.{digits}g}"
            if left != right:
                return f"{left} -> {right}"
    return f"{_short(a)} -> {_short(b)}"


def _change(before, after):
    """How a recorded value changed: the pair for a number, the largest change for a list of numbers."""
    if _numeric(before) and _numeric(after) and isinstance(before, list) and _shape(before) == _shape(after) \
            and len(list(_flat(before))) == len(list(_flat(after))):
        moves = [(abs(a - b), i, b, a) for (i, a), (_, b) in zip(_flat(after), _flat(before))]
        size, index, b, a = max(moves)
        at = "".join(f"[{i}]" for i in index)
        moved = sum(1 for m in moves if m[0] != 0)
        return f"{moved} of {len(moves)} entries changed, most at {at}: {_pair(b, a)}"
    if isinstance(before, list) and isinstance(after, list):
        if len(before) == len(after):
            differ = [i for i, (b, a) in enumerate(zip(before, after)) if not _same(a, b)]
            more = f" (and {len(differ) - 1} more)" if len(differ) > 1 else ""
            return f"[{differ[0]}] {_short(before[differ[0]])} -> {_short(after[differ[0]])}{more}"
        text = f"{len(before)} -> {len(after)} entries"
        if all(isinstance(x, str) for x in before + after):
            added = [x for x in after if x not in before]
            removed = [x for x in before if x not in after]
            text += (f", added {_short(added)}" if added else "") + (f", removed {_short(removed)}" if removed else "")
        return text
    return _pair(before, after)


def _flat(x, prefix=()):
    if isinstance(x, list):
        for i, v in enumerate(x):
            yield from _flat(v, prefix + (i,))
    else:
        yield prefix, x


def _shape(x):
    if isinstance(x, list):
        return [len(x)] + (_shape(x[0]) if x and all(isinstance(v, list) for v in x) else [])
    return []


@dataclass
class NumberCheck:
    """One compared number: where, the value now and in the baseline, the tolerance and the outcome."""

    pointer: str
    value: object
    baseline: object
    abs: float
    rel: float
    reason: str
    ok: bool
    message: str = ""

    def as_json(self):
        return {"value": self.value, "baseline": self.baseline, "abs": self.abs, "rel": self.rel,
                "within": self.ok, "reason": self.reason}


def _check_number(pointer, spec, results):
    """Compare the value at ``pointer`` in ``results`` with ``spec`` (value, abs, rel, reason)."""
    base, tol_abs, tol_rel = spec["value"], float(spec.get("abs", 0.0)), float(spec.get("rel", 0.0))
    reason = spec.get("reason", "")
    try:
        value = resolve_pointer(results, pointer)
    except KeyError as exc:
        return NumberCheck(pointer, None, base, tol_abs, tol_rel, reason, False,
                           f"{pointer}: missing ({exc.args[0]}); baseline {_short(base)}")
    if _numeric(base) and _numeric(value):
        if _shape(value) != _shape(base) or len(list(_flat(value))) != len(list(_flat(base))):
            return NumberCheck(pointer, value, base, tol_abs, tol_rel, reason, False,
                               f"{pointer}: shape {_shape(value)}, baseline shape {_shape(base)}")
        worst, where = -math.inf, None
        for (index, x), (_, b) in zip(_flat(value), _flat(base)):
            allowed = tol_abs + tol_rel * abs(b)
            excess = abs(x - b) - allowed
            if not math.isfinite(excess):
                excess = math.inf
            if excess > worst:
                worst, where = excess, (index, x, b, allowed)
        if where is None or worst <= 0:
            return NumberCheck(pointer, value, base, tol_abs, tol_rel, reason, True)
        index, x, b, allowed = where
        at = "".join(f"[{i}]" for i in index)
        return NumberCheck(pointer, value, base, tol_abs, tol_rel, reason, False,
                           f"{pointer}{at} = {_short(x)}, baseline {_short(b)} ± {allowed:.2g}"
                           + (f" ({reason})" if reason else ""))
    if _same(value, base):
        return NumberCheck(pointer, value, base, tol_abs, tol_rel, reason, True)
    return NumberCheck(pointer, value, base, tol_abs, tol_rel, reason, False,
                       _exact_difference(pointer, value, base) + f" ({reason or 'compared exactly'})")


def _exact_difference(pointer, value, base):
    """Words for how ``value`` differs from ``base`` (compared exactly): the first differing element of
    two lists of one length, the elements added and missing for lists of strings, else both values."""
    if isinstance(value, list) and isinstance(base, list):
        if len(value) == len(base):
            i = next(i for i, (a, b) in enumerate(zip(value, base)) if not _same(a, b))
            return f"{pointer}[{i}] = {_short(value[i])}, baseline {_short(base[i])}"
        if all(isinstance(x, str) for x in value + base):
            added = [x for x in value if x not in base]
            missing = [x for x in base if x not in value]
            parts = ([f"added {_short(added)}"] if added else []) + ([f"missing {_short(missing)}"] if missing else [])
            return f"{pointer}: {len(value)} entries, baseline {len(base)}" + (f"; {', '.join(parts)}" if parts else "")
    return f"{pointer} = {_short(value)}, baseline {_short(base)}"


# --------------------------------------------------------------------------- #
# comparing a notebook's results with its baseline
# --------------------------------------------------------------------------- #
@dataclass
class Comparison:
    """The outcome of comparing one notebook's results with its baseline.

    Attributes
    ----------
    name, mode : str
        The notebook and the mode of its run ("default", "smoke" or "paper").
    status : str
        "ok" (every compared number within its tolerance), "drift" (some are
        not), "parameters" (the notebook's defaults changed since the
        baseline was recorded), "no baseline" (no file, or none for this
        mode), "not compared" (the caller set parameters the baseline was
        not recorded with, or a paper run).
    checks : list of NumberCheck
    note : str
        Why a notebook was not compared, or which parameters changed.
    auto : bool
        Whether the baseline's tolerances were set automatically (to review).
    """

    name: str
    mode: str
    status: str
    checks: list = field(default_factory=list)
    note: str = ""
    auto: bool = False

    @property
    def failed(self):
        """True on drift: a number out of tolerance, or the notebook's defaults changed."""
        return self.status in ("drift", "parameters")

    @property
    def drifted(self):
        return [c for c in self.checks if not c.ok]

    def cell(self):
        """A few characters for a table: ✓ 12, ✗ 2/12, ⚠ no baseline, – not compared."""
        n = len(self.checks)
        if self.status == "ok":
            return f"✓ {n}" + (" auto" if self.auto else "")
        if self.status == "drift":
            return f"✗ {len(self.drifted)}/{n}"
        if self.status == "parameters":
            return "✗ params"
        if self.status == "no baseline":
            return "⚠ none"
        return "– skipped"

    def lines(self):
        """What to print under the notebook's row: each drifted number, or the note."""
        if self.status == "drift":
            return ["✗ " + c.message for c in self.drifted]
        if self.status == "parameters":
            return [f"✗ {self.note}"]
        if self.note:
            return [("⚠ " if self.status == "no baseline" else "– ") + self.note]
        return []

    def message(self):
        """A paragraph for a failing test or a log."""
        head = {"ok": "within the baseline", "drift": "drifted from its baseline",
                "parameters": "cannot be compared with its baseline",
                "no baseline": "has no baseline", "not compared": "was not compared"}[self.status]
        where = f"notebooks/baselines/{self.name}.json"
        text = f"{self.name} ({self.mode} mode) {head} ({where})"
        body = self.lines()
        if body:
            text += ":\n" + "\n".join("  " + line for line in body)
        if self.failed:
            text += ("\n  If the change is intended, re-record the baseline: "
                     f"make {'smoke' if self.mode == 'smoke' else 'run'} ACCEPT=1 "
                     f"NOTEBOOK_ARGS='--only {self.name}'")
        return text

    def as_json(self):
        """The ``compared`` block written into the results JSON."""
        return {"baseline": f"notebooks/baselines/{self.name}.json", "mode": self.mode,
                "status": self.status, "note": self.note,
                "numbers": {c.pointer: c.as_json() for c in self.checks}}


def load_baseline(path):
    """The baseline at ``path`` (a dict), or None if there is no such file.

    Raises
    ------
    ValueError
        When the file is not a baseline of this format (naming the problem).
    """
    path = Path(path)
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("modes"), dict):
        raise ValueError(f"{path}: not a kernelxai baseline of format {FORMAT} "
                         "(a JSON object with 'format': 1 and 'modes')")
    for mode, block in doc["modes"].items():
        if mode not in MODES:
            raise ValueError(f"{path}: unknown mode {mode!r}; modes are {', '.join(MODES)}")
        for pointer, spec in block.get("numbers", {}).items():
            if not isinstance(spec, dict) or "value" not in spec:
                raise ValueError(f"{path}: {mode} number {pointer!r} needs a 'value'")
            for key in ("abs", "rel"):
                tol = spec.get(key, 0.0)
                if not _is_number(tol) or not tol >= 0:
                    raise ValueError(f"{path}: {mode} number {pointer!r}: {key} must be a number >= 0; "
                                     f"got {tol!r}")
    return doc


def compare(results, baseline, *, name=None, overrides=()):
    """Compare a notebook's results JSON with its baseline.

    Parameters
    ----------
    results : dict
        The results JSON of a run (with its ``parameters``).
    baseline : dict or None
        As returned by :func:`load_baseline`; None means there is no baseline.
    name : str, optional
        The notebook (default: the baseline's ``notebook``).
    overrides : iterable of str
        The parameters the caller set on purpose. If the run's parameters
        differ from the baseline's only in these (or in the baseline's
        ``ignored_parameters``), nothing is compared ("not compared"); a
        difference in any other parameter means that the notebook's defaults
        changed ("parameters", a failure).

    Returns
    -------
    Comparison
    """
    name = name or (baseline or {}).get("notebook", "?")
    mode = mode_of(results)
    if mode not in MODES:
        return Comparison(name, mode, "not compared", note=f"{mode} runs have no baseline")
    if baseline is None:
        return Comparison(name, mode, "no baseline",
                          note=f"no baseline: record one with make {'smoke' if mode == 'smoke' else 'run'} "
                               f"ACCEPT=1 NOTEBOOK_ARGS='--only {name}'")
    block = baseline["modes"].get(mode)
    if block is None:
        return Comparison(name, mode, "no baseline",
                          note=f"no {mode}-mode baseline: record it with "
                               f"make {'smoke' if mode == 'smoke' else 'run'} ACCEPT=1 NOTEBOOK_ARGS='--only {name}'")
    ran, recorded = _run_parameters(results), block.get("parameters", {})
    ignored = set(baseline.get("ignored_parameters", {}))
    differ = sorted(k for k in set(ran) | set(recorded) if ran.get(k, "<unset>") != recorded.get(k, "<unset>")
                    and k not in ignored)
    overrides = set(overrides)
    changed = [k for k in differ if k not in overrides]
    if changed:
        what = ", ".join(f"{k} = {_short(ran.get(k, '<unset>'))} (baseline {_short(recorded.get(k, '<unset>'))})"
                         for k in changed)
        return Comparison(name, mode, "parameters",
                          note=f"parameters changed since the baseline was recorded: {what}")
    if differ:
        return Comparison(name, mode, "not compared",
                          note="the caller set " + ", ".join(differ) + ", which the baseline was not recorded with")
    checks = [_check_number(p, spec, results) for p, spec in block.get("numbers", {}).items()]
    status = "ok" if all(c.ok for c in checks) else "drift"
    return Comparison(name, mode, status, checks, auto=bool(block.get("auto")))


def compare_notebook(name, results, *, baselines=None, overrides=()):
    """:func:`compare` with the baseline ``baselines/NAME.json`` (default: :func:`baselines_dir`)."""
    directory = Path(baselines) if baselines is not None else baselines_dir()
    return compare(results, load_baseline(directory / f"{name}.json"), name=name, overrides=overrides)


def annotate(results_path, comparison):
    """Write ``comparison`` into the results JSON at ``results_path`` under ``compared``."""
    from .workbench.reporting import atomic_write

    path = Path(results_path)
    results = json.loads(path.read_text(encoding="utf-8"))
    results["compared"] = comparison.as_json()
    with atomic_write(path) as fh:
        json.dump(results, fh, indent=2, sort_keys=True, ensure_ascii=False)
        fh.write("\n")


# --------------------------------------------------------------------------- #
# recording
# --------------------------------------------------------------------------- #
def environment():
    """The versions a baseline was recorded with (Python, numpy, scipy, scikit-learn, BLAS, machine)."""
    from importlib import metadata

    env = {"python": platform.python_version(), "machine": platform.machine(), "system": platform.system()}
    for dist in ("kernelxai", "numpy", "scipy", "scikit-learn"):
        try:
            env[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            env[dist] = None
    try:
        importlib.import_module("numpy")  # loads the BLAS that threadpoolctl reports
        from threadpoolctl import threadpool_info

        blas = [f"{i.get('internal_api')} {i.get('version')}" for i in threadpool_info()
                if i.get("user_api") == "blas"]
        env["blas"] = ", ".join(sorted(set(blas))) or None
    except Exception:  # pragma: no cover - reporting only
        env["blas"] = None
    return env


def auto_numbers(results):
    """A first set of compared numbers for a notebook without a baseline: every non-timing leaf.

    Every number, list of numbers, bool or short string of ``results`` is
    compared, except the summary, the parameters and timings
    (:func:`is_timing_key`). Values below 1e-9 in magnitude are taken to be
    rounding errors of an identity (tolerance abs 1e-9); other numbers get
    rel 1e-6, which a seeded run on the same machine meets; strings, bools
    and lists of strings are compared exactly. The tolerances are a starting
    point, marked ``"auto": true``: review them and give each a reason.
    """
    out = {}

    def leaf(keys, v):
        pointer = _pointer(keys)
        if _numeric(v) and list(_flat(v)):
            values = [abs(x) for _, x in _flat(v)]
            if max(values) < 1e-9:
                out[pointer] = {"value": v, "abs": 1e-9, "rel": 0.0,
                                "reason": "auto: an identity's rounding error; passes while below 1e-9"}
            else:
                out[pointer] = {"value": v, "abs": 1e-12, "rel": 1e-6,
                                "reason": "auto: seeded, reproduces to rounding on the recording machine; review"}
        elif isinstance(v, bool) or (isinstance(v, str) and len(v) <= 80 and "/" not in v and "\\" not in v) \
                or (isinstance(v, list) and v and all(isinstance(e, str) and len(e) <= 80 for e in v)):
            out[pointer] = {"value": v, "abs": 0.0, "rel": 0.0, "reason": "auto: compared exactly"}

    def walk(keys, v):
        if isinstance(v, dict):
            for k, sub in v.items():
                if is_timing_key(k) or (not keys and k in _NOT_NUMBERS):
                    continue
                walk(keys + (k,), sub)
        elif isinstance(v, list) and v and all(isinstance(e, dict) for e in v):
            for i, sub in enumerate(v):
                walk(keys + (i,), sub)
        else:
            leaf(keys, v)

    walk((), results)
    return out


def record(results, baseline, *, name, seconds=None):
    """Record ``results`` as the baseline of their mode; return (new baseline, lines of the diff).

    The compared pointers, tolerances and reasons of the mode are kept (from
    the other mode when this mode has none yet, or :func:`auto_numbers` for a
    new notebook) and their values replaced by the ones in ``results``. A
    pointer the results no longer have is dropped and listed in the diff.

    Parameters
    ----------
    results : dict
        A default- or smoke-mode results JSON.
    baseline : dict or None
        The current baseline (None: a new one is made).
    name : str
        The notebook.
    seconds : float, optional
        The run's wall time, stored as reported (never compared).

    Raises
    ------
    ValueError
        For a paper-mode run (paper runs have no baselines).
    """
    mode = mode_of(results)
    if mode not in MODES:
        raise ValueError(f"{name}: only default and smoke runs are recorded as baselines; this is a {mode} run")
    new = copy.deepcopy(baseline) if baseline is not None else {"notebook": name, "format": FORMAT, "modes": {}}
    old_block = new["modes"].get(mode)
    diff = []
    if old_block is not None:
        template, auto = old_block.get("numbers", {}), bool(old_block.get("auto"))
    else:
        other = next((new["modes"][m] for m in MODES if m in new["modes"]), None)
        if other is not None:
            template, auto = other.get("numbers", {}), bool(other.get("auto"))
            diff.append(f"new {mode}-mode baseline, comparing the numbers of the other mode")
        else:
            template, auto = auto_numbers(results), True
            diff.append(f"new baseline: {len(template)} numbers with automatic tolerances "
                        f"(review them in notebooks/baselines/{name}.json)")
    numbers_, changed = {}, 0
    for pointer, spec in template.items():
        try:
            value = resolve_pointer(results, pointer)
        except KeyError:
            diff.append(f"- {pointer}: no longer in the results, dropped")
            continue
        numbers_[pointer] = {**spec, "value": value}
        if old_block is not None and pointer in old_block.get("numbers", {}):
            before = old_block["numbers"][pointer]["value"]
            if not _same(before, value):
                changed += 1
                diff.append(f"  {pointer}: {_change(before, value)}")
    params_before = (old_block or {}).get("parameters")
    params_now = _run_parameters(results)
    if params_before is not None and params_before != params_now:
        keys = sorted(k for k in set(params_before) | set(params_now) if params_before.get(k) != params_now.get(k))
        diff.append("  parameters: " + ", ".join(
            f"{k} {_short(params_before.get(k, '<unset>'))} -> {_short(params_now.get(k, '<unset>'))}" for k in keys))
    if old_block is not None and not changed and len(diff) == 0:
        diff.append("  unchanged")
    block = {"parameters": params_now, "recorded": environment()}
    if seconds is not None:
        block["seconds"] = round(float(seconds), 1)
    if auto:
        block["auto"] = True
    block["numbers"] = numbers_
    new["modes"][mode] = block
    new["modes"] = {m: new["modes"][m] for m in MODES if m in new["modes"]}
    return new, diff


def _dumps(obj, indent=0):
    """JSON with dicts one key a line and lists of scalars on one line (readable diffs)."""
    pad = "  " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f'{pad}  {json.dumps(str(k), ensure_ascii=False)}: {_dumps(v, indent + 1)}' for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(obj, list) and any(isinstance(v, (dict, list)) for v in obj) and \
            not all(isinstance(v, list) and not any(isinstance(e, (dict, list)) for e in v) for v in obj):
        items = [f"{pad}  {_dumps(v, indent + 1)}" for v in obj]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def write_baseline(path, baseline):
    """Write a baseline atomically, formatted for readable diffs."""
    from .workbench.reporting import atomic_write

    with atomic_write(path) as fh:
        fh.write(_dumps(baseline) + "\n")


# --------------------------------------------------------------------------- #
# python -m kernelxai.check
# --------------------------------------------------------------------------- #
#: modules the notebooks need beyond kernelxai's dependencies (the notebooks extra)
_NEEDED = {"ipykernel": "runs the notebooks", "nbformat": "reads them", "mpmath": "notebook 03's reference"}


def _execute(path, results, parameters, out_nb, log, timeout):
    """Run one notebook with papermill; return an error string or None."""
    import logging

    import papermill as pm

    logging.getLogger("papermill").setLevel(logging.ERROR)
    try:
        with open(log, "w", encoding="utf-8") as fh, _stderr_to(fh):
            pm.execute_notebook(str(path), str(out_nb), parameters={**parameters, "results_path": str(results)},
                                kernel_name="python3", cwd=str(path.parent), progress_bar=False,
                                execution_timeout=timeout, log_output=False)
    except Exception as exc:  # papermill names the failing cell in its message
        text = str(exc).strip()
        return f"{type(exc).__name__}: {text.splitlines()[-1] if text else ''}"
    return None


class _stderr_to:
    """Redirect file descriptor 2 (this process's and the kernel's stderr) to an open file."""

    def __init__(self, fh):
        self.fh = fh

    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        os.dup2(self.fh.fileno(), 2)

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)


def run_check(*, smoke=False, only=None, output="kernelxai-check", timeout=1800, echo=print):
    """Run the notebooks, compare them with their baselines and write the report; return the rows.

    Parameters
    ----------
    smoke : bool
        Smoke mode (tiny sizes, a few minutes in all) instead of the default sizes.
    only : list of str, optional
        Notebook names to run (default: all).
    output : str or os.PathLike
        Directory for the executed notebooks, results, logs and ``report.md`` / ``report.html``.
    timeout : int
        Seconds any one cell may run.
    echo : callable
        Where progress lines go (None: nowhere).

    Returns
    -------
    list of dict
        One row per notebook: name, ok, error, seconds, summary, comparison.
    """
    echo = echo or (lambda *a, **k: None)
    missing = [m for m in _NEEDED if importlib.util.find_spec(m) is None]
    if missing:
        raise RuntimeError("python -m kernelxai.check needs the notebooks extra: pip install 'kernelxai[notebooks]' "
                           f"(missing: {', '.join(f'{m}, which {_NEEDED[m]}' for m in missing)})")
    source = notebooks_dir()
    paths = sorted(source.glob("[0-9][0-9]-*.ipynb"))
    if only:
        wanted = {n.removesuffix(".ipynb") for n in only}
        unknown = sorted(wanted - {p.stem for p in paths})
        if unknown:
            raise ValueError(f"no such notebook(s): {', '.join(unknown)}; "
                             f"available: {', '.join(p.stem for p in paths)}")
        paths = [p for p in paths if p.stem in wanted]
    output = Path(output).resolve()
    for sub in ("notebooks", "results", "logs"):
        (output / sub).mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    params = {"smoke": True} if smoke else {}
    rows = []
    for k, path in enumerate(paths, 1):
        name = path.stem
        echo(f"[{k}/{len(paths)}] {name} ...", end=" ", flush=True)
        results_path = output / "results" / f"{name}.json"
        if results_path.exists():
            results_path.unlink()
        start = time.perf_counter()
        error = _execute(path, results_path, params, output / "notebooks" / path.name,
                         output / "logs" / f"{name}.log", timeout)
        seconds = time.perf_counter() - start
        comparison, summary = None, ""
        if error is None and not results_path.exists():
            error = "the notebook wrote no results JSON"
        if error is None:
            results = json.loads(results_path.read_text(encoding="utf-8"))
            summary = results.get("summary", "")
            comparison = compare_notebook(name, results, baselines=baselines_dir(source))
            annotate(results_path, comparison)
        rows.append({"name": name, "ok": error is None, "error": error, "seconds": seconds,
                     "summary": summary, "comparison": comparison})
        echo(("FAILED" if error else comparison.cell()) + f" in {seconds:.0f} s", flush=True)
    write_report(rows, output, mode="smoke" if smoke else "default", source=source)
    return rows


def _verdict(row):
    if not row["ok"]:
        return "✗ failed"
    return row["comparison"].cell()


def _report_items(rows, mode, source):
    """(header lines, table rows, detail blocks) shared by the Markdown and HTML reports."""
    env = environment()
    failed = [r["name"] for r in rows if not r["ok"]]
    drift = [r["name"] for r in rows if r["ok"] and r["comparison"].failed]
    missing = [r["name"] for r in rows if r["ok"] and r["comparison"].status == "no baseline"]
    verdict = "PASS" if not failed and not drift else "FAIL"
    header = [
        f"{verdict}: {len(rows) - len(failed)}/{len(rows)} notebooks ran ({mode} mode); "
        f"{sum(1 for r in rows if r['ok'] and r['comparison'].status == 'ok')} within their baselines"
        + (f"; drift in {', '.join(drift)}" if drift else "")
        + (f"; failed: {', '.join(failed)}" if failed else "")
        + (f"; no baseline: {', '.join(missing)}" if missing else ""),
        f"Run {datetime.datetime.now().astimezone().isoformat(timespec='seconds')} with "
        + ", ".join(f"{k} {v}" for k, v in env.items() if v),
        f"Notebooks and baselines from {source}",
    ]
    table, details = [], []
    for r in rows:
        comp = r["comparison"]
        recorded = None
        if comp is not None and comp.status in ("ok", "drift"):
            base = load_baseline(baselines_dir(source) / f"{r['name']}.json")
            recorded = base["modes"].get(comp.mode, {}).get("seconds") if base else None
        time_text = f"{r['seconds']:.0f} s" + (f" (recorded {recorded:.0f} s)" if recorded is not None else "")
        table.append((r["name"], _verdict(r), time_text, r["summary"] if r["ok"] else r["error"]))
        lines = comp.lines() if comp is not None else []
        if lines:
            details.append((r["name"], lines))
    return header, table, details


def write_report(rows, output, *, mode, source):
    """Write ``report.md`` and ``report.html`` in ``output``; return their paths."""
    from .workbench.reporting import atomic_write

    header, table, details = _report_items(rows, mode, source)
    md = [f"# kernelxai check ({mode} mode)", "", *[f"{h}  " for h in header], "",
          "| notebook | baseline | time | key results |", "|---|---|---|---|"]
    bar = "\\|"   # a literal | inside a Markdown table cell
    md += [f"| {n} | {v} | {t} | {s.replace('|', bar)} |" for n, v, t, s in table]
    if details:
        md += ["", "## Differences", ""]
        for name, lines in details:
            md += [f"**{name}**", ""] + [f"- {line}" for line in lines] + [""]
    md += ["", "Timings are reported, never compared. Each compared number, its tolerance and the reason "
               "for it are in the notebook's baseline (baselines/NAME.json); the results JSON of each run "
               "(results/NAME.json) lists them under \"compared\"."]
    esc = html.escape
    rows_html = "\n".join(
        f"<tr class='{'bad' if v.startswith('✗') else ('warn' if v.startswith('⚠') else 'good')}'>"
        f"<td>{esc(n)}</td><td>{esc(v)}</td><td>{esc(t)}</td><td>{esc(s)}</td></tr>" for n, v, t, s in table)
    details_html = "".join(f"<h3>{esc(name)}</h3><ul>{''.join(f'<li>{esc(x)}</li>' for x in lines)}</ul>"
                           for name, lines in details)
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kernelxai check ({esc(mode)} mode)</title>
<style>body{{font-family:sans-serif;max-width:75em;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;vertical-align:top;text-align:left}}
.bad td:nth-child(2){{color:#b00;font-weight:bold}}.good td:nth-child(2){{color:#070}}
.warn td:nth-child(2){{color:#a60}}</style></head><body>
<h1>kernelxai check ({esc(mode)} mode)</h1>
{''.join(f'<p>{esc(h)}</p>' for h in header)}
<table><tr><th>notebook</th><th>baseline</th><th>time</th><th>key results</th></tr>
{rows_html}
</table>
{('<h2>Differences</h2>' + details_html) if details else ''}
<p>Timings are reported, never compared. Each compared number, its tolerance and the reason for it are in
the notebook's baseline (baselines/NAME.json); results/NAME.json lists them under "compared".</p>
</body></html>
"""
    output = Path(output)
    with atomic_write(output / "report.md") as fh:
        fh.write("\n".join(md) + "\n")
    with atomic_write(output / "report.html") as fh:
        fh.write(page)
    return output / "report.md", output / "report.html"


def main(argv=None):
    """``python -m kernelxai.check``: see the module docstring. Returns the exit status."""
    ap = argparse.ArgumentParser(
        prog="python -m kernelxai.check",
        description="Run kernelxai's notebooks with papermill, compare their key numbers with the recorded "
                    "baselines and write a Markdown and HTML report.")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: a few minutes for all notebooks")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="notebooks to run (default: all)")
    ap.add_argument("--output", default="kernelxai-check", metavar="DIR",
                    help="directory for the report, results, executed notebooks and logs (default kernelxai-check)")
    ap.add_argument("--timeout", type=int, default=1800, metavar="S", help="seconds any one cell may run")
    args = ap.parse_args(argv)
    try:
        rows = run_check(smoke=args.smoke, only=args.only, output=args.output, timeout=args.timeout)
    except (RuntimeError, ValueError, FileNotFoundError) as exc:
        print(f"kernelxai.check: {exc}", file=sys.stderr)
        return 2
    output = Path(args.output).resolve()
    bad = [r for r in rows if not r["ok"] or r["comparison"].failed]
    for r in bad:
        print("\n" + (f"{r['name']}: {r['error']} (log: {output / 'logs' / (r['name'] + '.log')})" if not r["ok"]
                      else r["comparison"].message()))
    print(f"\n{'PASS' if not bad else 'FAIL'}: {len(rows) - len(bad)}/{len(rows)} notebooks ran and match "
          f"their baselines; report in {output / 'report.md'} and {output / 'report.html'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
