"""Write the documentation's example report: docs/_static/example-report.html.

A scaler + RBF-SVR pipeline fitted on scikit-learn's diabetes data (shipped with scikit-learn:
nothing is downloaded), explained by ``kx.report`` on 100 rows against 100 background rows. The
HTML is standalone (figures embedded, nothing fetched when it is opened) and committed, so that
``make docs`` only copies it (it runs this script when the file is missing); rerun it after the
report notebook changes:

    .venv/bin/python scripts/example_report.py [--out docs/_static/example-report.html]

Takes about half a minute, most of it starting the notebook's kernel.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from sklearn.datasets import load_diabetes
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

import kernelxai as kx

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "_static" / "example-report.html"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT, help=f"the HTML file to write (default {OUT.relative_to(ROOT)})")
    args = ap.parse_args(argv)
    data = load_diabetes(as_frame=True).frame   # ten features and the disease progression a year later
    X, y = data.drop(columns="target"), data["target"]
    model = make_pipeline(StandardScaler(), SVR(C=50.0, epsilon=5.0, gamma=0.05)).fit(X, y)
    with tempfile.TemporaryDirectory() as tmp:   # the notebook and the JSON stay out of docs/
        r = kx.report(model, data, target="target", out=Path(tmp) / "example-report.html", seed=0)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(r.html, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
