"""The examples in the cache and controller docstrings run and print what they claim."""

from __future__ import annotations

import doctest
import importlib
from types import ModuleType

import pytest

import kubeforge.cache
import kubeforge.controller

DOCUMENTED = [
    "kubeforge.cache.metadata",
    "kubeforge.cache.store",  # (the package's ``store`` attribute is the function)
    "kubeforge.cache.transforms",
    "kubeforge.controller.ownerrefs",
]


@pytest.mark.parametrize("name", DOCUMENTED)
def test_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize(
    "package", [kubeforge.cache, kubeforge.controller], ids=lambda p: p.__name__
)
def test_each_package_exports_names_it_has_once_each(package: ModuleType) -> None:
    exported = package.__all__
    assert len(exported) == len(set(exported))
    assert all(hasattr(package, name) for name in exported)
