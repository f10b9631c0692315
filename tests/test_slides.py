"""Slides of the exercise notebooks (make slides) and the commands of the lecturers' guide (docs/lecturers.md).

The guide's commands are run as written -- ``make exercises``, ``make
slides`` for one deck (``SLIDES=...``, the guide's own one-deck form; the
venv stamp is taken as up to date with ``make -o`` so that no install runs
inside the tests) and the papermill ``-p`` call -- and the deck they build is
checked: its sections are the notebook's slides, figures and formulas are
embedded, and nothing in it needs the network (also in a real browser with
the network switched off, when chromium is there).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import build_exercises as bx  # noqa: E402
import build_slides as bs  # noqa: E402

BIN = Path(sys.executable).parent
pytestmark = pytest.mark.xdist_group("slides")


def _reveal_or_skip():
    try:
        return bs.reveal_dir()
    except bs.SlidesError as err:
        if os.environ.get("CI"):
            pytest.fail(f"reveal.js is needed for the slides: {err}")
        pytest.skip(f"reveal.js is not available here: {err}")


def lecturer_commands():
    """The shell commands of the lecturers' guide, docs/lecturers.md (its bash code blocks)."""
    text = (ROOT / "docs" / "lecturers.md").read_text()
    m = re.search(r"^# For lecturers\n(.*?)(?=^#{1,2} |\Z)", text, re.M | re.S)
    assert m, "docs/lecturers.md has no '# For lecturers' page"
    blocks = re.findall(r"```bash\n(.*?)```", m.group(1), re.S)
    lines = [ln.split("  #")[0].strip() for block in blocks for ln in block.splitlines()]
    return m.group(1), [ln for ln in lines if ln and not ln.startswith("#")]


def test_lecturers_guide_says_what_the_issue_asks():
    section, commands = lecturer_commands()
    assert "mybinder.org/v2/gh/kernelxai/kernelxai/main?urlpath=lab/tree/build/exercises/" in section
    assert "nbgrader" in section and "generate_assignment" in section
    for name in (p.stem for p in (ROOT / "notebooks" / "exercises").glob("[0-9][0-9]-*.ipynb")):
        assert f"notebooks/exercises/{name}.ipynb" in section, f"the section does not list {name}"
    assert "make exercises" in commands and "make slides" in commands
    assert any(c.startswith("make slides SLIDES=") for c in commands)
    assert any(c.startswith("papermill ") and " -p " in c for c in commands)
    # postBuild makes the student versions the Binder link opens
    assert "scripts/build_exercises.py" in (ROOT / "binder" / "postBuild").read_text()


@pytest.fixture(scope="session")   # once per worker: the module's tests share one group (xdist_group "slides")
def guide_commands_ran():
    """Run the guide's commands (except the all-decks `make slides`, which the one-deck form covers)."""
    _reveal_or_skip()
    _, commands = lecturer_commands()
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    ran = {}
    for command in commands:
        argv = shlex.split(command)
        if argv == ["make", "slides"]:
            continue
        if argv[0] == "make":
            argv = [make, "-o", ".venv/.slides-stamp", f"PY={sys.executable}", f"PYTHON={sys.executable}",
                    *argv[1:]]
        elif argv[0] == "papermill":
            argv = [str(BIN / "papermill") if (BIN / "papermill").exists() else "papermill", *argv[1:],
                    "--no-progress-bar"]
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"`{command}` failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        ran[command] = argv
    return ran


def test_make_exercises_and_the_papermill_call(guide_commands_ran):
    assert "make exercises" in guide_commands_ran
    names = sorted(p.name for p in (ROOT / "notebooks" / "exercises").glob("[0-9][0-9]-*.ipynb"))
    assert sorted(p.name for p in (ROOT / "build" / "exercises").glob("*.ipynb")) == names
    papermill = next(c for c in guide_commands_ran if c.startswith("papermill "))
    argv = shlex.split(papermill)
    out = ROOT / argv[2]
    nb = json.loads(out.read_text())
    injected = [c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert injected, "papermill injected no parameters"
    for name, value in zip(argv[3:][1::3], argv[3:][2::3]):
        assert f"{name} = {value}" in "".join(injected[0]["source"])
    text = json.dumps(nb)
    assert "\\u2713" in text or "\u2713" in text            # the checks ran and passed


def _deck(guide_commands_ran):
    one = next(c for c in guide_commands_ran if c.startswith("make slides SLIDES="))
    name = one.split("SLIDES=")[1].split()[0]
    return name, ROOT / "build" / "slides" / f"{name}.slides.html"


def test_deck_has_the_notebooks_slides_and_needs_no_network(guide_commands_ran):
    name, deck = _deck(guide_commands_ran)
    html = deck.read_text()
    nb = json.loads((ROOT / "notebooks" / "exercises" / f"{name}.ipynb").read_text())
    kinds = [c["metadata"]["slideshow"]["slide_type"] for c in nb["cells"]]
    # one <section> per slide, plus one per subslide and per slide that has subslides
    n_slides, n_sub = kinds.count("slide"), kinds.count("subslide")
    assert html.count("<section") >= n_slides + n_sub
    titles = [c["source"].split("\n", 1)[0].lstrip("# ").strip() for c in nb["cells"]
              if c["cell_type"] == "markdown" and c["metadata"]["slideshow"]["slide_type"] in ("slide", "subslide")
              and c["source"].startswith("#")]
    for title in titles:
        assert re.sub(r"\$[^$]*\$", "", title).split("·")[-1].strip()[:12] in html, title
    assert html.count('class="fragment"') == kinds.count("fragment")        # the solutions, one click each
    assert html.count("\u2713") >= len([c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade")])
    assert "data:image/png;base64," in html                                # figures embedded
    assert "<math" in html and "KXMATHTOKEN" not in html and "$$" not in html
    assert "Reveal.initialize" in html and "BEGIN SOLUTION" not in html and "HIDDEN TESTS" not in html
    assert not re.search(r"<script[^>]*\bsrc=", html), "a script is loaded from a file or URL"
    assert not bs.ONLINE.search(html)
    assert (ROOT / "build" / "slides" / "index.html").exists()


@pytest.mark.browser
def test_deck_runs_in_a_browser_without_network(guide_commands_ran):
    chromium = os.environ.get("KERNELXAI_CHROMIUM", "/usr/bin/chromium")
    if not Path(chromium).exists():
        pytest.skip(f"{chromium} not found")
    sync_api = pytest.importorskip("playwright.sync_api")
    name, deck = _deck(guide_commands_ran)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_context(offline=True).new_page()
            requests, errors = [], []
            page.on("request", lambda r: requests.append(r.url))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(deck.as_uri())
            page.wait_for_function("typeof Reveal !== 'undefined' && Reveal.isReady()", timeout=15000)
            total = page.evaluate("Reveal.getTotalSlides()")
            page.evaluate("Reveal.slide(1, 0, 99)")
            shown = page.evaluate("document.querySelectorAll('.reveal .fragment.visible').length")
        finally:
            browser.close()
    nb = json.loads((ROOT / "notebooks" / "exercises" / f"{name}.ipynb").read_text())
    kinds = [c["metadata"]["slideshow"]["slide_type"] for c in nb["cells"]]
    assert total == kinds.count("slide") + kinds.count("subslide")
    assert shown >= 1
    assert not errors, errors
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []


def test_student_deck_has_no_solutions(tmp_path):
    reveal = _reveal_or_skip()
    path = ROOT / "notebooks" / "exercises" / "03-kernelshap-wls.ipynb"
    deck = bs.build_deck(path, tmp_path, student=True, execute=False, reveal=reveal)
    html = deck.read_text()
    assert deck.name == "03-kernelshap-wls.student.slides.html"
    assert "NotImplementedError" in html and "kkt" not in html     # the stub, not the solution's KKT system


def test_formulas_become_mathml_and_code_is_left_alone():
    pytest.importorskip("latex2mathml")
    nb = {"cells": [{"cell_type": "markdown", "metadata": {},
                     "source": "costs \\$6 and \\$12; $\\phi_j$ and `a $b$ c`\n\n$$\\sum_{S} v(S)$$"}]}
    table = bs.math_to_tokens(nb)
    src = nb["cells"][0]["source"]
    assert "\\$6 and \\$12" in src and "`a $b$ c`" in src and "$" not in src.replace("\\$", "").replace("`a $b$ c`", "")
    assert len(table) == 2
    html = bs.restore_math(src, table)
    assert html.count("<math") == 2 and html.count('display="block"') == 1
    with pytest.raises(bs.SlidesError, match="lost"):
        bs.restore_math("nothing", table)


def test_slide_types_come_from_the_sources():
    cells = bx.parse('# %% [markdown]\n# # Title\n\n# %% tags=["parameters"]\nseed = 0\n\n'
                     '# %% solution="t"\ndef f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n\n'
                     '# %% check="t"\nr = 1\n\n# %% [markdown]\n# More prose\n\n# %% slide="skip"\nx = 1\n')
    nb = bx.to_notebook(cells)
    kinds = [c["metadata"]["slideshow"]["slide_type"] for c in nb["cells"]]
    assert kinds == ["slide", "skip", "fragment", "-", "subslide", "skip"]
    with pytest.raises(ValueError, match="unknown cell option"):
        bx.parse("# %% colour=\"red\"\nx = 1\n")
    with pytest.raises(ValueError, match="slide="):
        bx.to_notebook(bx.parse('# %% slide="sideways"\nx = 1\n'))
