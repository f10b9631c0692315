"""Self-checks for the exercise notebooks (``notebooks/exercises/``).

A task asks the student to write a small function -- the Shapley formula, a
marginal contribution along an ordering, the Shapley-kernel weight, the
R^2 of a sub-model, a conditional Gaussian, a kernel mean embedding, a
t-interval, ... -- and to hand the function itself to :func:`check`::

    def shapley(v, d):
        ...

    kx.exercises.check("shapley-exact", shapley)

The check calls the function on *fresh random inputs* (games, data sets,
models; a new draw on every call unless ``seed`` is given) and compares what
it returns with kernelxai's own implementation (``kx.shapley_values``,
``kx.explain_r2``, ``kx.values.Interventional``, ``kx.uncertainty.single_reference``,
...), so a number copied from somewhere cannot pass. Where kernelxai has no
public function for the quantity (the conditional Gaussian, the marginal
contributions along one ordering) the reference is a few lines in this
module, and ``tests/test_exercises.py`` checks those references against
brute force.

A wrong answer is never an exception: :func:`check` prints ``✗`` and a hint
that says *what* is wrong without giving the answer away (e.g. "efficiency
fails: your values sum to 3.2 but v(N) - v(∅) = 4.0"), and returns a falsy
:class:`CheckResult`. A function that still raises ``NotImplementedError``
(nbgrader's stub) is reported as not answered yet; any other exception it
raises is reported with its type, message and line. Only misuse raises: an
unknown task id (:class:`UnknownTaskError`, with the ids that exist) or an
answer that is not a function (``TypeError``).

>>> import kernelxai as kx
>>> r = kx.exercises.check("kernel-weight", lambda d, s: 1.0, quiet=True)
>>> bool(r)
False

The package's private modules hold the registry and :func:`check`, the games given to students
and the tasks of the notebooks, one module per topic (01-02 Shapley values, 03-04 regression and
groups, 05-06 dependent features, 07 uncertainty, 08 sampled explanations). Takes the entry points
of kernelxai (the references); hands the notebooks ``check``.
"""

from __future__ import annotations

# importing the topic modules registers their tasks; the order of registration (the notebooks'
# order) is the order of tasks()
# isort: off
from . import _shapley_tasks  # notebooks 01, 02
from . import _regression_tasks  # notebooks 03, 04
from . import _dependence_tasks  # notebooks 05, 06
from . import _uncertainty_tasks  # notebook 07
from . import _sampling_tasks  # notebook 08
# isort: on
from ._grading import FAIL, PASS, CheckResult, UnknownTaskError, check, describe, reset, results, tasks

__all__ = ["check", "tasks", "describe", "results", "reset", "CheckResult", "UnknownTaskError"]
