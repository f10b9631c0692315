"""Interaction indices of every order against a peer: shapiq's ``ExactComputer``.

Every index kernelxai offers (SV, BV, SII, BII, CHII, k-SII, STII, FSII, FBII, Moebius,
Co-Moebius, SGV, BGV, CHGV, IGV, EGV) at every order, on games of d <= 10 players handed to
shapiq as ``shapiq.Game`` objects:

* random tables of worths (``kx.TabularGame``; kernelxai enumerates, ``method="exact"``):
  every order at d = 7, orders 1-3 at d = 10;
* a kernel model (an RBF ``SVR``, d = 8): the interventional game (8 background rows) and
  the functional baseline, by ``kx.explain_interactions(..., method="product")`` (the
  product route, polynomial time), orders 1, 2, 3 and d. shapiq's games are evaluated from
  the model itself (predictions at hybrid points; the kernel's factors), not from tables
  kernelxai made.

Every set shapiq returns is compared: the sizes the order asks for from kernelxai's dense
result, the others (the empty set; the smaller sizes of the indices whose order means
"exactly k", which shapiq returns too) through ``sets=``. The difference is relative to the
largest value of the result: max |kernelxai - shapiq| / max |shapiq| <= 1e-9 per index and
order, except FSII.

FSII: <= 1e-6. shapiq's FSII is not the constrained least-squares solution but a penalised
one: the empty and the grand coalition get the weight M = 1e8 (``ExactComputer._big_M``)
instead of being constraints, and ``np.linalg.lstsq`` solves the weighted problem. The
penalty moves the solution by O(w / M) (w the weights of the other coalitions): ~1e-9
relative at orders 1-3, shrinking as 1/M. At higher orders the weighted design's condition
grows with sqrt(M) and rounding dominates: up to ~1e-7 at d = 10, orders 8-10 (measured
with shapiq 1.4.1 and 1.8.0; raising M makes it worse there). kernelxai's FSII is the
constrained solution, equal to the closed-form Moebius weights to 1e-10
(tests/test_interaction_orders.py), so the difference is shapiq's; 1e-6 keeps a tenfold
margin over the worst measured.

Two documented differences of the empty set at order 1 (kernelxai follows shapiq's own
order >= 2 convention, ``kernelxai/estimators/_interaction_indices.py``): shapiq reports
v(empty) for SII and 0 for BGV at order 1. They are checked to be exactly that, then left out.

Which shapiq offers which index (``OFFERED_SINCE``): all sixteen are in ``ExactComputer``'s
table of shapiq 1.1 (``shapiq/exact.py``, before 1.2 moved it to ``game_theory``), older
than the project's floors (``shapiq>=1.4``, ``>=1.8`` under Python >= 3.12; 1.2 gave every
index but SII the empty set of today). A shapiq that lacks an index skips that index's tests and names the version that
has it. Checked on this project's machines with shapiq 1.4.1 (Python 3.11, ``make test``)
and shapiq 1.8.0 (Python 3.12 and 3.13, ``scripts/newer_pythons.sh``, run by ``.ci/run``).
"""

import functools
import importlib.metadata
import math
import re
import warnings

import numpy as np
import pytest

import kernelxai as kx
from kernelxai.estimators._interaction_indices import INDEX_NAMES, get_index

shapiq = pytest.importorskip(
    "shapiq", reason="shapiq is not installed: the peer tests need its ExactComputer "
                     "(pip install 'kernelxai[shapiq]'; CI runs them with shapiq>=1.8 too)")

SHAPIQ_VERSION = importlib.metadata.version("shapiq")
FLOOR = (1, 2)


def _version(text):
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


if _version(SHAPIQ_VERSION) < FLOOR:
    pytest.skip(f"shapiq {SHAPIQ_VERSION} is older than 1.2 (the project's floor, whose empty-set "
                "conventions these tests follow)", allow_module_level=True)

#: The oldest shapiq whose ExactComputer offers each index (all of them: shapiq 1.1's exact.py).
OFFERED_SINCE = dict.fromkeys(INDEX_NAMES, "1.1")

RTOL = 1e-9
RTOL_FSII = 1e-6                 # shapiq's penalised least squares (module docstring)

#: shapiq's empty set at order 1 where it differs from kernelxai's (documented), and its value.
KNOWN_EMPTY_SET = {("SII", 1): "v(empty)", ("BGV", 1): "zero"}


@functools.cache
def _shapiq_offers(name):
    game = _PeerGame(lambda Z: Z.sum(axis=1).astype(float), 2)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            shapiq.ExactComputer(game=game, n_players=2)(name, 1)
    except ValueError as err:
        if "not supported" in str(err).lower() or "index" in str(err).lower():
            return False
        raise
    return True


def _require(name):
    if not _shapiq_offers(name):
        since = OFFERED_SINCE.get(name)
        pytest.skip(f"shapiq {SHAPIQ_VERSION}'s ExactComputer has no {name}; "
                    + (f"shapiq >= {since} has it" if since else "no shapiq version is recorded to have it"))


class _PeerGame(shapiq.Game):
    """A game for shapiq: ``worth`` maps a boolean coalition matrix (m, d) to m worths."""

    def __init__(self, worth, d):
        self._worth = worth
        super().__init__(n_players=d, normalize=False)

    def value_function(self, coalitions):
        return np.asarray(self._worth(np.asarray(coalitions, dtype=bool)), dtype=float)


def _peer(worth, d, name, k):
    """shapiq's ExactComputer: every set it returns, as {sorted tuple: value}."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # CHII's empty set, a 0/0 it then replaces
        iv = shapiq.ExactComputer(game=_PeerGame(worth, d), n_players=d)(name, k)
    return {tuple(sorted(s)): float(iv.values[pos]) for s, pos in iv.interaction_lookup.items()}


def _ours(call, name, k, d, wanted):
    """kernelxai's value of every set in ``wanted``: the sizes of order k from the dense result
    (``call(order=k)``), the others by ``sets=``."""
    idx = get_index(name)
    sizes = idx.sizes(k, d)
    orders = call(order=k).interaction_orders
    got = {}
    for t in sizes:
        block = orders[t]
        assert block.layout == "dense" and len(block.sets) == math.comb(d, t), (name, k, t)
        values = np.asarray(block.values, dtype=float).reshape(len(block.sets))
        got.update(zip(map(tuple, block.sets.tolist()), values.tolist()))
    rest = [s for s in wanted if len(s) not in sizes]
    if rest:
        orders = call(order=k, sets=rest).interaction_orders
        for s in rest:
            got[s] = float(np.asarray(orders.value_of(s)).reshape(()))
    return got


def _compare(peer, ours, name, k, v_empty, where):
    known = KNOWN_EMPTY_SET.get((name, k))
    if known is not None:                        # shapiq's documented convention, then left out
        assert peer.pop(()) == pytest.approx(v_empty if known == "v(empty)" else 0.0, abs=1e-12)
    missing = set(peer) - set(ours)
    assert not missing, f"{where}: kernelxai has no value for {sorted(missing)[:5]}"
    keys = list(peer)
    ref = np.array([peer[s] for s in keys])
    got = np.array([ours[s] for s in keys])
    scale = np.abs(ref).max()
    rel = np.abs(got - ref).max() / scale
    tol = RTOL_FSII if name == "FSII" else RTOL
    worst = keys[int(np.argmax(np.abs(got - ref)))]
    assert rel <= tol, (f"{where}: {name} order {k}: relative difference {rel:.2e} > {tol:.0e} "
                        f"(worst set {worst}: kernelxai {ours[worst]!r}, shapiq {peer[worst]!r}; "
                        f"shapiq {SHAPIQ_VERSION})")
    return rel


def _orders(name, d, which):
    if get_index(name).order_means == "1":
        return [1]
    return [k for k in which if 1 <= k <= d]


# --------------------------------------------------------------------------- #
# random tables of worths: kernelxai's enumeration
# --------------------------------------------------------------------------- #
def _table_case(d, seed):
    V = np.random.default_rng(seed).normal(size=2**d)
    bits = 1 << np.arange(d)

    def worth(Z):
        return V[Z.astype(np.int64) @ bits]

    game = kx.TabularGame(V)

    def call(name):
        def run(order, sets=None):
            with kx.config_context(progress=False):
                return kx.shapley_interactions(game, index=name, order=order, method="exact", sets=sets)
        return run

    return worth, call, float(V[0])


@pytest.mark.parametrize("name", INDEX_NAMES)
@pytest.mark.parametrize(("d", "which"), [(7, range(1, 8)), (10, (1, 2, 3))], ids=["d7-every-order", "d10"])
def test_tables_against_exact_computer(name, d, which):
    _require(name)
    worth, call, v_empty = _table_case(d, seed=d)
    for k in _orders(name, d, which):
        peer = _peer(worth, d, name, k)
        ours = _ours(call(name), name, k, d, list(peer))
        _compare(peer, ours, name, k, v_empty, f"random table, d={d}")


# --------------------------------------------------------------------------- #
# a kernel model's games: kernelxai's product route
# --------------------------------------------------------------------------- #
D_MODEL = 8


@functools.cache
def _svr():
    from sklearn.svm import SVR

    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, D_MODEL))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) - X[:, 3] * X[:, 4] * X[:, 5] + 0.5 * X[:, 6]
    model = SVR(kernel="rbf", gamma=0.15, C=3.0).fit(X, y)
    return model, X[:1] + 0.3, X[10:18]


def _model_case(value):
    model, x, background = _svr()
    if value == "interventional":
        def worth(Z):                            # E_b f(x_S, b_rest) at hybrid points
            hybrid = np.where(Z[:, None, :], x[0], background[None])
            return model.predict(hybrid.reshape(-1, D_MODEL)).reshape(len(Z), -1).mean(axis=1)
    else:
        def worth(Z):                            # sum_i alpha_i prod_{l in S} k_l(x_l, x_il) + b
            sq = (x[0] - model.support_vectors_) ** 2
            return np.exp(-model.gamma * (Z.astype(float) @ sq.T)) @ model.dual_coef_[0] + model.intercept_[0]

    extra = {"background": background} if value == "interventional" else {}

    def call(name):
        def run(order, sets=None):
            with kx.config_context(progress=False):
                return kx.explain_interactions(model, x, value=value, index=name, order=order,
                                               method="product", sets=sets, **extra)
        return run

    return worth, call, float(worth(np.zeros((1, D_MODEL), dtype=bool))[0])


@pytest.mark.parametrize("name", INDEX_NAMES)
@pytest.mark.parametrize("value", ["interventional", "functional_baseline"])
def test_kernel_model_games_against_exact_computer(name, value):
    _require(name)
    worth, call, v_empty = _model_case(value)
    for k in _orders(name, D_MODEL, (1, 2, 3, D_MODEL)):
        peer = _peer(worth, D_MODEL, name, k)
        ours = _ours(call(name), name, k, D_MODEL, list(peer))
        _compare(peer, ours, name, k, v_empty, f"SVR {value}, d={D_MODEL}")


def test_every_offered_index_is_checked():
    """The indices offered and the indices compared are the same sixteen; the installed shapiq has each."""
    assert set(OFFERED_SINCE) == set(INDEX_NAMES) == set(kx.explainers.INDICES)
    missing = [name for name in INDEX_NAMES if not _shapiq_offers(name)]
    if missing:
        pytest.skip(f"shapiq {SHAPIQ_VERSION} lacks {missing} (their tests are skipped)")
