"""kx.exercises and the exercise notebooks (notebooks/exercises/).

* The checks: right answers (written here by brute force, independently of
  kernelxai) pass on many random draws; hard-coded answers, unanswered stubs,
  broken functions and the usual mistakes fail -- with a hint naming the
  mistake, never with an exception; misuse raises.
* The references the checks use where kernelxai has no public function are
  compared with independent formulas.
* The notebooks: in sync with their sources, nbgrader's metadata format, the
  student version as nbgrader's ClearSolutions/ClearHiddenTests would make it;
  every instructor notebook passes all its checks and every student version,
  run unchanged, fails all of them and raises nothing (papermill, tests/nbrun.py).
"""

from __future__ import annotations

import itertools
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kernelxai as kx
from kernelxai import exercises as ex
from kernelxai.workbench.exercises import _dependence_tasks as dependence_tasks
from kernelxai.workbench.exercises import _regression_tasks as regression_tasks
from kernelxai.workbench.exercises import _shapley_tasks as shapley_tasks
from kernelxai.workbench.exercises import _student_games as student_games

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "notebooks" / "exercises"
NOTEBOOKS = sorted(EXERCISES.glob("[0-9][0-9]-*.ipynb"))
NAMES = [p.stem for p in NOTEBOOKS]
sys.path.insert(0, str(ROOT / "scripts"))

import build_exercises as bx  # noqa: E402


# --------------------------------------------------------------------------- #
# right answers, by brute force (independent of kernelxai)
# --------------------------------------------------------------------------- #
def brute_shapley(v, d):
    phi = np.zeros(d)
    for order in itertools.permutations(range(d)):
        before = []
        for j in order:
            phi[j] += v(tuple(before) + (j,)) - v(tuple(before))
            before.append(j)
    return phi / math.factorial(d)


def taxi_shares(alone):
    alone = np.asarray(alone, dtype=float)
    return brute_shapley(lambda S: max((alone[i] for i in S), default=0.0), len(alone))


def make_game(d, pair, null):
    # worth: 1 once any player other than the null player is present
    def worth(z):
        keep = np.ones(d, dtype=bool)
        keep[null] = False
        return z[:, keep].any(axis=1).astype(float)
    return kx.FunctionGame(worth, d)


def contributions(v, order):
    out, before = np.zeros(len(order)), []
    for j in order:
        out[j] = v(tuple(before) + (int(j),)) - v(tuple(before))
        before.append(int(j))
    return out


def permutation_shapley(v, d, n, rng):
    return np.mean([contributions(v, rng.permutation(d)) for _ in range(n)], axis=0)


def kernel_weight(d, s):
    return math.inf if s in (0, d) else (d - 1) / (math.comb(d, s) * s * (d - s))


def size_probabilities(d):
    mass = np.array([(d - 1) / (s * (d - s)) for s in range(1, d)])
    return mass / mass.sum()


def kernel_shap(Z, v, w):
    Z = np.asarray(Z, dtype=bool)
    d = Z.shape[1]
    empty, full = ~Z.any(axis=1), Z.all(axis=1)
    inner = ~(empty | full)
    v0, v1 = v[empty][0], v[full][0]
    A, y, W = Z[inner].astype(float), v[inner] - v0, w[inner]
    kkt = np.block([[A.T @ (W[:, None] * A), np.ones((d, 1))], [np.ones((1, d)), np.zeros((1, 1))]])
    return np.linalg.solve(kkt, np.append(A.T @ (W * y), v1 - v0))[:d]


def r_squared(X, y, S):
    if len(S) == 0:
        return 0.0
    A = np.column_stack([np.ones(len(X)), X[:, list(S)]])
    fit = A @ np.linalg.pinv(A) @ y
    return float(np.corrcoef(fit, y)[0, 1] ** 2)


def r2_shapley(X, y):
    return brute_shapley(lambda S: r_squared(X, y, list(S)), X.shape[1])


def group_shapley(v, d, groups):
    return brute_shapley(lambda T: v(tuple(j for g in T for j in groups[g])), len(groups))


def conditional_gaussian(mu, Sigma, S, x):
    # through the precision matrix: X_T | x_S ~ N(mu_T - P_TT^-1 P_TS (x_S - mu_S), P_TT^-1)
    d = len(mu)
    T = [j for j in range(d) if j not in S]
    P = np.linalg.inv(Sigma)
    cov = np.linalg.inv(P[np.ix_(T, T)])
    return mu[T] - cov @ P[np.ix_(T, list(S))] @ (x[list(S)] - mu[list(S)]), cov


def linear_conditional_shapley(beta, mu, Sigma, x):
    d = len(beta)

    def v(S):
        T = [j for j in range(d) if j not in S]
        if not T:
            return beta @ x
        mean, _ = conditional_gaussian(mu, Sigma, list(S), x)
        return beta[list(S)] @ x[list(S)] + beta[T] @ mean
    return brute_shapley(v, d)


def absent_embedding(B, X, ls, S):
    absent = [j for j in range(X.shape[1]) if j not in S]
    out = np.zeros(len(X))
    for b in B:
        out += np.exp(-((b[absent] - X[:, absent]) ** 2 / (2 * ls[absent] ** 2)).sum(axis=1))
    return out / len(B)


def interventional_value(model, B, x, S):
    ls = np.broadcast_to(model.kernel.lengthscale, (len(x),))
    return marginal_value(lambda P: np.exp(-(((P[:, None, :] - model.X_train[None]) / ls) ** 2 / 2)
                                           .sum(-1)) @ model.alpha + model.intercept, B, x, S)


def marginal_value(predict, B, x, S):
    return float(np.mean([predict(np.where(np.isin(np.arange(len(x)), S), x, b)[None])[0] for b in B]))


def t_interval(samples, level):
    from scipy import stats

    k = len(samples)
    half = stats.t.ppf((1 + level) / 2, k - 1) * samples.std(axis=0, ddof=1) / math.sqrt(k)
    return samples.mean(axis=0) - half, samples.mean(axis=0) + half


def single_reference_values(predict, x, refs):
    per = np.array([brute_shapley(lambda S, r=r: predict(np.where(np.isin(np.arange(len(x)), S), x, r)[None])[0]
                                  - predict(r[None])[0], len(x)) for r in refs])
    return per.mean(axis=0), per.std(axis=0, ddof=1) / math.sqrt(len(refs))


def paired_coalitions(d, n_pairs, rng):
    sizes = np.arange(1, d)
    mass = np.array([math.comb(d, k) * kernel_weight(d, k) for k in sizes])
    first = np.zeros((n_pairs, d), dtype=bool)
    for row, k in enumerate(rng.choice(sizes, size=n_pairs, p=mass / mass.sum())):
        first[row, rng.permutation(d)[:k]] = True
    return np.stack([first, ~first], axis=1).reshape(2 * n_pairs, d)


def paired_kernel_shap(worth, d, budget, rng):
    Z = np.vstack([np.zeros((1, d), bool), np.ones((1, d), bool), paired_coalitions(d, (budget - 2) // 2, rng)])
    v = np.asarray(worth(Z), dtype=float)
    # phi_d eliminated by the constraint, then ordinary least squares
    A = Z[2:].astype(float)
    design = A[:, :-1] - A[:, -1:]
    target = v[2:] - v[0] - A[:, -1] * (v[1] - v[0])
    coef = np.linalg.lstsq(design, target, rcond=None)[0]
    return np.append(coef, v[1] - v[0] - coef.sum())


def _uniform_sizes(d, n_pairs, rng):
    first = np.zeros((n_pairs, d), dtype=bool)
    for row in range(n_pairs):
        first[row, rng.permutation(d)[:rng.integers(1, d)]] = True
    return np.stack([first, ~first], axis=1).reshape(2 * n_pairs, d)


def _kernel_weighted_twice(worth, d, budget, rng):
    Z = np.vstack([np.zeros((1, d), bool), np.ones((1, d), bool), paired_coalitions(d, (budget - 2) // 2, rng)])
    v = np.asarray(worth(Z), dtype=float)
    w = np.array([kernel_weight(d, int(k)) for k in Z.sum(axis=1)])
    return kernel_shap(Z, v, w)


SOLUTIONS = {
    "shapley-exact": brute_shapley, "taxi-shares": taxi_shares, "null-and-symmetric": make_game,
    "ordering-contributions": contributions, "permutation-estimate": permutation_shapley,
    "kernel-weight": kernel_weight, "size-distribution": size_probabilities, "constrained-wls": kernel_shap,
    "r-squared": r_squared, "shapley-regression": r2_shapley, "group-shapley": group_shapley,
    "conditional-gaussian": conditional_gaussian, "linear-conditional-shapley": linear_conditional_shapley,
    "mean-embedding": absent_embedding, "interventional-value": interventional_value,
    "marginal-value": marginal_value, "t-interval": t_interval, "single-reference": single_reference_values,
    "paired-coalitions": paired_coalitions, "paired-kernelshap": paired_kernel_shap,
}


def test_every_task_has_a_right_answer_here_and_lives_in_one_notebook():
    assert set(ex.tasks()) == set(SOLUTIONS)
    per_notebook = {name: ex.tasks(name) for name in NAMES}
    assert sorted(t for ts in per_notebook.values() for t in ts) == sorted(ex.tasks())
    assert all(per_notebook[name] for name in NAMES), per_notebook
    assert len(NAMES) >= 7


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("task", sorted(SOLUTIONS))
def test_right_answers_pass(task, seed):
    result = ex.check(task, SOLUTIONS[task], seed=seed, quiet=True)
    assert result and result.passed and result.message.startswith("\u2713"), result.message


@pytest.mark.parametrize("task", sorted(SOLUTIONS))
def test_hard_coded_answers_fail(task):
    """An answer that was right for the first input and is then returned for every input."""
    first = []

    def hard_coded(*args):
        if not first:
            first.append(SOLUTIONS[task](*args))
        return first[0]

    result = ex.check(task, hard_coded, seed=7, quiet=True)
    assert not result and result.message.startswith("\u2717"), result.message
    assert result.hint


@pytest.mark.parametrize("task", sorted(SOLUTIONS))
def test_unanswered_and_broken_answers_fail_without_raising(task, capsys):
    def stub(*args):
        # YOUR CODE HERE
        raise NotImplementedError()

    def broken(*args):
        return 1 / 0

    none = ex.check(task, None)
    assert not none and "no answer yet" in none.hint
    assert capsys.readouterr().out.startswith("\u2717 " + task)
    assert "not answered yet" in ex.check(task, stub, quiet=True).hint
    hint = ex.check(task, broken, quiet=True).hint
    assert "ZeroDivisionError" in hint and "return 1 / 0" in hint
    assert not ex.check(task, lambda *a: "three", quiet=True)


def test_misuse_raises():
    with pytest.raises(ex.UnknownTaskError, match="did you mean 'shapley-exact'"):
        ex.check("shapley-exct", brute_shapley)
    with pytest.raises(TypeError, match=r"expects a function shapley\(v, d\).*got float 3.0"):
        ex.check("shapley-exact", 3.0)
    with pytest.raises(TypeError, match="without calling it"):
        ex.check("taxi-shares", np.array([2.0, 5.0, 35.0]))
    with pytest.raises(TypeError, match="task_id must be a string"):
        ex.check(1, brute_shapley)
    assert "expects a function kernel_weight(d, s)" in ex.describe("kernel-weight")


def test_results_record_the_last_check_and_reset():
    ex.reset()
    ex.check("kernel-weight", lambda d, s: 0.0, quiet=True)
    assert ex.results() == {"kernel-weight": False}
    ex.check("kernel-weight", kernel_weight, quiet=True)
    assert ex.results() == {"kernel-weight": True}
    ex.reset()
    assert ex.results() == {}


def test_a_fixed_seed_reproduces_the_inputs():
    seen = [[], []]
    for k in range(2):
        ex.check("kernel-weight", lambda d, s, k=k: seen[k].append(d) or kernel_weight(d, s), seed=3, quiet=True)
    assert seen[0] == seen[1]


# --------------------------------------------------------------------------- #
# the usual mistakes get hints that name them
# --------------------------------------------------------------------------- #
def _banzhaf(v, d):
    phi = np.zeros(d)
    for j in range(d):
        others = [i for i in range(d) if i != j]
        for k in range(d):
            for S in itertools.combinations(others, k):
                phi[j] += (v(S + (j,)) - v(S)) / 2 ** (d - 1)
    return phi


def _skip_empty(v, d):
    phi = brute_shapley(v, d)
    return phi - (np.array([v((j,)) for j in range(d)]) - v(())) / d


def _normal_quantile(samples, level):
    from scipy import stats

    half = stats.norm.ppf((1 + level) / 2) * samples.std(axis=0, ddof=1) / math.sqrt(len(samples))
    return samples.mean(axis=0) - half, samples.mean(axis=0) + half


def _ddof0(samples, level):
    from scipy import stats

    half = stats.t.ppf((1 + level) / 2, len(samples) - 1) * samples.std(axis=0) / math.sqrt(len(samples))
    return samples.mean(axis=0) - half, samples.mean(axis=0) + half


def _big_weight(Z, v, w):
    W = np.where(np.isinf(w), 1e4, w)
    A = np.column_stack([np.ones(len(Z)), Z.astype(float)])
    return np.linalg.solve(A.T @ (W[:, None] * A), A.T @ (W * v))[1:]


def _no_intercept(X, y, S):
    if not S:
        return 0.0
    res = y - X[:, S] @ np.linalg.lstsq(X[:, S], y, rcond=None)[0]
    return 1 - res @ res / ((y - y.mean()) @ (y - y.mean()))


MISTAKES = [
    ("shapley-exact", _banzhaf, "Banzhaf"),
    ("shapley-exact", _skip_empty, "empty coalition"),
    ("shapley-exact", lambda v, d: brute_shapley(v, d) * 2, "efficiency fails"),
    ("taxi-shares", lambda a: np.full(len(a), max(a) / len(a)), "not the Shapley values"),
    ("null-and-symmetric", lambda d, p, n: kx.FunctionGame(lambda z: z.mean(axis=1), d), "not a null player"),
    ("null-and-symmetric", lambda d, p, n: kx.FunctionGame(
        lambda z: np.delete(z, n, axis=1) @ np.arange(1.0, d) / np.arange(1.0, d).sum(), d), "not interchangeable"),
    ("ordering-contributions", lambda v, o: contributions(v, o)[o], "not of the j-th player"),
    ("permutation-estimate", lambda v, d, n, rng: permutation_shapley(v, d, n, rng) * n, "3 times"),
    ("permutation-estimate", lambda v, d, n, rng: permutation_shapley(v, d, n, np.random.default_rng(0)),
     "identical estimates"),
    ("kernel-weight", lambda d, s: (d - 1) / (math.comb(d, s) * max(s, 1) * max(d - s, 1)), "empty coalition"),
    ("kernel-weight", lambda d, s: math.inf if s in (0, d) else (d - 1) / (s * (d - s)), "binomial"),
    ("kernel-weight", lambda d, s: math.inf if s in (0, d) else 1 / (math.comb(d, s) * s * (d - s)), "factor"),
    ("size-distribution", lambda d: (lambda w: w / w.sum())(np.array([kernel_weight(d, s) for s in range(1, d)])),
     "C(d, s) coalitions"),
    ("constrained-wls", _big_weight, "large finite weight"),
    ("r-squared", _no_intercept, "no intercept"),
    ("group-shapley", lambda v, d, groups: np.array([brute_shapley(v, d)[g].sum() for g in groups]),
     "summed the feature-level"),
    ("conditional-gaussian", lambda mu, Sig, S, x: (mu[[j for j in range(len(mu)) if j not in S]],
                                                    conditional_gaussian(mu, Sig, S, x)[1]), "ignores the observed"),
    ("conditional-gaussian", lambda mu, Sig, S, x: (conditional_gaussian(mu, Sig, S, x)[0],
                                                    Sig[np.ix_(*[[j for j in range(len(mu)) if j not in S]] * 2)]),
     "covariance"),
    ("linear-conditional-shapley", lambda b, mu, Sig, x: b * (x - mu), "interventional values"),
    ("mean-embedding", lambda B, X, ls, S: absent_embedding(B, X, ls, [j for j in range(X.shape[1]) if j not in S]),
     "present features"),
    ("interventional-value", lambda m, B, x, S: interventional_value(m, B, x, S) - m.intercept, "intercept"),
    ("marginal-value", lambda f, B, x, S: marginal_value(f, B, x, [j for j in range(len(x)) if j not in S]),
     "other way round"),
    ("t-interval", _normal_quantile, "normal quantile"),
    ("t-interval", _ddof0, "ddof=1"),
    ("paired-coalitions", _uniform_sizes, "size distribution"),
    ("paired-coalitions", lambda d, n, rng: np.repeat(paired_coalitions(d, n, rng)[0::2], 2, axis=0), "complement"),
    ("paired-coalitions", lambda d, n, rng: paired_coalitions(d, n, np.random.default_rng(0)), "same sample"),
    ("paired-kernelshap", _kernel_weighted_twice, "counts it twice"),
    ("paired-kernelshap", lambda f, d, b, rng: paired_kernel_shap(f, d, 2 * b, rng), "budget"),
    ("single-reference", lambda f, x, r: (lambda m, se: (m, se * math.sqrt(len(r))))(*single_reference_values(f, x, r)),
     "standard deviation"),
]


@pytest.mark.parametrize("task, wrong, expected", MISTAKES,
                         ids=[f"{t}:{e.split()[0]}" for t, _, e in MISTAKES])
def test_hints_name_the_mistake(task, wrong, expected):
    result = ex.check(task, wrong, seed=11, quiet=True)
    assert not result, f"{task}: the wrong answer passed"
    assert expected in result.hint, result.hint


def test_hints_do_not_give_the_answer_away():
    """A hint may quote sums and the student's own numbers, never the Shapley values it expects."""
    result = ex.check("taxi-shares", lambda a: np.array([1.0, 1.0, 40.0]) if len(a) == 3 else np.ones(len(a)),
                      quiet=True)
    assert not result
    assert not re.search(r"\b35\b|\b2\.0\b|\b5\.0\b", result.hint), result.hint


# --------------------------------------------------------------------------- #
# the references the checks use, against independent truth
# --------------------------------------------------------------------------- #
def test_conditional_reference_equals_the_precision_matrix_form():
    rng = np.random.default_rng(0)
    for d in (2, 4, 6):
        mu, Sigma = dependence_tasks.random_gaussian(rng, d)
        x = rng.normal(size=d)
        for k in range(d):
            S = sorted(rng.choice(d, size=k, replace=False).tolist())
            m1, c1 = dependence_tasks.conditional_moments(mu, Sigma, S, x)
            m2, c2 = conditional_gaussian(mu, Sigma, S, x)
            np.testing.assert_allclose(m1, m2, atol=1e-10)
            np.testing.assert_allclose(c1, c2, atol=1e-10)


def test_wls_reference_is_kernelxais_kernelshap_on_the_same_coalitions():
    """The sampled-design reference equals kx's estimator when both see the same coalitions."""
    rng = np.random.default_rng(5)
    d, budget, seed = 7, 42, 123
    table = rng.normal(size=2**d)
    game = kx.TabularGame(table)
    estimate = kx.shapley_values(game, method="kernel", budget=budget, seed=seed).values
    z = kx.games.sample_coalitions(d, budget - 2, np.random.default_rng(seed), paired=True)
    Z = np.vstack([np.zeros(d, bool), z, np.ones(d, bool)])
    masks = Z.astype(np.int64) @ (1 << np.arange(d))
    w = np.where(Z.any(axis=1) & ~Z.all(axis=1), 1.0, np.inf)
    np.testing.assert_allclose(regression_tasks.constrained_wls(Z, table[masks], w), np.ravel(estimate), atol=1e-10)
    np.testing.assert_allclose(kernel_shap(Z, table[masks], w), np.ravel(estimate), atol=1e-10)


def test_ordering_reference_and_variant_formulas_by_brute_force():
    rng = np.random.default_rng(1)
    d = 4
    table = rng.normal(size=2**d)
    v = student_games.set_function(table, d)
    order = rng.permutation(d)
    np.testing.assert_allclose(shapley_tasks.ordering_reference(table, order), contributions(v, order), atol=1e-12)
    np.testing.assert_allclose(student_games.variant_values(table, d, "banzhaf"), _banzhaf(v, d), atol=1e-12)
    np.testing.assert_allclose(student_games.variant_values(table, d, "skip_empty"), _skip_empty(v, d), atol=1e-12)
    np.testing.assert_allclose(student_games.exact_shapley(table), brute_shapley(v, d), atol=1e-12)
    mean, _ = shapley_tasks.ordering_moments(table, d)
    np.testing.assert_allclose(mean, brute_shapley(v, d), atol=1e-12)


def test_exercises_import_is_lazy_and_light():
    code = ("import sys, kernelxai\nassert 'kernelxai.workbench.exercises' not in sys.modules\n"
            "kernelxai.exercises\nprint('matplotlib.pyplot' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- #
# the notebooks: sources, nbgrader format, student versions
# --------------------------------------------------------------------------- #
def test_instructor_notebooks_match_their_sources():
    sources = {p.stem for p in (EXERCISES / "src").glob("*.py")}
    assert sources == set(NAMES)
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_exercises.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


NBGRADER_KEYS = {"schema_version", "grade", "locked", "solution", "task", "grade_id", "points",
                 "checksum", "cell_type"}


def _src(cell):
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NAMES)
def test_nbgrader_format_and_slides_metadata(path):
    nb = json.loads(path.read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    ids, solutions, checks = set(), [], []
    for cell in nb["cells"]:
        assert not cell.get("outputs"), "commit exercise notebooks without outputs"
        assert cell["metadata"]["slideshow"]["slide_type"] in ("slide", "subslide", "fragment", "skip",
                                                               "notes", "-")
        meta = cell["metadata"].get("nbgrader")
        src = _src(cell)
        if meta is None:
            assert "BEGIN SOLUTION" not in src and "HIDDEN TESTS" not in src
            continue
        # nbgrader's cell metadata schema (version 3)
        assert set(meta) <= NBGRADER_KEYS and meta["schema_version"] == 3
        assert all(isinstance(meta[k], bool) for k in ("grade", "locked", "solution", "task"))
        assert re.fullmatch(r"[A-Za-z0-9_\-]+", meta["grade_id"]) and meta["grade_id"] not in ids
        ids.add(meta["grade_id"])
        if meta["grade"]:
            assert isinstance(meta["points"], (int, float)) and meta["points"] > 0 and meta["locked"]
            task = re.search(r'kx\.exercises\.check\("([a-z0-9-]+)"', src).group(1)
            assert meta["grade_id"] == f"{task}-check"
            assert "### BEGIN HIDDEN TESTS\nassert result, result.message\n### END HIDDEN TESTS" in src
            checks.append(task)
        if meta["solution"]:
            assert cell["cell_type"] == "code" and not meta["grade"]
            # the region sits inside a function body: the student version defines the function
            # and only calling it raises NotImplementedError
            begins = [ln for ln in src.split("\n") if ln.strip() == "### BEGIN SOLUTION"]
            assert len(begins) == 1 and begins[0].startswith("    ") and src.startswith("def ")
            solutions.append(meta["grade_id"])
    assert solutions == checks == ex.tasks(path.stem), (solutions, checks)
    params = [c for c in nb["cells"] if "parameters" in c["metadata"].get("tags", [])]
    assert len(params) == 1
    assert re.search(r"^seed = ", _src(params[0]), re.M) and re.search(r"^results_path = None", _src(params[0]), re.M)
    assert nb["cells"][0]["metadata"]["slideshow"]["slide_type"] == "slide"


def _toy(cells):
    return {"cells": [{"cell_type": kind, "metadata": meta, "source": src,
                       **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                      for kind, src, meta in cells],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


SOL = {"nbgrader": {"grade": False, "grade_id": "a", "locked": False, "schema_version": 3, "solution": True,
                    "task": False}}
TEST = {"nbgrader": {"grade": True, "grade_id": "a-check", "locked": True, "points": 1, "schema_version": 3,
                     "solution": False, "task": False}}


def test_student_version_is_what_nbgraders_clear_solutions_makes():
    nb = _toy([
        ("code", "def f(x):\n    \"\"\"doc\"\"\"\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION", SOL),
        ("code", "r = check(f)\n### BEGIN HIDDEN TESTS\nassert r\n### END HIDDEN TESTS", TEST),
        ("code", "print(1)", {}),
    ])
    student = bx.student_version(nb)
    assert student["cells"][0]["source"] == ("def f(x):\n    \"\"\"doc\"\"\"\n    # YOUR CODE HERE\n"
                                             "    raise NotImplementedError()")
    assert student["cells"][1]["source"] == "r = check(f)"
    assert student["cells"][2]["source"] == "print(1)"
    assert nb["cells"][0]["source"].count("return 2 * x") == 1          # the input is untouched
    shown = bx.student_version(nb, keep_solutions=True)
    assert "return 2 * x" in shown["cells"][0]["source"] and "assert" not in shown["cells"][1]["source"]
    whole = bx.student_version(_toy([("code", "x = 42", SOL)]))
    assert whole["cells"][0]["source"] == bx.CODE_STUB                  # a solution cell without a region


@pytest.mark.parametrize("cells, message", [
    ([("code", "### BEGIN SOLUTION\nx = 1\n### END SOLUTION", {})], "not marked as a solution cell"),
    ([("code", "### BEGIN HIDDEN TESTS\nassert 1\n### END HIDDEN TESTS", {})], "not marked as a grade cell"),
    ([("code", "### BEGIN SOLUTION\nx = 1", SOL)], "without ### END SOLUTION"),
    ([("code", "x", SOL), ("code", "y", SOL)], "duplicate grade_id"),
    ([("code", "x", {"nbgrader": {k: v for k, v in TEST["nbgrader"].items() if k != "points"}})], "needs points"),
])
def test_nbgrader_rules_are_enforced(cells, message):
    with pytest.raises(ValueError, match=message):
        bx.student_version(_toy(cells))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NAMES)
def test_student_versions_hold_no_solution(path):
    instructor = json.loads(path.read_text())
    student = bx.student_version(instructor)
    text = "\n".join(_src(c) for c in student["cells"])
    assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text and "assert result" not in text
    assert text.count("raise NotImplementedError()") == len(ex.tasks(path.stem))
    for cell in instructor["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            body = _src(cell).split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
            longest = max((ln.strip() for ln in body.split("\n")), key=len)
            assert longest not in text, longest


def test_make_exercises_writes_the_student_versions(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_exercises.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(p.stem for p in tmp_path.glob("*.ipynb")) == NAMES
    for path in tmp_path.glob("*.ipynb"):
        nb = json.loads(path.read_text())
        assert nb == bx.student_version(json.loads((EXERCISES / path.name).read_text()))


# --------------------------------------------------------------------------- #
# running the notebooks (papermill, as tests/nbrun.py runs every notebook)
# --------------------------------------------------------------------------- #
def _run(path, out_dir):
    from nbrun import NotebookCellError, _stderr_warnings, execute

    results = out_dir / f"{path.stem}.json"
    try:
        execute(path, results, {"seed": 0}, out_dir=out_dir)
    except NotebookCellError as err:
        pytest.fail(str(err), pytrace=False)
    noisy = _stderr_warnings(out_dir / path.name)
    assert not noisy, f"{path.stem} printed warnings: {noisy}"
    return json.loads(results.read_text())["checks"]


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=NAMES)
def test_solutions_pass_and_student_versions_fail_every_check(path, tmp_path):
    solved = _run(path, tmp_path / "instructor")
    assert solved == {task: True for task in ex.tasks(path.stem)}, solved
    student = tmp_path / "student" / path.name
    student.parent.mkdir()
    student.write_text(json.dumps(bx.student_version(json.loads(path.read_text()))))
    # run unchanged: every function still raises NotImplementedError, every check says so, nothing raises
    unsolved = _run(student, tmp_path / "student-run")
    assert unsolved == {task: False for task in ex.tasks(path.stem)}, unsolved
