"""The dispatcher: the one place that asks "what is this model?" and hands it to its converter.

Takes any model ``kx.explain`` is given. Asks the registered converters
(:func:`kernelxai.models.convert.registered`, in priority order)
which one takes it, and hands on :func:`as_expansion` (the exact kernel
expansion of a single-output model) and :func:`output_plan` (the targets of
``output=``: kernel expansions, or model calls with their reason). Converters
that convert an inner model receive this dispatcher as an argument
(:data:`DISPATCH`); none of them imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._expansion import KernelExpansion
from ._converters import DECLINED, SUPPORTED_MODELS, candidates, refuse_precomputed
from ._plans import OUTPUTS, OutputPlan, model_call_plan

__all__ = ["as_expansion", "output_plan", "expansion_of_pipeline", "DISPATCH", "OUTPUTS", "OutputPlan"]


def as_expansion(model: Any) -> KernelExpansion:
    r"""Convert a supported model to a :class:`~kernelxai.models.KernelExpansion` (exact, no refitting).

    Supported (predictions of the expansion equal the model's to rounding):

    * a KernelExpansion (returned as is);
    * fitted :class:`~kernelxai.models.KernelRidge` / :class:`~kernelxai.models.KernelLogisticRegression`
      (the logit) of kernelxai;
    * ``sklearn.kernel_ridge.KernelRidge``: kernel ``"rbf"``
      (:math:`\exp(-\gamma \|x - x'\|^2)` = RBF with lengthscale :math:`1/\sqrt{2\gamma}`),
      ``"laplacian"`` (:math:`\exp(-\gamma \|x - x'\|_1)` = Laplace with lengthscale
      :math:`1/\gamma`), ``"linear"`` (closed form), any other string or callable
      (the exact kernel, explained through model calls), single output
      (several outputs: ``kx.explain(..., output=...)``);
    * ``sklearn.svm.SVR`` and binary ``sklearn.svm.SVC`` with kernel ``"rbf"``
      (the decision function :math:`\sum_i \alpha_i k(x, s_i) + b`, with :math:`\alpha` =
      ``dual_coef_``, :math:`s_i` the support vectors and :math:`b` = ``intercept_``);
    * ``sklearn.gaussian_process.GaussianProcessRegressor``: the posterior
      mean with any fitted kernel: sums and
      products of RBF / ConstantKernel stay product kernels or sums of them,
      a WhiteKernel does not enter the mean at new points, Matern of any :math:`\nu`,
      the rest exactly; ``normalize_y`` is undone exactly;
    * a ``sklearn.pipeline.Pipeline`` of per-feature affine preprocessing
      (``StandardScaler``, ``MinMaxScaler``, ``MaxAbsScaler``, ``RobustScaler``,
      a ``ColumnTransformer`` of these with passthrough or drop) followed by
      one of the models above: the scaling is folded into the kernel's
      lengthscales and the expansion points are mapped back, so the expansion
      is on the pipeline's input columns, in their units;
    * a pipeline with a ``Nystroem`` step (kernel ``"rbf"``, ``"laplacian"``,
      ``"linear"``, a Gaussian-process kernel; others exactly through model
      calls) followed by a linear model (``Ridge``, ``LogisticRegression``'s
      decision function, ``SVR(kernel="linear")``, ``LinearSVC``, ...): the
      exact expansion :math:`\sum_l \alpha_l k(x, L_l) + b` over its landmarks :math:`L` with
      ``alpha = normalization_.T @ coef``.
      Random features (``RBFSampler``) are not an expansion: explained through
      model calls.

    Every family is a registered converter
    (:func:`kernelxai.models.convert.registered`); the first that
    takes the model (in priority order) converts it.

    Parameters
    ----------
    model : object
        A fitted model of a supported family (above), or a KernelExpansion.

    Returns
    -------
    KernelExpansion
        :math:`f(x) = \sum_i \alpha_i k(x, x_i) + b` on the model's input columns, equal
        to the model's prediction (decision function, logit) to rounding.

    Raises
    ------
    TypeError
        No converter takes the model (the message lists what is supported;
        ``kx.explain`` then explains the model through model calls), or the
        converter that takes it cannot convert it (the message says why).
        A ``PrecomputedKernelError`` (also a ValueError) for a model fitted with ``kernel="precomputed"``,
        which nothing explains feature by feature (the message says what to do).
    ValueError
        The model is not fitted.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.svm import SVR
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> svr = SVR(gamma=0.5).fit(X, np.sin(X[:, 0]))
    >>> f = kx.models.as_expansion(svr)   # sum_i dual_coef_i k(x, sv_i) + intercept_
    >>> f.kernel
    RBF(lengthscale=1.0)
    >>> bool(np.allclose(f.predict(X[:5]), svr.predict(X[:5])))
    True
    """
    if type(model) is KernelExpansion:   # converted before (kx.explain hands its conversion downhill)
        return model
    refuse_precomputed(model)
    for converter in candidates(model):   # those of its class; then takes(model) is the predicate
        if converter.expansion is not None and (converter.predicate is None or converter.predicate(model)):
            return converter.expansion(model, DISPATCH)
    raise TypeError(f"cannot explain a {type(model).__name__}; supported models: {SUPPORTED_MODELS}")


def output_plan(model: Any, output: str | None = None) -> OutputPlan | None:
    """The outputs of ``model`` to explain for ``output=``, or None for the model's only output.

    Parameters
    ----------
    model : object
        Anything ``kx.explain`` takes.
    output : str or None
        One of :data:`OUTPUTS`; None: the model's default (``"decision"`` for
        SVMs, ``"log_odds"`` for kernel logistic regression, ``"latent"`` for
        Gaussian process classifiers, ``"prediction"`` for regressors).

    Returns
    -------
    OutputPlan or None
        None when there is nothing to do beyond explaining the model as it is
        (a single-output model and no ``output`` asked for).

    Raises
    ------
    ValueError
        ``output`` is not a known output, or not one this model has (the
        message lists the ones it has).
    PrecomputedKernelError
        The model was fitted with ``kernel="precomputed"`` (see :func:`as_expansion`).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVC, SVR
    >>> from kernelxai.models.convert import output_plan
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> svc = SVC().fit(X, np.digitize(X[:, 0], [-0.5, 0.5]))      # three classes
    >>> plan = output_plan(svc, "ovo")
    >>> plan.kind, plan.multi, [name for name, _ in plan.targets]
    ('ovo', True, ['0 vs 1', '0 vs 2', '1 vs 2'])
    >>> print(output_plan(SVR().fit(X, X[:, 0])))                   # one output: nothing to plan
    None
    """
    refuse_precomputed(model)
    if output is not None and (not isinstance(output, str) or output not in OUTPUTS):
        raise ValueError(f"output must be one of {sorted(OUTPUTS)} or None (the model's default); "
                         f"got {output!r}")
    return _plan(model, model, _same, output)


def _same(estimator: Any) -> Any:
    return estimator


def _plan(model: Any, estimator: Any, rebuild: Callable, output: str | None) -> OutputPlan | None:
    """The plan of the first converter that takes ``estimator`` and does not decline; else model calls."""
    for converter in candidates(estimator):   # those of its class; then takes(estimator) is the predicate
        if converter.plan is None or not (converter.predicate is None or converter.predicate(estimator)):
            continue
        plan = converter.plan(model, estimator, rebuild, output, DISPATCH)
        if plan is not DECLINED:
            return plan
    return model_call_plan(model, estimator, output)


def expansion_of_pipeline(pipeline: Any) -> KernelExpansion:
    """The exact kernel expansion of a fitted scikit-learn Pipeline (:func:`as_expansion` of it).

    Kept from ``kernelxai.models.convert`` of kernelxai 0.1; the pipeline converters
    (scalers, Nystroem, random features) decide.

    Parameters
    ----------
    pipeline : sklearn.pipeline.Pipeline
        Fitted; per-feature affine preprocessing followed by a supported kernel
        model, or a Nystroem step followed by a linear model.

    Returns
    -------
    KernelExpansion
        On the pipeline's input columns, in their units.

    Raises
    ------
    TypeError, ValueError
        As :func:`as_expansion`: a step that does not convert (the message
        says which), or a pipeline that is not fitted.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.svm import SVR
    >>> X = np.random.default_rng(0).normal(size=(30, 2)) * [1.0, 100.0]
    >>> pipe = make_pipeline(StandardScaler(), SVR(gamma=0.5)).fit(X, X[:, 0])
    >>> f = expansion_of_pipeline(pipe)
    >>> f.kernel                          # the scaling folded into the lengthscales
    RBF(lengthscale=[0.9434, 80.3696])
    >>> bool(np.allclose(f.predict(X[:5]), pipe.predict(X[:5])))
    True
    """
    return as_expansion(pipeline)


class _Dispatch:
    """The dispatcher as converters receive it (see ``kernelxai.models.convert._converters.Dispatch``)."""

    @staticmethod
    def as_expansion(model: Any) -> KernelExpansion:
        return as_expansion(model)

    @staticmethod
    def plan(model: Any, estimator: Any, rebuild: Callable, output: str | None) -> OutputPlan | None:
        return _plan(model, estimator, rebuild, output)

    def __repr__(self) -> str:
        return "DISPATCH"


#: what converters receive as their ``dispatch`` argument
DISPATCH = _Dispatch()
