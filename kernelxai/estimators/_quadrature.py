"""Exact Shapley values of product games in polynomial time (``"product"``, ``"stable"``, ``"newton"``).

The numerical routes live in ``kernelxai.estimators._product``; this module declares
them as estimators: ``"product"`` (alias ``"quadrature"``) is the
Beta-integral identity by Gauss-Legendre quadrature, O(R d q) per instance for
R terms and q <= ceil(d/2) nodes, accurate at any d; ``"stable"`` and
``"newton"`` are PKeX-Shapley's Alg. 2 and Alg. 1, O(R d^3), kept for
reproducing the paper. Both bound their own rounding error and refuse
(``tolerance``) rather than return inaccurate values.

Cost of the quadrature
----------------------
The kernel chooses q per task of terms from an accuracy bound (often a
handful of nodes where ceil(d/2) would be exact for any factors), so its cost
is estimated with the q it chooses for the game's first terms
(:func:`kernelxai.estimators.estimate_nodes`, probed once per call), and counted
pass by pass over the (d, terms) working arrays of
:func:`kernelxai.estimators.product_shapley`, one operation per number and pass:

* absent factors all 1: the transposed factors (1), a - 1 (1), the node
  count's min, max and column sums (3), per node the factors (2), their
  product (1), the leave-one-out division (1) and its sum (1) -- four for the
  first node, which starts the sum -- the finiteness check (1), the
  contributions (a - c) psi (1) and the sum over terms (1): d (7 + 5 q);
* general absent factors: also c transposed (1), a - c instead of a - 1, the
  node count's rho = (a - c)/(a + c) with its three sums (10 passes in all),
  and prod_l c_l (1): d (17 + 5 q).

A pass costs 0.3-0.6 ns per number on one core of the development machine: the
passes are priced at the calibrated rate of plain arithmetic passes
(``kernelxai._calibration.arithmetic_passes``), and forming the terms (kernel
values, which the game computes on the fly) is the game's
:meth:`~kernelxai.games.ProductGame.term_work`, priced as kernel evaluations.
``benchmarks/bench_cost_model.py`` prints the estimate against the measured time
of every route; ``benchmarks/bench_product_nodes.py`` the node count the cost
takes against the counts the quadrature uses (ceil(d/2) nodes had put the
estimate 12-100x above the time at d = 80 and 500). A sum of product games (a
SumKernel) is counted summand by summand, each with its own node count.
"""

from __future__ import annotations

import math

from .._calibration import arithmetic_passes
from ..games import ProductGame
from ._pkex_routes import DEFAULT_TOLERANCE
from ._product import ProductOptions, product_sums
from ._quadrature_kernel import WORK_ELEMENTS
from ._registry import Cost, Estimator, EstimatorResult, Option, register
from ._term_tasks import PROBE_TERMS, NodeProbes, count_tasks, summands

__all__ = ["Quadrature", "Stable", "Newton"]

#: float64 numbers one task of the quadrature holds (see kernelxai.estimators._product).
_WORK = 2**17
#: Python-level steps of one task of terms besides its passes (node count, blocks' set-up)
TASK_STEPS = 40.0
#: Where the resolved options of one call keep the call's node probes (not an option a user gives:
#: :meth:`Quadrature.resolve_options` makes them, its cost estimate fills them and its run reads them).
PROBES = "_node_probes"


class _ProductRoute(Estimator):
    requires = ProductGame
    exact = True
    uses_rng = False
    route = "quadrature"
    #: floating-point operations per term and player, as a function of d
    options = {
        "n_jobs": Option(None, "int", 1, doc="threads working on term blocks (default: all CPUs)"),
    }

    def _per_term(self, d):  # pragma: no cover - abstract
        raise NotImplementedError

    def _work(self, game, d, options):
        """Operations per term and a note on them, for :meth:`cost`."""
        return self._per_term(d), ""

    def cost(self, game, options):
        d, n = game.n_players, game.n_instances or 1
        terms = game.n_terms()
        if terms is None:
            return Cost(0.0, 0.0, 0, "unknown number of terms")
        per_term, note = self._work(game, d, options) if terms else (0.0, "")
        # the route's passes stay in the cache (see arithmetic_passes); forming the terms is the game's
        passes = arithmetic_passes(float(terms) * n * per_term)
        # per task of terms: the node count and the blocks' set-up, a few dozen numpy calls
        tasks = count_tasks(game, self.route, WORK_ELEMENTS)
        formed = game.term_work()
        if self.route == "quadrature" and terms:
            # the node-count probe forms the first terms too (up to PROBE_TERMS of them)
            formed = formed + formed * min(1.0, PROBE_TERMS / float(terms))
        return Cost.of(formed, 8.0 * (_WORK + n * d), 0,
                       f"{terms} term(s) x {n} instance(s), d = {d}" + note, flops=passes,
                       steps=TASK_STEPS * tasks)

    def advice(self, game, options):
        return ["a smaller or summarised background (fewer terms per instance)",
                "fewer training points (a Nystrom model) or fewer explained points per call"]

    def run(self, game, rng, options):
        sums = product_sums(game, ProductOptions(
            route=self.route, max_elements=options["max_elements"], n_jobs=options["n_jobs"],
            progress=options["progress"], tolerance=options.get("tolerance"),
            backend=options.get("backend", "numpy")), probes=options.get(PROBES))
        meta = {"route": self.description}
        if self.route != "quadrature":
            meta["error_bound"] = sums.error
        return EstimatorResult(sums.values, sums.base_values, budget=0, meta=meta)


@register
class Quadrature(_ProductRoute):
    """Gauss-Legendre quadrature of the Beta-integral identity (exact, any d)."""

    name = "product"
    aliases = ("quadrature",)
    auto = True
    route = "quadrature"
    description = "Gauss-Legendre quadrature of the Beta-integral identity"
    options = {
        **_ProductRoute.options,
        "backend": Option("numpy", "choice", choices=("numpy", "numba"),
                          doc="the quadrature's kernel: numpy, or compiled with numba (kernelxai[numba])"),
    }

    def _per_term(self, d, nodes=None, general=True):
        """Operations per term with ``nodes`` nodes (default ceil(d/2)); see the module docstring."""
        nodes = max(1, math.ceil(d / 2)) if nodes is None else nodes
        return float(d) * ((17.0 if general else 7.0) + 5.0 * nodes)

    def resolve_options(self, options):
        """The options, and the call's own ``kernelxai.estimators._term_tasks.NodeProbes`` (``PROBES``)."""
        resolved = super().resolve_options(options)
        resolved[PROBES] = NodeProbes()
        return resolved

    def _work(self, game, d, options):
        # the parts of a sum of product games run in tasks of their own, each with its nodes
        parts = summands(game)
        counts = [part.n_terms() for part in parts]
        if len(parts) == 1 or any(c is None for c in counts) or not sum(counts):
            parts, counts = [game], [1]
        probes = options.get(PROBES)
        probes = NodeProbes() if probes is None else probes
        found = [probes.estimate(part) for part in parts]
        per_term = sum(c * self._per_term(d, e.nodes, e.general) for c, e in zip(counts, found)) / sum(counts)
        low, nodes, seen = min(e.nodes for e in found), max(e.nodes for e in found), sum(e.terms for e in found)
        full = max(1, math.ceil(d / 2))
        first = f"the first {seen} term(s)" + (f" of {len(parts)} summands" if len(parts) > 1 else "")
        if seen and nodes < full and len(parts) == 1 and found[0].complete:   # every term seen
            how = f"from all {seen} term(s)"
        elif seen and nodes < full:
            how = f"estimated from {first}; others may need up to ceil(d/2) = {full}"
        elif seen:
            how = f"ceil(d/2), the most any term needs, already for {first}"
        else:
            how = "exact for any factors" if full == 1 else "none seen; ceil(d/2) is exact for any"
        count = f"{low}-{nodes}" if low != nodes else f"{nodes}"
        plural = "s" if nodes != 1 else ""
        return per_term, f", {count} Gauss-Legendre node{plural} ({how})"


class _PaperRoute(_ProductRoute):
    options = {
        **_ProductRoute.options,
        "tolerance": Option(DEFAULT_TOLERANCE, "float", 0.0, nullable=True,
                            doc="largest relative rounding-error bound accepted (None: no check)"),
    }

    def _per_term(self, d):
        return 4.0 * d**3 if self.route == "newton" else 2.0 * d**3

    def advice(self, game, options):
        return ["method='product' (the quadrature: same values, O(d^2) per term instead of O(d^3))"]


@register
class Stable(_PaperRoute):
    """PKeX-Shapley Alg. 2: the coefficient recursion of the elementary symmetric polynomials."""

    name = "stable"
    route = "stable"
    description = "PKeX-Shapley Alg. 2: coefficient recursion of the ESPs"


@register
class Newton(_PaperRoute):
    """PKeX-Shapley Alg. 1: Newton's identities for the elementary symmetric polynomials."""

    name = "newton"
    route = "newton"
    description = "PKeX-Shapley Alg. 1: Newton's identities for the ESPs"
