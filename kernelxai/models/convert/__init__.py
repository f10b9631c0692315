"""Converters: fitted models of other libraries (and kernelxai's own), turned exactly into kernel expansions.

Takes a fitted model (and ``output=``). Hands on, through the dispatcher at the
top of this package, :func:`as_expansion` (a single-output model as a
:class:`~kernelxai.models.KernelExpansion`) and :func:`output_plan` (one target
per output: a kernel expansion, or a model-call target with its reason).

One file per model family, each declaring a
:class:`~kernelxai.models.convert.Converter` and registering it:
``own_models`` (KernelExpansion, KernelRidge, KernelLogisticRegression),
``sklearn_krr``, ``sklearn_svm`` (also the nu-SVMs), ``one_class_svm``,
``kernel_density``, ``kernel_pca``, ``calibrated_svc``, ``sklearn_gp``,
``scaled_pipeline`` (the affine maths in ``affine``), ``nystroem`` and
``random_features``; the output plans' shared machinery is in ``plans``. A new
family is one more file imported below, and ``tests/test_converters.py``
checks it against brute-force model calls.
"""

# the families register themselves on import; the order breaks ties of equal priority
from . import (
    _calibrated_svc,
    _kernel_density,
    _kernel_pca,
    _nystroem,
    _one_class_svm,
    _own_models,
    _random_features,
    _scaled_pipeline,
    _sklearn_gp,
    _sklearn_krr,
    _sklearn_svm,
)
from ._converters import SUPPORTED_MODELS, Converter, Example, register, registered
from ._dispatch import as_expansion, output_plan
from ._plans import OUTPUTS, OutputPlan

__all__ = ["as_expansion", "output_plan", "OUTPUTS", "OutputPlan", "SUPPORTED_MODELS", "Converter", "Example",
           "register", "registered"]
