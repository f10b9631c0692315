"""Clear answers for what kernelxai cannot explain as given (issue #26, deliverable 5).

Each refusal names the problem and what to do instead: models fitted with
kernel="precomputed", sparse inputs too large to densify, a misspelt keyword of
kx.explain, a misspelt value function. Sparse inputs small enough to densify
are accepted and give the values of the dense ones.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC, SVR, NuSVR, OneClassSVM

import kernelxai as kx
from kernelxai.estimators._registry import InvalidOptionError
from kernelxai.models import as_expansion
from kernelxai.models.convert._converters import PrecomputedKernelError


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    return X, X[:, 0] + X[:, 1] ** 2


def _precomputed(name):
    X, y = _data()
    K = rbf_kernel(X, X)
    return {"KernelRidge": lambda: KernelRidge(kernel="precomputed").fit(K, y),
            "SVR": lambda: SVR(kernel="precomputed").fit(K, y),
            "NuSVR": lambda: NuSVR(kernel="precomputed").fit(K, y),
            "SVC": lambda: SVC(kernel="precomputed").fit(K, (y > y.mean()).astype(int)),
            "OneClassSVM": lambda: OneClassSVM(kernel="precomputed").fit(K)}[name]()


@pytest.mark.parametrize("name", ["KernelRidge", "SVR", "NuSVR", "SVC", "OneClassSVM"])
@pytest.mark.parametrize("how", [dict(), dict(background="X"), dict(value="observational"),
                                 dict(value="marginal", background="X"),
                                 dict(value="gaussian_conditional", background="X")])
def test_precomputed_kernels_are_refused_with_what_to_do(name, how):
    X, _ = _data()
    model = _precomputed(name)
    how = {k: X if v == "X" else v for k, v in how.items()}
    with pytest.raises(PrecomputedKernelError) as err:
        kx.explain(model, X[:3], **how)
    msg = str(err.value)
    for words in ("kernel='precomputed'", "Gram matrix", "feature by feature", "kernel='rbf'",
                  "kx.explain(lambda Z: model."):
        assert words in msg
    assert "40 were expected" not in msg
    assert isinstance(err.value, TypeError) and isinstance(err.value, ValueError)


def test_precomputed_is_refused_by_every_entry():
    X, _ = _data()
    krr = _precomputed("KernelRidge")
    with pytest.raises(PrecomputedKernelError, match="feature by feature"):
        kx.explain_interactions(krr, X[:2], background=X)
    with pytest.raises(PrecomputedKernelError, match="feature by feature"):
        kx.values.Marginal(krr, background=X)
    with pytest.raises(PrecomputedKernelError, match="feature by feature"):
        as_expansion(_precomputed("SVR"))
    # the suggested route works: a function of the original features through model calls
    e = kx.explain(lambda Z: krr.predict(rbf_kernel(Z, X)), X[:2], background=X[:10])
    assert e.values.shape == (2, 3)


@pytest.mark.parametrize("fit_sparse", [False, True])
def test_sparse_input_small_enough_gives_the_dense_values(fit_sparse):
    X, y = _data()
    Xs = sp.csr_matrix(X)
    krr = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(Xs if fit_sparse else X, y)
    dense = kx.explain(krr, X[:4], background=X)
    sparse = kx.explain(krr, Xs[:4], background=Xs)
    np.testing.assert_allclose(sparse.values, dense.values, atol=1e-12)
    svr = SVR(gamma=0.3).fit(Xs if fit_sparse else X, y)
    np.testing.assert_allclose(kx.explain(svr, Xs[:3], background=Xs).values,
                               kx.explain(svr, X[:3], background=X).values, atol=1e-12)
    oc = OneClassSVM(gamma=0.3, nu=0.2).fit(Xs if fit_sparse else X)
    np.testing.assert_allclose(kx.explain(oc, Xs[:3], background=Xs).values,
                               kx.explain(oc, X[:3], background=X).values, atol=1e-12)


def test_sparse_input_too_large_is_refused_by_name():
    X, y = _data()
    krr = KernelRidge(kernel="rbf").fit(X, y)
    big = sp.random(10_000, 3, density=0.1, format="csr", random_state=0)
    with kx.config_context(max_memory=2**16):
        with pytest.raises(ValueError) as err:
            kx.explain(krr, X[:2], background=big)
    msg = str(err.value)
    for words in ("background", "scipy sparse", "(10000, 3)", "max_memory", "kx.config_context"):
        assert words in msg


def test_misspelt_keyword_of_explain_suggests_the_argument():
    X, y = _data()
    for model in (KernelRidge(kernel="rbf").fit(X, y), SVR().fit(X, y),
                  lambda Z: Z[:, 0] * Z[:, 1]):
        with pytest.raises(InvalidOptionError) as err:
            kx.explain(model, X[:2], backgroud=X)
        msg = str(err.value)
        assert "'backgroud' is not an argument of kx.explain" in msg
        assert "did you mean 'background'" in msg
    with pytest.raises(InvalidOptionError,
                       match="is not an argument of kx.explain_interactions.*did you mean 'background'"):
        kx.explain_interactions(SVR().fit(X, y), X[:2], backgroud=X)
    with pytest.raises(InvalidOptionError, match="did you mean 'budget'"):
        kx.explain(KernelRidge(kernel="rbf").fit(X, y), X[:2], method="kernel", budgte=64)


def test_misspelt_value_function_suggests_the_name():
    X, y = _data()
    with pytest.raises(ValueError, match="did you mean 'interventional'"):
        kx.explain(KernelRidge(kernel="rbf").fit(X, y), X[:2], value="interventinal")
    with pytest.raises(ValueError, match="did you mean 'observational'"):
        kx.values.get("observatonal")
