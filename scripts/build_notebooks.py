"""Build notebooks/NN-topic.ipynb from their sources notebooks/src/NN-topic.py.

The sources are plain Python in the "percent" format, so that reviews and
diffs are readable:

    # %% [markdown]
    # # A title
    # Some prose.

    # %% tags=["parameters"]
    smoke = False

    # %%
    import kernelxai as kx

The report notebook of ``python -m kernelxai.report`` is built the same way, from
notebooks/report/report.py into the package: kernelxai/report/report.ipynb (the name ``report``).

Usage: python scripts/build_notebooks.py [--check] [NAME ...]
``--check`` exits 1 (listing them) if any notebook differs from its source.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
OUT = ROOT / "notebooks"
#: the report notebook's source and where it is built (shipped inside the package)
REPORT_SRC = ROOT / "notebooks" / "report" / "report.py"
REPORT_OUT = ROOT / "kernelxai" / "report"

HEADER = re.compile(r"^# %%(?P<md> \[markdown\])?(?: tags=(?P<tags>\[.*\]))?\s*$")

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def split_cells(text, header, read_header, name="<source>"):
    """Split percent-format text into (cell_type, source, header_value) triples.

    ``header`` matches a ``# %%`` line (group ``md`` marks markdown);
    ``read_header(match, where)`` turns the rest of the line into the value
    kept with the cell (tags here, nbgrader options in build_exercises.py).
    """
    cells, current = [], None
    for number, line in enumerate(text.splitlines(), 1):
        m = header.match(line)
        if m:
            if current is not None:
                cells.append(current)
            current = ("markdown" if m.group("md") else "code", [], read_header(m, f"{name}:{number}"))
            continue
        if current is None:
            if line.strip():
                raise ValueError(f"{name}:{number}: text before the first '# %%' cell header: {line!r}")
            continue
        current[1].append(line)
    if current is not None:
        cells.append(current)
    return [(kind, _cell_source(kind, lines), value) for kind, lines, value in cells]


def _cell_source(kind, lines):
    """A cell's lines without blank lines at either end (and markdown without its ``#``) as one text."""
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    if kind == "markdown":
        lines = [ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in lines]
    return "\n".join(lines)


def parse(text):
    """Split percent-format text into (cell_type, source, tags) triples."""
    return split_cells(text, HEADER,
                       lambda m, where: ast.literal_eval(m.group("tags")) if m.group("tags") else [])


def to_notebook(cells):
    nb_cells = []
    for i, (kind, source, tags) in enumerate(cells):
        cell = {"cell_type": kind, "id": f"cell-{i:02d}", "metadata": {}, "source": source}
        if tags:
            cell["metadata"]["tags"] = list(tags)
        if kind == "code":
            cell["execution_count"] = None
            cell["outputs"] = []
        nb_cells.append(cell)
    return {
        "cells": nb_cells,
        "metadata": {
            "kernelspec": KERNELSPEC,
            "language_info": {"name": "python", "pygments_lexer": "ipython3"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def render(path):
    nb = to_notebook(parse(path.read_text()))
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="notebook names (default: all sources)")
    ap.add_argument("--check", action="store_true", help="only report notebooks out of date")
    args = ap.parse_args(argv)
    sources = sorted(SRC.glob("*.py"))
    wanted = {n.removesuffix(".py").removesuffix(".ipynb") for n in args.names}
    if args.names:
        sources = [p for p in sources if p.stem in wanted]
    status = sync(sources, OUT, render, check=args.check, rebuild="python scripts/build_notebooks.py")
    if not args.names or REPORT_SRC.stem in wanted:
        status |= sync([REPORT_SRC], REPORT_OUT, render, check=args.check, rebuild="python scripts/build_notebooks.py")
    return status


def sync(sources, out_dir, render, *, check, rebuild):
    """Write (or, with ``check``, only compare) ``out_dir/NAME.ipynb`` for each source.

    Returns the exit status: 1 when ``check`` finds notebooks out of date (listed,
    with the command ``rebuild`` that refreshes them), else 0.
    """
    stale = []
    for src in sources:
        target = out_dir / f"{src.stem}.ipynb"
        text = render(src)
        if target.exists() and target.read_text() == text:
            continue
        if check:
            stale.append(target.name)
        else:
            target.write_text(text)
            print(f"wrote {target.relative_to(ROOT)}")
    if stale:
        print(f"out of date (run `{rebuild}`):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
