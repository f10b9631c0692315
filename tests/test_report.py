"""``python -m kernelxai.report`` and ``kx.report``: a standalone report whose numbers are kx.explain's, safe model
loading, clear refusals with nothing written, and drift checks with an exit status for CI.

The report notebook runs with papermill (a few seconds per run), so the runs are made once per module and shared:
an SVR compared with its refit (exit 0), a refit whose target gained a feature, checked against the first run's JSON
(exit 3, the feature named), a OneClassSVM, a Gaussian-process classifier, and a kernel ridge pickle with
``--trust-pickle`` (refused without it by ``python -m kernelxai.report`` itself).
The refusals (a pickle without ``--trust-pickle``, untrusted skops types, columns that do not match, a missing
target column or file) stop before any kernel starts.
"""

from __future__ import annotations

import contextlib
import io
import json
import operator
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF
from sklearn.kernel_ridge import KernelRidge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.svm import SVR, OneClassSVM

import kernelxai as kx
from kernelxai.report import ReportInputError, load_model, load_table, main
from kernelxai.report._render import online_references

skops_io = pytest.importorskip("skops.io", reason="the report extra (skops) loads .skops model files")

ROOT = Path(__file__).resolve().parents[1]
COMMON = ["--target", "y", "--points", "0:6", "--background-rows", "20", "--quiet"]


def _run(argv):
    """``main(argv)`` in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(80, 4)), columns=["a", "b", "c", "d"])
    y = X.a - X.b * X.c + 0.1 * rng.normal(size=len(X))
    X.assign(y=y).to_csv(d / "data.csv", index=False)
    X.rename(columns={"d": "e"}).assign(y=y).to_csv(d / "renamed.csv", index=False)
    svr = SVR(gamma=0.3, C=3.0).fit(X, y)
    skops_io.dump(svr, d / "svr.skops")
    skops_io.dump(SVR(gamma=0.3, C=3.0).fit(X, y), d / "refit.skops")            # same data, same settings
    skops_io.dump(SVR(gamma=0.3, C=3.0).fit(X, y + 0.8 * X.d), d / "changed.skops")  # d now matters
    oc = OneClassSVM(gamma=0.3, nu=0.1).fit(X)
    skops_io.dump(oc, d / "oc.skops")
    gpc = GaussianProcessClassifier(RBF(1.5), optimizer=None).fit(X, y > 0)
    skops_io.dump(gpc, d / "gpc.skops")   # its GP kernel types are trusted by default
    krr = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, y)
    with open(d / "krr.pkl", "wb") as fh:
        pickle.dump(krr, fh)
    return SimpleNamespace(dir=d, X=X, y=y, svr=svr, oc=oc, gpc=gpc, krr=krr)


@pytest.fixture(scope="module")
def svr_run(files):
    """The SVR against its refit: explained on the same rows and background (exit 0)."""
    out = files.dir / "svr" / "svr.html"
    status, stdout, _ = _run([files.dir / "svr.skops", files.dir / "data.csv", *COMMON,
                              "--compare", files.dir / "refit.skops", "-o", out])
    return SimpleNamespace(status=status, stdout=stdout, html=out, numbers=json.loads(out.with_suffix(".json")
                                                                                       .read_text()))


@pytest.fixture(scope="module")
def changed_run(files, svr_run):
    """A refit on a target that gained feature d, checked against the first report's JSON (exit 3)."""
    out = files.dir / "changed" / "changed.html"
    status, stdout, stderr = _run([files.dir / "changed.skops", files.dir / "data.csv", *COMMON,
                                   "--baseline", svr_run.html.with_suffix(".json"), "-o", out])
    return SimpleNamespace(status=status, stdout=stdout, stderr=stderr, html=out)


@pytest.fixture(scope="module")
def oc_run(files):
    out = files.dir / "oc" / "oc.html"
    status, _, stderr = _run([files.dir / "oc.skops", files.dir / "data.csv", *COMMON, "-o", out])
    return SimpleNamespace(status=status, stderr=stderr, html=out)


# --------------------------------------------------------------------------- #
# end to end
# --------------------------------------------------------------------------- #
@pytest.mark.notebook
def test_the_report_writes_html_notebook_and_json_whose_numbers_are_kx_explains(files, svr_run):
    assert svr_run.status == 0, svr_run.stdout
    for path in (svr_run.html, svr_run.html.with_suffix(".ipynb"), svr_run.html.with_suffix(".json")):
        assert path.is_file(), path
    assert sorted(p.name for p in svr_run.html.parent.iterdir()) == ["svr.html", "svr.ipynb", "svr.json"]
    numbers = svr_run.numbers
    assert numbers["points"] == list(range(6)) and numbers["features"] == ["a", "b", "c", "d"]
    background = files.X.iloc[numbers["background_rows"]]
    expected = kx.explain(files.svr, files.X.iloc[numbers["points"]], background=background)
    np.testing.assert_allclose(numbers["values"], expected.values, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(numbers["base_values"], expected.base_values, rtol=1e-12, atol=1e-12)
    assert numbers["certificate"]["exact"] and numbers["certificate"]["max_residual"] < 1e-10
    assert numbers["model"]["route"].startswith("kernel expansion")
    importance = pd.DataFrame(numbers["importance"]).T
    np.testing.assert_allclose(importance.loc[["a", "b", "c", "d"], "mean_abs"],
                               np.abs(expected.values).mean(axis=0), rtol=1e-12)
    assert (importance["lower"] <= importance["mean_abs"] + 1e-15).all()
    assert "top_pairs" in numbers["interactions"], numbers["interactions"]
    assert {"explain", "interactions"} <= set(numbers["cost"]) and numbers["versions"]["kernelxai"] == kx.__version__


@pytest.mark.notebook
def test_the_html_is_standalone_and_hides_the_run_s_parameters(svr_run):
    html = svr_run.html.read_text()
    assert not re.search(r"<script[^>]*\bsrc=", html, re.I), "a script loaded from a file or the network"
    assert not re.search(r"<link[^>]*href=[\"']?(https?:)?//", html, re.I), "a stylesheet from the network"
    images = re.findall(r"<img[^>]*\bsrc=[\"']?([^\"' >]+)", html, re.I)
    assert len(images) >= 3 and all(src.startswith("data:image/") for src in images), images[:3]
    assert online_references(html) == []
    for section in ("The model and how it was explained", "The exactness certificate", "Global importance",
                    "How each feature acts", "The largest interactions", "Drift of the explanations", "The cost",
                    "Versions"):
        assert section in html, section
    notebook = svr_run.html.with_suffix(".ipynb").read_text()
    assert "inputs_key" not in html   # neither the parameters cell nor papermill's injected one
    for leak in ('inputs_key = \\"', "kernelxai-report-inputs", "injected-parameters"):   # this run's key and paths
        assert leak not in html and leak not in notebook, leak


@pytest.mark.notebook
def test_the_explorer_is_a_widget_in_the_notebook_and_its_first_drawing_in_the_html(svr_run):
    html = svr_run.html.read_text()
    section = html.partition("Explore one row")[2]
    assert section, "the explorer section is missing"
    assert re.search(r"<img[^>]*src=[\"']data:image/png;base64,", section), "its first drawing is not in the HTML"
    assert "widget-view+json" not in html   # nbconvert would prefer the widget, which nothing draws there
    executed = json.loads(svr_run.html.with_suffix(".ipynb").read_text())
    bundles = [o.get("data", {}) for c in executed["cells"] for o in c.get("outputs", [])]
    live = [b for b in bundles if "application/vnd.jupyter.widget-view+json" in b]
    assert len(live) == 1 and "data:image/png;base64," in "".join(live[0]["text/html"])   # Voilà draws the widget


def test_static_outputs_keeps_a_widget_without_a_drawing():
    from kernelxai.report._render import WIDGET, static_outputs

    nb = {"cells": [{"outputs": [{"data": {WIDGET: {"model_id": "a"}, "text/plain": "VBox()"}},
                                 {"data": {WIDGET: {"model_id": "b"}, "text/html": "<img src='data:,'/>"}}]}]}
    kept, drawn = (o["data"] for o in static_outputs(nb)["cells"][0]["outputs"])
    assert WIDGET in kept and WIDGET not in drawn and "text/html" in drawn


@pytest.mark.notebook
def test_the_same_model_refit_does_not_drift(svr_run):
    assert svr_run.status == 0
    drift = svr_run.numbers["drift"]["compare"]
    assert drift["ok"] and drift["moved"] == []
    assert max(f["max_relative"] for f in drift["features"].values()) < 1e-9
    assert "no feature moved beyond the tolerance 0.05" in svr_run.stdout


@pytest.mark.notebook
def test_a_refit_with_a_changed_feature_fails_the_baseline_check_and_names_it(changed_run):
    assert changed_run.status == 3, changed_run.stderr
    numbers = json.loads(changed_run.html.with_suffix(".json").read_text())
    drift = numbers["drift"]["baseline"]
    assert drift["moved"][0] == "d" and not drift["ok"]
    assert drift["features"]["d"]["max_relative"] > drift["tolerance"]
    assert re.search(r"--baseline: the attributions of d\b.* moved beyond the tolerance 0.05", changed_run.stdout)
    assert changed_run.html.is_file()   # the report is written; the status tells CI


@pytest.mark.notebook
def test_a_one_class_svm_report_says_which_reference_answers_which_question(files, oc_run):
    assert oc_run.status == 0, oc_run.stderr
    numbers = json.loads(oc_run.html.with_suffix(".json").read_text())
    assert numbers["anomaly"]["detector"] == "OneClassSVM"
    assert 0 < numbers["anomaly"]["n_inliers"] <= 20
    expected = kx.explain(files.oc, files.X.iloc[:6], background=files.X.iloc[numbers["background_rows"]])
    np.testing.assert_allclose(numbers["values"], expected.values, rtol=1e-12, atol=1e-12)
    html = oc_run.html.read_text()
    assert "Compared with what?" in html and "the inliers only" in html


@pytest.mark.notebook
def test_a_gaussian_process_classifier_report_has_credible_bands(files):
    out = files.dir / "gpc" / "gpc.html"
    status, _, stderr = _run([files.dir / "gpc.skops", files.dir / "data.csv", *COMMON, "-o", out])
    assert status == 0, stderr
    numbers = json.loads(out.with_suffix(".json").read_text())
    expected = kx.explain(files.gpc, files.X.iloc[:6], background=files.X.iloc[numbers["background_rows"]])
    np.testing.assert_allclose(numbers["values"], expected.values, rtol=1e-12, atol=1e-12)
    assert numbers["model"]["output"] == "latent" and numbers["certificate"]["max_residual"] < 1e-10
    bands = numbers["gp"]["bands"]
    assert set(bands) == {"a", "b", "c", "d"} and all(b["mean width of the 95% band"] > 0 for b in bands.values())
    assert "Credible bands of the Gaussian process" in out.read_text()


@pytest.mark.notebook
def test_a_pickle_is_refused_without_trust_pickle_and_loaded_with_it(files):
    out = files.dir / "krr" / "krr.html"
    refused = subprocess.run([sys.executable, "-m", "kernelxai.report", files.dir / "krr.pkl", files.dir / "data.csv",
                              *COMMON, "-o", out], capture_output=True, text=True, timeout=600,
                             env={**os.environ, "MPLBACKEND": "agg"})   # the command itself, as CI runs it
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert refused.stderr.startswith("kernelxai.report: error: MODEL") and refused.stderr.count("\n") == 1
    assert "loading one runs code stored in the file" in refused.stderr and "--trust-pickle" in refused.stderr
    assert not out.parent.exists() or not any(out.parent.iterdir())
    status, _, stderr = _run([files.dir / "krr.pkl", files.dir / "data.csv", *COMMON, "--trust-pickle", "-o", out])
    assert status == 0, stderr
    numbers = json.loads(out.with_suffix(".json").read_text())
    expected = kx.explain(files.krr, files.X.iloc[:6], background=files.X.iloc[numbers["background_rows"]])
    np.testing.assert_allclose(numbers["values"], expected.values, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- #
# refusals: one line, exit 2, nothing written
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("case, argv, message", [
    ("renamed column", ["svr.skops", "renamed.csv", "--target", "y"],
     r"do not match the features the model was fitted with \['a', 'b', 'c', 'd'\]: missing: \['d'\]; "
     r"not in the model: \['e'\]"),
    ("label not dropped", ["svr.skops", "data.csv"], r"not in the model: \['y'\] \(is it the label\? pass --target"),
    ("missing target", ["svr.skops", "data.csv", "--target", "yy"],
     r"--target 'yy' is not a column of DATA.*did you mean 'y' for 'yy'\?"),
    ("missing model", ["nothing.skops", "data.csv"], r"MODEL file '.*nothing.skops' does not exist"),
    ("missing data", ["svr.skops", "nothing.csv"], r"DATA file '.*nothing.csv' does not exist"),
    ("not a table", ["svr.skops", "svr.skops"], r"is not a table kernelxai reads: it reads .csv"),
    ("rows out of range", ["svr.skops", "data.csv", "--target", "y", "--points", "70:90"], r"DATA has 80 rows"),
    ("unknown feature", ["svr.skops", "data.csv", "--features", "a,b,cc,d"], r"did you mean 'c' for 'cc'\?"),
])
def test_bad_inputs_are_refused_in_one_line_and_nothing_is_written(files, case, argv, message):
    out = files.dir / "refused" / f"{case.replace(' ', '-')}.html"
    status, stdout, stderr = _run([files.dir / a if a.endswith((".skops", ".csv")) else a for a in argv]
                                  + ["--quiet", "-o", out])
    assert status == 2, (case, stdout, stderr)
    assert stderr.startswith("kernelxai.report: error: ") and stderr.count("\n") == 1, stderr
    assert re.search(message, stderr), stderr
    assert "Traceback" not in stderr and not out.exists() and not out.with_suffix(".json").exists()


def test_an_output_path_that_cannot_be_the_html_is_refused(files):
    for out, message in ((files.dir, "is a directory"), (files.dir / "x.json", "must not end in .ipynb or .json"),
                         (files.dir / "data.csv" / "r.html", "data.csv is a file, not a folder")):
        status, _, stderr = _run([files.dir / "svr.skops", files.dir / "data.csv", "--target", "y", "-o", out])
        assert status == 2 and message in stderr, stderr


def test_a_model_kx_explain_refuses_fails_with_its_message_and_status_1(files):
    status, _, stderr = _run([files.dir / "svr.skops", files.dir / "data.csv", *COMMON, "--output", "probability",
                              "-o", files.dir / "refused" / "probability.html"])
    assert status == 1, stderr
    assert stderr.startswith("kernelxai.report: error: kx.explain cannot explain MODEL (SVR) as asked: ValueError: "
                             "output='probability' is not an output of this SVR"), stderr
    assert not (files.dir / "refused" / "probability.html").exists()


def test_options_argparse_refuses_exit_2_with_a_suggestion(files):
    for argv, message in ((["--tolerence", "0.1"], "did you mean '--tolerance'?"),
                          (["--value", "interventinal"], "did you mean 'interventional'?"),
                          (["--tolerance", "-1"], "must be a number >= 0.0")):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exit_:
            main([str(files.dir / "svr.skops"), str(files.dir / "data.csv"), *argv])
        assert exit_.value.code == 2 and message in err.getvalue(), err.getvalue()


def test_a_baseline_of_other_rows_is_refused(files, svr_run):
    status, _, stderr = _run([files.dir / "svr.skops", files.dir / "data.csv", *COMMON[:2], "--points", "0:5",
                              "--background-rows", "20", "--baseline", svr_run.html.with_suffix(".json"), "--quiet",
                              "-o", files.dir / "refused" / "baseline.html"])
    assert status == 2 and "--baseline was computed with other points" in stderr, stderr


# --------------------------------------------------------------------------- #
# loading safely
# --------------------------------------------------------------------------- #
def test_untrusted_skops_types_are_named_and_trust_extends_the_list(files):
    X = files.X.to_numpy()
    model = make_pipeline(FunctionTransformer(operator.neg), SVR()).fit(X, files.y)
    path = files.dir / "neg.skops"
    skops_io.dump(model, path)
    with pytest.raises(ReportInputError, match=r"holds types that are not trusted: _operator.neg\. .*"
                                               r"pass --trust _operator.neg"):
        load_model(path)
    loaded = load_model(path, trust=["_operator.neg"])
    np.testing.assert_allclose(loaded.predict(X[:3]), model.predict(X[:3]))


def test_gaussian_process_kernels_and_kernelxai_models_are_trusted_by_default(files):
    from sklearn.gaussian_process.kernels import ConstantKernel

    gpc = GaussianProcessClassifier(ConstantKernel() * RBF(1.0), optimizer=None).fit(files.X, files.y > 0)
    ours = kx.models.KernelRidge(kx.kernels.RBF(1.0)).fit(files.X, files.y)
    for name, model in (("gpc", gpc), ("ours", ours)):
        path = files.dir / f"{name}.skops"
        skops_io.dump(model, path)
        assert skops_io.get_untrusted_types(file=path), "skops itself does not trust these"
        np.testing.assert_allclose(load_model(path).predict(files.X.iloc[:3]), model.predict(files.X.iloc[:3]))
    assert kx.report.is_gaussian_process(gpc) and not kx.report.is_gaussian_process(ours)


def test_parquet_needs_pyarrow_and_says_which_extra(files, monkeypatch):
    pytest.importorskip("pyarrow")
    path = files.dir / "data.parquet"
    files.X.to_parquet(path)
    pd.testing.assert_frame_equal(load_table(path), files.X)
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a))
    with pytest.raises(ReportInputError, match=r"reading Parquet needs pyarrow: pip install 'kernelxai\[report\]'"):
        load_table(path)


# --------------------------------------------------------------------------- #
# the pieces
# --------------------------------------------------------------------------- #
def test_drift_is_relative_to_the_largest_mean_attribution():
    ref = np.array([[2.0, 0.2, 0.0], [-2.0, 0.0, 0.1]])
    moved = ref + np.array([[0.0, 0.05, 0.3], [0.0, 0.05, 0.0]])
    d = kx.report.drift(ref, moved, tolerance=0.1, feature_names=["a", "b", "c"])
    assert d.scale == 2.0 and d.moved == ["c"] and not d.ok
    np.testing.assert_allclose(d.table["max_relative"], [0.0, 0.025, 0.15])
    np.testing.assert_allclose(d.table["mean_relative"], [0.0, 0.025, 0.075])
    again = kx.report.Drift.from_dict(json.loads(json.dumps(d.to_dict())))
    assert again.moved == ["c"] and again.scale == 2.0
    with pytest.raises(ValueError, match="differ in shape"):
        kx.report.drift(ref, ref[:1])


def test_importance_bootstrap_brackets_the_mean_and_is_seeded():
    values = np.random.default_rng(1).normal(size=(50, 3)) * [3.0, 1.0, 0.1]
    e = kx.Explanation(values, feature_names=["big", "mid", "small"])
    imp = kx.report.importance(e, n_bootstrap=300, seed=0)
    assert list(imp.index) == ["big", "mid", "small"]
    np.testing.assert_allclose(imp["mean_abs"], np.abs(values).mean(axis=0)[[0, 1, 2]])
    assert (imp["lower"] < imp["mean_abs"]).all() and (imp["mean_abs"] < imp["upper"]).all()
    pd.testing.assert_frame_equal(imp, kx.report.importance(e, n_bootstrap=300, seed=0))


def test_kx_report_is_the_module_and_callable_with_declared_parameters(files):
    assert kx.report is sys.modules["kernelxai.report"] and callable(kx.report)
    with pytest.raises(kx.estimators.InvalidOptionError, match=r"^tolerance=-1.0 of kx.report must be"):
        kx.report(files.svr, files.X, tolerance=-1.0)
    with pytest.raises(kx.estimators.InvalidOptionError, match=r"did you mean 'tolerance' for 'tolerence'\?"):
        kx.report(files.svr, files.X, tolerence=0.1)


def test_signed_inputs_only(tmp_path):
    inputs = kx.report.load_inputs(None)
    from kernelxai.report._inputs import write_inputs

    key = write_inputs(inputs, tmp_path)
    assert kx.report.load_inputs(tmp_path, key).points.shape == inputs.points.shape
    for wrong in (None, "00" * 32, "not hex"):
        with pytest.raises(ValueError, match="not signed with this key"):
            kx.report.load_inputs(tmp_path, wrong)


def test_the_shipped_notebook_is_built_from_its_source():
    sys.path.insert(0, str(ROOT / "scripts"))
    from build_notebooks import REPORT_OUT, REPORT_SRC, render

    assert (REPORT_OUT / "report.ipynb").read_text() == render(REPORT_SRC), \
        "kernelxai/report/report.ipynb is out of date: python scripts/build_notebooks.py report"
    nb = json.loads(render(REPORT_SRC))
    assert [c for c in nb["cells"] if "parameters" in c["metadata"].get("tags", [])]


def test_the_app_copy_of_the_notebook_points_at_the_user_s_inputs(files, tmp_path):
    """--app serves a copy of the report notebook parameterised (as papermill does) for the signed inputs."""
    import nbformat

    from kernelxai.report._api import resolve
    from kernelxai.report._app import prepare_app

    inputs, _ = resolve(files.dir / "svr.skops", files.dir / "data.csv", target="y", features=None, points="0:7",
                        background=None, background_rows=20, value="interventional", output=None, compare=None,
                        baseline=None, tolerance=0.05, seed=3, trust=(), trust_pickle=False)
    folder = tmp_path / "app"
    folder.mkdir()
    nb = nbformat.read(prepare_app(inputs, folder, seed=3), as_version=4)
    tags = [c.metadata.get("tags", []) for c in nb.cells]
    injected = next(c for c, t in zip(nb.cells, tags) if "injected-parameters" in t)
    assert tags.index(["injected-parameters"]) == next(i for i, t in enumerate(tags) if "parameters" in t) + 1
    params = {}
    exec(injected.source, {}, params)   # plain assignments, as papermill writes them
    assert params["seed"] == 3 and "results_path" not in params
    loaded = kx.report.load_inputs(params["inputs_path"], params["inputs_key"])
    pd.testing.assert_frame_equal(loaded.points, files.X.iloc[:7])
    assert type(loaded.model) is SVR and len(loaded.background) == 20
    assert oct(os.stat(folder).st_mode & 0o777) == "0o700"


def test_the_app_options_and_a_missing_voila_are_refused_in_one_line(files, monkeypatch):
    import importlib.util

    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exit_:
        main([str(files.dir / "svr.skops"), str(files.dir / "data.csv"), "--port", "8888"])
    assert exit_.value.code == 2 and "--port and --no-browser go with --app" in err.getvalue()
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "voila" else real(name, *a))
    status, out, err = _run([files.dir / "svr.skops", files.dir / "data.csv", "--target", "y", "--app"])
    assert status == 1 and "Voilà, which is not installed: pip install 'kernelxai[app]'" in err, err
