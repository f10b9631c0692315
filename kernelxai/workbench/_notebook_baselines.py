"""Recorded baselines of the notebooks and the comparison of a run with them (the drift check).

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

Takes a notebook's results JSON (written by :func:`kernelxai.workbench.save_results`); hands on a
:class:`Comparison` per notebook, which ``_notebook_runner``, ``scripts/run_notebooks.py`` and
the smoke tests report. Recording a run as the baseline is ``_baseline_recording``;
``python -m kernelxai.check`` (:mod:`kernelxai.check`) runs the notebooks and compares them.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ._json_values import flat_items, is_number, is_numeric, resolve_pointer, same_value, shape_of, short_text
from ._reporting import atomic_write

__all__ = ["FORMAT", "MODES", "Comparison", "NumberCheck", "annotate", "baselines_dir", "compare", "compare_notebook",
           "comparable", "is_timing_key", "load_baseline", "mode_of", "notebooks_dir", "run_parameters"]

#: version of the baseline file format
FORMAT = 1
#: the modes that have baselines (paper runs are too slow to record)
MODES = ("default", "smoke")
_TIMING_WORDS = {"second", "seconds", "secs", "sec", "time", "times", "timing", "timings", "runtime",
                 "elapsed", "wall", "ms"}



# --------------------------------------------------------------------------- #
# where the notebooks are
# --------------------------------------------------------------------------- #
def notebooks_dir(package=None) -> Path:
    """The directory of the notebooks: the repository's ``notebooks/`` or the copy shipped in the package.

    From a clone (including an editable install) the repository's notebooks
    are used, so that ``python -m kernelxai.check`` checks what the clone
    holds; from an installed wheel, the copy in ``kernelxai/_notebooks``.

    Parameters
    ----------
    package : path, optional
        The kernelxai package directory (default: the one imported).

    Returns
    -------
    Path
        ``notebooks/`` beside ``package`` when that directory is a clone (it holds a
        ``pyproject.toml``) with numbered notebooks, else ``package/_notebooks`` when that
        holds them.

    Raises
    ------
    FileNotFoundError
        When neither exists (a build of kernelxai without its notebooks).

    Examples
    --------
    >>> import tempfile
    >>> from kernelxai.check import notebooks_dir
    >>> notebooks_dir().name in ("notebooks", "_notebooks")
    True
    >>> with tempfile.TemporaryDirectory() as empty:
    ...     try:
    ...         notebooks_dir(empty)
    ...     except FileNotFoundError as error:
    ...         print(str(error)[:38])
    kernelxai's notebooks are neither in ...
    """
    package = Path(package) if package is not None else Path(__file__).resolve().parents[1]
    repo = package.parent / "notebooks"
    if (package.parent / "pyproject.toml").is_file() and any(repo.glob("[0-9][0-9]-*.ipynb")):
        return repo
    shipped = package / "_notebooks"
    if any(shipped.glob("[0-9][0-9]-*.ipynb")):
        return shipped
    raise FileNotFoundError(
        f"kernelxai's notebooks are neither in {shipped} (an installed wheel) nor in {repo} (a clone); "
        "reinstall kernelxai from a wheel or run from a clone of the repository")


def baselines_dir(notebooks=None) -> Path:
    """``baselines/`` next to the notebooks (``notebooks`` defaults to :func:`notebooks_dir`).

    Parameters
    ----------
    notebooks : path, optional
        The notebooks' directory; by default :func:`notebooks_dir`, which raises
        FileNotFoundError when kernelxai has no notebooks.

    Returns
    -------
    Path
        ``notebooks / "baselines"`` (whether or not it exists).

    Examples
    --------
    >>> from kernelxai.check import baselines_dir
    >>> baselines_dir("notebooks").as_posix()
    'notebooks/baselines'
    """
    return Path(notebooks if notebooks is not None else notebooks_dir()) / "baselines"


# --------------------------------------------------------------------------- #
# results JSON helpers
# --------------------------------------------------------------------------- #
def mode_of(results) -> str:
    """"smoke", "paper" or "default": the mode a results JSON was produced in (from its parameters).

    Parameters
    ----------
    results : dict
        A notebook's results JSON; its ``parameters`` block is read (missing means default).

    Returns
    -------
    str
        "paper" when the ``paper`` parameter is true, else "smoke" when ``smoke`` is, else
        "default".

    Examples
    --------
    >>> from kernelxai.check import mode_of
    >>> mode_of({"parameters": {"smoke": True}}), mode_of({"parameters": {"paper": 1}}), mode_of({})
    ('smoke', 'paper', 'default')
    """
    params = results.get("parameters") or {}
    if params.get("paper"):
        return "paper"
    return "smoke" if params.get("smoke") else "default"


def is_timing_key(key) -> bool:
    """Whether a results key holds a timing (reported, never compared).

    A key is a timing when one of its words (split at anything but letters
    and digits, lower-cased) is one of second(s), secs, sec, time(s),
    timing(s), runtime, elapsed, wall or ms, or when it ends in a lower-case
    word ``s``: ``"seconds"``, ``"r2_seconds"``, ``"seconds per point"``,
    ``"timing"``, ``"fit_s"`` (but not ``"lam_S"``, a regularisation
    strength). Numbers derived from timings under other names (a ratio of two
    run times, a fitted growth exponent) are not recognised: leave them out
    of a baseline.

    Parameters
    ----------
    key : str or int
        A dict key of a results JSON (converted with ``str``).

    Returns
    -------
    bool
        True when the key names a timing by the rule above.

    Examples
    --------
    >>> from kernelxai.check import is_timing_key
    >>> [is_timing_key(k) for k in ("r2_seconds", "fit_s", "elapsed ms", "lam_S", "coverage")]
    [True, True, True, False, False]
    """
    key = str(key)
    words = [w for w in re.split(r"[^a-z0-9]+", key.lower()) if w]
    return bool(words) and (any(w in _TIMING_WORDS for w in words) or bool(re.search(r"(^|[^A-Za-z0-9])s$", key)))


def comparable(results) -> dict:
    """``results`` without what may differ between two identical runs: timings, the summary, results_path.

    Timing keys (:func:`is_timing_key`) are removed at every depth, with
    everything under them; ``summary`` (free text that may quote a timing),
    ``compared`` (written by the drift check) and ``parameters.results_path``
    are removed at the top. Two runs of a seeded notebook on one machine give
    equal ``comparable`` results.

    Parameters
    ----------
    results : dict
        A notebook's results JSON; it is not modified.

    Returns
    -------
    dict
        A new dict (dicts and lists rebuilt, leaves shared) without those keys.

    Examples
    --------
    >>> from kernelxai.check import comparable
    >>> run = {"parameters": {"seed": 0, "results_path": "out.json"}, "summary": "took 3 s",
    ...        "fit": {"r2": 0.91, "seconds": 3.2}, "timings": [1.1, 2.0]}
    >>> comparable(run)
    {'parameters': {'seed': 0}, 'fit': {'r2': 0.91}}
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


def run_parameters(results) -> dict:
    """The parameters of a run as its results JSON records them, without ``results_path``.

    Parameters
    ----------
    results : dict
        A notebook's results JSON.

    Returns
    -------
    dict
        A copy of its ``parameters`` block without ``results_path`` (where the run wrote,
        which differs between runs); empty when there is no such block.

    Examples
    --------
    >>> run_parameters({"parameters": {"seed": 0, "smoke": True, "results_path": "out.json"}})
    {'seed': 0, 'smoke': True}
    """
    return {k: v for k, v in (results.get("parameters") or {}).items() if k != "results_path"}



@dataclass
class NumberCheck:
    """One compared number: where, the value now and in the baseline, the tolerance and the outcome.

    Made by :func:`compare`, one per number of the baseline; held in :attr:`Comparison.checks`.

    Attributes
    ----------
    pointer : str
        The JSON pointer of the number in the results, e.g. ``"/coverage/plain"``.
    value : object
        The run's value there (None when the results do not have it).
    baseline : object
        The baseline's recorded value: a number, a nested list of numbers, or any JSON value
        compared exactly.
    abs, rel : float
        The tolerance: each element ``x`` must satisfy ``|x - b| <= abs + rel * |b|``.
    reason : str
        Why the tolerance is what it is (from the baseline).
    ok : bool
        Whether the value is within tolerance (or equal, for values that are not numeric).
    message : str, default ""
        For a failed check, one line naming the worst element, both values and the
        tolerance; empty when ``ok``.

    Examples
    --------
    >>> from kernelxai.check import compare
    >>> baseline = {"notebook": "demo", "format": 1, "modes": {"default": {"parameters": {}, "numbers": {
    ...     "/taxi": {"value": [2.0, 5.0, 35.0], "abs": 0.01, "reason": "closed form"}}}}}
    >>> check = compare({"taxi": [2.0, 5.2, 35.0]}, baseline).checks[0]
    >>> check.ok, check.message
    (False, '/taxi[1] = 5.2, baseline 5 ± 0.01 (closed form)')
    >>> check.as_json()["within"]
    False
    """

    pointer: str
    value: object
    baseline: object
    abs: float
    rel: float
    reason: str
    ok: bool
    message: str = ""

    def as_json(self) -> dict:
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
                           f"{pointer}: missing ({exc.args[0]}); baseline {short_text(base)}")
    if is_numeric(base) and is_numeric(value):
        if shape_of(value) != shape_of(base) or len(list(flat_items(value))) != len(list(flat_items(base))):
            return NumberCheck(pointer, value, base, tol_abs, tol_rel, reason, False,
                               f"{pointer}: shape {shape_of(value)}, baseline shape {shape_of(base)}")
        worst, where = -math.inf, None
        for (index, x), (_, b) in zip(flat_items(value), flat_items(base)):
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
                           f"{pointer}{at} = {short_text(x)}, baseline {short_text(b)} ± {allowed:.2g}"
                           + (f" ({reason})" if reason else ""))
    if same_value(value, base):
        return NumberCheck(pointer, value, base, tol_abs, tol_rel, reason, True)
    return NumberCheck(pointer, value, base, tol_abs, tol_rel, reason, False,
                       _exact_difference(pointer, value, base) + f" ({reason or 'compared exactly'})")


def _exact_difference(pointer, value, base):
    """Words for how ``value`` differs from ``base`` (compared exactly): the first differing element of
    two lists of one length, the elements added and missing for lists of strings, else both values."""
    if isinstance(value, list) and isinstance(base, list):
        if len(value) == len(base):
            i = next(i for i, (a, b) in enumerate(zip(value, base)) if not same_value(a, b))
            return f"{pointer}[{i}] = {short_text(value[i])}, baseline {short_text(base[i])}"
        if all(isinstance(x, str) for x in value + base):
            added = [x for x in value if x not in base]
            missing = [x for x in base if x not in value]
            parts = (([f"added {short_text(added)}"] if added else [])
                     + ([f"missing {short_text(missing)}"] if missing else []))
            return f"{pointer}: {len(value)} entries, baseline {len(base)}" + (f"; {', '.join(parts)}" if parts else "")
    return f"{pointer} = {short_text(value)}, baseline {short_text(base)}"


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

    Examples
    --------
    >>> from kernelxai.check import Comparison, compare
    >>> baseline = {"notebook": "demo", "format": 1, "modes": {"default": {"parameters": {"seed": 0}, "numbers": {
    ...     "/coverage": {"value": 0.95, "abs": 0.02, "reason": "Monte Carlo"}}}}}
    >>> result = compare({"parameters": {"seed": 0}, "coverage": 0.94}, baseline)
    >>> result.status, result.failed, result.cell()
    ('ok', False, '✓ 1')
    >>> print(Comparison("demo", "smoke", "no baseline", note="no baseline yet").message())
    demo (smoke mode) has no baseline (notebooks/baselines/demo.json):
      ⚠ no baseline yet
    """

    name: str
    mode: str
    status: str
    checks: list = field(default_factory=list)
    note: str = ""
    auto: bool = False

    @property
    def failed(self) -> bool:
        """True on drift: a number out of tolerance, or the notebook's defaults changed."""
        return self.status in ("drift", "parameters")

    @property
    def drifted(self) -> list:
        return [c for c in self.checks if not c.ok]

    def cell(self) -> str:
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

    def lines(self) -> list[str]:
        """What to print under the notebook's row: each drifted number, or the note."""
        if self.status == "drift":
            return ["✗ " + c.message for c in self.drifted]
        if self.status == "parameters":
            return [f"✗ {self.note}"]
        if self.note:
            return [("⚠ " if self.status == "no baseline" else "– ") + self.note]
        return []

    def message(self) -> str:
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

    def as_json(self) -> dict:
        """The ``compared`` block written into the results JSON."""
        return {"baseline": f"notebooks/baselines/{self.name}.json", "mode": self.mode,
                "status": self.status, "note": self.note,
                "numbers": {c.pointer: c.as_json() for c in self.checks}}


def load_baseline(path) -> dict | None:
    """The baseline at ``path`` (a dict), or None if there is no such file.

    Parameters
    ----------
    path : str or Path
        A baseline file, normally ``notebooks/baselines/NAME.json``.

    Returns
    -------
    dict or None
        The parsed baseline, checked: ``"format"`` is :data:`FORMAT`, every mode is one of
        :data:`MODES`, every number has a ``value`` and tolerances ``abs``/``rel`` that are
        numbers >= 0. None when the file does not exist.

    Raises
    ------
    ValueError
        When the file is not a baseline of this format (naming the problem).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from kernelxai.check import load_baseline
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp) / "demo.json"
    ...     print(load_baseline(path))
    ...     _ = path.write_text(json.dumps({"format": 1, "modes": {"paper": {}}}))
    ...     try:
    ...         load_baseline(path)
    ...     except ValueError as error:
    ...         print(str(error).split(": ", 1)[1])
    None
    unknown mode 'paper'; modes are default, smoke
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
                if not is_number(tol) or not tol >= 0:
                    raise ValueError(f"{path}: {mode} number {pointer!r}: {key} must be a number >= 0; "
                                     f"got {tol!r}")
    return doc


def compare(results, baseline, *, name=None, overrides=()) -> Comparison:
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
        Its ``status`` is "not compared" for a paper run or when only ``overrides`` differ,
        "no baseline" when ``baseline`` is None or has no block for the run's mode,
        "parameters" when other parameters differ, else "ok" or "drift" from the checks of
        every number of the baseline's block.

    Examples
    --------
    >>> from kernelxai.check import compare
    >>> baseline = {"notebook": "demo", "format": 1, "modes": {"default": {"parameters": {"n": 50}, "numbers": {
    ...     "/taxi": {"value": [2.0, 5.0, 35.0], "abs": 1e-10, "reason": "closed form"}}}}}
    >>> compare({"parameters": {"n": 50}, "taxi": [2.0, 5.0, 35.0]}, baseline).status
    'ok'
    >>> compare({"parameters": {"n": 10}, "taxi": [2.0, 5.0, 35.0]}, baseline, overrides=["n"]).status
    'not compared'
    >>> print(compare({"parameters": {"n": 10}}, baseline).note)
    parameters changed since the baseline was recorded: n = 10 (baseline 50)
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
    ran, recorded = run_parameters(results), block.get("parameters", {})
    ignored = set(baseline.get("ignored_parameters", {}))
    differ = sorted(k for k in set(ran) | set(recorded) if ran.get(k, "<unset>") != recorded.get(k, "<unset>")
                    and k not in ignored)
    overrides = set(overrides)
    changed = [k for k in differ if k not in overrides]
    if changed:
        what = ", ".join(f"{k} = {short_text(ran.get(k, '<unset>'))} "
                         f"(baseline {short_text(recorded.get(k, '<unset>'))})" for k in changed)
        return Comparison(name, mode, "parameters",
                          note=f"parameters changed since the baseline was recorded: {what}")
    if differ:
        return Comparison(name, mode, "not compared",
                          note="the caller set " + ", ".join(differ) + ", which the baseline was not recorded with")
    checks = [_check_number(p, spec, results) for p, spec in block.get("numbers", {}).items()]
    status = "ok" if all(c.ok for c in checks) else "drift"
    return Comparison(name, mode, status, checks, auto=bool(block.get("auto")))


def compare_notebook(name, results, *, baselines=None, overrides=()) -> Comparison:
    """:func:`compare` with the baseline ``baselines/NAME.json`` (default: :func:`baselines_dir`).

    Parameters
    ----------
    name : str
        The notebook, without ``.ipynb`` (e.g. ``"01-shapley-games"``).
    results : dict
        The results JSON of its run.
    baselines : path, optional
        The directory of the baselines (default :func:`baselines_dir`).
    overrides : iterable of str
        The parameters the caller set on purpose (see :func:`compare`).

    Returns
    -------
    Comparison
        As :func:`compare` returns it; "no baseline" when the file does not exist.

    Raises
    ------
    ValueError
        From :func:`load_baseline`, when the file is not a valid baseline.

    Examples
    --------
    >>> import tempfile
    >>> from kernelxai.check import compare_notebook
    >>> with tempfile.TemporaryDirectory() as empty:
    ...     result = compare_notebook("01-shapley-games", {"parameters": {}}, baselines=empty)
    >>> result.status, result.cell()
    ('no baseline', '⚠ none')
    """
    directory = Path(baselines) if baselines is not None else baselines_dir()
    return compare(results, load_baseline(directory / f"{name}.json"), name=name, overrides=overrides)


def annotate(results_path, comparison) -> None:
    """Write ``comparison`` into the results JSON at ``results_path`` under ``compared``.

    The file is read, given (or has replaced) its top-level ``compared`` key, the value of
    :meth:`Comparison.as_json`, and rewritten atomically with sorted keys.

    Parameters
    ----------
    results_path : str or Path
        An existing results JSON (written by :func:`kernelxai.workbench.save_results`).
    comparison : Comparison
        The comparison of that run with its baseline.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from kernelxai.check import Comparison
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp) / "results.json"
    ...     _ = path.write_text('{"taxi": [2.0, 5.0, 35.0]}')
    ...     annotate(path, Comparison("demo", "default", "no baseline"))
    ...     print(json.loads(path.read_text())["compared"]["status"])
    no baseline
    """
    path = Path(results_path)
    results = json.loads(path.read_text(encoding="utf-8"))
    results["compared"] = comparison.as_json()
    with atomic_write(path) as fh:
        json.dump(results, fh, indent=2, sort_keys=True, ensure_ascii=False)
        fh.write("\n")

