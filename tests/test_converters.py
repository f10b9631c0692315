"""Contract tests generated from the converter registry (kernelxai.models.convert).

For every registered converter and every example model it declares:
(a) kx.explain's interventional values of each output equal brute-force enumeration of the model's own
    calls over all 2^d coalitions (x on S, background rows elsewhere, averaged), to 1e-9;
(b) feature names flow from a DataFrame fit into the Explanation;
(c) models of the other families are not taken by it (and a foreign object is refused clearly).
A registered converter without examples fails here: a new family is tested by registering it.
"""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import kernelxai as kx
from kernelxai.models.convert import registered

D = 4
COLUMNS = ["age", "dose", "weight", "site"]


def _data():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, D))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] + 0.1 * rng.normal(size=40)
    targets = {"regression": y, "binary": (X[:, 0] + X[:, 1] - 0.3 * X[:, 3] > 0).astype(int),
               "three": np.digitize(X[:, 0] + 0.5 * X[:, 2], [-0.4, 0.4])}
    return X, targets, rng.normal(size=(3, D)), rng.normal(size=(10, D))


def _fit(example, X, targets):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes of the tiny fits
        return example.fit(X, targets)


def _cases():
    cases = []
    for converter in registered():
        for k, example in enumerate(converter.examples() if converter.examples else []):
            cases.append(pytest.param(converter, example, id=f"{converter.name}-{k}-{example.label}"))
    return cases


def _brute_force(call, X, B):
    """Shapley values of v(S) = mean_b call(x_S, b_{S^c}), enumerating all coalitions: (n, d[, k])."""
    d = X.shape[1]
    value = {}
    for size in range(d + 1):
        for S in itertools.combinations(range(d), size):
            Z = np.repeat(B[None, :, :], len(X), axis=0)  # (n, m, d)
            Z[:, :, list(S)] = X[:, None, list(S)]
            out = np.asarray(call(Z.reshape(-1, d)), dtype=float)
            value[S] = out.reshape(len(X), len(B), -1).mean(axis=1)  # (n, k)
    phi = np.zeros((len(X), d, value[()].shape[1]))
    for i in range(d):
        rest = [j for j in range(d) if j != i]
        for size in range(d):
            w = math.factorial(size) * math.factorial(d - size - 1) / math.factorial(d)
            for S in itertools.combinations(rest, size):
                phi[:, i] += w * (value[tuple(sorted(S + (i,)))] - value[S])
    return phi if phi.shape[2] > 1 else phi[:, :, 0]


def test_every_registered_converter_declares_examples():
    missing = [c.name for c in registered() if not c.examples or not c.examples()]
    assert not missing, f"registered converters without examples (Converter(examples=...)): {missing}"
    for c in registered():
        assert set(c.exact) <= set(c.outputs) and c.default in c.outputs, c.name
        assert c.route and "\n" not in c.route, c.name


@pytest.mark.parametrize("converter, example", _cases())
def test_explain_equals_brute_force_model_calls(converter, example):
    X, targets, points, B = _data()
    model = _fit(example, X, targets)
    assert converter.takes(model), f"{converter.name} does not take its own example {example.label!r}"
    for output, make_call in example.calls.items():
        e = kx.explain(model, points, value="interventional", background=B, output=output, method="exact")
        want = _brute_force(make_call(model), points, B)
        scale = max(1.0, float(np.abs(want).max()))
        np.testing.assert_allclose(e.values, want, rtol=0, atol=1e-9 * scale,
                                   err_msg=f"{converter.name}: {example.label}, output={output!r}")
        route = e.meta["route"]
        routes = route.values() if isinstance(route, dict) else [route]
        assert all(str(r).startswith(example.route) for r in routes), (example.label, output, route)


@pytest.mark.parametrize("converter, example", _cases())
def test_feature_names_flow_from_a_dataframe_fit(converter, example):
    X, targets, points, B = _data()
    model = _fit(example, pd.DataFrame(X, columns=COLUMNS), targets)
    output = next(iter(example.calls), None)
    e = kx.explain(model, pd.DataFrame(points, columns=COLUMNS), background=pd.DataFrame(B, columns=COLUMNS),
                   output=output, method="exact")
    assert list(e.feature_names) == COLUMNS


@pytest.mark.parametrize("converter", registered(), ids=lambda c: c.name)
def test_models_of_other_families_are_not_taken(converter):
    X, targets, _, _ = _data()
    own_examples = converter.examples()   # kept alive: the id of a freed object is reused (Python 3.13 here)
    own = {id(ex) for ex in own_examples}
    foreign = [(other.name, _fit(ex, X, targets)) for other in registered() if other is not converter
               for ex in other.examples() if id(ex) not in own]
    not_taken = [name for name, model in foreign if not converter.takes(model)]
    assert not_taken, f"{converter.name} takes every other family's examples"
    from sklearn.linear_model import LinearRegression

    other = LinearRegression().fit(X, targets["regression"])
    assert not converter.takes(other)
    with pytest.raises(TypeError, match="cannot explain a LinearRegression; supported models: "):
        kx.models.as_expansion(other)


def test_docs_list_the_registered_converters():
    from pathlib import Path

    from kernelxai.workbench import _routes as routes

    text = (Path(__file__).resolve().parents[1] / "docs" / "routes.md").read_text()
    inside = text.split(routes.CONVERTERS_START)[1].split(routes.CONVERTERS_END)[0].strip()
    assert inside == routes.converter_table_markdown(), (
        "docs/routes.md's table of converters is out of date with the registry; regenerate it with "
        "`python -m kernelxai.workbench._routes --update docs/routes.md`")


def test_the_candidates_kept_per_class_agree_with_takes():
    """The dispatcher asks only the converters of a model's class (kept per class, #36): the same ones take it."""
    from kernelxai.models.convert._converters import candidates

    X, targets, _, _ = _data()
    models = [_fit(ex, X, targets) for c in registered() for ex in c.examples()]
    for model in models + models:   # the second time from the kept answers
        want = [c.name for c in registered() if c.takes(model)]
        got = [c.name for c in candidates(model) if c.predicate is None or c.predicate(model)]
        assert got == want, type(model).__name__


def test_the_candidates_see_a_class_registered_with_an_abc_later():
    """A class registered with an ABC after its models were dispatched once is seen (the ABC cache token)."""
    from sklearn.svm import SVR

    from kernelxai.models.convert._converters import candidates

    class LooksLikeAnSVR:
        pass

    LooksLikeAnSVR.__module__ = "sklearn.svm._fake"   # only a library's own classes are looked up
    before = [c.name for c in candidates(LooksLikeAnSVR())]
    assert "sklearn_svm" not in before
    SVR.register(LooksLikeAnSVR)
    assert "sklearn_svm" in [c.name for c in candidates(LooksLikeAnSVR())]


def test_a_refitted_or_changed_model_is_converted_afresh():
    """Nothing of a model's conversion is kept from call to call (#36 keeps only class facts): no stale values."""
    from sklearn.svm import SVR

    X, targets, points, _ = _data()
    y = targets["regression"]

    def explain(model):
        return kx.explain(model, points, value="functional_baseline", method="product").values

    svr = SVR().fit(X, y)
    first = explain(svr)
    svr.fit(X, -y)                                   # refitted: the same object, new arrays
    np.testing.assert_array_equal(explain(svr), explain(SVR().fit(X, -y)))
    assert not np.allclose(explain(svr), first)
    want = 2.0 * explain(svr)
    svr.dual_coef_ *= 2.0                            # its arrays changed in place
    np.testing.assert_allclose(explain(svr), want, rtol=1e-12, atol=0)
