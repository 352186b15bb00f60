"""The examples in the workqueue and clock docstrings run and print what they claim."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import kubeforge.core.clock
import kubeforge.workqueue
import kubeforge.workqueue.queue
import kubeforge.workqueue.rate_limiters


@pytest.mark.parametrize(
    "module",
    [kubeforge.core.clock, kubeforge.workqueue.queue, kubeforge.workqueue.rate_limiters],
    ids=lambda module: module.__name__,
)
def test_docstring_examples_hold(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_the_package_exports_exactly_its_sorted_public_names() -> None:
    exported = kubeforge.workqueue.__all__
    assert exported == sorted(exported)
    assert all(hasattr(kubeforge.workqueue, name) for name in exported)
