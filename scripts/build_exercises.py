"""Exercise notebooks: instructor versions from their sources, student versions for a class.

Three jobs, one format:

* ``python scripts/build_exercises.py --sources`` writes the instructor
  notebooks ``notebooks/exercises/NN-topic.ipynb`` (solutions included,
  committed) from their percent-format sources ``notebooks/exercises/src/NN-topic.py``;
  ``--check`` only reports notebooks that differ from their sources.
* ``python scripts/build_exercises.py`` (what ``make exercises`` runs) writes
  the student versions into ``build/exercises/``: every solution region is
  replaced by nbgrader's stub and every hidden-test region is removed, as
  ``nbgrader generate_assignment`` would (its ClearSolutions and
  ClearHiddenTests steps) -- without nbgrader installed. Outputs are cleared.
* :func:`student_version` / :func:`parse` are importable (tests, slides).

The solution format is nbgrader's, so a course can import the instructor
notebooks into nbgrader unchanged:

* in code, ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` (replaced by
  ``# YOUR CODE HERE`` / ``raise NotImplementedError()``, indented like the
  delimiter) and ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS``
  (removed);
* cell metadata ``nbgrader``: solution cells ``{"solution": true, "grade": false,
  "locked": false, "grade_id": ..., "schema_version": 3, "task": false}``,
  autograder-test cells ``{"grade": true, "solution": false, "locked": true,
  "points": 1, ...}``.

Every solution region sits inside a function body, so the student version
*runs*: defining the function works, calling it raises NotImplementedError,
and ``kx.exercises.check`` reports that as a failed check instead of an
error. Hidden tests (``assert result``) exist only in the instructor
version, where nbgrader's autograder runs them.

Source format (percent cells, like notebooks/src/, with extra header keys)::

    # %% [markdown]                 a markdown cell ("# " prefixes stripped)
    # %% tags=["parameters"]        tags, as in notebooks/src/
    # %% solution="shapley-exact"   an nbgrader solution cell (grade_id = the task id)
    # %% check="shapley-exact"      an nbgrader autograder-test cell (grade_id "<id>-check", 1 point)
    # %% slide="skip"               reveal.js slide type: slide, subslide, fragment, skip, notes, -

Slide types default to: "slide" for markdown starting with ``#`` or ``##``,
"subslide" for ``###`` and for markdown right after a check cell, "fragment"
for solution cells, "skip" for the parameters cell, "-" (same slide) for the rest.

Usage: python scripts/build_exercises.py [--sources | --check] [--out DIR] [NAME ...]
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_notebooks import split_cells, sync  # one percent-format reader and writer

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "notebooks" / "exercises"
SRC = EXERCISES / "src"
OUT = ROOT / "build" / "exercises"

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
HEADER = re.compile(r"^# %%(?P<md> \[markdown\])?(?P<rest>.*)$")
KEY = re.compile(r"\s*([A-Za-z_]+)=")
SLIDE_TYPES = ("slide", "subslide", "fragment", "skip", "notes", "-")

#: nbgrader's defaults (nbgrader.preprocessors.ClearSolutions / ClearHiddenTests)
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
SCHEMA_VERSION = 3


# --------------------------------------------------------------------------- #
# percent sources -> instructor notebooks
# --------------------------------------------------------------------------- #
def _header_options(rest, where):
    """``key=JSON key=JSON ...`` after ``# %%`` as a dict."""
    options, pos, rest = {}, 0, rest.rstrip()
    decoder = json.JSONDecoder()
    while pos < len(rest):
        m = KEY.match(rest, pos)
        if not m:
            raise ValueError(f"{where}: cannot read the cell header options {rest!r} "
                             "(expected key=JSON pairs, e.g. tags=[\"parameters\"] solution=\"task-id\")")
        try:
            value, end = decoder.raw_decode(rest, m.end())
        except json.JSONDecodeError as err:
            raise ValueError(f"{where}: option {m.group(1)!r} is not valid JSON ({err})") from None
        options[m.group(1)] = value
        pos = end
        while pos < len(rest) and rest[pos] == " ":
            pos += 1
    unknown = set(options) - {"tags", "solution", "check", "slide", "points"}
    if unknown:
        raise ValueError(f"{where}: unknown cell option(s) {sorted(unknown)}; accepted: tags, "
                         "solution, check, slide, points")
    return options


def parse(text, name="<source>"):
    """Percent-format text -> list of (cell_type, source, options)."""
    return split_cells(text, HEADER, lambda m, where: _header_options(m.group("rest"), where), name)


def _slide_type(kind, source, options, previous=None):
    if "slide" in options:
        if options["slide"] not in SLIDE_TYPES:
            raise ValueError(f"slide={options['slide']!r}; accepted: {', '.join(SLIDE_TYPES)}")
        return options["slide"]
    if "parameters" in options.get("tags", []):
        return "skip"
    if "solution" in options:
        return "fragment"
    if kind == "markdown":
        first = source.lstrip().split("\n", 1)[0]
        if re.match(r"^#{1,2} ", first):
            return "slide"
        if first.startswith("### ") or (previous is not None and "check" in previous):
            return "subslide"      # new prose after a task's check: a slide of its own
    return "-"


def _nbgrader(options):
    if "solution" in options and "check" in options:
        raise ValueError("a cell is either a solution cell or an autograder-test cell, not both")
    if "solution" in options:
        return {"grade": False, "grade_id": str(options["solution"]), "locked": False,
                "schema_version": SCHEMA_VERSION, "solution": True, "task": False}
    if "check" in options:
        return {"grade": True, "grade_id": f"{options['check']}-check", "locked": True,
                "points": options.get("points", 1), "schema_version": SCHEMA_VERSION,
                "solution": False, "task": False}
    return None


def to_notebook(cells):
    """The instructor notebook (a JSON-ready dict) of parsed cells."""
    nb_cells = []
    for i, (kind, source, options) in enumerate(cells):
        meta = {}
        grader = _nbgrader(options)
        if grader is not None:
            meta["nbgrader"] = grader
        previous = cells[i - 1][2] if i else None
        meta["slideshow"] = {"slide_type": _slide_type(kind, source, options, previous)}
        if options.get("tags"):
            meta["tags"] = list(options["tags"])
        cell = {"cell_type": kind, "id": f"cell-{i:02d}", "metadata": meta, "source": source}
        if kind == "code":
            cell["execution_count"] = None
            cell["outputs"] = []
        nb_cells.append(cell)
    nb = {"cells": nb_cells,
          "metadata": {"kernelspec": KERNELSPEC,
                       "language_info": {"name": "python", "pygments_lexer": "ipython3"}},
          "nbformat": 4, "nbformat_minor": 5}
    validate(nb)
    return nb


def render(path):
    """The instructor notebook of the source at ``path``, as the text written to disk."""
    return json.dumps(to_notebook(parse(path.read_text(), path.name)), indent=1, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------- #
# nbgrader's rules, and the student version
# --------------------------------------------------------------------------- #
def _source(cell):
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def validate(nb):
    """Check the nbgrader metadata as nbgrader would (schema 3): ids, points, regions, markdown rules."""
    seen = set()
    for position, cell in enumerate(nb["cells"], 1):
        meta = cell.get("metadata", {}).get("nbgrader")
        src = _source(cell)
        where = f"cell {position} ({src.strip().splitlines()[0] if src.strip() else 'empty'!r})"
        has_solution = any(line.strip() == BEGIN_SOLUTION for line in src.split("\n"))
        has_hidden = BEGIN_HIDDEN in src
        if meta is not None:
            _validate_metadata(meta, where, seen)
        if has_solution and not (meta or {}).get("solution"):
            raise ValueError(f"{where}: a solution region in a cell not marked as a solution cell")
        if has_hidden and not (meta or {}).get("grade"):
            raise ValueError(f"{where}: a hidden-test region in a cell not marked as a grade cell")
        if meta is not None and cell["cell_type"] == "markdown" and meta["grade"] != meta["solution"]:
            raise ValueError(f"{where}: a markdown cell must be both a grade and a solution cell, or neither")


def _validate_metadata(meta, where, seen):
    """One cell's nbgrader metadata: the schema's keys, a unique grade_id, points for a grade cell."""
    for key in ("schema_version", "grade", "locked", "solution"):
        if key not in meta:
            raise ValueError(f"{where}: nbgrader metadata lacks {key!r}")
    if meta["grade"] or meta["solution"] or meta["locked"]:
        gid = meta.get("grade_id", "")
        if not re.fullmatch(r"[A-Za-z0-9_\-]+", gid):
            raise ValueError(f"{where}: grade_id {gid!r} must be non-empty letters, digits, _ or -")
        if gid in seen:
            raise ValueError(f"{where}: duplicate grade_id {gid!r}")
        seen.add(gid)
    if meta["grade"] and "points" not in meta:
        raise ValueError(f"{where}: a grade cell needs points")


def _replace_solutions(source, stub):
    """nbgrader's ClearSolutions on one cell: (new source, whether a region was replaced)."""
    out, inside, replaced = [], False, False
    for line in source.split("\n"):
        if line.strip() == BEGIN_SOLUTION:
            if inside:
                raise ValueError("nested ### BEGIN SOLUTION")
            inside = replaced = True
            indent = line[:line.index(BEGIN_SOLUTION)]
            out.extend(indent + s for s in stub.split("\n"))
        elif line.strip() == END_SOLUTION:
            if not inside:
                raise ValueError("### END SOLUTION without ### BEGIN SOLUTION")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError("### BEGIN SOLUTION without ### END SOLUTION")
    return "\n".join(out), replaced


def _remove_hidden_tests(source):
    """nbgrader's ClearHiddenTests on one cell."""
    out, inside = [], False
    for line in source.split("\n"):
        if BEGIN_HIDDEN in line:
            if inside:
                raise ValueError("nested BEGIN HIDDEN TESTS")
            inside = True
        elif END_HIDDEN in line:
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError("BEGIN HIDDEN TESTS without END HIDDEN TESTS")
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out)


def student_version(nb, *, keep_solutions=False):
    """The student version of an instructor notebook (a new dict; ``nb`` is not modified).

    Solution regions become nbgrader's stub (a whole solution cell without a
    region becomes the stub, as in nbgrader), hidden tests are removed,
    outputs and execution counts cleared. ``keep_solutions=True`` keeps the
    solutions and removes only the hidden tests (the deck shown in class).
    """
    validate(nb)
    nb = copy.deepcopy(nb)
    for cell in nb["cells"]:
        src = _source(cell)
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not keep_solutions:
            stub = CODE_STUB if cell["cell_type"] == "code" else TEXT_STUB
            src, replaced = _replace_solutions(src, stub)
            if meta.get("solution") and not replaced:
                src = stub
        src = _remove_hidden_tests(src)
        cell["source"] = src
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    nb["metadata"].pop("celltoolbar", None)
    return nb


def write_student_versions(out_dir=OUT, names=None):
    """Student versions of notebooks/exercises/*.ipynb into ``out_dir``; returns the paths written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(EXERCISES.glob("[0-9][0-9]-*.ipynb")):
        if names and path.stem not in names:
            continue
        nb = student_version(json.loads(path.read_text()))
        target = out_dir / path.name
        target.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
        written.append(target)
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="notebook names (default: all)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--sources", action="store_true",
                      help="rebuild notebooks/exercises/*.ipynb from notebooks/exercises/src/*.py")
    mode.add_argument("--check", action="store_true",
                      help="exit 1 if a notebook in notebooks/exercises differs from its source")
    ap.add_argument("--out", default=str(OUT), help="where the student versions go (default: build/exercises)")
    args = ap.parse_args(argv)
    names = {n.removesuffix(".py").removesuffix(".ipynb") for n in args.names}
    if args.sources or args.check:
        sources = [src for src in sorted(SRC.glob("*.py")) if not names or src.stem in names]
        return sync(sources, EXERCISES, render, check=args.check,
                    rebuild="python scripts/build_exercises.py --sources")
    written = write_student_versions(args.out, names)
    if not written:
        print("no exercise notebooks found in notebooks/exercises/", file=sys.stderr)
        return 1
    for path in written:
        try:
            shown = path.relative_to(ROOT)
        except ValueError:
            shown = path
        print(f"wrote {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
