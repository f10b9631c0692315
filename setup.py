"""Build hook: ship the notebooks and their baselines inside the package, as kernelxai/_notebooks.

Everything else about the package is in pyproject.toml. ``python -m kernelxai.check``
runs these copies when kernelxai is installed from a wheel; from a clone (and an
editable install) it uses the repository's notebooks/ directly.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

NOTEBOOKS = Path(__file__).resolve().parent / "notebooks"
SHIPPED = ("[0-9][0-9]-*.ipynb", "baselines/*.json")


class BuildPyWithNotebooks(build_py):
    """build_py, then copy notebooks/NN-*.ipynb and notebooks/baselines/*.json into kernelxai/_notebooks."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads the clone's notebooks/
            return
        if not any(NOTEBOOKS.glob(SHIPPED[0])):
            raise RuntimeError(f"no notebooks to ship in {NOTEBOOKS}: build kernelxai from a clone or its sdist")
        target = Path(self.build_lib) / "kernelxai" / "_notebooks"
        shutil.rmtree(target, ignore_errors=True)  # no stale copy of a notebook removed since the last build
        for pattern in SHIPPED:
            for source in sorted(NOTEBOOKS.glob(pattern)):
                destination = target / source.relative_to(NOTEBOOKS)
                self.mkpath(str(destination.parent))
                self.copy_file(str(source), str(destination))

setup(cmdclass={"build_py": BuildPyWithNotebooks})
