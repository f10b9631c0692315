"""The public surface of kernelxai, pinned: what users import, listed once per stage.

``kx.__all__`` and every stage package's ``__all__`` are written down here. A name added to or
removed from the surface is added or removed here in the same change, on purpose. Everything else
lives in private modules (``_name.py``): importable by the library, its tests and benchmarks, never
by notebooks, docstring examples or the documentation (``tests/test_private_imports.py``).
"""

import importlib
import inspect
import os
import pathlib
import subprocess
import sys
import types

import pytest

import kernelxai as kx

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: ``kx.__all__``: the entry points, the objects they hand over, configuration, the stages
KX_ALL = [
    "explain", "explain_interactions", "shapley_interactions", "explain_gp", "ShapleyPrior", "explain_mmd",
    "explain_hsic", "explain_r2", "shapley_values", "available_methods", "estimate_cost", "compare_estimators",
    "Explanation", "Game", "TabularGame", "FunctionGame", "ProductGame", "GroupedGame",
    "config_context", "get_config", "set_config", "calibrate", "prime_allocator",
    "kernels", "models", "values", "games", "estimators", "explanation", "parallel", "explainers",
    "uncertainty", "functionals", "plots", "widgets", "datasets", "workbench", "exercises", "report",
]

#: every public package or module of kernelxai and its ``__all__``
SURFACE = {
    "kernelxai.kernels": [
        "Kernel", "ProductKernel", "RBF", "Laplace", "Cauchy", "Categorical", "Product", "Matern", "Constant",
        "ProductOf", "SumKernel", "Linear", "CoalitionGrams", "median_heuristic", "as_lengthscale",
    ],
    "kernelxai.games": [
        "Game", "TabularGame", "FunctionGame", "ProductGame", "SumOfProductGames", "GroupedGame",
        "all_coalitions", "coalitions_to_bitmasks", "bitmasks_to_coalitions", "shapley_weights",
        "shapley_kernel_weights", "coalition_size_distribution", "sample_coalitions",
        "MAX_ENUMERATION_PLAYERS", "tabulate", "UnitAbsentGame", "unit_product_worths", "LinearInCoefficients",
        "HasUnitGames",
    ],
    "kernelxai.models": [
        "KernelExpansion", "KernelRidge", "KernelLogisticRegression", "as_expansion", "DEFAULT_LAMBDAS",
        "SUPPORTED_MODELS", "loo_scores",
    ],
    "kernelxai.models.convert": [
        "as_expansion", "output_plan", "OUTPUTS", "OutputPlan", "SUPPORTED_MODELS", "Converter", "Example",
        "register", "registered",
    ],
    "kernelxai.values": [
        "ValueFunction", "register", "registered", "get", "FunctionalBaseline", "Interventional",
        "Observational", "Marginal", "GaussianConditional", "GaussianCopula", "Empirical",
    ],
    "kernelxai.estimators": [
        "shapley_values", "available_methods", "applicable_methods", "estimate_cost", "choose", "Estimator",
        "EstimatorResult", "Option", "Cost", "register", "get_estimator", "estimators", "InvalidOptionError",
        "NotApplicableError", "CostLimitError", "PrecisionError", "COMMON_OPTIONS", "t_interval",
        "product_shapley", "reference_shapley", "estimate_nodes", "gauss_legendre_01",
    ],
    "kernelxai.explanation": ["Explanation", "AXES", "Interactions", "InteractionBlock"],
    "kernelxai.parallel": [
        "run_rows", "reduce_rows", "row_chunks", "plan_rows", "Shipped", "CHUNK_SECONDS", "MAX_REPEATED_SHARE",
    ],
    "kernelxai.explainers": [
        "explain", "explain_interactions", "shapley_interactions", "explain_gp", "ShapleyPrior", "explain_mmd",
        "explain_hsic", "explain_r2", "compare_estimators", "EstimatorComparison", "MMDGame", "HSICGame",
        "R2Game", "mmd_permutation_test",
        "hsic_permutation_test", "subsample", "summarize", "summary_bound", "mmd", "mean_embedding",
        "BackgroundSummary", "SummaryBound", "BackgroundRequiredError", "INDICES",
    ],
    "kernelxai.uncertainty": [
        "single_reference", "single_reference_game", "ReferenceSamplingGame", "shapley_residuals",
        "ShapleyResiduals", "walsh_hadamard", "bayes_shap", "bayes_linear_posterior", "BayesPosterior",
        "coalition_second_moment", "perturbations_to_go", "MAX_RESIDUAL_PLAYERS",
    ],
    "kernelxai.functionals": [
        "ShapleyRepresenters", "shapley_representers", "shapley_coefficients", "sample_shapley_coalitions",
        "resolve_features", "functional_distances", "cme_gamma_norms", "theorem6_bound",
        "ShapleyRegularisedKernelRidge", "ShapleyRegularisedKernelLogisticRegression",
    ],
    "kernelxai.plots": [
        "bar", "waterfall", "beeswarm", "dependence", "kde", "correlation", "dependence_band",
        "interaction_heatmap", "interaction_network", "strongest_interaction", "interaction_bar",
        "interaction_upset", "estimator_errors", "estimator_coverage", "POSITIVE", "NEGATIVE",
    ],
    "kernelxai.widgets": ["ExplanationExplorer", "ParameterExplorer", "explore", "gp_explorer", "interact",
                          "show_figures"],
    "kernelxai.datasets": [
        "pkex", "rkhs_shap", "thesis", "real", "load", "load_boston", "load_pima", "thesis_game", "thesis_model",
        "thesis_sample", "DatasetUnavailable",
    ],
    "kernelxai.datasets.pkex": [
        "linear_regression", "active_features", "two_sample", "diabetes_by_sex", "load_selection_data",
        "SELECTION_DATASETS", "DatasetUnavailable",
    ],
    "kernelxai.datasets.rkhs_shap": [
        "banana", "banana_function", "banana_conditional_u", "banana_shapley", "correlated_gaussian",
        "shift_feature", "BANANA_BS",
    ],
    "kernelxai.datasets.thesis": ["thesis_sample", "thesis_model", "thesis_game", "FEATURES"],
    "kernelxai.datasets.real": [
        "Dataset", "DatasetUnavailable", "load", "available", "data_home", "BUNDLED", "REMOTE", "numeric_design",
    ],
    "kernelxai.workbench": ["default", "resolve_parameters", "save_results", "timed"],
    "kernelxai.report": [
        "report", "Report", "main", "ReportInputError", "ReportFailure", "DEFAULT_POINTS", "DEFAULT_BACKGROUND_ROWS",
        "load_model", "load_table", "TRUSTED_PREFIXES", "ReportInputs", "load_inputs", "fingerprint",
        "efficiency_residuals", "importance", "drift", "Drift", "DEFAULT_TOLERANCE", "anomaly_detector",
        "is_gaussian_process",
    ],
    "kernelxai.workbench.exercises": ["check", "tasks", "describe", "results", "reset", "CheckResult",
                                      "UnknownTaskError"],
}

#: modules that are public although they are files, not packages: commands and per-paper catalogues
PUBLIC_FILES = {"kernelxai/check.py", "kernelxai/widgets.py", "kernelxai/__main__.py",
                "kernelxai/datasets/pkex.py", "kernelxai/datasets/rkhs_shap.py", "kernelxai/datasets/thesis.py",
                "kernelxai/datasets/real.py"}


def test_kx_all_is_the_curated_list():
    assert kx.__all__ == KX_ALL
    for name in KX_ALL:
        assert getattr(kx, name) is not None


@pytest.mark.parametrize("path", sorted(SURFACE))
def test_each_stage_lists_its_public_names_once(path):
    module = importlib.import_module(path)
    assert list(module.__all__) == SURFACE[path]
    assert len(set(module.__all__)) == len(module.__all__), "a name listed twice"
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing


def test_every_public_package_is_pinned():
    """A new stage package (a folder without a leading underscore) must be added to SURFACE."""
    packages = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "kernelxai").rglob("__init__.py")
                if not any(part.startswith("_") for part in p.parent.relative_to(ROOT / "kernelxai").parts)}
    packages.discard("kernelxai")
    assert packages <= set(SURFACE), sorted(packages - set(SURFACE))


def test_implementation_modules_are_private():
    public = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "kernelxai").rglob("*.py")
                    if p.name != "__init__.py" and "_notebooks" not in p.parts
                    and not any(part.startswith("_") for part in p.relative_to(ROOT / "kernelxai").parts))
    assert set(public) <= PUBLIC_FILES, sorted(set(public) - PUBLIC_FILES)


def test_the_aliases_of_a_release_that_never_was_are_gone():
    assert not (ROOT / "kernelxai" / "_aliases.py").exists()
    for old in ("kernelxai.product", "kernelxai.shapley", "kernelxai.reporting", "kernelxai.background",
                "kernelxai.regularised", "kernelxai.gp_shap", "kernelxai.outputs", "kernelxai.sklearn_kernels"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)
    for name in ("product", "shapley", "reporting", "background", "regularised", "regression", "save_results"):
        assert not hasattr(kx, name), name


def test_import_kernelxai_explain_is_no_module():
    """``kernelxai.explain`` is the function; there is no module of that name to shadow it."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("kernelxai.explain")
    assert inspect.isfunction(kx.explain)


def test_the_stages_are_modules_and_the_entry_points_functions():
    for name in KX_ALL:
        obj = getattr(kx, name)
        assert isinstance(obj, types.ModuleType) or callable(obj), name
    for name in ("explain", "explain_gp", "explain_mmd", "explain_hsic", "explain_r2", "explain_interactions",
                 "shapley_interactions", "shapley_values"):
        assert inspect.isfunction(getattr(kx, name)), name


def test_lazy_stages_load_on_first_use():
    code = ("import sys, kernelxai as kx\n"
            "assert 'kernelxai.plots' not in sys.modules and 'kernelxai.widgets' not in sys.modules\n"
            "assert kx.plots.bar and kx.datasets.rkhs_shap.banana and kx.exercises.check\n"
            "assert 'kernelxai.plots' in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "MPLBACKEND": "agg"})
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("command", [["kernelxai.check", "--help"], ["kernelxai.report", "--help"]])
def test_module_commands_of_the_readme_run(command):
    done = subprocess.run([sys.executable, "-m", *command], capture_output=True, text=True,
                          env={**os.environ, "MPLBACKEND": "agg"}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
