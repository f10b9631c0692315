"""Exact Shapley values of product games in polynomial time (``"product"``, ``"stable"``, ``"newton"``).

The numerical routes live in :mod:`kernelxai.product`; this module declares
them as estimators: ``"product"`` (alias ``"quadrature"``) is the
Beta-integral identity by Gauss-Legendre quadrature, O(R d ceil(d/2)) per
instance for R terms and accurate at any d; ``"stable"`` and ``"newton"`` are
PKeX-Shapley's Alg. 2 and Alg. 1, O(R d^3), kept for reproducing the paper.
Both bound their own rounding error and refuse (``tolerance``) rather than
return inaccurate values.
"""

from __future__ import annotations

import math

from ..games import ProductGame
from ..product import DEFAULT_TOLERANCE, product_shapley
from .registry import Cost, Estimator, EstimatorResult, Option, register

__all__ = ["Quadrature", "Stable", "Newton"]

#: float64 numbers one task of the quadrature holds (see kernelxai.product).
_WORK = 2**17


class _ProductRoute(Estimator):
    requires = ProductGame
    exact = True
    route = "quadrature"
    #: floating-point operations per term and player, as a function of d
    options = {
        "n_jobs": Option(None, "int", 1, doc="threads working on term blocks (default: all CPUs)"),
    }

    def _per_term(self, d):  # pragma: no cover - abstract
        raise NotImplementedError

    def cost(self, game, options):
        d, n = game.n_players, game.n_instances or 1
        terms = game.n_terms()
        if terms is None:
            return Cost(0.0, 0.0, 0, "unknown number of terms")
        flops = float(terms) * n * self._per_term(d)
        return Cost(flops, 8.0 * (_WORK + n * d), 0, f"{terms} term(s) x {n} instance(s), d = {d}")

    def advice(self, game, options):
        return ["a smaller or summarised background (fewer terms per instance)",
                "fewer training points (a Nystrom model) or fewer explained points per call"]

    def run(self, game, rng, options):
        values, base, bound = product_shapley(
            game, route=self.route, max_elements=options["max_elements"], n_jobs=options["n_jobs"],
            progress=options["progress"], tolerance=options.get("tolerance"), return_bound=True,
            backend=options.get("backend", "numpy"))
        meta = {"route": self.description}
        if self.route != "quadrature":
            meta["error_bound"] = bound
        return EstimatorResult(values, base, budget=0, meta=meta)


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

    def _per_term(self, d):
        return 6.0 * d * math.ceil(d / 2)


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
