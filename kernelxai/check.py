"""The notebooks as regression tests: recorded baselines, drift, and ``python -m kernelxai.check``.

Every notebook writes its key numbers to a results JSON, and
``notebooks/baselines/NAME.json`` records, per mode, which of them are compared, with a value, a
tolerance and the reason for it (the format, the JSON pointers and the drift rules are described in
the user guide's "Checking the results").

Usage::

    python -m kernelxai.check [--smoke] [--only NAME ...] [--output DIR] [--timeout S]

runs the notebooks shipped with kernelxai (or, from a clone, the repository's
``notebooks/``) with papermill, compares every results JSON with its baseline
and writes ``report.md`` and ``report.html`` in DIR (default
``kernelxai-check``). It exits 0 when every notebook ran and every compared
number is within its tolerance, 1 otherwise, and 2 with one line naming the
problem when an option is refused (a timeout that is not a positive number of
seconds, an output path that is a file, an unknown option, notebook or
parameter) before anything runs.

This module is the command line; the work is done in private modules of
:mod:`kernelxai.workbench` (loading and comparing baselines, recording them, running the
notebooks, writing the report), whose public names are listed here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._argparse import OneLineParser
from .workbench._baseline_recording import auto_numbers, environment, record, write_baseline
from .workbench._check_report import write_report  # noqa: F401 - public here, not in __all__ (as before)
from .workbench._json_values import resolve_pointer
from .workbench._notebook_baselines import (  # noqa: F401 - FORMAT, MODES, annotate: public here, not in __all__ (as before)
    FORMAT,
    MODES,
    Comparison,
    NumberCheck,
    annotate,
    baselines_dir,
    comparable,
    compare,
    compare_notebook,
    is_timing_key,
    load_baseline,
    mode_of,
    notebooks_dir,
)
from .workbench._notebook_runner import check_requirements, run_check

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


def _seconds(text):
    """``--timeout``: a positive whole number of seconds."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number of seconds; got {text!r}")
    return value


def _directory(text):
    """``--output``: a directory, existing or to be made (no file in the way)."""
    path = Path(text)
    for existing in (path, *path.parents):
        if existing.exists():
            if not existing.is_dir():
                what = "is a file" if existing == path else f"cannot be made: {existing} is a file"
                raise argparse.ArgumentTypeError(f"{text} {what}, not a directory")
            break
    return text


def main(argv=None) -> int:
    """``python -m kernelxai.check``: see the module docstring. Returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The command-line arguments after the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 when every notebook ran and matches its baseline, 1 otherwise (each failure is
        printed, with where the report is), 2 when the run was refused before it started (no
        notebooks extra, no notebooks, an unknown notebook or parameter: one line on stderr).

    Raises
    ------
    SystemExit
        With status 2 and one line on stderr for an option argparse refuses: an unknown
        option (with a close one suggested), a ``--timeout`` that is not a positive whole
        number, an ``--output`` that is or lies under a file.

    Examples
    --------
    >>> from kernelxai.check import main
    >>> main(["--only", "no-such-notebook"])  # refused before anything runs
    2
    >>> try:
    ...     main(["--timeout", "-5"])
    ... except SystemExit as exit:
    ...     print(exit.code)
    2
    """
    ap = OneLineParser(
        prog="python -m kernelxai.check",
        description="Run kernelxai's notebooks with papermill, compare their key numbers with the recorded "
                    "baselines and write a Markdown and HTML report.")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: a few minutes for all notebooks")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="notebooks to run (default: all)")
    ap.add_argument("--output", type=_directory, default="kernelxai-check", metavar="DIR",
                    help="directory for the report, results, executed notebooks and logs (default kernelxai-check)")
    ap.add_argument("--timeout", type=_seconds, default=1800, metavar="S",
                    help="seconds any one cell may run (a positive integer)")
    args = ap.parse_args(argv)
    try:
        check_requirements()          # before looking for the notebooks, as run_check does
        rows = run_check(smoke=args.smoke, only=args.only, output=args.output, timeout=args.timeout,
                         notebooks=notebooks_dir())   # looked up here, so a test may replace it
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
