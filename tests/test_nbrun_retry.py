"""The notebook runner starts a kernel again when one never answered (a port race), and only then."""

import json

import nbrun
import pytest


def _fake(monkeypatch, errors):
    import papermill as pm

    calls = []

    def execute_notebook(src, dst, parameters, **kw):
        calls.append(1)
        if errors:
            raise errors.pop(0)
        with open(parameters["results_path"], "w") as fh:
            json.dump({"ok": True}, fh)

    monkeypatch.setattr(pm, "execute_notebook", execute_notebook)
    return calls


def _notebook(tmp_path):
    """A notebook whose parameters cell the runner's name check reads before any (faked) execution."""
    import nbformat

    cell = nbformat.v4.new_code_cell("smoke = False\nresults_path = None")
    cell.metadata["tags"] = ["parameters"]
    path = tmp_path / "x.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), path)
    return path


def test_a_kernel_that_never_answered_is_started_once_more(monkeypatch, tmp_path):
    calls = _fake(monkeypatch, [RuntimeError("Kernel didn't respond in 60 seconds")])
    results = tmp_path / "r.json"
    with pytest.warns(UserWarning, match="starting it again"):
        nbrun.execute(_notebook(tmp_path), results, {}, out_dir=tmp_path)
    assert len(calls) == 2 and json.loads(results.read_text()) == {"ok": True}


def test_other_errors_and_a_second_failure_are_not_retried(monkeypatch, tmp_path):
    calls = _fake(monkeypatch, [RuntimeError("something else")])
    with pytest.raises(RuntimeError, match="something else"):
        nbrun.execute(_notebook(tmp_path), tmp_path / "r.json", {}, out_dir=tmp_path)
    assert len(calls) == 1
    calls = _fake(monkeypatch, [RuntimeError("Kernel didn't respond in 60 seconds")] * 2)
    with pytest.raises(RuntimeError, match="respond"), pytest.warns(UserWarning):
        nbrun.execute(_notebook(tmp_path), tmp_path / "r.json", {}, out_dir=tmp_path)
    assert len(calls) == 2
