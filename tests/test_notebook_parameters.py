"""Notebook parameters: kx.workbench.default / resolve_parameters, and notebooks using them.

The unit tests run a "parameters cell" the way Jupyter does: the cell's source is
compiled under a file name that :mod:`linecache` knows (IPython registers every
cell there), then papermill's injected assignments run in the same namespace.
"""

import itertools
import json
import linecache

import pytest

import kernelxai as kx
from kernelxai.workbench._reporting import Default, default, resolve_parameters

_cells = itertools.count()

CELL = '''\
import kernelxai as kx
smoke = False
paper = False
seed = 0
results_path = "../build/results/x.json"
n_train = kx.workbench.default(600, smoke=200, paper=3000, minimum=10)
n_samples = kx.workbench.default(500, smoke=120, minimum=10)
n_explain = kx.workbench.default(100, smoke=12, paper=None, minimum=1)
level = kx.workbench.default(0.95, minimum=0.5, maximum=0.999)
budgets = kx.workbench.default([50, 100, 200], smoke=[50],
                               minimum=13)
etas = kx.workbench.default([1e-3, 1.0], minimum=0)
kernel = kx.workbench.default("rbf", choices=["rbf", "matern"])
verbose = kx.workbench.default(False)
'''


def run_cell(injected="", cell=CELL):
    """Execute ``cell`` like a notebook cell, then papermill's ``injected`` cell; return globals."""
    name = f"<parameters-cell-{next(_cells)}>"
    linecache.cache[name] = (len(cell), None, cell.splitlines(True), name)
    namespace = {"__name__": "__main__"}
    try:
        exec(compile(cell, name, "exec"), namespace)
    finally:
        linecache.cache.pop(name, None)
    exec(compile(injected, "<injected-parameters>", "exec"), namespace)
    return namespace


def test_defaults_in_each_mode():
    base = resolve_parameters(run_cell())
    assert base == {"smoke": False, "paper": False, "seed": 0, "results_path": "../build/results/x.json",
                    "n_train": 600, "n_samples": 500, "n_explain": 100, "level": 0.95,
                    "budgets": [50, 100, 200], "etas": [1e-3, 1.0], "kernel": "rbf", "verbose": False}
    smoke = resolve_parameters(run_cell("smoke = True"))
    assert (smoke["n_train"], smoke["n_samples"], smoke["n_explain"], smoke["budgets"]) == (200, 120, 12, [50])
    assert smoke["level"] == 0.95 and smoke["smoke"] is True
    paper = resolve_parameters(run_cell("paper = True"))
    assert (paper["n_train"], paper["n_samples"], paper["n_explain"]) == (3000, 500, None)
    json.dumps(paper, allow_nan=False)  # JSON-ready


def test_smoke_changes_only_the_sizes_the_caller_did_not_set():
    params = resolve_parameters(run_cell("smoke = True\nn_train = 500\nbudgets = [20, 40]"))
    assert params["n_train"] == 500 and params["budgets"] == [20, 40]  # kept
    assert params["n_samples"] == 120 and params["n_explain"] == 12    # smoke defaults
    params = resolve_parameters(run_cell("paper = True\nn_train = 700"))
    assert params["n_train"] == 700 and params["n_explain"] is None


def test_resolve_does_not_modify_the_namespace_and_can_be_applied():
    ns = run_cell("smoke = True")
    params = resolve_parameters(ns)
    assert isinstance(ns["n_train"], Default)
    ns.update(params)
    assert resolve_parameters(ns) == params  # re-running the cell is harmless


@pytest.mark.parametrize("injected, message", [
    ("n_samples = -10", "parameter n_samples must be an integer >= 10; got -10"),
    ("n_explain = 'many'", "parameter n_explain must be an integer >= 1, or None; got 'many'"),
    ("seed = 'abc'", "parameter seed must be a non-negative integer; got 'abc'"),
    ("seed = -1", "parameter seed must be a non-negative integer; got -1"),
    ("seed = True", "parameter seed must be a non-negative integer; got True"),
    ("n_train = True", "parameter n_train must be an integer >= 10; got True"),
    ("n_train = 600.0", "parameter n_train must be an integer >= 10; got 600.0"),
    ("level = 1.5", "parameter level must be a real number in [0.5, 0.999]; got 1.5"),
    ("level = float('nan')", "parameter level must be a real number in [0.5, 0.999]; got nan"),
    ("level = '0.9'", "parameter level must be a real number in [0.5, 0.999]; got '0.9'"),
    ("budgets = []", "parameter budgets must be a non-empty list of integers, each >= 13; got []"),
    ("budgets = [50, 5]", "parameter budgets must be a non-empty list of integers, each >= 13; got [50, 5]"),
    ("budgets = 50", "parameter budgets must be a non-empty list of integers, each >= 13; got 50"),
    ("etas = [1e-3, 'x']", "parameter etas must be a non-empty list of real numbers, each >= 0"),
    ("kernel = 'linear'", "parameter kernel must be one of 'rbf', 'matern'; got 'linear'"),
    ("verbose = 1", "parameter verbose must be True or False; got 1"),
    ("smoke = 'yes'", "parameter smoke must be True or False; got 'yes'"),
    ("paper = 1", "parameter paper must be True or False; got 1"),
    ("results_path = ''", "parameter results_path must be a non-empty string"),
    ("results_path = 3", "parameter results_path must be a non-empty string"),
    ("smoke = True\npaper = True", "smoke and paper cannot both be True"),
])
def test_bad_values_name_the_parameter_the_value_and_what_is_accepted(injected, message):
    with pytest.raises(ValueError) as info:
        resolve_parameters(run_cell(injected))
    assert message in str(info.value)


def test_the_quoted_messages_exactly():
    cell = CELL.replace("n_explain = kx.workbench.default(100, smoke=12, paper=None, minimum=1)",
                        "n_explain = kx.workbench.default(100, smoke=12, minimum=1)")
    for injected, message in [("n_samples = -10", "parameter n_samples must be an integer >= 10; got -10"),
                              ("n_explain = 'many'", "parameter n_explain must be an integer >= 1; got 'many'"),
                              ("seed = 'abc'", "parameter seed must be a non-negative integer; got 'abc'")]:
        with pytest.raises(ValueError) as info:
            resolve_parameters(run_cell(injected, cell))
        assert str(info.value) == message


def test_values_given_are_converted_to_plain_json_types():
    params = resolve_parameters(run_cell(
        "import numpy as np\nn_train = np.int64(50)\nlevel = np.float32(0.75)\nlevel2 = 1\n"
        "etas = np.array([0.5, 2])\nbudgets = (20, np.int32(30))\nseed = np.int64(3)\nverbose = np.bool_(True)"))
    assert params["n_train"] == 50 and type(params["n_train"]) is int
    assert params["level"] == 0.75 and type(params["level"]) is float
    assert params["etas"] == [0.5, 2.0] and params["budgets"] == [20, 30]
    assert params["seed"] == 3 and type(params["seed"]) is int and params["verbose"] is True
    json.dumps(params, allow_nan=False)


def test_int_accepted_for_a_float_default():
    assert resolve_parameters(run_cell("etas = [0, 1]"))["etas"] == [0, 1]
    assert resolve_parameters(run_cell("level = 0.5"))["level"] == 0.5


def test_defaults_held_directly_in_a_plain_namespace():
    ns = {"smoke": True, "paper": False, "seed": 1, "results_path": "r.json",
          "n": default(10, smoke=3, minimum=1), "anything": default(None)}
    assert resolve_parameters(ns) == {"smoke": True, "paper": False, "seed": 1, "results_path": "r.json",
                                      "n": 3, "anything": None}
    cell = "import kernelxai as kx\nanything = kx.workbench.default(None)\n"
    assert resolve_parameters(run_cell("anything = {'a': 1}", cell))["anything"] == {"a": 1}


def test_override_validated_even_without_source_by_identity():
    """Without the cell's source, a Default is named by the next default() call."""
    ns = {}
    exec("import kernelxai as kx\nn = kx.workbench.default(3, minimum=1)\nm = kx.workbench.default(2)\n", ns)
    ns["n"] = 0
    with pytest.raises(ValueError, match="parameter n must be an integer >= 1; got 0"):
        resolve_parameters(ns)


def test_mode_flags_absent_mean_false_and_paths_may_be_none():
    assert resolve_parameters({"results_path": None}) == {"smoke": False, "paper": False, "results_path": None}


def test_bad_defaults_fail_when_declared():
    with pytest.raises(ValueError, match="smoke default 5 is not accepted"):
        default(100, smoke=5, minimum=10)
    with pytest.raises(TypeError, match="one kind"):
        default(1, smoke="a")
    with pytest.raises(TypeError, match="dict"):
        default({"a": 1})
    with pytest.raises(ValueError, match="must not be empty"):
        default([])
    with pytest.raises(ValueError, match="minimum 5 exceeds maximum 1"):
        default(3, minimum=5, maximum=1)
    with pytest.raises(TypeError, match="resolve_parameters: namespace must be a dict"):
        resolve_parameters([("smoke", True)])


def test_default_repr_and_accepted():
    d = default(600, smoke=200, paper=3000, minimum=10)
    assert repr(d) == "default(600, smoke=200, paper=3000, minimum=10)"
    assert d.accepted() == "an integer >= 10"
    assert kx.workbench.default is default


# --------------------------------------------------------------------------- #
# notebooks using the parameters (papermill)
# --------------------------------------------------------------------------- #
@pytest.mark.notebook
def test_notebook_rejects_a_bad_parameter_naming_it(tmp_path):
    from nbrun import NOTEBOOKS, NotebookCellError, execute

    with pytest.raises(NotebookCellError) as info:
        execute(NOTEBOOKS / "01-shapley-games.ipynb", tmp_path / "r.json",
                {"smoke": True, "n_repeats": "many"}, out_dir=tmp_path)
    message = str(info.value)
    assert "ValueError" in message
    assert "parameter n_repeats must be an integer >= 2; got 'many'" in message
    assert not (tmp_path / "r.json").exists()


@pytest.mark.notebook
def test_notebook_smoke_mode_keeps_the_callers_size():
    from nbrun import run_notebook

    res = run_notebook("01-shapley-games", n_runs=2, budgets=[50, 200])
    params = res["parameters"]
    assert params["smoke"] is True and params["paper"] is False and params["seed"] == 0
    assert params["n_runs"] == 2 and params["budgets"] == [50, 200]   # the caller's, kept
    assert params["n_repeats"] == 60 and params["n_permutations"] == 20  # smoke defaults
    assert params["results_path"].endswith("01-shapley-games.json")


# --------------------------------------------------------------------------- #
# unknown parameter names: in the notebook and before a kernel starts
# --------------------------------------------------------------------------- #
RESOLVE = "params = kx.workbench.resolve_parameters(globals())\n"


def run_in_kernel(*injected, cell=CELL):
    """run_cell with IPython's input history ``_ih``: the parameters cell, ``injected`` cells, the resolve cell."""
    namespace = run_cell("\n".join(injected), cell)
    namespace["_ih"] = ["", cell, *injected, RESOLVE]
    return namespace


def test_a_misspelt_parameter_stops_the_notebook_naming_it_and_a_close_one():
    with pytest.raises(ValueError) as info:
        resolve_parameters(run_in_kernel("# Parameters\nsmoke = True\nn_sample = 50\n"))
    assert str(info.value) == (
        "unknown parameter 'n_sample' (did you mean 'n_samples'?); this notebook accepts: budgets, etas, kernel, "
        "level, n_explain, n_samples, n_train, paper, results_path, seed, smoke, verbose")
    # several, one far from every parameter; float('nan') as papermill writes it
    with pytest.raises(ValueError) as info:
        resolve_parameters(run_in_kernel("n_perms = 10\nwidth = float('nan')", "levl = [0.9, 0.95]"))
    assert "unknown parameters 'n_perms', 'width', 'levl' (did you mean 'level'?); this notebook accepts:" \
        in str(info.value)


def test_declared_names_pass_and_the_notebooks_own_cells_are_not_parameters():
    params = resolve_parameters(run_in_kernel("smoke = True\nn_train = 50\nkernel = 'matern'"))
    assert params["n_train"] == 50 and params["kernel"] == "matern"
    # re-running the resolve cell after later cells ran: the cell before it is not made of
    # values alone, so nothing it (or any earlier cell) set is taken as a parameter
    ns = run_in_kernel("smoke = True")
    ns["_ih"][-1:] = ["import numpy as np\nX = np.ones(3)\nn = len(X)\nlabel = 'a'", "x = 1", RESOLVE]
    with pytest.raises(ValueError, match="unknown parameter 'x';"):
        resolve_parameters(ns)
    ns["_ih"][-2:] = [RESOLVE]
    assert resolve_parameters(ns)["smoke"] is True
    # no parameters cell in the history (values alone back to the start): nothing to compare with
    assert resolve_parameters({"_ih": ["", "smoke = True\nwhatever = 1", RESOLVE], "smoke": True})["smoke"]


def test_parameter_names_of_a_cell_and_of_a_notebook_file():
    from kernelxai.workbench._reporting import notebook_parameters, parameter_names

    assert parameter_names(CELL) == ["smoke", "paper", "seed", "results_path", "n_train", "n_samples",
                                     "n_explain", "level", "budgets", "etas", "kernel", "verbose"]
    assert parameter_names("import x\na: int = 1\nb, (c, d) = 1, (2, 3)\nb += 1\nx.y = 2\nf(z=3)") == \
        ["a", "b", "c", "d"]
    from nbrun import NOTEBOOKS

    assert notebook_parameters(NOTEBOOKS / "01-shapley-games.ipynb") == \
        ["smoke", "paper", "seed", "results_path", "n_repeats", "n_permutations", "budgets", "n_runs"]


def test_the_runner_refuses_an_unknown_name_before_starting_a_kernel(tmp_path, monkeypatch):
    import sys

    from nbrun import NOTEBOOKS, NotebookCellError, execute

    monkeypatch.setitem(sys.modules, "papermill", None)  # starting papermill (a kernel) would fail differently
    with pytest.raises(NotebookCellError) as info:
        execute(NOTEBOOKS / "06-uncertainty.ipynb", tmp_path / "r.json", {"smoke": True, "n_refs": 3},
                out_dir=tmp_path)
    assert str(info.value).startswith(
        "unknown parameter 'n_refs' (did you mean 'n_references'?); notebook 06-uncertainty accepts: ")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.notebook
def test_papermill_with_a_misspelt_parameter_fails_in_the_notebook_naming_it(tmp_path):
    import papermill as pm
    from nbrun import NOTEBOOKS
    from papermill.exceptions import PapermillExecutionError

    results = tmp_path / "r.json"
    with pytest.raises(PapermillExecutionError) as info:   # papermill itself only logs "Passed unknown parameter"
        pm.execute_notebook(str(NOTEBOOKS / "01-shapley-games.ipynb"), str(tmp_path / "out.ipynb"),
                            parameters={"smoke": True, "n_perms": 10, "results_path": str(results)},
                            kernel_name="python3", cwd=str(NOTEBOOKS), progress_bar=False)
    assert info.value.ename == "ValueError"
    assert info.value.evalue == (
        "unknown parameter 'n_perms' (did you mean 'n_permutations'?); this notebook "
        "accepts: budgets, n_permutations, n_repeats, n_runs, paper, results_path, seed, smoke")
    assert not results.exists()
