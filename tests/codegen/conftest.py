"""Fixtures for the model generator tests: fixture CRDs, and generated packages made importable."""

from __future__ import annotations

import importlib
import itertools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from kubeforge.crd import generate_models

FIXTURES = Path(__file__).parent / "fixtures"
CERTIFICATES = FIXTURES / "certificates.cert-manager.io.yaml"
SERVICE_MONITORS = FIXTURES / "servicemonitors.monitoring.coreos.com.yaml"

_packages = itertools.count()

Load = Callable[..., dict[str, ModuleType]]


def fixture_crd(path: Path) -> dict[str, Any]:
    loaded = yaml.safe_load(path.read_text())
    assert isinstance(loaded, dict)
    return loaded


@pytest.fixture
def generated(tmp_path: Path) -> Iterator[Load]:
    """``load(crds)``: generate models into a fresh package under ``tmp_path`` and import them.

    Returns module name -> module. Every package has a name of its own, and all of
    them leave ``sys.modules`` and ``sys.path`` when the test ends.
    """
    sys.path.insert(0, str(tmp_path))
    before = set(sys.modules)

    def load(crds: Any) -> dict[str, ModuleType]:
        package = f"kf_generated_{next(_packages)}"
        folder = tmp_path / package
        folder.mkdir()
        (folder / "__init__.py").write_text("")
        sources = generate_models(crds, package=package, directory=folder)
        for name, source in sources.items():
            (folder / f"{name}.py").write_text(source)
        importlib.invalidate_caches()
        return {name: importlib.import_module(f"{package}.{name}") for name in sources}

    yield load
    sys.path.remove(str(tmp_path))
    for name in set(sys.modules) - before:
        del sys.modules[name]


def one_version_crd(group: str, kind: str, root: dict[str, Any]) -> dict[str, Any]:
    """A namespaced CRD of ``kind`` with one served, stored version ``v1`` whose schema is
    ``root``."""
    plural = f"{kind.lower()}s"
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {
                "kind": kind,
                "listKind": f"{kind}List",
                "plural": plural,
                "singular": kind.lower(),
            },
            "versions": [
                {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": root}}
            ],
        },
    }
