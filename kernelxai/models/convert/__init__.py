"""Converters: fitted models of other libraries (and kernelxai's own), turned exactly into kernel expansions.

Takes a fitted model (and ``output=``). Hands on, through the dispatcher at the
top of this package, :func:`as_expansion` (a single-output model as a
:class:`~kernelxai.models.KernelExpansion`) and :func:`output_plan` (one target
per output: a kernel expansion, or a model-call target with its reason).

One file per model family, each declaring a
:class:`~kernelxai.models.convert.converters.Converter` and registering it:
``own_models`` (KernelExpansion, KernelRidge, KernelLogisticRegression),
``sklearn_krr``, ``sklearn_svm`` (also the nu-SVMs), ``one_class_svm``,
``kernel_density``, ``kernel_pca``, ``calibrated_svc``, ``sklearn_gp``,
``scaled_pipeline`` (the affine maths in ``affine``), ``nystroem`` and
``random_features``; the output plans' shared machinery is in ``plans``. A new
family is one more file imported below, and ``tests/test_converters.py``
checks it against brute-force model calls.
"""

# the families register themselves on import; the order breaks ties of equal priority
from . import (  # noqa: F401
    calibrated_svc,
    kernel_density,
    kernel_pca,
    nystroem,
    one_class_svm,
    own_models,
    random_features,
    scaled_pipeline,
    sklearn_gp,
    sklearn_krr,
    sklearn_svm,
)
from .affine import AFFINE_STEPS, IGNORED_LENGTHSCALE, AffineMap, affine_map, fold_affine
from .converters import SUPPORTED_MODELS, Converter, Example, register, registered
from .dispatch import DISPATCH, as_expansion, expansion_of_pipeline, output_plan
from .plans import OUTPUTS, OutputPlan

__all__ = [
    "as_expansion", "output_plan", "OUTPUTS", "OutputPlan", "SUPPORTED_MODELS", "Converter", "Example",
    "register", "registered", "DISPATCH",
    # kernelxai.pipelines of kernelxai 0.1 (that old path is this package now)
    "AffineMap", "affine_map", "expansion_of_pipeline", "fold_affine", "IGNORED_LENGTHSCALE", "AFFINE_STEPS",
]
