"""The public names of kernelxai, pinned: what users, notebooks and the documentation import keeps working.

The lists below are data, copied from the release before the stage folders (kernelxai 0.1, where
most of these were flat modules ``kernelxai/NAME.py``): ``kx.__all__`` exactly, and for every module
path of that release the public names of its ``__all__``. Moving code between files must keep them;
a name that is dropped on purpose is dropped here in the same change, with the reason.
"""

import importlib
import inspect
import os
import pickle
import subprocess
import sys
import types

import numpy as np
import pytest

import kernelxai as kx

#: ``kx.__all__``, in order
KX_ALL = [
    "Explanation", "Game", "TabularGame", "FunctionGame", "ProductGame", "GroupedGame", "shapley_values",
    "explain", "explain_mmd", "explain_gp", "ShapleyPrior", "explain_hsic", "available_methods",
    "estimate_cost", "config_context", "calibrate", "get_config", "set_config", "estimators", "regularised",
    "background",
    "save_results", "games", "kernels", "models", "values", "plots", "shapley", "product", "widgets",
    "uncertainty", "regression", "functionals", "explain_r2", "shapley_interactions", "explain_interactions",
    "exercises",
]

#: the stage packages (folders of the data flow) whose public names are pinned below
STAGES = ["kernelxai.kernels", "kernelxai.games", "kernelxai.models", "kernelxai.values", "kernelxai.estimators",
          "kernelxai.explanation", "kernelxai.uncertainty", "kernelxai.functionals", "kernelxai.plots",
          "kernelxai.parallel"]

#: module path of kernelxai 0.1 -> the names of its ``__all__`` then
OLD_ALL = {
    "kernelxai.kernels": [
        "Kernel", "ProductKernel", "RBF", "Laplace", "Cauchy", "Categorical", "Product", "Matern", "Constant",
        "ProductOf", "SumKernel", "Linear", "CoalitionGrams", "median_heuristic",
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
    ],
    "kernelxai.values": [
        "ValueFunction", "register", "registered", "get", "FunctionalBaseline", "Interventional",
        "Observational", "Marginal", "GaussianConditional", "GaussianCopula", "Empirical",
    ],
    "kernelxai.estimators": [
        "Estimator", "EstimatorResult", "Option", "Cost", "register", "get_estimator", "available_methods",
        "estimators", "InvalidOptionError", "NotApplicableError", "CostLimitError", "COMMON_OPTIONS",
        "t_interval", "choose",
    ],
    "kernelxai.explanation": [
        "Explanation",
    ],
    "kernelxai.uncertainty": [
        "single_reference", "single_reference_game", "ReferenceSamplingGame", "shapley_residuals",
        "ShapleyResiduals", "walsh_hadamard", "bayes_shap", "bayes_linear_posterior", "BayesPosterior",
        "coalition_second_moment", "perturbations_to_go", "MAX_RESIDUAL_PLAYERS",
    ],
    "kernelxai.functionals": [
        "ShapleyRepresenters", "shapley_representers", "shapley_coefficients", "sample_shapley_coalitions",
        "resolve_features", "functional_distances", "cme_gamma_norms", "theorem6_bound",
    ],
    "kernelxai.plots": [
        "bar", "waterfall", "beeswarm", "dependence", "kde", "correlation", "dependence_band",
        "interaction_heatmap", "interaction_network", "strongest_interaction",
    ],
    # explain_rows and interactions_rows (kx.explain's and kx.explain_interactions' drivers, used by
    # nothing outside the library) dropped on purpose: they moved up to kernelxai.explainers.rows, so
    # that the parallel stage never imports the entry points that call it
    "kernelxai.parallel": [
        "run_rows", "row_chunks", "plan_rows", "check_n_jobs", "effective_n_jobs", "Shipped", "merge_meta",
        "CHUNK_SECONDS", "MAX_REPEATED_SHARE", "reduce_rows",
        "reduction_jobs", "part_rows", "PART_FLOPS", "MIN_PART_ROWS",
    ],
    "kernelxai.product": [
        "gauss_legendre_01", "leave_one_out_product", "product_shapley", "shapley_weights_exact",
        "reference_shapley", "estimate_nodes", "ROUTES", "BACKENDS", "PrecisionError",
    ],
    "kernelxai.outputs": [
        "OUTPUTS", "OutputPlan", "output_plan",
    ],
    "kernelxai.pipelines": [
        "AffineMap", "affine_map", "expansion_of_pipeline", "fold_affine", "IGNORED_LENGTHSCALE",
        "AFFINE_STEPS",
    ],
    "kernelxai.nystroem": [
        "NystroemPipeline", "is_nystroem_pipeline", "random_features_reason", "nystroem_kernel",
        "expansion_of_nystroem_pipeline", "nystroem_plan", "RANDOM_FEATURE_MAPS",
    ],
    "kernelxai.gp_shap": [
        "explain_gp", "ShapleyPrior",
    ],
    "kernelxai.interactions": [
        "shapley_interactions", "explain_interactions", "INDICES", "METHODS", "interaction_coefficients",
    ],
    "kernelxai.discrepancy": [
        "explain_mmd", "explain_hsic", "MMDGame", "HSICGame", "mmd_permutation_test", "hsic_permutation_test",
    ],
    "kernelxai.regression": [
        "R2Game", "explain_r2",
    ],
    "kernelxai.background": [
        "subsample", "summarize", "mmd", "BackgroundSummary", "summary_bound", "SummaryBound",
    ],
    "kernelxai.regularised": [
        "ShapleyRegularisedKernelRidge", "ShapleyRegularisedKernelLogisticRegression", "EIGEN_RTOL",
    ],
    "kernelxai.shapley": [
        "shapley_values", "available_methods", "applicable_methods", "estimate_cost", "t_interval",
        "InvalidOptionError", "NotApplicableError", "CostLimitError",
    ],
    "kernelxai.explain": [
        "explain", "BackgroundRequiredError",
    ],
    "kernelxai.reporting": [
        "Default", "atomic_write", "default", "resolve_parameters", "save_results", "timed", "to_jsonable",
    ],
    "kernelxai.routes": [
        "VALUES", "route_table", "route_table_markdown", "update_readme",
    ],
    "kernelxai.exercises": [
        "check", "tasks", "describe", "results", "reset", "CheckResult", "UnknownTaskError",
    ],
    "kernelxai.sklearn_kernels": [
        "Pairwise", "SklearnKernel", "krr_kernel", "gp_kernel",
    ],
    "kernelxai.check": [
        "Comparison", "NumberCheck", "auto_numbers", "baselines_dir", "compare", "compare_notebook",
        "comparable", "environment", "is_timing_key", "load_baseline", "main", "mode_of", "notebooks_dir",
        "record", "resolve_pointer", "run_check", "write_baseline",
    ],
    "kernelxai.widgets": [
        "ExplanationExplorer", "ParameterExplorer", "explore", "gp_explorer", "interact", "show_figures",
    ],
}

#: flat modules of kernelxai 0.1 whose code lives in a stage folder now (the old path is the new module)
MOVED = ["kernelxai.product", "kernelxai.outputs", "kernelxai.pipelines", "kernelxai.nystroem", "kernelxai.gp_shap",
         "kernelxai.interactions", "kernelxai.discrepancy", "kernelxai.regression", "kernelxai.background",
         "kernelxai.regularised", "kernelxai.shapley", "kernelxai.explain", "kernelxai.reporting",
         "kernelxai.routes", "kernelxai.exercises", "kernelxai.sklearn_kernels"]

#: submodules of kernelxai 0.1's packages that the tests import names from
SUBMODULE_NAMES = {
    "kernelxai.values.agnostic": ["as_predict"],
    "kernelxai.values.base": ["default_background"],
    "kernelxai.values.baseline": [],
    "kernelxai.values.conditional": ["conditional_gaussian_blocks", "empirical_quantiles", "normal_scores"],
    "kernelxai.values.interventional": ["Interventional", "InterventionalGame"],
    "kernelxai.values.observational": ["ObservationalGame"],
    "kernelxai.estimators.registry": ["CostLimitError", "InvalidOptionError", "NotApplicableError"],
    "kernelxai.estimators.bayes": [],
    "kernelxai.estimators.exact": [],
    "kernelxai.estimators.kernelshap": [],
    "kernelxai.estimators.permutation": [],
    "kernelxai.estimators.quadrature": [],
    "kernelxai.uncertainty.reference": [],
    "kernelxai.uncertainty.residuals": [],
    "kernelxai.datasets": [],
    "kernelxai.datasets.pkex": [],
    "kernelxai.datasets.real": ["load"],
    "kernelxai.datasets.rkhs_shap": [],
    "kernelxai.datasets.thesis": [],
}


def test_kx_all_is_pinned():
    assert kx.__all__ == KX_ALL


@pytest.mark.parametrize("name", KX_ALL)
def test_every_name_of_kx_all_resolves(name):
    assert getattr(kx, name) is not None


def test_star_import_gives_kx_all():
    namespace = {}
    exec("from kernelxai import *", namespace)
    assert set(KX_ALL) <= set(namespace)


@pytest.mark.parametrize("path", STAGES)
def test_stage_packages_keep_their_public_names(path):
    module = importlib.import_module(path)
    assert isinstance(module, types.ModuleType) and module.__name__ == path
    missing = [name for name in OLD_ALL[path] if not hasattr(module, name)]
    assert not missing, f"{path} lost {missing}"
    exec(f"from {path} import {', '.join(OLD_ALL[path])}", {})


@pytest.mark.parametrize("path", sorted(OLD_ALL))
def test_old_module_paths_import_and_carry_their_names(path):
    module = importlib.import_module(path)
    assert isinstance(module, types.ModuleType)
    missing = [name for name in OLD_ALL[path] if not hasattr(module, name)]
    assert not missing, f"{path} lost {missing}"
    # ``from kernelxai.NAME import *`` still brings them
    not_exported = sorted(set(OLD_ALL[path]) - set(getattr(module, "__all__", ())))
    assert not not_exported, f"{path}.__all__ lacks {not_exported}"


@pytest.mark.parametrize("path", MOVED)
def test_an_old_path_is_the_new_module_itself(path):
    module = importlib.import_module(path)
    assert module.__name__ != path, f"{path} should be the module that holds its code now"
    assert module.__name__.startswith("kernelxai.")
    assert sys.modules[path] is module
    assert sys.modules[module.__name__] is module
    assert importlib.import_module(module.__name__) is module
    short = path.rsplit(".", 1)[1]
    if short != "explain":  # kx.explain is the function (below)
        assert getattr(kx, short) is module


@pytest.mark.parametrize("path", sorted(SUBMODULE_NAMES))
def test_submodule_paths_of_the_packages_still_import(path):
    module = importlib.import_module(path)
    missing = [name for name in SUBMODULE_NAMES[path] if not hasattr(module, name)]
    assert not missing, f"{path} lost {missing}"


def test_kx_explain_stays_the_function_after_importing_the_old_module():
    import kernelxai.explain  # noqa: F401

    for path in OLD_ALL:
        importlib.import_module(path)
    assert inspect.isfunction(kx.explain) and kx.explain.__name__ == "explain"
    assert sys.modules["kernelxai.explain"].explain is kx.explain
    from kernelxai.explain import BackgroundRequiredError, explain

    assert explain is kx.explain and issubclass(BackgroundRequiredError, Exception)


def test_kx_explain_is_the_function_in_a_fresh_interpreter():
    """``import kernelxai.explain`` first (nothing imported before it) must not shadow kx.explain."""
    code = ("import inspect, sys, kernelxai.explain, kernelxai as kx\n"
            "import kernelxai.product, kernelxai.outputs, kernelxai.gp_shap\n"
            "assert inspect.isfunction(kx.explain), type(kx.explain)\n"
            "assert sys.modules['kernelxai.explain'].explain is kx.explain\n"
            "assert kx.product is kernelxai.product and kx.gp_shap.explain_gp is kx.explain_gp\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "MPLBACKEND": "agg"})
    assert done.returncode == 0, done.stderr[-2000:]


def test_old_paths_of_classes_and_functions_agree():
    from kernelxai.gp_shap import ShapleyPrior
    from kernelxai.models import KernelRidge
    from kernelxai.regularised import ShapleyRegularisedKernelRidge
    from kernelxai.shapley import shapley_values

    assert ShapleyPrior is kx.ShapleyPrior and shapley_values is kx.shapley_values
    assert KernelRidge is kx.models.KernelRidge
    assert ShapleyRegularisedKernelRidge is kx.regularised.ShapleyRegularisedKernelRidge


def test_models_kernel_ridge_fits_and_explains():
    from kernelxai.models import KernelRidge

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = X[:, 0] - 2 * X[:, 1] ** 2
    model = KernelRidge(kx.kernels.RBF(1.0), lam=1e-2).fit(X, y)
    assert model.predict(X[:4]).shape == (4,)
    expl = kx.explain(model, X[:4], background=X, method="exact")
    np.testing.assert_allclose(expl.values.sum(1) + expl.base_values, model.predict(X[:4]), atol=1e-9)
    # estimators pickle under their new module and load back through it
    assert type(pickle.loads(pickle.dumps(model))) is KernelRidge


def test_product_product_shapley_is_exact():
    import kernelxai.product

    rng = np.random.default_rng(3)
    game = kx.ProductGame(rng.uniform(0.2, 1.2, (2, 4, 5)), rng.uniform(0.2, 1.2, (2, 4, 5)),
                          rng.normal(size=(2, 4)))
    values, _ = kernelxai.product.product_shapley(game)
    np.testing.assert_allclose(values, kx.shapley_values(game, method="exact").values, atol=1e-12)


@pytest.mark.parametrize("command", [["kernelxai.workbench.routes"], ["kernelxai.check", "--help"]])
def test_module_commands_of_the_readme_still_run(command):
    """``python -m kernelxai.workbench.routes`` (the routes table of docs/routes.md; ``python -m`` runs a module
    by its own path, so the command moved with the module) and ``python -m kernelxai.check``."""
    done = subprocess.run([sys.executable, "-m", *command], capture_output=True, text=True,
                          env={**os.environ, "MPLBACKEND": "agg"}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    if command[0] == "kernelxai.workbench.routes":
        assert done.stdout.startswith("| model | kernel |")
