"""``python -m kernelxai.report MODEL DATA --app``: the report notebook as a Voilà app on the user's own model.

Takes the inputs :func:`~kernelxai.report.report` resolved and checked; hands on a private folder
holding them (signed with a one-run key, as for the HTML report) and a copy of the report notebook
whose parameters point at them, and serves that copy with Voilà until the user stops it; the
folder is deleted then.

Why a copy: Voilà runs a notebook with the values written in it and cannot pass papermill
parameters, so the parameters are written into the copy the way papermill writes them (an
``injected-parameters`` cell after the ``parameters`` cell). The copy holds the key of the inputs
next to them, in a folder only its owner can read, on this machine only (Voilà listens on
127.0.0.1).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from ._inputs import ReportInputs, write_inputs
from ._render import NOTEBOOK, ReportFailure

__all__ = ["prepare_app", "serve_app", "APP_NOTEBOOK"]

#: the name of the parameterised copy of the report notebook in the app's folder
APP_NOTEBOOK = "report.ipynb"


def prepare_app(inputs: ReportInputs, folder: str | os.PathLike, *, seed: int = 0) -> Path:
    """Write ``inputs`` (signed) and the report notebook parameterised for them into ``folder``.

    Parameters
    ----------
    inputs : ReportInputs
        What :func:`~kernelxai.report.report` resolved: the model, the points, the background, ...
    folder : path
        An empty folder (it is made readable by its owner only).
    seed : int
        The notebook's ``seed`` parameter.

    Returns
    -------
    Path
        The notebook to serve.
    """
    import nbformat
    from papermill.iorw import load_notebook_node  # the notebooks extra, as for the HTML report
    from papermill.parameterize import parameterize_notebook

    folder = Path(folder)
    os.chmod(folder, 0o700)
    key = write_inputs(inputs, folder / "inputs")
    nb = load_notebook_node(str(NOTEBOOK))   # as papermill reads it (every cell with its tags)
    nb = parameterize_notebook(nb, {"inputs_path": str(folder / "inputs"), "inputs_key": key, "seed": int(seed)},
                               kernel_name="python3", language="python")
    path = folder / APP_NOTEBOOK
    nbformat.write(nb, path)
    return path


def serve_app(inputs: ReportInputs, *, seed: int = 0, port: int | None = None, ip: str = "127.0.0.1",
              open_browser: bool = True, echo=None) -> int:
    """Serve the report notebook on ``inputs`` with Voilà until interrupted; return Voilà's exit status.

    Raises
    ------
    ReportFailure
        Voilà is not installed (``pip install 'kernelxai[app]'``).
    """
    if importlib.util.find_spec("voila") is None:
        raise ReportFailure("--app serves the report with Voilà, which is not installed: "
                            "pip install 'kernelxai[app]' (or pip install voila)")
    echo = echo or (lambda text: None)
    folder = Path(tempfile.mkdtemp(prefix="kernelxai-report-app-"))
    try:
        notebook = prepare_app(inputs, folder, seed=seed)
        command = [sys.executable, "-m", "voila", notebook.name, f"--Voila.ip={ip}"]
        command += [f"--port={port}"] if port else []
        command += [] if open_browser else ["--no-browser"]
        echo(f"serving the report of {type(inputs.model).__name__} with Voilà on {ip} from {folder} "
             "(its address follows; Ctrl-C stops it and deletes the folder)")
        proc = subprocess.Popen(command, cwd=folder)
        with _stopped_by_sigterm():
            try:
                return proc.wait()
            except KeyboardInterrupt:   # Ctrl-C (Voila, in the same process group, stops on its own) or SIGTERM
                proc.terminate()
                try:
                    return proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    return proc.wait()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def _stopped_by_sigterm():
    """While serving, SIGTERM stops the app as Ctrl-C does (the inputs are deleted); the handler is restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise KeyboardInterrupt

    saved = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, saved)
