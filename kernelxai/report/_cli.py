"""``python -m kernelxai.report MODEL DATA [-o report.html] ...``: the command line of :func:`~kernelxai.report.report`.

Takes the command-line arguments; hands them to :func:`~kernelxai.report.report` and turns its
outcome into one line on the console and an exit status: 0 the report was written (and nothing
moved), 1 the report failed while running (``kx.explain`` refused the model, a cell failed),
2 the command was refused before anything ran (an unknown option, a missing or untrusted file,
columns that do not match the model), 3 the report was written and the attributions moved beyond
the tolerance (``--compare`` / ``--baseline``). No traceback unless ``--debug``.
"""

from __future__ import annotations

import argparse
import sys

from .._argparse import OneLineParser
from .._suggest import closest
from ..models.convert import OUTPUTS
from ..values import registered
from ._api import DEFAULT_BACKGROUND_ROWS, DEFAULT_POINTS, check_explainable, report, resolve
from ._app import serve_app
from ._load import ReportInputError
from ._numbers import DEFAULT_TOLERANCE
from ._render import ReportFailure

__all__ = ["main", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_DRIFT"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_DRIFT = 0, 1, 2, 3

_EPILOG = f"""exit status: {EXIT_OK} the report was written; {EXIT_FAILED} it failed while running (kx.explain refused
the model, a cell failed: nothing written); {EXIT_USAGE} refused before running (an option, a file, a column:
nothing written); {EXIT_DRIFT} written, and the attributions moved beyond --tolerance (--compare/--baseline).

Model files: a .skops file is loaded when every type in it is trusted (skops's own, scikit-learn's
Gaussian-process kernels, kernelxai's models; more with --trust); a pickle or joblib file only with
--trust-pickle, since loading a pickle runs code stored in it."""


def _choice(kind, accepted):
    """An argparse type accepting one of ``accepted`` (with "did you mean" otherwise)."""
    def check(text):
        if text not in accepted:
            close = closest(text, accepted)
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind}; one of {', '.join(accepted)}"
                                             + (f" (did you mean {close[0]!r}?)" if close else ""))
        return text
    return check


def _number(kind, cast, minimum):
    def check(text):
        try:
            value = cast(text)
        except ValueError:
            value = None
        if value is None or not value >= minimum:
            raise argparse.ArgumentTypeError(f"must be {kind} >= {minimum}; got {text!r}")
        return value
    return check


def _names(text):
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give the column names separated by commas, e.g. --features age,bmi")
    return names


def _parser():
    ap = OneLineParser(prog="python -m kernelxai.report", epilog=_EPILOG,
                 formatter_class=argparse.RawDescriptionHelpFormatter,
                 description="Explain a fitted model on a table: one standalone HTML report (no network needed "
                             "to view it), the executed notebook and a JSON of the numbers next to it.")
    ap.add_argument("model", metavar="MODEL", help="the fitted model: a .skops file (or a pickle/joblib file with "
                                                   "--trust-pickle)")
    ap.add_argument("data", metavar="DATA", help="the table: .csv, .tsv or .parquet (Parquet needs pyarrow)")
    ap.add_argument("-o", "--out", default="report.html", metavar="HTML",
                    help="the HTML report; NAME.ipynb and NAME.json are written next to it (default report.html)")
    ap.add_argument("--target", metavar="COLUMN", help="the label column of DATA, dropped")
    ap.add_argument("--features", type=_names, metavar="A,B,...",
                    help="the model's columns of DATA (default: all but --target; matched to the model's names)")
    ap.add_argument("--points", metavar="ROWS", help=f"rows to explain: 0:20, 3,5,9 (default: {DEFAULT_POINTS} rows "
                                                      "drawn with --seed, or all)")
    ap.add_argument("--background", metavar="FILE", help="the reference rows (a table with the same columns)")
    ap.add_argument("--background-rows", type=_number("an integer", int, 1), default=DEFAULT_BACKGROUND_ROWS,
                    metavar="N", help=f"rows of DATA drawn as the background (default {DEFAULT_BACKGROUND_ROWS})")
    ap.add_argument("--value", type=_choice("value function", registered()), default="interventional",
                    help="the value function (default interventional): " + ", ".join(registered()))
    ap.add_argument("--output", type=_choice("model output", list(OUTPUTS)),
                    help="which output of a classifier or detector: " + ", ".join(OUTPUTS))
    ap.add_argument("--compare", metavar="OTHER_MODEL", help="another model file, explained on the same rows")
    ap.add_argument("--baseline", metavar="JSON", help="the JSON a previous report wrote, to compare with")
    ap.add_argument("--tolerance", type=_number("a number", float, 0.0), default=DEFAULT_TOLERANCE,
                    help="a feature moved when some row's value changed by more than this fraction of the largest "
                         f"mean |value| of a feature (default {DEFAULT_TOLERANCE})")
    ap.add_argument("--trust", action="append", default=[], metavar="TYPE",
                    help="a type a .skops file may hold (repeat for several)")
    ap.add_argument("--trust-pickle", action="store_true",
                    help="load a pickle/joblib MODEL: this runs code stored in the file; only for files you trust")
    ap.add_argument("--seed", type=_number("an integer", int, 0), default=0,
                    help="seeds the row draws, the bootstrap and sampled estimators (default 0)")
    ap.add_argument("--timeout", type=_number("a whole number of seconds", int, 1), default=1800, metavar="S",
                    help="seconds any one cell may run")
    ap.add_argument("--app", action="store_true",
                    help="serve the report notebook on MODEL and DATA as a Voila app (on this machine, with the "
                         "explorer's controls live) until Ctrl-C, instead of writing files; needs kernelxai[app]")
    ap.add_argument("--port", type=_number("a port number", int, 1), metavar="N",
                    help="with --app: the port Voila listens on (default: Voila's)")
    ap.add_argument("--no-browser", action="store_true", help="with --app: do not open a browser")
    ap.add_argument("--quiet", action="store_true", help="no progress on the console")
    ap.add_argument("--debug", action="store_true", help="show the traceback of a failure")
    return ap


def main(argv: list[str] | None = None) -> int:
    """``python -m kernelxai.report``: explain MODEL on DATA and write the report. Returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 written; 1 failed while running (nothing written); 2 refused before running (one line
        on stderr, nothing written); 3 written, and the attributions moved beyond ``--tolerance``.

    Raises
    ------
    SystemExit
        With status 2 for an option argparse refuses (one line, a close option suggested).

    Examples
    --------
    >>> from kernelxai.report import main
    >>> main(["no-such-model.skops", "data.csv"])
    2
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.app and (args.port or args.no_browser):
        parser.error("--port and --no-browser go with --app")
    try:
        if args.app:
            return _app(args)
        result = report(args.model, args.data, target=args.target, features=args.features, points=args.points,
                        background=args.background, background_rows=args.background_rows, value=args.value,
                        output=args.output, compare=args.compare, baseline=args.baseline, tolerance=args.tolerance,
                        out=args.out, seed=args.seed, trust=args.trust, trust_pickle=args.trust_pickle,
                        progress=not args.quiet, timeout=args.timeout)
    except Exception as exc:
        if args.debug:
            raise
        known = isinstance(exc, (ReportInputError, ReportFailure))
        print(f"kernelxai.report: error: {exc if known else f'{type(exc).__name__}: {exc}'}"
              + ("" if known else " (run with --debug for the traceback)"), file=sys.stderr)
        return EXIT_USAGE if isinstance(exc, ReportInputError) else EXIT_FAILED
    for name, drift in result.drift.items():
        against = "--baseline" if name == "baseline" else "--compare"
        print(f"kernelxai.report: {against}: " + (
            f"the attributions of {', '.join(drift.moved)} moved beyond the tolerance {drift.tolerance:g} "
            f"(largest change {drift.table['max_relative'].max():.3g} of the scale)" if drift.moved
            else f"no feature moved beyond the tolerance {drift.tolerance:g} "
                 f"(largest change {drift.table['max_relative'].max():.2g} of the scale)"))
    return EXIT_OK if result.ok else EXIT_DRIFT


def _app(args) -> int:
    """``--app``: resolve and check the inputs as for a report, then serve the notebook on them with Voila."""
    echo = (lambda text: print(f"kernelxai.report: {text}", flush=True)) if not args.quiet else (lambda text: None)
    inputs, notes = resolve(args.model, args.data, target=args.target, features=args.features, points=args.points,
                            background=args.background, background_rows=args.background_rows, value=args.value,
                            output=args.output, compare=args.compare, baseline=args.baseline,
                            tolerance=args.tolerance, seed=args.seed, trust=args.trust,
                            trust_pickle=args.trust_pickle)
    echo(f"{len(inputs.points)} points, {len(inputs.background)} background rows; {notes}")
    check_explainable(inputs, echo)
    return serve_app(inputs, seed=args.seed, port=args.port, open_browser=not args.no_browser, echo=echo)
