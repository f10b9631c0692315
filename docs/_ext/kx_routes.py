"""Write the routes tables (docs/_generated/) by running the code, as the README's are.

Takes the registered converters and their example models; hands ``routes.md`` the two Markdown
tables of :mod:`kernelxai.workbench.routes` (the converters, and the route ``kx.explain`` takes per
model, kernel and value function), generated at the start of every build.
"""

from __future__ import annotations

from pathlib import Path


def write_tables(app) -> None:
    from kernelxai.workbench import routes

    out = Path(app.srcdir) / "_generated"
    out.mkdir(exist_ok=True)
    for name, text in (("converters.md", routes.converter_table_markdown()),
                       ("routes.md", routes.route_table_markdown())):
        path = out / name
        if not path.exists() or path.read_text() != text + "\n":
            path.write_text(text + "\n")


def setup(app):
    app.connect("builder-inited", write_tables, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
