"""Execute every notebook headlessly, render it to HTML and print what it found.

This is ``make run``: each notebook in notebooks/ runs with papermill (default
parameters unless --smoke/--paper) into build/notebooks/, its key numbers go to
build/results/NAME.json, its HTML to build/html/NAME.html and its log to
build/logs/NAME.log. Nothing is written outside build/ (or --build DIR) unless
--figures is given (``make figures``): then each headline figure also replaces
docs/figures/NAME.png, the figures the README shows (never in --smoke mode),
or --accept (``make run ACCEPT=1``, see below).

Each results JSON is compared with the notebook's baseline,
notebooks/baselines/NAME.json (the numbers it compares, each with a tolerance
and the reason for it; see kernelxai/check.py): the comparison is written into
the results JSON under "compared", and a table at the end lists, per notebook,
the outcome, the time, the baseline check (✓ within tolerance, ✗ drift with the
number, the baseline and the tolerance, ⚠ no baseline yet), the one-line summary
the notebook reported and the HTML. The exit status is 1 if a notebook failed
or drifted. A notebook without a baseline is a warning, not a failure.
Before any kernel starts, the parameter names given to each notebook are
checked against its parameters cell (exit status 2 naming an unknown one).

--accept (``make run ACCEPT=1``, ``make smoke ACCEPT=1``) re-records the
baselines of the notebooks that ran (the default- or smoke-mode block of
notebooks/baselines/NAME.json: the same numbers and tolerances, the new values)
and prints what changed; a new notebook gets a baseline with automatic
tolerances, to be reviewed.

Usage: python scripts/run_notebooks.py [--smoke | --paper] [--figures] [--accept]
                                       [--only NAME ...] [--timeout S] [--build DIR]
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import logging
import os
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
BASELINES = NOTEBOOKS / "baselines"
BUILD = ROOT / "build"
FIGURES = ROOT / "docs" / "figures"


def headline_figure(nb):
    """The PNG of the cell tagged 'headline' (else the first PNG) of an executed notebook."""
    first = None
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if png is None:
                continue
            if "headline" in cell.get("metadata", {}).get("tags", []):
                return png
            first = first or png
    return first


def render_html(nb, target):
    from nbconvert import HTMLExporter

    from kernelxai.workbench._reporting import atomic_write

    body, _ = HTMLExporter().from_notebook_node(nb)
    with atomic_write(target) as fh:
        fh.write(body)


@contextlib.contextmanager
def stderr_to(path):
    """Send this process's stderr, and the kernels' it starts, to ``path`` (file-descriptor level)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(path, "w") as log:
        os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def run_one(path, params, timeout, figures=False, build=BUILD):
    """Execute one notebook into ``build``; with ``figures``, also refresh docs/figures/NAME.png."""
    import nbformat
    import papermill as pm

    from kernelxai.workbench._reporting import atomic_write

    name = path.stem
    out_nb = build / "notebooks" / path.name
    results = build / "results" / f"{name}.json"
    html = build / "html" / f"{name}.html"
    for d in (out_nb.parent, results.parent, html.parent):
        d.mkdir(parents=True, exist_ok=True)
    if results.exists():
        results.unlink()
    start = time.perf_counter()
    error = None
    log = build / "logs" / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        # kernel start-up notices and papermill's parameter parsing go to the log
        with stderr_to(log):
            pm.execute_notebook(
                str(path), str(out_nb),
                parameters={**params, "results_path": str(results)},
                kernel_name="python3", cwd=str(NOTEBOOKS), progress_bar=False,
                execution_timeout=timeout, log_output=False,
            )
    except Exception as exc:  # papermill reports the failing cell in the message
        error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}"
    seconds = time.perf_counter() - start
    summary = ""
    if out_nb.exists():
        nb = nbformat.read(out_nb, as_version=4)
        render_html(nb, html)
        png = headline_figure(nb) if figures else None
        if png:
            with atomic_write(FIGURES / f"{name}.png", "wb") as fh:
                fh.write(base64.b64decode(png))
    data = None
    if results.exists():
        data = json.loads(results.read_text())
        summary = data.get("summary", "")
    elif error is None:
        error = "the notebook wrote no results JSON"
    comparison = None
    if error is None:
        from kernelxai.check import annotate, compare_notebook

        comparison = compare_notebook(name, data, baselines=BASELINES, overrides=params)
        annotate(results, comparison)
    return {"name": name, "ok": error is None, "seconds": seconds, "summary": summary,
            "error": error, "html": _shown(html) if html.exists() else "-",
            "results": data, "comparison": comparison}


def _shown(path):
    """``path`` relative to the repository when inside it, else as is."""
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def print_table(rows):
    width = max(len(r["name"]) for r in rows)
    pad = f"{'':<{width}}  {'':<6}  {'':>7}  {'':<9}  "
    print()
    print(f"{'notebook':<{width}}  status  time     baseline   key results / HTML")
    print("-" * (width + 81))
    for r in rows:
        status = "ok" if r["ok"] else "FAILED"
        text = r["summary"] if r["ok"] else r["error"]
        check = r["comparison"].cell() if r["comparison"] is not None else "-"
        lines = textwrap.wrap(text or "", 70) or [""]
        print(f"{r['name']:<{width}}  {status:<6}  {r['seconds']:6.1f}s  {check:<9}  {lines[0]}")
        for extra in lines[1:]:
            print(pad + extra)
        for note in (r["comparison"].lines() if r["comparison"] is not None else []):
            for part in textwrap.wrap(note, 70, subsequent_indent="    "):
                print(pad + part)
        print(pad + f"-> {r['html']}")


def accept(rows):
    """Re-record the baselines of the notebooks that ran; print what changed."""
    from kernelxai.check import load_baseline, record, write_baseline

    print("\nre-recorded baselines (notebooks/baselines/):")
    for r in rows:
        if not r["ok"]:
            print(f"  {r['name']}: not recorded (the notebook failed)")
            continue
        path = BASELINES / f"{r['name']}.json"
        baseline, diff = record(r["results"], load_baseline(path), name=r["name"], seconds=r["seconds"])
        write_baseline(path, baseline)
        print(f"  {r['name']} ({r['comparison'].mode} mode):")
        for line in diff:
            print(f"    {line}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--smoke", action="store_true", help="tiny sizes (what the tests run)")
    mode.add_argument("--paper", action="store_true", help="the papers' exact settings (slow)")
    ap.add_argument("--only", nargs="*", default=None, help="notebook names to run")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per cell")
    ap.add_argument("--figures", action="store_true",
                    help="also replace docs/figures/NAME.png, the README's figures (make figures)")
    ap.add_argument("--build", type=Path, default=BUILD,
                    help="directory for executed notebooks, results, HTML and logs (default build/)")
    ap.add_argument("--accept", action="store_true",
                    help="re-record the baselines of the notebooks run, showing the diff (make run ACCEPT=1)")
    args = ap.parse_args(argv)
    if args.figures and args.smoke:
        ap.error("--figures cannot be combined with --smoke: smoke-sized figures never replace the README's")
    if args.accept and args.paper:
        ap.error("--accept records default- or smoke-mode baselines; paper runs have none")
    build = args.build.resolve()
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    logging.getLogger("papermill").setLevel(logging.ERROR)
    params = {"smoke": True} if args.smoke else ({"paper": True} if args.paper else {})
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
    if args.only:
        wanted = {n.removesuffix(".ipynb") for n in args.only}
        paths = [p for p in paths if p.stem in wanted]
        missing = wanted - {p.stem for p in paths}
        if missing:
            ap.error(f"no such notebook(s): {', '.join(sorted(missing))}")
    from kernelxai.workbench._reporting import check_parameter_names, notebook_parameters

    try:  # every parameter name, before any kernel starts
        for path in paths:
            check_parameter_names([*params, "results_path"], notebook_parameters(path), notebook=path.stem)
    except ValueError as exc:
        print(f"run_notebooks: {exc}", file=sys.stderr)
        return 2
    rows = []
    total = time.perf_counter()
    for k, path in enumerate(paths, 1):
        print(f"[{k}/{len(paths)}] {path.stem} ...", end=" ", flush=True)
        row = run_one(path, params, args.timeout, figures=args.figures, build=build)
        rows.append(row)
        check = f", baseline {row['comparison'].cell()}" if row["comparison"] is not None else ""
        print(f"{'done' if row['ok'] else 'FAILED'} in {row['seconds']:.0f} s{check}", flush=True)
    print_table(rows)
    failed = [r["name"] for r in rows if not r["ok"]]
    drifted = [r["name"] for r in rows if r["ok"] and r["comparison"].failed]
    unrecorded = [r["name"] for r in rows if r["ok"] and r["comparison"].status == "no baseline"]
    within = sum(1 for r in rows if r["ok"] and r["comparison"].status == "ok")
    print(f"\n{len(rows) - len(failed)}/{len(rows)} notebooks ran in "
          f"{(time.perf_counter() - total) / 60:.1f} min; HTML in {_shown(build / 'html')}/, "
          f"results in {_shown(build / 'results')}/"
          + ("; figures in docs/figures/" if args.figures else ""))
    print(f"baselines: {within} within tolerance"
          + (f", drift in {', '.join(drifted)}" if drifted else "")
          + (f", none yet for {', '.join(unrecorded)}" if unrecorded else "")
          + ("" if args.accept or not (drifted or unrecorded) else
             f" (if intended, re-record: make {'smoke' if args.smoke else 'run'} ACCEPT=1"
             f" NOTEBOOK_ARGS='--only {' '.join(drifted + unrecorded)}')"))
    if failed:
        print("failed:", ", ".join(failed))
    if args.accept:
        accept(rows)
        return 1 if failed else 0
    return 1 if failed or drifted else 0


if __name__ == "__main__":
    sys.exit(main())
