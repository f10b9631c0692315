"""The public surface declares its types: every parameter and every return of a public callable is annotated.

ruff checks the return types of every public-looking function in ``kernelxai/`` (ANN201/205/206), but
its rule for parameters (ANN001) cannot tell an exported name from an internal helper, so this test
checks the parameters of what users call, read from the curated surface itself
(``tests/test_public_api.py``: ``kx.__all__`` and every stage's ``__all__``):

- every function listed there (followed through ``functools.wraps``, as ``inspect.signature`` does);
- every public class listed there: its ``__init__`` and each public method, static method, class method
  and property, wherever in its bases they are defined, as long as that is in kernelxai (methods
  inherited from scikit-learn or the standard library are not ours to annotate).

Each needs an annotation on every parameter but ``self``/``cls`` (``*args`` and ``**kwargs`` included;
``Any`` where any value goes) and on its return (``-> None`` for ``__init__``). Annotations are not
evaluated here: with ``from __future__ import annotations`` they are strings, and names imported under
``TYPE_CHECKING`` (``ArrayLike``, ``pd.DataFrame``) are enough.
"""

from __future__ import annotations

import importlib
import inspect

import pytest
from test_public_api import KX_ALL, SURFACE

import kernelxai as kx


def _ours(obj) -> bool:
    return (getattr(obj, "__module__", None) or "").startswith("kernelxai")


def _members(cls):
    """``(defining class, name, function)`` of ``cls.__init__`` and of its public methods and properties."""
    for name in ["__init__", *sorted(n for n in dir(cls) if not n.startswith("_"))]:
        owner = next((klass for klass in cls.__mro__ if name in vars(klass)), None)
        if owner is None or not _ours(owner):
            continue
        raw = vars(owner)[name]
        if isinstance(raw, (staticmethod, classmethod)):
            raw = raw.__func__
        elif isinstance(raw, property):
            raw = raw.fget
        if inspect.isfunction(raw):
            yield owner, name, raw


def _public_callables() -> dict[str, object]:
    """``{defining module.qualified name: function}`` of everything the curated surface offers."""
    modules = [(kx, KX_ALL)] + [(importlib.import_module(path), names) for path, names in SURFACE.items()]
    found = {}
    for module, names in modules:
        for name in names:
            obj = getattr(module, name)
            if inspect.isfunction(obj) and _ours(obj):
                found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
            elif inspect.isclass(obj) and _ours(obj):
                for owner, member, fn in _members(obj):
                    found.setdefault(f"{owner.__module__}.{owner.__qualname__}.{member}", fn)
    return found


CALLABLES = _public_callables()


def _unannotated(fn) -> list[str]:
    """The parameters (``*args``, ``**kwargs`` included; not ``self``/``cls``) and ``return`` without annotation."""
    signature = inspect.signature(fn)
    params = list(signature.parameters.values())
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    missing = [p.name for p in params if p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def test_the_surface_offers_callables_to_check():
    assert len(CALLABLES) > 200
    assert "kernelxai.explanation._attributions.Explanation.__init__" in CALLABLES
    assert "kernelxai.kernels._product_kernels.ProductKernel.feature_grams" in CALLABLES


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_public_signature_is_annotated(name):
    missing = _unannotated(CALLABLES[name])
    assert not missing, f"{name}: no annotation on {', '.join(missing)}"
