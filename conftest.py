"""pytest's settings for the whole checkout: the tests in tests/ and the docstring examples in kernelxai/.

Both run headless, so figures go to the Agg backend (notebooks set their own inline backend in
their kernel). A docstring example that registers a value function (``kx.values.register``)
leaves no trace: the registry is restored after each example, so the examples show public
names only and need no clean-up line.
"""

import matplotlib
import pytest

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _forget_example_registrations(request):
    """Restore the registry of value functions after each docstring example."""
    if type(request.node).__name__ != "DoctestItem":
        yield
        return
    from kernelxai.values import _base

    registry = _base._REGISTRY  # noqa: SLF001 - the value functions' registry has no public reset
    before = dict(registry)
    yield
    registry.clear()
    registry.update(before)
