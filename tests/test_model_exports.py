"""``orgbrain.model`` is one import path over one module per concept: every public name of
every submodule is re-exported, once (ruff keeps each ``__all__`` sorted)."""

from __future__ import annotations

import importlib
import pkgutil

import orgbrain.model as model


def test_the_model_package_re_exports_every_submodule_name() -> None:
    names: list[str] = []
    for info in pkgutil.iter_modules(model.__path__):
        module = importlib.import_module(f"orgbrain.model.{info.name}")
        assert all(hasattr(module, name) for name in module.__all__), module.__name__
        for name in module.__all__:
            assert getattr(model, name) is getattr(module, name), name
        names += module.__all__
    assert sorted(names) == sorted(model.__all__)
    assert len(set(names)) == len(names)
