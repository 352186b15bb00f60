"""The examples in the docstrings of discovery, OpenAPI and Table output run and hold."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from kubeforge.apiserver import negotiation
from kubeforge.apiserver.endpoints import discovery
from kubeforge.apiserver.openapi import documents
from kubeforge.apiserver.printers import cells, columns, jsonpath


@pytest.mark.parametrize(
    "module",
    [negotiation, jsonpath, columns, cells, discovery, documents],
    ids=lambda m: m.__name__,
)
def test_docstring_examples_hold(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
