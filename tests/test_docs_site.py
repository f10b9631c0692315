"""The documentation site opens from disk with the network blocked (``make docs`` builds it).

Checks the built site in build/docs/: no page's ``<script>`` or ``<link>`` loads an http(s) URL;
then, in Debian's chromium driven by Playwright with every non-file request aborted, the landing
page shows its title and pictures, an API page's formulas are typeset by the bundled MathJax (its
output elements, not raw TeX), and a notebook page of the gallery shows its figure.

Skipped unless the site was built (``make docs``); the browser tests also need /usr/bin/chromium
and the ``playwright`` package (the test extra), and fail instead of skipping under CI when those
are missing while the site exists. Screenshots go to build/browser/.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from browsing import ROOT, SHOTS, chromium, guarded_page

SITE = ROOT / "build" / "docs"
# an API page whose docstring holds a ``.. math::`` block, and a gallery notebook with a figure
API_PAGE = "api/generated/kernelxai.kernels.Matern.html"
NOTEBOOK_PAGE = "gallery/01-shapley-games.html"
REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

if not (SITE / "index.html").exists():
    pytest.skip("the documentation site is not built (make docs)", allow_module_level=True)


class _Loads(HTMLParser):
    """The URLs a page loads by itself: ``<script src>`` and ``<link href>``."""

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and attrs.get("src"):
            self.urls.append(attrs["src"])
        elif tag == "link" and attrs.get("href") and attrs.get("rel") not in ("canonical", "alternate"):
            self.urls.append(attrs["href"])


def test_no_page_loads_from_the_network():
    pages = sorted(SITE.rglob("*.html"))
    assert len(pages) > 20, "the site looks incomplete"
    remote = {}
    for page in pages:
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        urls = [u for u in parser.urls if REMOTE.match(u)]
        if urls:
            remote[str(page.relative_to(SITE))] = urls
    assert not remote, f"pages that load from the network: {dict(list(remote.items())[:5])}"
    assert (SITE / "_static" / "mathjax" / "tex-chtml.js").exists(), "MathJax is not bundled"


@pytest.fixture(scope="module")
def page():
    with chromium(["--allow-file-access-from-files"], what="docs browser test") as browser:
        pg, blocked, _ = guarded_page(browser, "file://")
        pg.blocked = blocked
        yield pg
        pg.context.close()


def _open(page, relative):
    page.blocked.clear()
    page.goto((SITE / relative).as_uri(), wait_until="load", timeout=60_000)
    return page


def _images_loaded(page, selector):
    return page.eval_on_selector_all(
        selector, "els => els.filter(e => e.complete && e.naturalWidth > 0).length")


def test_landing_page(page):
    _open(page, "index.html")
    assert "kernelxai" in page.title()
    text = page.inner_text("main")
    assert "Shapley-value explanations of kernel methods" in text
    assert "make run" in text and "make test" in text
    assert _images_loaded(page, "main figure img") >= 3, "the landing page's three pictures did not load"
    page.screenshot(path=str(SHOTS / "docs-landing.png"))
    assert not page.blocked, f"the landing page asked the network for {page.blocked[:3]}"


def test_api_page_formulas_render_as_math(page):
    _open(page, API_PAGE)
    page.wait_for_selector("mjx-container", timeout=30_000)
    typeset = page.eval_on_selector_all("div.math mjx-container, span.math mjx-container", "els => els.length")
    assert typeset >= 1, "no formula was typeset by MathJax"
    assert "\\kappa" not in page.inner_text("main"), "raw TeX is showing"
    page.screenshot(path=str(SHOTS / "docs-api-math.png"))
    assert not page.blocked, f"the API page asked the network for {page.blocked[:3]}"


def test_notebook_page_shows_its_figure(page):
    _open(page, NOTEBOOK_PAGE)
    assert "Shapley" in page.inner_text("main h1")
    assert _images_loaded(page, "main .cell_output img") >= 1, "the notebook's figure is missing"
    page.screenshot(path=str(SHOTS / "docs-notebook.png"))
    assert not page.blocked, f"the notebook page asked the network for {page.blocked[:3]}"
