"""Real-browser tests: JupyterLab and Voilà driven by Playwright in Debian's chromium.

What a student on Binder does: open 01-shapley-games, run all cells, move a
slider, see the figure change. The servers run on localhost with token and
password off, on a temporary copy of the notebooks (Lab autosaves outputs);
screenshots go to build/browser/.

Needs /usr/bin/chromium (Debian package ``chromium``; ``.ci/run`` installs it)
and the ``playwright`` Python package (the test extra; no browser download).
Without them the tests skip with a message -- except under CI, where they fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from browsing import ROOT, SHOTS, chromium, free_port, stop, unavailable, wait_http

NOTEBOOK = "01-shapley-games.ipynb"
BIN = Path(sys.executable).parent

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture()
def workdir(tmp_path):
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy(nb, tmp_path / nb.name)
    return tmp_path


def _lab_settings(tmp):
    """A settings dir that renders every cell (no windowing) and asks no questions."""
    tracker = tmp / "lab-settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True, exist_ok=True)
    (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    news = tmp / "lab-settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True, exist_ok=True)
    (news / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}')
    return tmp / "lab-settings"


def _server(cmd, cwd, url):
    log = open(cwd / "server.log", "w")
    env = {**os.environ, "JUPYTER_PLATFORM_DIRS": "1",
           "JUPYTERLAB_SETTINGS_DIR": str(_lab_settings(cwd))}
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        wait_http(url, proc)
    except Exception:
        proc.terminate()
        raise AssertionError((cwd / "server.log").read_text()[-3000:]) from None
    return proc


def _move_first_slider(page, output_locator):
    """Nudge the first float slider with the keyboard; return the output before and after."""
    slider = page.locator(".widget-slider .noUi-handle, .widget-slider .slider-handle").first
    slider.wait_for(state="visible", timeout=120_000)
    before = output_locator().inner_html()
    slider.click()
    for _ in range(15):
        page.keyboard.press("ArrowRight")
    page.wait_for_timeout(500)
    deadline = time.time() + 60
    after = output_locator().inner_html()
    while after == before and time.time() < deadline:
        page.wait_for_timeout(500)
        after = output_locator().inner_html()
    return before, after


def test_jupyterlab_runs_notebook_and_slider_updates_figure(browser, workdir):
    port = free_port()
    cmd = [str(BIN / "jupyter"), "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
           "--ServerApp.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
           f"--ServerApp.root_dir={workdir}", "--LabApp.news_url=", "--allow-root"]
    proc = _server(cmd, workdir, f"http://127.0.0.1:{port}/api")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(f"http://127.0.0.1:{port}/lab/tree/{NOTEBOOK}", timeout=120_000)
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=120_000)
        # wait for the kernel, then Run > Run All Cells
        page.locator("#jp-main-statusbar").get_by_text("Idle").first.wait_for(timeout=120_000)
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_text("Run All Cells", exact=True).click()
        # the last cell prints the summary once everything above has run
        summary = page.locator(".jp-OutputArea-output").filter(has_text="WLS=exact").first
        summary.wait_for(timeout=240_000)
        interactive = page.locator(".jp-Cell").filter(has=page.locator(".widget-slider")).first
        interactive.scroll_into_view_if_needed(timeout=60_000)
        interactive.locator(".jp-OutputArea-output img").last.wait_for(timeout=60_000)
        before, after = _move_first_slider(page, lambda: interactive.locator(".jp-OutputArea").first)
        page.screenshot(path=str(SHOTS / "lab-01-shapley-games.png"), full_page=False)
        assert before != after, "moving the slider did not change the rendered output"
        # no cell ended in an error
        errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        tracebacks = [e.inner_text() for e in errors.all() if "Traceback" in e.inner_text()]
        assert not tracebacks, tracebacks[:1]
    except Exception as exc:
        page.screenshot(path=str(SHOTS / "lab-failure.png"), full_page=False)
        log = (workdir / "server.log").read_text()[-4000:]
        raise AssertionError(f"{exc}\n--- JupyterLab server log (tail) ---\n{log}") from None
    finally:
        stop(proc)


def test_voila_renders_notebook_and_slider_updates_figure(browser, workdir):
    voila = BIN / "voila"
    if not voila.exists():
        unavailable("voila is not installed (pip install voila)")
    port = free_port()
    cmd = [str(voila), NOTEBOOK, "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
           "--ServerApp.token=", "--ServerApp.password="]
    proc = _server(cmd, workdir, f"http://127.0.0.1:{port}/")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(f"http://127.0.0.1:{port}/", timeout=180_000)
        slider_box = page.locator(".widget-interact, .jp-OutputArea").filter(
            has=page.locator(".widget-slider")).last
        slider_box.wait_for(timeout=180_000)
        before, after = _move_first_slider(page, lambda: slider_box)
        page.screenshot(path=str(SHOTS / "voila-01-shapley-games.png"), full_page=False)
        assert before != after, "moving the slider did not change the Voilà output"
        assert "Traceback" not in page.inner_text("body")
    except Exception as exc:
        page.screenshot(path=str(SHOTS / "voila-failure.png"), full_page=False)
        log = (workdir / "server.log").read_text()[-4000:]
        raise AssertionError(f"{exc}\n--- Voila server log (tail) ---\n{log}") from None
    finally:
        stop(proc)
