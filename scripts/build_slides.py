"""reveal.js slides of the exercise notebooks that open with no network (``make slides``).

For each exercise notebook (``notebooks/exercises/NN-topic.ipynb``) this

1. takes the deck shown in class: the instructor version with the nbgrader
   hidden tests removed (solutions are ``fragment`` cells: they appear on the
   next click) -- or, with ``--student``, the student version;
2. executes it (nbconvert's ExecutePreprocessor, kernel ``python3``), so the
   figures and the ✓/✗ lines of the checks are in the deck;
3. renders it with nbconvert's SlidesExporter and the template in
   ``scripts/slides_template/kernelxai_reveal`` into ``build/slides/NN-topic.slides.html``.

The slide structure comes from each cell's ``slideshow.slide_type`` metadata
(scripts/build_exercises.py sets it from the sources).

**Offline.** nbconvert's own reveal template loads reveal.js, RequireJS,
jQuery and MathJax from CDNs, so its decks are blank without a network. Here
every deck is one self-contained HTML file: reveal.js (JS and CSS) is inlined,
figures are embedded as data URIs, and formulas are converted to MathML at
build time with ``latex2mathml`` (browsers render MathML natively; no MathJax).
The build refuses to write a deck that still references an ``http(s)`` script
or stylesheet.

**Where reveal.js comes from** (first found wins): ``--reveal DIR`` or the
environment variable ``KERNELXAI_REVEAL_DIR`` (a reveal.js 4/5 directory with
``dist/reveal.js``); an installed ``sphinx-revealjs`` package (which ships
reveal.js); the cache ``build/.cache/revealjs``; else ``pip download --no-deps``
of the pinned ``sphinx-revealjs`` wheel from the package index, of which only
reveal.js's ``dist/reveal.js``, ``dist/reveal.css``, the white theme and the
licence are kept in the cache (Sphinx itself is not installed). Building needs
the ``slides`` extra (``latex2mathml``) and, once, the package index; viewing
needs nothing.

Usage: python scripts/build_slides.py [--student] [--no-execute] [--out DIR] [--reveal DIR] [NAME ...]
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_exercises import BEGIN_SOLUTION, END_SOLUTION, EXERCISES, student_version  # noqa: E402

OUT = ROOT / "build" / "slides"
CACHE = ROOT / "build" / ".cache" / "revealjs"
TEMPLATES = Path(__file__).resolve().parent / "slides_template"
TEMPLATE = "kernelxai_reveal"
#: the package-index wheel reveal.js is taken from when no copy is at hand (reveal.js 5.2)
REVEAL_WHEEL = "sphinx-revealjs==3.2.1"
REVEAL_IN_WHEEL = "sphinx_revealjs/_static/revealjs/"
REVEAL_FILES = ("dist/reveal.js", "dist/reveal.css", "dist/theme/white.css", "LICENSE")
ONLINE = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//", re.I)


class SlidesError(RuntimeError):
    """A deck cannot be built (no reveal.js, no latex2mathml, a cell failed, a network reference)."""


# --------------------------------------------------------------------------- #
# reveal.js, offline
# --------------------------------------------------------------------------- #
def _has_reveal(path):
    return path is not None and all((Path(path) / f).is_file() for f in REVEAL_FILES[:3])


def reveal_dir(explicit=None, cache=CACHE, download=True):
    """A directory holding reveal.js's ``dist/`` files, found or fetched as the module docstring says."""
    for candidate in (explicit, os.environ.get("KERNELXAI_REVEAL_DIR")):
        if candidate:
            if not _has_reveal(candidate):
                raise SlidesError(f"{candidate} is not a reveal.js directory: it needs "
                                  f"{', '.join(REVEAL_FILES[:3])}")
            return Path(candidate)
    import importlib.util

    spec = importlib.util.find_spec("sphinx_revealjs")
    if spec is not None and spec.origin:
        installed = Path(spec.origin).parent / "_static" / "revealjs"
        if _has_reveal(installed):
            return installed
    cache = Path(cache)
    if _has_reveal(cache):
        return cache
    if not download:
        raise SlidesError("reveal.js not found (give --reveal DIR, or allow the download)")
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                               "--dest", tmp, REVEAL_WHEEL], capture_output=True, text=True)
        wheels = list(Path(tmp).glob("*.whl"))
        if done.returncode != 0 or not wheels:
            raise SlidesError(
                f"could not fetch reveal.js ({REVEAL_WHEEL} from the package index): "
                f"{(done.stderr or done.stdout).strip()[-500:]}\nGive a local copy instead: "
                "--reveal DIR (a reveal.js 4 or 5 directory with dist/reveal.js) or "
                "`pip install sphinx-revealjs`")
        with zipfile.ZipFile(wheels[0]) as wheel:
            for name in REVEAL_FILES:
                target = cache / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(wheel.read(REVEAL_IN_WHEEL + name))
        (cache / "SOURCE").write_text(f"{REVEAL_WHEEL} ({wheels[0].name}, sha256 "
                                      f"{hashlib.sha256(wheels[0].read_bytes()).hexdigest()})\n")
    return cache


def _offline_resources(reveal, title, width=1100, height=780):
    reveal = Path(reveal)
    js = (reveal / "dist" / "reveal.js").read_text(encoding="utf-8")
    theme = (reveal / "dist" / "theme" / "white.css").read_text(encoding="utf-8")
    # the theme imports its web font from a file next to it; without it the browser's sans-serif is used
    theme = re.sub(r"@import\s+url\([^)]*\)\s*;", "", theme)
    return {"reveal_js": js.replace("</script", "<\\/script"),
            "reveal_css": (reveal / "dist" / "reveal.css").read_text(encoding="utf-8"),
            "theme_css": theme, "title": title, "width": width, "height": height}


# --------------------------------------------------------------------------- #
# formulas -> MathML
# --------------------------------------------------------------------------- #
_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$", re.S)


def math_to_tokens(nb):
    """Replace $...$ and $$...$$ in markdown cells by tokens; return {token: MathML}.

    The tokens are plain letters and digits, which the markdown renderer
    leaves alone; :func:`restore_math` puts the MathML in after rendering.
    """
    try:
        from latex2mathml.converter import convert
    except ImportError:
        raise SlidesError("building slides needs latex2mathml (formulas become MathML, so the "
                          "deck needs no MathJax): pip install -e '.[slides]'") from None
    table = {}

    def token(latex, display):
        key = f"KXMATHTOKEN{len(table):05d}X"
        # U+2216 (set minus) is missing from many fonts; a backslash reads the same
        latex = latex.strip().replace("\\setminus", "\\backslash ")
        try:
            table[key] = convert(latex, display=display)
        except Exception as err:  # latex2mathml raises its own exception types
            raise SlidesError(f"cannot convert the formula {latex!r} to MathML: {err}") from None
        return key

    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        parts = _CODE.split(src)
        for i in range(0, len(parts), 2):          # even parts are outside code spans
            text = _DISPLAY.sub(lambda m: token(m.group(1), "block"), parts[i])
            parts[i] = _INLINE.sub(lambda m: token(m.group(1), "inline"), text)
        cell["source"] = "".join(parts)
    return table


def restore_math(body, table):
    for key, mathml in table.items():
        if key not in body:
            raise SlidesError(f"a formula was lost in rendering ({key})")
        body = body.replace(key, mathml)
    return body


# --------------------------------------------------------------------------- #
# one deck
# --------------------------------------------------------------------------- #
def build_deck(path, out_dir=OUT, *, student=False, execute=True, reveal=None, timeout=600):
    """Render the exercise notebook at ``path`` as one offline reveal.js deck; return its path."""
    import nbformat
    from nbconvert import SlidesExporter
    from nbconvert.preprocessors import CellExecutionError, ExecutePreprocessor

    path = Path(path)
    instructor = json.loads(path.read_text())
    deck = student_version(instructor, keep_solutions=not student)
    for cell in deck["cells"]:   # the delimiters are for nbgrader, not for the audience
        cell["source"] = "\n".join(line for line in cell["source"].split("\n")
                                   if line.strip() not in (BEGIN_SOLUTION, END_SOLUTION))
    nb = nbformat.from_dict(deck)
    if execute:
        runner = ExecutePreprocessor(timeout=timeout, kernel_name="python3")
        try:
            runner.preprocess(nb, {"metadata": {"path": str(path.parent)}})
        except CellExecutionError as err:
            raise SlidesError(f"{path.name}: a cell failed while building the slides:\n{err}") from None
    table = math_to_tokens(nb)
    title = next((c["source"].lstrip("# ").split("\n", 1)[0] for c in nb["cells"]
                  if c["cell_type"] == "markdown" and c["source"].startswith("# ")), path.stem)
    exporter = SlidesExporter(extra_template_basedirs=[str(TEMPLATES)], template_name=TEMPLATE)
    body, _ = exporter.from_notebook_node(
        nb, resources={"offline": _offline_resources(reveal or reveal_dir(), html.unescape(title))})
    body = restore_math(body, table)
    online = ONLINE.search(body)
    if online:
        raise SlidesError(f"{path.name}: the deck would need the network ({online.group(0)}...)")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{path.stem}{'.student' if student else ''}.slides.html"
    target.write_text(body, encoding="utf-8")
    return target


def _index(decks, out_dir):
    items = "\n".join(f'<li><a href="{d.name}">{html.escape(d.stem.removesuffix(".slides"))}</a></li>'
                      for d in decks)
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kernelxai "
            f"exercise slides</title></head>\n<body><h1>kernelxai exercise slides</h1>\n<ul>\n{items}\n"
            "</ul>\n<p>Each deck is one file and needs no network. Arrow keys move; the solutions "
            "appear on the next key press.</p></body></html>\n")
    (Path(out_dir) / "index.html").write_text(page, encoding="utf-8")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="exercise notebooks (default: all)")
    ap.add_argument("--student", action="store_true", help="decks of the student versions (no solutions)")
    ap.add_argument("--no-execute", action="store_true", help="render without running (no figures)")
    ap.add_argument("--out", default=str(OUT), help="output directory (default: build/slides)")
    ap.add_argument("--reveal", help="a local reveal.js directory (with dist/reveal.js)")
    args = ap.parse_args(argv)
    wanted = {n.removesuffix(".ipynb") for n in args.names}
    paths = [p for p in sorted(EXERCISES.glob("[0-9][0-9]-*.ipynb")) if not wanted or p.stem in wanted]
    if not paths:
        print(f"no exercise notebooks match {sorted(wanted)}", file=sys.stderr)
        return 1
    try:
        reveal = reveal_dir(args.reveal)
        decks = []
        for path in paths:
            deck = build_deck(path, args.out, student=args.student, execute=not args.no_execute,
                              reveal=reveal)
            decks.append(deck)
            print(f"wrote {deck.relative_to(ROOT) if deck.is_relative_to(ROOT) else deck}")
    except SlidesError as err:
        print(f"make slides: {err}", file=sys.stderr)
        return 1
    _index(sorted(Path(args.out).glob("*.slides.html")), args.out)
    licence = Path(args.out) / "reveal.js-LICENSE"
    if (reveal / "LICENSE").is_file():
        shutil.copyfile(reveal / "LICENSE", licence)
    return 0


if __name__ == "__main__":
    sys.exit(main())
