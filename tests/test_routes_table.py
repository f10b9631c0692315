"""The table "model x kernel x value function -> route" of docs/routes.md is what kx.explain does."""

import re
from pathlib import Path

import pytest

from kernelxai.workbench import _routes as routes

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def rows():
    return routes.route_table()


def test_docs_table_equals_the_generated_one(rows):
    text = (ROOT / "docs" / "routes.md").read_text()
    assert text.count(routes.START) == 1 and text.count(routes.END) == 1, \
        "docs/routes.md must hold the route table between <!-- routes:start --> and <!-- routes:end -->"
    in_docs = text.split(routes.START)[1].split(routes.END)[0].strip()
    generated = routes.route_table_markdown(rows)
    assert in_docs == generated, (
        "docs/routes.md's route table is out of date with kx.explain and the converter registry; regenerate it "
        "with `python -m kernelxai.workbench._routes --update docs/routes.md`")


def test_table_covers_every_value_function_and_names_routes(rows):
    assert {r[2] for r in rows} == set(routes.VALUES)
    by = {(m, k, v): route for m, k, v, route in rows}
    # the ones issue #11 names: scaled pipelines and composite GP kernels stay exact,
    # other pipelines and callables go through model calls, SVMs ask for a background
    assert by[("Pipeline(StandardScaler, SVR)", "rbf", "interventional")].startswith(
        "kernel expansion (exact mean embeddings)")
    assert by[("GaussianProcessRegressor", "C * RBF(ARD) + White", "interventional")].startswith(
        "kernel expansion")
    assert by[("callable f(X)", "-", "interventional")] == "model calls (marginal); needs background="
    assert by[("Pipeline(PCA, SVR)", "rbf", "observational")].startswith("refused: ")
    assert by[("SVR", "rbf", "functional_baseline")].endswith("product kernel)")  # needs no background
    for route in by.values():
        assert "|" not in route and "\n" not in route and len(route) <= 90


def test_markdown_has_one_row_per_model_and_a_column_per_value(rows):
    table = routes.route_table_markdown(rows).splitlines()
    models = {(m, k) for m, k, _, _ in rows}
    assert len(table) == 2 + len(models)
    assert all(line.count("|") == 3 + len(routes.VALUES) for line in table)
    assert re.match(r"^\| model \| kernel \| `interventional` \|", table[0])


def test_update_readme_rewrites_only_between_the_markers(tmp_path):
    path = tmp_path / "routes.md"
    path.write_text(f"# t\n\nbefore\n{routes.START}\nold\n{routes.END}\nafter\n")
    routes.update_readme(path, table="| a |\n|---|")
    assert path.read_text() == f"# t\n\nbefore\n{routes.START}\n| a |\n|---|\n{routes.END}\nafter\n"
    path.write_text("no markers")
    with pytest.raises(ValueError, match="must contain <!-- routes:start -->"):
        routes.update_readme(path)
