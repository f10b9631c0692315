"""What the real-browser tests share: Debian's chromium under Playwright, local servers, guarded pages.

tests/test_browser.py (JupyterLab and Voilà), tests/test_browser_report.py (the report and its
app) and tests/test_docs_site.py (the documentation site) drive the same chromium with the same
flags, skip the same way without it (and fail under CI, which installs it), and start and stop
local servers the same way.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "build" / "browser"
CHROMIUM = os.environ.get("KERNELXAI_CHROMIUM", "/usr/bin/chromium")
FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage")


def unavailable(reason, what="browser test"):
    """Skip a browser test that cannot run here; under CI (which installs everything) fail it."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} cannot run in CI: {reason}")
    pytest.skip(f"{what} skipped: {reason}")


@contextlib.contextmanager
def chromium(extra_flags=(), what="browser test"):
    """Debian's chromium launched by Playwright (no browser download), closed after; screenshots' folder made."""
    if not Path(CHROMIUM).exists():
        unavailable(f"{CHROMIUM} not found (install Debian's chromium: apt-get install chromium)", what)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed (pip install playwright)", what)
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[*FLAGS, *extra_flags])
        try:
            yield browser
        finally:
            browser.close()


def guarded_page(browser, allowed):
    """A page on which every request whose URL does not start with one of ``allowed`` is aborted (and recorded).

    Returns the page, the list of blocked URLs and the list of failed requests (both filled as it loads).
    """
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


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, proc, timeout=120):
    """Wait until ``url`` answers (any status below 500, a 404 included) while ``proc`` runs."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status < 500:
                    return
        except urllib.error.HTTPError as err:   # an answer: the server is up
            if err.code < 500:
                return
            time.sleep(0.5)
        except Exception:
            time.sleep(0.5)
    raise TimeoutError(f"server at {url} did not answer within {timeout} s")


def stop(proc, timeout=20):
    """Terminate a server (SIGTERM), kill it if it does not stop within ``timeout`` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
