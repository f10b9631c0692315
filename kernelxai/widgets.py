"""ipywidgets explorers used by the notebooks.

Widgets only re-render: every computation goes through kernelxai, and results
are cached by their settings, so moving a slider back and forth redraws from
the cache. Errors in the inputs (a budget below the minimum, say) are shown as
a message under the controls instead of a traceback. Everything constructs
and displays headless (under papermill the widgets print a text placeholder
and the first rendering is drawn).

Figures reach an ``Output`` widget as finished display data
(:func:`show_figures`), never by capturing output inside ``with output:``:
headless executors (papermill's and Voila's nbclient) answer output-capture
messages on the channel on which they wait for the cell to finish and can
stall until the cell timeout (jupyter/nbclient#312). :func:`interact` is the
drop-in for ``ipywidgets.interact`` built the same way. Render functions
draw with matplotlib and must not call ``plt.show()``.

matplotlib.pyplot and ipywidgets are imported only when a widget is built or
a figure drawn, so importing this module is cheap.

Budgets are the estimators' common keyword ``budget`` (game evaluations); which
methods take one, and the smallest sensible value, come from the estimator
registry (:func:`kernelxai.estimators.get_estimator`), not from a table here.
"""

from __future__ import annotations

import html
import io
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import plots
from .estimators import get_estimator
from .explainers import subsample
from .explainers._explain import explain
from .explainers._gp_shap import explain_gp
from .explanation import Explanation
from .values import registered

if TYPE_CHECKING:
    from collections.abc import Mapping

    import ipywidgets
    from numpy.typing import ArrayLike

__all__ = ["ExplanationExplorer", "ParameterExplorer", "explore", "gp_explorer", "interact",
           "show_figures"]


def _estimator(method):
    """The registered estimator of ``method``, or None for names that are not one (``"auto"``)."""
    try:
        return get_estimator(method)
    except ValueError:
        return None


def uses_budget(method) -> bool:
    """Whether ``method`` is a sampled estimator that takes ``budget=`` (and ``seed=``)."""
    estimator = _estimator(method)
    return estimator is not None and not estimator.exact


def min_budget(method, n_players) -> int | None:
    """The registry's smallest sensible budget of ``method`` for ``n_players``; None if it has none."""
    estimator = _estimator(method)
    return None if estimator is None else estimator.min_budget(int(n_players))


def _message(text, kind="error"):
    colour = {"error": "#b2182b", "info": "#555555"}[kind]
    return f'<div style="color:{colour};white-space:pre-wrap">{html.escape(str(text))}</div>'


def _png(fig):
    """The figure as a PNG image (as the inline backend would draw it, with a tight box)."""
    from IPython.display import Image

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight", dpi=fig.dpi)
    return Image(data=buffer.getvalue(), format="png")


def show_figures(output: ipywidgets.Output, draw: Callable[[], Any]) -> Any:
    """Call ``draw()`` and put the figures it created into ``output`` (replacing its contents).

    A return value that is not a matplotlib object (a DataFrame, say) is shown
    after the figures. Returns what ``draw`` returned.

    Parameters
    ----------
    output : ipywidgets.Output
        Where the figures go, each as a PNG image; its previous contents are removed.
    draw : callable
        Called without arguments; draws with matplotlib (without ``plt.show()``). The
        figures it opens are closed once they are in ``output``.

    Returns
    -------
    object
        What ``draw`` returned (an exception it raises propagates; the figures it opened
        stay open).

    Examples
    --------
    >>> import ipywidgets
    >>> import matplotlib.pyplot as plt
    >>> from kernelxai.widgets import show_figures
    >>> def draw():
    ...     fig, ax = plt.subplots(figsize=(2, 1))
    ...     return "a caption"
    >>> output = ipywidgets.Output()
    >>> show_figures(output, draw)
    'a caption'
    >>> [sorted(item["data"]) for item in output.outputs]  # the figure, then the caption
    [['image/png', 'text/plain'], ['text/plain']]
    """
    import matplotlib.pyplot as plt
    from matplotlib.artist import Artist
    from matplotlib.figure import Figure

    before = set(plt.get_fignums())
    try:
        result = draw()
    finally:
        new = [plt.figure(num) for num in plt.get_fignums() if num not in before]
    output.outputs = ()
    for fig in new:
        output.append_display_data(_png(fig))
        plt.close(fig)
    if result is not None and not isinstance(result, (Artist, Figure, np.ndarray, list, tuple)):
        output.append_display_data(result)
    return result


def interact(function: Callable[..., Any], **controls: Any) -> ipywidgets.VBox:
    """Like ``ipywidgets.interact``: a control per keyword, ``function`` redrawn on change.

    Controls are given as ipywidgets accepts them for ``interact`` (a widget, a
    list of options, a ``(min, max[, step])`` tuple, a bool, ...). Figures are
    passed to the output as display data (see the module docstring), so the
    cell runs headless under papermill and Voila without stalling. Errors of
    ``function`` (ValueError/TypeError) are shown as a message.

    Parameters
    ----------
    function : callable
        Called with one keyword per control, the control's value; draws with matplotlib
        (without ``plt.show()``) or returns something to display.
    **controls
        One control per keyword of ``function``: a widget, or an abbreviation as
        ``ipywidgets.interact`` reads it. A control without a description is labelled
        with its keyword.

    Returns
    -------
    ipywidgets.VBox
        The controls, a status line (HTML, the error message if any) and the output
        (displayed when last in a cell). ``function`` has been drawn once.

    Raises
    ------
    ValueError
        When no control can be made for an abbreviation.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from kernelxai.widgets import interact
    >>> def draw(weight):
    ...     kx.plots.bar(kx.Explanation(np.array([weight, -1.0])), title=f"weight {weight}")
    >>> box = interact(draw, weight=(0.0, 2.0))
    >>> [type(child).__name__ for child in box.children], len(box.children[-1].outputs)
    (['FloatSlider', 'HTML', 'Output'], 1)
    """
    import ipywidgets as W
    import matplotlib.pyplot as plt

    widgets = {}
    for name, abbrev in controls.items():
        widget = abbrev if isinstance(abbrev, W.ValueWidget) else W.interactive.widget_from_abbrev(abbrev)
        if widget is None:
            raise ValueError(f"cannot make a control for {name}={abbrev!r}")
        if not widget.description:
            widget.description = name
        widgets[name] = widget
    status, output = W.HTML(), W.Output()

    def redraw(change=None):
        try:
            show_figures(output, lambda: function(**{k: w.value for k, w in widgets.items()}))
            status.value = ""
        except (ValueError, TypeError) as exc:
            plt.close("all")
            status.value = _message(exc)
            output.outputs = ()

    for widget in widgets.values():
        widget.observe(redraw, names="value")
    redraw()
    return W.VBox([*widgets.values(), status, output])


class _Cached:
    """Call ``compute(**settings)`` once per distinct settings."""

    def __init__(self, compute):
        self.compute = compute
        self.cache = {}

    def __call__(self, **settings):
        key = tuple(sorted(settings.items()))
        if key not in self.cache:
            self.cache[key] = self.compute(**settings)
        return self.cache[key]


class ExplanationExplorer:
    """Pick an instance, a value function, a method and its budget; see the explanation.

    Parameters
    ----------
    compute : callable
        ``compute(value=..., method=..., budget=..., seed=...) -> Explanation``
        for all instances at once; ``budget`` and ``seed`` are None for
        methods that take no budget (exact ones, ``"auto"``). :func:`explore`
        builds one from a model.
    values : sequence of str
        Value-function names offered.
    methods : sequence of str
        Estimators offered.
    n_players : int
        Used to check budgets before computing.
    n_instances : int
        Number of explained instances: the ``instance`` slider runs over 0..n_instances-1.
    budget : int
        Initial budget of sampled methods, in game evaluations; checked
        against the estimator's ``min_budget(n_players)`` before computing.
    seed : int, default 0
        Initial seed of sampled methods.
    max_display : int, default 10
        Features shown in the waterfall and the beeswarm.

    The waterfall shows the chosen instance (with interval bars when the
    method provides them); the beeswarm shows all instances.

    Attributes
    ----------
    widget : ipywidgets.VBox
        The controls, the status line and the output (what a notebook displays).
    value, method, budget, seed, instance : ipywidgets controls
        The settings; changing one redraws (from the cache when already computed).
    status : ipywidgets.HTML
        A description of the explanation, or the error message of bad settings.
    output : ipywidgets.Output
        The figure.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from kernelxai.widgets import ExplanationExplorer
    >>> def compute(value, method, budget, seed):
    ...     return kx.Explanation(np.array([[0.5, -0.2, 0.1], [0.3, 0.4, -0.1]]), base_values=1.0)
    >>> explorer = ExplanationExplorer(compute, ["interventional"], ["exact"], n_players=3, n_instances=2)
    >>> type(explorer.widget).__name__, len(explorer.output.outputs), explorer.instance.max
    ('VBox', 1, 1)
    >>> explorer.settings()
    {'value': 'interventional', 'method': 'exact', 'budget': None, 'seed': None}
    """

    def __init__(self, compute: Callable[..., Explanation], values: Sequence[str], methods: Sequence[str],
                 n_players: int, n_instances: int, budget: int = 200, seed: int = 0, max_display: int = 10) -> None:
        import ipywidgets as W

        self._compute = _Cached(compute)
        self.n_players = int(n_players)
        self.max_display = max_display
        self.instance = W.IntSlider(value=0, min=0, max=max(0, n_instances - 1),
                                    description="instance", continuous_update=False)
        self.value = W.Dropdown(options=list(values), description="value fn")
        self.method = W.Dropdown(options=list(methods), description="method")
        self.budget = W.BoundedIntText(value=int(budget), min=1, max=10**7, description="budget")
        self.seed = W.BoundedIntText(value=int(seed), min=0, max=2**31 - 1, description="seed")
        self.status = W.HTML()
        self.output = W.Output()
        for control in (self.instance, self.value, self.method, self.budget, self.seed):
            control.observe(self._on_change, names="value")
        self.widget = W.VBox([
            W.HBox([self.value, self.method]),
            W.HBox([self.budget, self.seed]),
            self.instance, self.status, self.output,
        ])
        self.render()

    # ------------------------------------------------------------------ logic
    def settings(self) -> dict[str, Any]:
        method = self.method.value
        sampled = uses_budget(method)
        return {"value": self.value.value, "method": method,
                "budget": int(self.budget.value) if sampled else None,
                "seed": int(self.seed.value) if sampled else None}

    def check(self, settings: Mapping[str, Any]) -> None:
        """Raise ValueError with a readable message if the settings cannot work."""
        method, budget = settings["method"], settings["budget"]
        if budget is not None:
            minimum = min_budget(method, self.n_players)
            if minimum is not None and budget < minimum:
                raise ValueError(
                    f"budget {budget} is below the minimum for method {method!r} with "
                    f"{self.n_players} players: use at least {minimum}"
                )

    def explanation(self) -> Explanation:
        """The Explanation for the current settings (cached)."""
        settings = self.settings()
        self.check(settings)
        return self._compute(**settings)

    def _on_change(self, change):
        self.render()

    def render(self) -> Explanation | None:
        try:
            self.status.value = _message("computing ...", "info")
            expl = self.explanation()
        except (ValueError, TypeError, FloatingPointError) as exc:
            self.status.value = _message(exc)
            self.output.outputs = ()
            return None
        try:
            show_figures(self.output, lambda: self._draw(expl))
        except ValueError as exc:  # e.g. an Explanation with several outputs
            self.status.value = _message(exc)
            self.output.outputs = ()
            return None
        self.status.value = _message(self._describe(expl), "info")
        return expl

    def _draw(self, expl):
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(13, 0.45 * min(self.n_players, self.max_display) + 2))
        plots.waterfall(expl[self.instance.value], ax=axes[0], max_display=self.max_display,
                        title=f"instance {self.instance.value}")
        if expl.values.ndim == 2 and expl.values.shape[0] > 1:
            plots.beeswarm(expl, ax=axes[1], max_display=self.max_display, title="all instances")
        else:
            axes[1].set_visible(False)
        fig.tight_layout()

    @staticmethod
    def _describe(expl) -> str:
        meta = expl.meta
        parts = [f"value function: {meta.get('value_function', '?')}", f"method: {meta.get('method', '?')}"]
        if meta.get("budget"):
            parts.append(f"game evaluations: {meta['budget']}")
        if expl.has_intervals:
            parts.append("bars show intervals")
        return " · ".join(parts)

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def explore(model: Any, X: ArrayLike, *, background: ArrayLike | None = None,
            values: Sequence[str] = ("interventional", "observational"),
            methods: Sequence[str] = ("auto", "exact", "kernel", "permutation"), budget: int = 200, seed: int = 0,
            value_options: Mapping[str, Mapping[str, Any]] | None = None,
            **explorer_options: Any) -> ExplanationExplorer:
    """An :class:`ExplanationExplorer` for a kernel model and points ``X``.

    Each choice calls :func:`kernelxai.explain` once for all rows of ``X`` and
    caches the result; sampled methods get ``budget=`` (game evaluations) and
    ``seed=``. ``value_options`` maps a value-function name to extra
    keywords for it (e.g. ``{"observational": {"eta": 1e-3}}``).

    Parameters
    ----------
    model : fitted model
        Anything :func:`kernelxai.explain` explains.
    X : array (n, d) or DataFrame
        The points to explain; the ``instance`` slider picks one.
    background : array (m, d), optional
        Passed to :func:`kernelxai.explain` (not for ``"functional_baseline"``, which takes
        none); default the value function's own.
    values : sequence of str, default ("interventional", "observational")
        Registered value-function names offered.
    methods : sequence of str, default ("auto", "exact", "kernel", "permutation")
        Estimators offered.
    budget : int, default 200
        Initial budget of sampled methods, in game evaluations.
    seed : int, default 0
        Initial seed of sampled methods.
    value_options : dict, optional
        Value-function name -> keywords for it.
    **explorer_options
        Further keywords of :class:`ExplanationExplorer` (``max_display``).

    Returns
    -------
    ExplanationExplorer
        Already drawn for the first value function and method.

    Raises
    ------
    ValueError
        When a name in ``values`` is not a registered value function.

    Examples
    --------
    A budget below the estimator's minimum is reported under the controls:

    >>> import numpy as np
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> from kernelxai.widgets import explore
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2])
    >>> explorer = explore(model, X[:2], values=["interventional"], methods=["exact", "permutation"], budget=2)
    >>> len(explorer.output.outputs), "method: exact" in explorer.status.value
    (1, True)
    >>> explorer.method.value = "permutation"
    >>> "use at least 6" in explorer.status.value, len(explorer.output.outputs)
    (True, 0)
    """
    unknown = [v for v in values if v not in registered()]
    if unknown:
        raise ValueError(f"unknown value function(s) {unknown}; registered: {registered()}")
    value_options = dict(value_options or {})

    def compute(value, method, budget, seed):
        options = dict(value_options.get(value, {}))
        if budget is not None:
            options["budget"] = budget
            options["seed"] = seed
        if background is not None and value != "functional_baseline":
            options["background"] = background
        return explain(model, X, value=value, method=method, **options)

    n = np.shape(X)[0]
    return ExplanationExplorer(compute, values, methods, n_players=np.shape(X)[1], n_instances=n,
                               budget=budget, seed=seed, **explorer_options)


class ParameterExplorer:
    """A slider over a parameter; each value's result is computed once and cached.

    Parameters
    ----------
    compute : callable
        ``compute(value) -> result``; may raise ValueError for bad values (the
        message is shown instead of a figure).
    render : callable
        ``render(result, value)`` draws with matplotlib (without ``plt.show()``);
        a non-matplotlib return value (e.g. a DataFrame) is displayed too.
    name : str
        Label of the slider.
    options : sequence
        The values the slider offers (a SelectionSlider), e.g. the Banana b
        grid or a log grid of lambda_S.
    value : optional
        Initial value (default: the first option).
    precompute : bool
        Compute every option up front (the slider is then instant).

    Attributes
    ----------
    widget : ipywidgets.VBox
        The slider, a status line and the output (what a notebook displays).
    slider : ipywidgets.SelectionSlider
        The parameter; moving it redraws.

    Raises
    ------
    ValueError
        When ``options`` is empty.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> from kernelxai.widgets import ParameterExplorer
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> def compute(alpha):
    ...     return kx.explain(KernelRidge(kernel="rbf", alpha=alpha).fit(X, X[:, 0]), X[:5])
    >>> def render(expl, alpha):
    ...     kx.plots.bar(expl, title=f"alpha = {alpha}")
    >>> explorer = ParameterExplorer(compute, render, "alpha", [0.01, 0.1, 1.0])
    >>> len(explorer.output.outputs), explorer.result(1.0).values.shape
    (1, (5, 3))
    """

    def __init__(self, compute: Callable[[Any], Any], render: Callable[..., Any], name: str, options: Sequence[Any],
                 value: Any = None, precompute: bool = False) -> None:
        import ipywidgets as W

        options = list(options)
        if not options:
            raise ValueError("a ParameterExplorer needs at least one option")
        self._compute = _Cached(lambda value: compute(value))
        self._render = render
        self.slider = W.SelectionSlider(options=options, value=options[0] if value is None else value,
                                        description=name, continuous_update=False,
                                        style={"description_width": "initial"})
        self.status = W.HTML()
        self.output = W.Output()
        self.slider.observe(lambda change: self.render(), names="value")
        self.widget = W.VBox([self.slider, self.status, self.output])
        if precompute:
            for option in options:
                self.result(option)
        self.render()

    def result(self, value: Any = None) -> Any:
        """The (cached) result for ``value`` (default: the slider's value)."""
        return self._compute(value=self.slider.value if value is None else value)

    def render(self) -> Any:
        try:
            result = self.result()
        except ValueError as exc:
            self.status.value = _message(exc)
            self.output.outputs = ()
            return None
        self.status.value = ""
        show_figures(self.output, lambda: self._render(result, self.slider.value))
        return result

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def _gp_training_data(X, y, feature_names):
    """``(X, y, names)`` of :func:`gp_explorer` checked: X (n >= 2, d), y (n,), finite; d names."""
    names = list(getattr(X, "columns", [])) if feature_names is None else list(feature_names)
    Xa = np.asarray(X, dtype=float)
    ya = np.asarray(y, dtype=float)
    if Xa.ndim != 2 or Xa.shape[0] < 2:
        raise ValueError(f"X must be a 2-D array (n, d) with n >= 2 rows; got shape {np.shape(X)}")
    n, d = Xa.shape
    if ya.shape != (n,):
        raise ValueError(f"y must have shape ({n},), one target per row of X; got {np.shape(y)}")
    if not (np.all(np.isfinite(Xa)) and np.all(np.isfinite(ya))):
        raise ValueError("X and y must be finite")
    names = [str(f) for f in names] or [f"x{j}" for j in range(d)]
    if len(names) != d:
        raise ValueError(f"feature_names has {len(names)} entries; X has {d} columns")
    return Xa, ya, names


def _noise_levels(noise_levels):
    """The offered noise levels as a list of positive floats."""
    try:
        levels = np.atleast_1d(np.asarray(noise_levels, dtype=float))
    except (TypeError, ValueError):
        levels = np.array([np.nan])
    if levels.ndim != 1 or levels.size == 0 or not np.all(np.isfinite(levels)) or np.any(levels <= 0):
        raise ValueError("noise_levels must be a non-empty sequence of positive numbers; "
                         f"got {noise_levels!r}")
    return [float(v) for v in levels]


def gp_explorer(X: ArrayLike, y: ArrayLike, kernel: Any = None, *, background: ArrayLike | None = None,
                noise_levels: Sequence[float] = (1e-3, 1e-2, 1e-1, 0.5),
                feature_names: Sequence[str] | None = None) -> ipywidgets.VBox:
    """Stochastic Shapley values of a GP at one point, as the noise level moves.

    Fits ``GaussianProcessRegressor(kernel, alpha=noise, normalize_y=True,
    optimizer=None)`` to ``(X, y)`` once per noise level (the kernel's
    hyper-parameters stay fixed, so only the noise changes) and shows, for
    the row of ``X`` picked by the ``point`` slider, the posterior-mean
    Shapley values with their 95% credible whiskers (:func:`plots.bar`) next
    to the correlations between the features' attributions
    (:func:`plots.correlation`), from :func:`kernelxai.explain_gp`. More
    noise, wider bands.

    Parameters
    ----------
    X : array (n, d) or DataFrame
        Training inputs; their rows are also the points offered.
    y : array (n,)
        Training targets. They are standardised (``normalize_y=True``), so
        the kernel's amplitude and the noise levels are relative to var(y).
    kernel : scikit-learn kernel, optional
        Default ``ConstantKernel(1.0) * RBF(length_scale=std of each column)``.
    background : array (m, d), optional
        Background rows of the interventional value function; default at
        most 20 rows of X drawn with seed 0 (the exact covariance evaluates
        the GP at 2^d * m points per explained point).
    noise_levels : sequence of float
        The GP's ``alpha`` (noise variance added to the kernel's diagonal,
        in units of var(y)) offered by the ``noise`` slider; each > 0.
    feature_names : sequence of str, optional
        Default: X's columns for a DataFrame, else ``x0, x1, ...``.

    Returns
    -------
    ipywidgets.VBox
        The controls (``point``, ``noise``), a status line and the output.
        Its attributes ``fit(noise)`` (the fitted GP), ``explanation(point,
        noise)`` (the Explanation of that row, one instance) and ``draw(point,
        noise)`` (the figure) are cached per setting and usable without the
        widget.

    Raises
    ------
    ValueError
        When ``X`` is not 2-D with at least 2 rows, ``y`` does not have one entry per
        row, either is not finite, ``feature_names`` has the wrong length, or
        ``noise_levels`` is empty or holds a value that is not a positive number.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.widgets import gp_explorer
    >>> X = np.random.default_rng(0).normal(size=(8, 3))
    >>> box = gp_explorer(X, X[:, 0] + X[:, 1] * X[:, 2], noise_levels=(0.01, 0.1))
    >>> [type(child).__name__ for child in box.children]
    ['IntSlider', 'SelectionSlider', 'HTML', 'Output']
    >>> expl = box.explanation(point=0, noise=0.1)  # without the widget
    >>> expl.values.shape, expl.covariance.shape
    ((3,), (3, 3))
    """
    import ipywidgets as W
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel

    Xa, ya, names = _gp_training_data(X, y, feature_names)
    n, d = Xa.shape
    levels = _noise_levels(noise_levels)
    if kernel is None:
        scale = Xa.std(axis=0)
        kernel = ConstantKernel(1.0) * RBF(length_scale=np.where(scale > 0, scale, 1.0))
    if background is None:
        B = subsample(Xa, min(n, 20), seed=0)
    else:
        B = np.asarray(background, dtype=float)

    def fit(noise):
        return GaussianProcessRegressor(kernel, alpha=noise, normalize_y=True, optimizer=None).fit(Xa, ya)

    fit = _Cached(fit)

    def explanation(point, noise):
        e = explain_gp(fit(noise=noise), Xa[point:point + 1], background=B)[0]
        e.feature_names = list(names)
        return e

    explanation = _Cached(explanation)

    def draw(point, noise):
        import matplotlib.pyplot as plt

        e = explanation(point=int(point), noise=float(noise))
        fig, axes = plt.subplots(1, 2, figsize=(9, 0.35 * d + 2.2),
                                 gridspec_kw={"width_ratios": [1.2, 1]})
        plots.bar(e, ax=axes[0], title=f"point {point}, noise {noise:g}: 95% credible")
        plots.correlation(e, ax=axes[1])
        fig.tight_layout()
        return fig

    box = interact(
        draw,
        point=W.IntSlider(value=0, min=0, max=n - 1, description="point", continuous_update=False),
        noise=W.SelectionSlider(options=levels, value=levels[0], description="noise",
                                continuous_update=False),
    )
    box.fit = lambda noise: fit(noise=float(noise))
    box.explanation = lambda point, noise: explanation(point=int(point), noise=float(noise))
    box.draw = draw
    return box
