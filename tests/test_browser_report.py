"""Real-browser tests of the report: the standalone HTML file and the report notebook as a Voilà app.

The HTML report of a small SVR is opened from disk (file://) in Debian's chromium, driven by
Playwright, with every request that is not a file or a data URI aborted: its figures must draw
(every ``<img>`` has a data URI and a natural width) and nothing may be requested from the
network. Then ``python -m kernelxai.report MODEL DATA --app`` serves the report notebook on a
user's saved SVR with Voilà on localhost, where only localhost is reachable: the page must be the
report of that model (not the demo), the explorer at its end must draw a figure, picking another
row must redraw it, and stopping the app must delete its signed inputs. Screenshots go to build/browser/.

Skipped, like tests/test_browser.py, without /usr/bin/chromium or playwright (failed under CI).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from browsing import SHOTS, chromium, free_port, guarded_page, stop, unavailable, wait_http
from sklearn.svm import SVR

import kernelxai as kx

BIN = Path(sys.executable).parent

pytestmark = [pytest.mark.browser, pytest.mark.notebook, pytest.mark.xdist_group("browser")]


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_the_standalone_html_report_draws_its_figures_offline(browser, tmp_path):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 4)), columns=["a", "b", "c", "d"])
    model = SVR(gamma=0.3, C=3.0).fit(X, X.a - X.b * X.c)
    r = kx.report(model, X, points="0:6", background_rows=20, out=tmp_path / "svr.html", progress=False)
    page, blocked, failed = guarded_page(browser, ("file://", "data:"))
    try:
        page.goto(r.html.as_uri(), wait_until="load")
        images = page.eval_on_selector_all(
            "img", "els => els.map(e => ({src: e.src.slice(0, 22), width: e.naturalWidth, done: e.complete}))")
        page.screenshot(path=str(SHOTS / "report-html.png"), full_page=False)
    finally:
        page.context.close()
    assert len(images) >= 4, images
    assert all(i["src"].startswith("data:image/") for i in images), [i["src"] for i in images]
    assert all(i["done"] and i["width"] > 0 for i in images), images
    assert blocked == [] and failed == [], (blocked, failed)


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    """A user's files: an SVR saved with skops and its table (with a label column)."""
    skops_io = pytest.importorskip("skops.io", reason="the app test loads a .skops model (kernelxai[report])")
    d = tmp_path_factory.mktemp("app")
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(60, 4)), columns=["alpha", "beta", "gamma", "delta"])
    y = X.alpha - X.beta * X.gamma
    X.assign(y=y).to_csv(d / "data.csv", index=False)
    skops_io.dump(SVR(gamma=0.3).fit(X, y), d / "mine.skops")
    return d


def test_the_report_app_on_the_user_s_model_draws_and_redraws_when_a_row_is_picked(browser, saved_model, tmp_path):
    """``python -m kernelxai.report MODEL DATA --app``: Voilà serves the report of the user's SVR, not the demo."""
    if not (BIN / "voila").exists():
        unavailable("voila is not installed (pip install voila)")
    port = free_port()
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "kernelxai.report", "mine.skops", "data.csv", "--target", "y",
                             "--points", "0:12", "--background-rows", "20", "--app", f"--port={port}",
                             "--no-browser"],
                            cwd=saved_model, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "JUPYTER_PLATFORM_DIRS": "1"})
    base = f"http://127.0.0.1:{port}"
    page, blocked, _ = guarded_page(browser, (base, f"ws://127.0.0.1:{port}", "data:", "blob:"))
    try:
        wait_http(base + "/api", proc)   # not "/": each visit of the app starts a kernel running the notebook
        page.goto(base + "/", timeout=180_000)
        explorer = page.locator(".widget-vbox").filter(has=page.locator(".widget-dropdown select")).filter(
            has=page.locator(".widget-output img")).last
        figure = explorer.locator(".widget-output img").first
        figure.wait_for(timeout=180_000)
        text = page.inner_text("body")
        assert "mine.skops" in text and "12 rows" in text, "the app does not explain the user's model and rows"
        assert "diabetes" not in text.lower(), "the app shows the demo, not the user's model"
        before = figure.get_attribute("src")
        assert page.evaluate("img => img.naturalWidth", figure.element_handle()) > 0
        explorer.locator(".widget-dropdown select").first.select_option(index=1)   # the next explained row
        deadline = time.time() + 60
        after = before
        while after == before and time.time() < deadline:
            page.wait_for_timeout(300)
            after = explorer.locator(".widget-output img").first.get_attribute("src")
        explorer.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "voila-report.png"), full_page=False)
        assert after != before, "picking another row did not redraw the explorer's figure"
        assert "Traceback" not in text
        # Voilà's page asks a CDN for its icon font (aborted here); the report itself needs nothing from outside
        assert [url for url in blocked if "fontawesome" not in url] == [], blocked
    except Exception as exc:
        page.screenshot(path=str(SHOTS / "voila-report-failure.png"), full_page=False)
        tail = (tmp_path / "server.log").read_text()[-4000:]
        raise AssertionError(f"{exc}\n--- server log (tail) ---\n{tail}") from None
    finally:
        page.context.close()
        stop(proc, timeout=30)   # SIGTERM stops the app as Ctrl-C does: Voilà stops and the signed inputs are deleted
        log.close()
    assert proc.returncode is not None
    folders = re.findall(r"/\S*kernelxai-report-app-\w+", (tmp_path / "server.log").read_text())
    assert folders and not any(Path(f).exists() for f in folders), f"the app's inputs were left behind: {folders}"
