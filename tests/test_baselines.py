"""Recorded baselines (notebooks/baselines/), the drift check of make run and the smoke tests,
python -m kernelxai.check, and determinism of the notebooks."""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import kernelxai.check as kc
from kernelxai.check import comparable, compare, is_timing_key, load_baseline, record, resolve_pointer, write_baseline

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
BASELINES = ROOT / "notebooks" / "baselines"


def _results(mode="smoke", **numbers):
    params = {"smoke": mode == "smoke", "paper": mode == "paper", "seed": 0, "n": 10,
              "results_path": "/somewhere/r.json"}
    return {"parameters": params, "summary": "text", **numbers}


def _baseline(numbers, mode="smoke", parameters=None, **extra):
    params = parameters or {"smoke": mode == "smoke", "paper": False, "seed": 0, "n": 10}
    return {"notebook": "99-toy", "format": 1, **extra,
            "modes": {mode: {"parameters": params, "numbers": numbers}}}


# --------------------------------------------------------------------------- #
# timings, pointers, comparable results
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("key", ["seconds", "r2_seconds", "seconds per point", "seconds_per_point", "timing",
                                 "seconds_kme", "fit_s", "time", "wall_time", "Runtime (ms)"])
def test_timing_keys_are_recognised(key):
    assert is_timing_key(key)


@pytest.mark.parametrize("key", ["settings", "sd", "s5", "sigmas", "lam_S", "status", "shape", "coverage",
                                 "mean phi, features 11-20", "stable (Alg. 2)", "sum_of_variances", "10"])
def test_other_keys_are_not_timings(key):
    assert not is_timing_key(key)


def test_comparable_drops_timings_at_every_depth_the_summary_and_results_path():
    results = {"summary": "took 3 s", "compared": {"status": "ok"}, "seconds": 3.0, "x": [1, 2],
               "timing": {"a": 1.0}, "cases": [{"fit_s": 0.1, "r2": 0.5}],
               "parameters": {"seed": 0, "results_path": "/tmp/a.json"}}
    assert comparable(results) == {"x": [1, 2], "cases": [{"r2": 0.5}], "parameters": {"seed": 0}}
    assert results["seconds"] == 3.0  # not modified


def test_json_pointers():
    doc = {"a": {"b/c": [10, {"~d": 5}]}, "0.0": {"x": 1}}
    assert resolve_pointer(doc, "/a/b~1c/0") == 10
    assert resolve_pointer(doc, "/a/b~1c/1/~0d") == 5
    assert resolve_pointer(doc, "/0.0/x") == 1
    assert resolve_pointer(doc, "") is doc
    with pytest.raises(KeyError, match="no '/a/b~1c/2'"):
        resolve_pointer(doc, "/a/b~1c/2")
    with pytest.raises(KeyError, match="no '/a/zz'"):
        resolve_pointer(doc, "/a/zz/q")
    with pytest.raises(ValueError, match="starts with '/'"):
        resolve_pointer(doc, "a")


# --------------------------------------------------------------------------- #
# comparing
# --------------------------------------------------------------------------- #
def test_within_and_outside_an_absolute_and_a_relative_tolerance():
    base = _baseline({"/cov": {"value": 0.95, "abs": 0.04, "rel": 0.0, "reason": "4 SE of a coverage"},
                      "/r2": {"value": 200.0, "abs": 0.0, "rel": 0.01, "reason": "rounding"}})
    ok = compare(_results(cov=0.985, r2=201.9), base)         # 0.035 <= 0.04, 1.9 <= 2
    assert ok.status == "ok" and not ok.failed and ok.cell() == "✓ 2"
    bad = compare(_results(cov=0.90, r2=202.5), base)
    assert bad.status == "drift" and bad.failed and bad.cell() == "✗ 2/2"
    cov, r2 = bad.checks
    assert cov.message == "/cov = 0.9, baseline 0.95 ± 0.04 (4 SE of a coverage)"
    assert r2.message == "/r2 = 202.5, baseline 200 ± 2 (rounding)"


def test_lists_are_compared_element_by_element_and_the_worst_is_named():
    base = _baseline({"/v": {"value": [[1.0, 2.0], [3.0, 4.0]], "abs": 0.1, "rel": 0.0, "reason": "r"}})
    assert compare(_results(v=[[1.05, 2.0], [3.0, 3.95]]), base).status == "ok"
    bad = compare(_results(v=[[1.2, 2.0], [3.0, 4.5]]), base)
    assert bad.checks[0].message.startswith("/v[1][1] = 4.5, baseline 4 ± 0.1")
    shape = compare(_results(v=[1.0, 2.0, 3.0, 4.0]), base)
    assert shape.status == "drift" and "shape [4], baseline shape [2, 2]" in shape.checks[0].message


def test_strings_bools_and_rankings_are_compared_exactly_and_missing_numbers_drift():
    base = _baseline({"/top": {"value": ["s5", "bmi"], "reason": "ranking"},
                      "/holds": {"value": True, "reason": "claim"},
                      "/gone": {"value": 1.0, "abs": 1.0, "reason": "r"}})
    res = compare(_results(top=["bmi", "s5"], holds=True), base)
    assert [c.ok for c in res.checks] == [False, True, False]
    assert res.checks[0].message == '/top[0] = "bmi", baseline "s5" (ranking)'
    grown = compare(_results(top=["s5", "bmi", "age"]), _baseline({"/top": {"value": ["s5", "bmi", "sex"]}}))
    assert grown.checks[0].message == '/top[2] = "age", baseline "sex" (compared exactly)'
    longer = compare(_results(top=["s5", "bmi", "age"]), _baseline({"/top": {"value": ["s5", "sex"]}}))
    assert longer.checks[0].message == '/top: 3 entries, baseline 2; added ["bmi", "age"], missing ["sex"] ' \
                                       '(compared exactly)'
    assert res.checks[2].message.startswith("/gone: missing")
    # a bool is not the number 1
    assert not compare(_results(holds=1), _baseline({"/holds": {"value": True}})).checks[0].ok
    # non-finite numbers are stored as strings by kx.workbench._reporting.to_jsonable: equal strings pass
    assert compare(_results(x="nan"), _baseline({"/x": {"value": "nan"}})).status == "ok"
    assert compare(_results(x=1.0), _baseline({"/x": {"value": "nan", "abs": 1.0}})).status == "drift"


def test_parameters_set_by_the_caller_skip_the_comparison_and_changed_defaults_fail():
    base = _baseline({"/x": {"value": 1.0}}, ignored_parameters={"data_home": "where data is cached"})
    res = _results(x=5.0)
    res["parameters"]["n"] = 20
    skipped = compare(res, base, overrides={"n", "smoke", "seed"})
    assert skipped.status == "not compared" and not skipped.failed and "the caller set n" in skipped.note
    changed = compare(res, base, overrides={"smoke", "seed"})
    assert changed.status == "parameters" and changed.failed
    assert "n = 20 (baseline 10)" in changed.message() and "ACCEPT=1" in changed.message()
    res["parameters"]["n"] = 10
    res["parameters"]["data_home"] = "/tmp/x"        # listed as not affecting the numbers
    assert compare(res, base).status == "drift"      # so the numbers are compared (5 vs 1)


def test_modes_without_a_baseline_warn_and_paper_runs_are_not_compared():
    none = compare(_results(x=1.0), None, name="99-toy")
    assert none.status == "no baseline" and not none.failed and none.cell() == "⚠ none"
    assert "make smoke ACCEPT=1 NOTEBOOK_ARGS='--only 99-toy'" in none.message()
    other = compare(_results("default", x=1.0), _baseline({"/x": {"value": 1.0}}))
    assert other.status == "no baseline" and "no default-mode baseline" in other.note
    paper = compare(_results("paper", x=1.0), _baseline({"/x": {"value": 1.0}}))
    assert paper.status == "not compared" and not paper.failed


def test_load_baseline_rejects_malformed_files(tmp_path):
    assert load_baseline(tmp_path / "none.json") is None
    path = tmp_path / "b.json"
    for doc, message in [({"modes": {}}, "format 1"),
                         ({"format": 1, "modes": {"fast": {}}}, "unknown mode 'fast'"),
                         ({"format": 1, "modes": {"smoke": {"numbers": {"/x": {"abs": 1}}}}}, "needs a 'value'"),
                         ({"format": 1, "modes": {"smoke": {"numbers": {"/x": {"value": 1, "abs": -1}}}}},
                          "abs must be a number >= 0")]:
        path.write_text(json.dumps(doc))
        with pytest.raises(ValueError, match=message):
            load_baseline(path)
    path.write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_baseline(path)


# --------------------------------------------------------------------------- #
# recording
# --------------------------------------------------------------------------- #
def test_record_keeps_pointers_tolerances_and_reasons_and_shows_the_diff(tmp_path):
    base = _baseline({"/cov": {"value": 0.95, "abs": 0.04, "rel": 0.0, "reason": "4 SE"},
                      "/gone": {"value": 2.0, "abs": 0.0, "rel": 0.0, "reason": "r"},
                      "/same": {"value": [1, 2], "abs": 0.0, "rel": 0.0, "reason": "r"}})
    new, diff = record(_results(cov=0.9, same=[1, 2], extra=3.0), base, name="99-toy", seconds=2.34)
    block = new["modes"]["smoke"]
    assert block["numbers"] == {"/cov": {"value": 0.9, "abs": 0.04, "rel": 0.0, "reason": "4 SE"},
                                "/same": {"value": [1, 2], "abs": 0.0, "rel": 0.0, "reason": "r"}}
    assert block["parameters"] == {"smoke": True, "paper": False, "seed": 0, "n": 10}  # no results_path
    assert block["seconds"] == 2.3 and "numpy" in block["recorded"]
    assert diff == ["  /cov: 0.95 -> 0.9", "- /gone: no longer in the results, dropped"]
    assert base["modes"]["smoke"]["numbers"]["/cov"]["value"] == 0.95  # the input is not modified
    # round trip through the file, and the new values compare equal
    write_baseline(tmp_path / "99-toy.json", new)
    again = load_baseline(tmp_path / "99-toy.json")
    assert again == new and compare(_results(cov=0.9, same=[1, 2]), again).status == "ok"
    # a second mode starts from the first mode's numbers and tolerances
    both, diff = record(_results("default", cov=0.97, same=[1, 2]), new, name="99-toy")
    assert list(both["modes"]) == ["default", "smoke"]
    assert both["modes"]["default"]["numbers"]["/cov"] == {"value": 0.97, "abs": 0.04, "rel": 0.0, "reason": "4 SE"}
    assert diff[0].startswith("new default-mode baseline")
    _, diff = record(_results(cov=0.9, same=[1, 3]), new, name="99-toy")
    assert diff == ["  /same: 1 of 2 entries changed, most at [1]: 2 -> 3"]
    _, diff = record(_results(cov=0.9, same=[1, 2]), new, name="99-toy")
    assert diff == ["  unchanged"]
    with pytest.raises(ValueError, match="only default and smoke runs"):
        record(_results("paper", cov=1.0), new, name="99-toy")


def test_a_new_notebook_gets_automatic_tolerances_without_timings():
    res = _results(err=3e-15, r2=0.8, top=["a", "b"], ok=True, seconds=2.0,
                   cases=[{"fit_s": 1.0, "acc": 0.5}], path="/tmp/x.csv", table={"time": [1.0], "d": [10, 20]})
    new, diff = record(res, None, name="99-toy")
    block = new["modes"]["smoke"]
    assert block["auto"] is True and "automatic tolerances" in diff[0]
    nums = block["numbers"]
    assert set(nums) == {"/err", "/r2", "/top", "/ok", "/cases/0/acc", "/table/d"}
    assert (nums["/err"]["abs"], nums["/r2"]["rel"], nums["/top"]["abs"]) == (1e-9, 1e-6, 0.0)
    assert compare(res, new).cell() == "✓ 6 auto"


# --------------------------------------------------------------------------- #
# the recorded baselines of the repository
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_notebook_has_a_baseline_for_both_modes_with_reasons(path):
    base = load_baseline(BASELINES / f"{path.stem}.json")
    assert base is not None, f"{path.stem} has no baseline: record it with make smoke ACCEPT=1 and make run ACCEPT=1"
    assert base["notebook"] == path.stem
    for mode in ("default", "smoke"):
        block = base["modes"].get(mode)
        assert block, f"{path.stem}: no {mode}-mode baseline"
        assert block["numbers"], f"{path.stem}: the {mode}-mode baseline compares nothing"
        assert block["parameters"]["smoke"] is (mode == "smoke") and "results_path" not in block["parameters"]
        for pointer, spec in block["numbers"].items():
            assert spec.get("reason", "").strip(), f"{path.stem} {mode} {pointer}: no reason for its tolerance"
            assert not any(is_timing_key(part) for part in pointer.split("/")), \
                f"{path.stem} {mode} {pointer}: timings are reported, never compared"


def _results_from(block):
    """A results JSON holding exactly the values of a baseline block at its pointers."""
    doc = {"parameters": {**block["parameters"], "results_path": "x.json"}}
    for pointer, spec in block["numbers"].items():
        parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]
        node = doc
        for part in parts[:-1]:
            node = node.setdefault(part, {})   # a list index becomes a dict key: the pointer still resolves
        node[parts[-1]] = spec["value"]
    return doc


def test_a_perturbed_number_fails_the_smoke_test_with_a_clear_message():
    """nbrun's hook, on the recorded smoke baseline of 01-shapley-games with one number moved."""
    from nbrun import compare_with_baseline

    block = load_baseline(BASELINES / "01-shapley-games.json")["modes"]["smoke"]
    results = _results_from(block)
    assert compare_with_baseline("01-shapley-games", results, overrides={"smoke", "seed"}).status == "ok"
    pointer, spec = next((p, s) for p, s in block["numbers"].items() if isinstance(s["value"], float))
    moved = spec["value"] + 10 * (spec["abs"] + spec["rel"] * abs(spec["value"])) + 1e-3
    perturbed = _results_from({**block, "numbers": {**block["numbers"], pointer: {**spec, "value": moved}}})
    with pytest.raises(pytest.fail.Exception) as info:
        compare_with_baseline("01-shapley-games", perturbed, overrides={"smoke", "seed"})
    message = str(info.value)
    assert "01-shapley-games (smoke mode) drifted from its baseline (notebooks/baselines/01-shapley-games.json)" \
        in message
    assert f"✗ {pointer} = {moved:.4g}, baseline {spec['value']:.4g} ±" in message
    assert "make smoke ACCEPT=1 NOTEBOOK_ARGS='--only 01-shapley-games'" in message


# --------------------------------------------------------------------------- #
# make run's check, on a toy notebook (papermill)
# --------------------------------------------------------------------------- #
def _toy_notebook(directory, name="99-toy", value="0.5"):
    cells = [
        ("import kernelxai as kx\nsmoke = False\npaper = False\nseed = 0\n"
         f'results_path = "../build/results/{name}.json"\nn = kx.workbench.default(10, smoke=3, minimum=1)',
         ["parameters"]),
        ("params = kx.workbench.resolve_parameters(globals())\nglobals().update(params)\n"
         f"kx.workbench.save_results(results_path, {{'x': {value} * n, 'labels': ['a', 'b'], 'seconds': 0.1}}, "
         "summary='toy', parameters=params)", []),
    ]
    nb = {"cells": [{"cell_type": "code", "metadata": {"tags": tags}, "source": src, "outputs": [],
                     "execution_count": None, "id": f"c{i}"} for i, (src, tags) in enumerate(cells)],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.ipynb").write_text(json.dumps(nb))


@pytest.fixture
def runner(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import run_notebooks
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    notebooks = tmp_path / "notebooks"
    _toy_notebook(notebooks)
    monkeypatch.setattr(run_notebooks, "NOTEBOOKS", notebooks)
    monkeypatch.setattr(run_notebooks, "BASELINES", notebooks / "baselines")
    return run_notebooks, notebooks, tmp_path / "build"


@pytest.mark.notebook
def test_make_run_records_compares_and_fails_on_a_perturbed_baseline(runner, capsys):
    run_notebooks, notebooks, build = runner
    args = ["--smoke", "--build", str(build)]
    # no baseline yet: a warning in the table, not a failure; ACCEPT=1 records it (automatic
    # tolerances for a new notebook) and prints what it did
    assert run_notebooks.main(args + ["--accept"]) == 0
    out = capsys.readouterr().out
    assert "⚠ none" in out and "none yet for 99-toy" in out
    assert "re-recorded baselines" in out and "new baseline: 2 numbers with automatic tolerances" in out
    path = notebooks / "baselines" / "99-toy.json"
    base = load_baseline(path)
    assert base["modes"]["smoke"]["numbers"]["/x"]["value"] == 1.5
    # the same run is within its baseline; the results JSON says what was compared
    assert run_notebooks.main(args) == 0
    assert "✓ 2 auto" in capsys.readouterr().out
    compared = json.loads((build / "results" / "99-toy.json").read_text())["compared"]
    assert compared["status"] == "ok" and set(compared["numbers"]) == {"/x", "/labels"}
    # a perturbed baseline: make run fails, naming the number, the baseline and the tolerance
    base["modes"]["smoke"]["numbers"]["/x"].update(value=1.7, abs=0.1, rel=0.0, reason="a made-up tolerance")
    write_baseline(path, base)
    assert run_notebooks.main(args) == 1
    out = capsys.readouterr().out
    assert "✗ 1/2" in out and "✗ /x = 1.5, baseline 1.7 ± 0.1 (a made-up tolerance)" in out
    assert "drift in 99-toy" in out
    # ACCEPT=1 re-records deliberately, keeps the tolerance and shows the diff
    assert run_notebooks.main(args + ["--accept"]) == 0
    assert "/x: 1.7 -> 1.5" in capsys.readouterr().out
    assert load_baseline(path)["modes"]["smoke"]["numbers"]["/x"] == {
        "value": 1.5, "abs": 0.1, "rel": 0.0, "reason": "a made-up tolerance"}


@pytest.mark.notebook
def test_python_m_kernelxai_check_writes_a_report(tmp_path, monkeypatch):
    notebooks = tmp_path / "nbs"
    _toy_notebook(notebooks)
    _toy_notebook(notebooks, name="98-other", value="2")
    base, _ = record({"x": 1.5, "parameters": {"smoke": True, "paper": False, "seed": 0, "n": 3}},
                     None, name="99-toy")
    base["modes"]["smoke"]["numbers"]["/x"].update(value=1.6, abs=0.05, reason="toy tolerance")
    write_baseline(notebooks / "baselines" / "99-toy.json", base)
    monkeypatch.setattr(kc, "notebooks_dir", lambda package=None: notebooks)
    out = tmp_path / "report"
    assert kc.main(["--smoke", "--output", str(out)]) == 1
    md = (out / "report.md").read_text()
    assert md.startswith("# kernelxai check (smoke mode)")
    assert "FAIL: 2/2 notebooks ran (smoke mode); 0 within their baselines; drift in 99-toy; " \
           "no baseline: 98-other" in md
    assert "| 99-toy | ✗ 1/1 |" in md and "| 98-other | ⚠ none |" in md
    assert "- ✗ /x = 1.5, baseline 1.6 ± 0.05 (toy tolerance)" in md
    assert "<td>✗ 1/1</td>" in (out / "report.html").read_text()
    assert json.loads((out / "results" / "99-toy.json").read_text())["compared"]["status"] == "drift"
    assert kc.main(["--smoke", "--only", "98-other", "--output", str(out)]) == 0   # a warning only
    assert kc.main(["--only", "nope", "--output", str(out)]) == 2


def test_the_check_command_refuses_a_bad_timeout_or_a_file_as_output_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(kc, "run_check", lambda **kw: pytest.fail("the notebooks ran"))
    afile = tmp_path / "report.txt"
    afile.write_text("")
    for args, words in [
            (["--timeout", "-5"], "argument --timeout: must be a positive whole number of seconds; got '-5'"),
            (["--timeout", "0"], "must be a positive whole number of seconds; got '0'"),
            (["--output", str(afile)], f"argument --output: {afile} is a file, not a directory"),
            (["--output", str(afile / "sub")], f"cannot be made: {afile} is a file, not a directory"),
            (["--timout", "5"], "unrecognized arguments: --timout 5 (did you mean '--timeout'?)")]:
        with pytest.raises(SystemExit) as info:
            kc.main(args)
        err = capsys.readouterr().err
        assert info.value.code == 2 and err.count("\n") == 1, err
        assert err.startswith("python -m kernelxai.check: error: ") and words in err, err


def test_the_runners_check_parameter_names_before_starting_a_kernel(runner, tmp_path, monkeypatch, capsys):
    """A notebook whose parameters cell lacks ``smoke``: make smoke and the check command refuse it at once."""
    run_notebooks, notebooks, build = runner
    nb = json.loads((notebooks / "99-toy.ipynb").read_text())
    nb["cells"][0]["source"] = nb["cells"][0]["source"].replace("smoke = False\n", "")
    (notebooks / "99-toy.ipynb").write_text(json.dumps(nb))
    monkeypatch.setitem(sys.modules, "papermill", None)   # a kernel started would fail differently
    message = "unknown parameter 'smoke'; notebook 99-toy accepts: n, paper, results_path, seed"
    assert run_notebooks.main(["--smoke", "--build", str(build)]) == 2
    assert capsys.readouterr().err == f"run_notebooks: {message}\n"
    monkeypatch.setattr(kc, "notebooks_dir", lambda package=None: notebooks)
    assert kc.main(["--smoke", "--output", str(tmp_path / "report")]) == 2
    assert capsys.readouterr().err == f"kernelxai.check: {message}\n"
    assert not build.exists() and not (tmp_path / "report").exists()


def test_notebooks_are_found_in_a_clone_or_in_the_installed_package(tmp_path):
    assert kc.notebooks_dir() == ROOT / "notebooks"
    package = tmp_path / "site-packages" / "kernelxai"
    with pytest.raises(FileNotFoundError, match="neither in"):
        kc.notebooks_dir(package)
    (package / "_notebooks").mkdir(parents=True)
    (package / "_notebooks" / "01-a.ipynb").write_text("{}")
    assert kc.notebooks_dir(package) == package / "_notebooks"


# --------------------------------------------------------------------------- #
# determinism and packaging
# --------------------------------------------------------------------------- #
@pytest.mark.notebook
def test_two_runs_of_a_notebook_give_identical_results(tmp_path):
    from nbrun import NOTEBOOKS as NB
    from nbrun import execute

    runs = []
    for k in range(2):
        path = tmp_path / f"run{k}.json"
        execute(NB / "01-shapley-games.ipynb", path, {"smoke": True}, out_dir=tmp_path / f"out{k}")
        runs.append(json.loads(path.read_text()))
    assert runs[0]["parameters"]["results_path"] != runs[1]["parameters"]["results_path"]
    assert comparable(runs[0]) == comparable(runs[1])


@pytest.mark.slow
def test_the_wheel_ships_the_notebooks_and_their_baselines(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-w", str(tmp_path), "-q"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = tmp_path.glob("kernelxai-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "kernelxai/check.py" in names
    assert "kernelxai/report/report.ipynb" in names, "the report notebook of python -m kernelxai.report"
    assert "kernelxai/estimators/_arena_errors.json" in names, "the arena's errors shown beside sampled estimates"
    for path in NOTEBOOKS:
        assert f"kernelxai/_notebooks/{path.name}" in names, path.name
        assert f"kernelxai/_notebooks/baselines/{path.stem}.json" in names, path.stem
    assert not any(n.startswith("kernelxai/_notebooks/src/") for n in names)
