"""Fail the build if a page would load anything from the network.

Takes the built HTML pages; after the build it reads every ``<script src>`` and ``<link href>``
(stylesheets, fonts, preloads) and reports each that points at an http(s) or protocol-relative
URL as a warning, which ``sphinx-build -W`` turns into a failure. ``tests/test_docs_site.py``
checks the same on the built site.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from sphinx.util import logging

LOGGER = logging.getLogger(__name__)
REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)


class _Loads(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and attrs.get("src"):
            self.urls.append(attrs["src"])
        elif tag == "link" and attrs.get("href") and attrs.get("rel") not in ("canonical", "alternate"):
            self.urls.append(attrs["href"])


def remote_loads(html: str) -> list[str]:
    """The http(s) URLs that ``<script src>`` and ``<link href>`` of a page load."""
    parser = _Loads()
    parser.feed(html)
    return [u for u in parser.urls if REMOTE.match(u)]


def check_site(app, exc) -> None:
    if exc is not None or app.builder.format != "html":
        return
    for page in sorted(Path(app.outdir).rglob("*.html")):
        for url in remote_loads(page.read_text(encoding="utf-8", errors="replace")):
            LOGGER.warning("%s loads %s from the network (the site must open offline)",
                           page.relative_to(app.outdir), url)


def setup(app):
    app.connect("build-finished", check_site, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
