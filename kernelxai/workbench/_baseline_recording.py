"""Recording a run as a notebook's baseline (``make run ACCEPT=1``): the compared numbers keep their
tolerances and reasons and take the run's values; a new notebook gets automatic tolerances.

Takes a default- or smoke-mode results JSON and the current baseline (``_notebook_baselines``); hands on
the new baseline, the lines of its diff, and the file written for readable diffs.
"""

from __future__ import annotations

import copy
import importlib
import json
import platform
from importlib import metadata

from threadpoolctl import threadpool_info

from ._json_values import describe_change, flat_items, is_numeric, pointer_of, resolve_pointer, same_value, short_text
from ._notebook_baselines import FORMAT, MODES, is_timing_key, mode_of, run_parameters
from ._reporting import atomic_write

__all__ = ["environment", "auto_numbers", "record", "write_baseline"]

#: keys of a results JSON that are never compared: free text, the run's parameters, our own annotation
_NOT_NUMBERS = ("summary", "parameters", "compared")


def environment() -> dict:
    """The versions a baseline was recorded with (Python, numpy, scipy, scikit-learn, BLAS, machine).

    Returns
    -------
    dict
        ``python``, ``machine`` and ``system`` from :mod:`platform`; the installed versions of
        ``kernelxai``, ``numpy``, ``scipy`` and ``scikit-learn`` (None for one not installed);
        ``blas``, the BLAS libraries numpy loaded as threadpoolctl reports them (None when it
        reports none). Stored under ``recorded`` in a baseline's mode; reported, never compared.

    Examples
    --------
    >>> from kernelxai.check import environment
    >>> sorted(environment())
    ['blas', 'kernelxai', 'machine', 'numpy', 'python', 'scikit-learn', 'scipy', 'system']
    """
    env = {"python": platform.python_version(), "machine": platform.machine(), "system": platform.system()}
    for dist in ("kernelxai", "numpy", "scipy", "scikit-learn"):
        try:
            env[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            env[dist] = None
    try:
        importlib.import_module("numpy")  # loads the BLAS that threadpoolctl reports
        blas = [f"{i.get('internal_api')} {i.get('version')}" for i in threadpool_info()
                if i.get("user_api") == "blas"]
        env["blas"] = ", ".join(sorted(set(blas))) or None
    except Exception:  # pragma: no cover - reporting only
        env["blas"] = None
    return env


def _auto_spec(v):
    """The automatic tolerance of one leaf of a results JSON, or None (the leaf is not compared)."""
    if is_numeric(v) and list(flat_items(v)):
        values = [abs(x) for _, x in flat_items(v)]
        if max(values) < 1e-9:
            return {"value": v, "abs": 1e-9, "rel": 0.0,
                    "reason": "auto: an identity's rounding error; passes while below 1e-9"}
        return {"value": v, "abs": 1e-12, "rel": 1e-6,
                "reason": "auto: seeded, reproduces to rounding on the recording machine; review"}
    if isinstance(v, bool) or (isinstance(v, str) and len(v) <= 80 and "/" not in v and "\\" not in v) \
            or (isinstance(v, list) and v and all(isinstance(e, str) and len(e) <= 80 for e in v)):
        return {"value": v, "abs": 0.0, "rel": 0.0, "reason": "auto: compared exactly"}
    return None


def auto_numbers(results) -> dict:
    """A first set of compared numbers for a notebook without a baseline: every non-timing leaf.

    Every number, list of numbers, bool or short string of ``results`` is
    compared, except the summary, the parameters and timings
    (:func:`is_timing_key`). Values below 1e-9 in magnitude are taken to be
    rounding errors of an identity (tolerance abs 1e-9); other numbers get
    rel 1e-6, which a seeded run on the same machine meets; strings, bools
    and lists of strings are compared exactly. The tolerances are a starting
    point, marked ``"auto": true``: review them and give each a reason.

    Parameters
    ----------
    results : dict
        A notebook's results JSON. Dicts, and lists of dicts, are walked into; long strings
        (over 80 characters), strings that look like paths and None are left out.

    Returns
    -------
    dict
        JSON pointer -> ``{"value", "abs", "rel", "reason"}``, the ``numbers`` block of a
        baseline's mode.

    Examples
    --------
    >>> from kernelxai.check import auto_numbers
    >>> run = {"parameters": {"seed": 0}, "taxi": [2.0, 5.0, 35.0], "gap": 1e-12, "best": "rbf", "fit_seconds": 1.2}
    >>> numbers = auto_numbers(run)
    >>> {pointer: (spec["abs"], spec["rel"]) for pointer, spec in numbers.items()}
    {'/taxi': (1e-12, 1e-06), '/gap': (1e-09, 0.0), '/best': (0.0, 0.0)}
    """
    out = {}

    def leaf(keys, v):
        spec = _auto_spec(v)
        if spec is not None:
            out[pointer_of(keys)] = spec

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


def _template(baseline, mode, results, name):
    """``(numbers, auto, diff)``: the compared numbers a mode's recording starts from, and why.

    The mode's own numbers; else the other mode's (a new mode); else :func:`auto_numbers`
    (a new notebook).
    """
    old_block = baseline["modes"].get(mode)
    if old_block is not None:
        return old_block.get("numbers", {}), bool(old_block.get("auto")), []
    other = next((baseline["modes"][m] for m in MODES if m in baseline["modes"]), None)
    if other is not None:
        return (other.get("numbers", {}), bool(other.get("auto")),
                [f"new {mode}-mode baseline, comparing the numbers of the other mode"])
    template = auto_numbers(results)
    return template, True, [f"new baseline: {len(template)} numbers with automatic tolerances "
                            f"(review them in notebooks/baselines/{name}.json)"]


def _parameters_change(before, now):
    """One diff line naming the parameters that changed, with both values."""
    keys = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
    return "  parameters: " + ", ".join(
        f"{k} {short_text(before.get(k, '<unset>'))} -> {short_text(now.get(k, '<unset>'))}" for k in keys)


def record(results, baseline, *, name, seconds=None) -> tuple[dict, list[str]]:
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

    Returns
    -------
    baseline : dict
        A new baseline (``baseline`` is not modified) whose block for the run's mode holds the
        run's parameters, :func:`environment`, ``seconds`` rounded to 0.1 s when given,
        ``"auto": true`` when the tolerances are automatic, and the numbers with the run's
        values.
    diff : list of str
        One line per change worth reading: a new baseline or mode, each value that changed
        (the pair for a number, the largest change for a list), each pointer dropped, the
        parameters that changed; ``["  unchanged"]`` when nothing did.

    Raises
    ------
    ValueError
        For a paper-mode run (paper runs have no baselines).

    Examples
    --------
    >>> from kernelxai.check import record
    >>> first, diff = record({"parameters": {"seed": 0}, "taxi": [2.0, 5.0, 35.0]}, None, name="demo")
    >>> diff
    ['new baseline: 1 numbers with automatic tolerances (review them in notebooks/baselines/demo.json)']
    >>> second, diff = record({"parameters": {"seed": 0}, "taxi": [2.0, 5.5, 35.0]}, first, name="demo", seconds=3.14)
    >>> diff, second["modes"]["default"]["seconds"]
    (['  /taxi: 1 of 3 entries changed, most at [1]: 5 -> 5.5'], 3.1)
    """
    mode = mode_of(results)
    if mode not in MODES:
        raise ValueError(f"{name}: only default and smoke runs are recorded as baselines; this is a {mode} run")
    new = copy.deepcopy(baseline) if baseline is not None else {"notebook": name, "format": FORMAT, "modes": {}}
    old_block = new["modes"].get(mode)
    template, auto, diff = _template(new, mode, results, name)
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
            if not same_value(before, value):
                changed += 1
                diff.append(f"  {pointer}: {describe_change(before, value)}")
    params_before = (old_block or {}).get("parameters")
    params_now = run_parameters(results)
    if params_before is not None and params_before != params_now:
        diff.append(_parameters_change(params_before, params_now))
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


def write_baseline(path, baseline) -> None:
    """Write a baseline atomically, formatted for readable diffs.

    Dicts are written one key a line and lists of scalars on one line, so that re-recording a
    baseline changes only the lines of the values that moved.

    Parameters
    ----------
    path : str or Path
        The file, normally ``notebooks/baselines/NAME.json``; replaced if it exists (its
        directory must exist).
    baseline : dict
        A baseline as :func:`record` returns it.

    Raises
    ------
    ValueError
        When the baseline holds NaN or an infinity (not valid JSON); the file is then left as
        it was.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from kernelxai.check import write_baseline
    >>> from kernelxai.check import load_baseline
    >>> baseline = {"notebook": "demo", "format": 1,
    ...             "modes": {"default": {"numbers": {"/taxi": {"value": [2.0, 5.0]}}}}}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp) / "demo.json"
    ...     write_baseline(path, baseline)
    ...     lines = path.read_text().splitlines()
    ...     print(len(lines), lines[7].strip(), load_baseline(path) == baseline)
    13 "value": [2.0, 5.0] True
    """
    with atomic_write(path) as fh:
        fh.write(_dumps(baseline) + "\n")

