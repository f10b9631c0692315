"""Independent references shared by the tests (written without kernelxai)."""

from itertools import combinations
from math import factorial

import numpy as np


def textbook_shapley(table, d):
    """The Shapley formula one coalition at a time; ``table`` is indexed by bitmask."""
    phi = np.zeros(d)
    for j in range(d):
        others = [i for i in range(d) if i != j]
        for s in range(d):
            for S in combinations(others, s):
                mask = sum(1 << i for i in S)
                weight = factorial(s) * factorial(d - s - 1) / factorial(d)
                phi[j] += weight * (table[mask | (1 << j)] - table[mask])
    return phi
