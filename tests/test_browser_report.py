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
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.svm import SVR

import kernelxai as kx

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "build" / "browser"
CHROMIUM = os.environ.get("KERNELXAI_CHROMIUM", "/usr/bin/chromium")
BIN = Path(sys.executable).parent

pytestmark = [pytest.mark.browser, pytest.mark.notebook, pytest.mark.xdist_group("browser")]


def _unavailable(reason):
    if os.environ.get("CI"):
        pytest.fail(f"browser test cannot run in CI: {reason}")
    pytest.skip(f"browser test skipped: {reason}")


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        _unavailable(f"{CHROMIUM} not found (install Debian's chromium: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install playwright)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--disable-dev-shm-usage"],
        )
        yield b
        b.close()


def _page(browser, allowed):
    """A page on which every request whose URL does not start with one of ``allowed`` is aborted (and recorded)."""
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    blocked, failed = [], []

    def route(r):
        if r.request.url.startswith(allowed):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("requestfailed", lambda request: failed.append(request.url))
    return page, blocked, failed


def test_the_standalone_html_report_draws_its_figures_offline(browser, tmp_path):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 4)), columns=["a", "b", "c", "d"])
    model = SVR(gamma=0.3, C=3.0).fit(X, X.a - X.b * X.c)
    r = kx.report(model, X, points="0:6", background_rows=20, out=tmp_path / "svr.html", progress=False)
    page, blocked, failed = _page(browser, ("file://", "data:"))
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


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url, proc, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status < 500:
                    return
        except urllib.error.HTTPError as err:   # a 404 is an answer: the server is up
            if err.code < 500:
                return
        except Exception:
            time.sleep(0.5)
    raise TimeoutError(f"server at {url} did not answer within {timeout} s")


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
        _unavailable("voila is not installed (pip install voila)")
    port = _free_port()
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "kernelxai.report", "mine.skops", "data.csv", "--target", "y",
                             "--points", "0:12", "--background-rows", "20", "--app", f"--port={port}",
                             "--no-browser"],
                            cwd=saved_model, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "JUPYTER_PLATFORM_DIRS": "1"})
    base = f"http://127.0.0.1:{port}"
    page, blocked, _ = _page(browser, (base, f"ws://127.0.0.1:{port}", "data:", "blob:"))
    try:
        _wait_http(base + "/api", proc)   # not "/": each visit of the app starts a kernel running the notebook
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
        proc.terminate()   # SIGTERM stops the app as Ctrl-C does: Voilà stops and the signed inputs are deleted
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    assert proc.returncode is not None
    folders = re.findall(r"/\S*kernelxai-report-app-\w+", (tmp_path / "server.log").read_text())
    assert folders and not any(Path(f).exists() for f in folders), f"the app's inputs were left behind: {folders}"
