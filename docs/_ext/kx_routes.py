"""Check that the routes tables of ``routes.md`` are the ones the code generates today.

Takes the registered converters and their example models; runs ``kernelxai.workbench._routes``
(a private module: this extension is a developer tool, as the tests are), which tables the
converters and the route ``kx.explain`` takes per model, kernel and value function, at the
start of every build and compares its two Markdown tables with the ones between the markers of
``docs/routes.md``. A table that is out of date is a warning, so ``sphinx-build -W`` fails rather
than publish it; ``python -m kernelxai.workbench._routes --update docs/routes.md`` rewrites them.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.util import logging

LOGGER = logging.getLogger(__name__)


def check_tables(app) -> None:
    from kernelxai.workbench import _routes as routes

    path = Path(app.srcdir) / "routes.md"
    text = path.read_text(encoding="utf-8")
    for start, end, generated in ((routes.CONVERTERS_START, routes.CONVERTERS_END, routes.converter_table_markdown()),
                                  (routes.START, routes.END, routes.route_table_markdown())):
        if text.count(start) != 1 or text.count(end) != 1:
            LOGGER.warning("%s must hold %s and %s once each", path, start, end)
            continue
        if text.split(start)[1].split(end)[0].strip() != generated:
            LOGGER.warning("the table between %s and %s of %s is out of date; regenerate it with "
                           "`python -m kernelxai.workbench._routes --update docs/routes.md`", start, end, path)


def setup(app):
    app.connect("builder-inited", check_tables, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
