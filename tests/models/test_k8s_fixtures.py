"""Kubernetes' own 1.32 fixtures (``k8s.io/api/testdata/v1.32.0``: every kind, every field
filled) decode into the models and come back exactly: through ``decode`` -> ``encode``,
and through ``convert`` -> ``to_builtins``.

The fixtures live in the project's shared research folder, next to the checkouts
(``KUBEFORGE_K8S_TESTDATA`` names another place).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kubeforge.core.meta import convert, decode, encode, to_builtins
from kubeforge.models import resource_class

_RELATIVE = Path("shared/research/test-vectors/k8s-api-testdata/v1.32.0")


def _testdata() -> Path | None:
    named = os.environ.get("KUBEFORGE_K8S_TESTDATA")
    if named:
        return Path(named)
    for parent in Path(__file__).resolve().parents:
        if (parent / _RELATIVE).is_dir():
            return parent / _RELATIVE
    return None


TESTDATA = _testdata()
FIXTURES = sorted(TESTDATA.glob("*.json")) if TESTDATA else []


def _modelled(path: Path) -> tuple[type[Any], dict[str, Any]] | None:
    wire: dict[str, Any] = json.loads(path.read_bytes())
    cls = resource_class(wire.get("apiVersion", ""), wire.get("kind", ""))
    return None if cls is None else (cls, wire)


MODELLED = [path for path in FIXTURES if _modelled(path) is not None]


def test_the_fixtures_are_here() -> None:
    # Absent fixtures fail here rather than skip: run the tests from a checkout beside shared/.
    assert TESTDATA is not None, f"{_RELATIVE} not found (or set KUBEFORGE_K8S_TESTDATA)"
    assert len(FIXTURES) >= 170


def test_every_modelled_kind_of_1_32_has_a_fixture() -> None:
    # 78 of the fixtures' kinds have models (the rest: admission reviews, internal
    # and beta kinds kubeforge does not model); fewer would mean a silent skip.
    assert len(MODELLED) >= 78


@pytest.mark.parametrize("path", MODELLED, ids=lambda p: p.stem)
def test_a_fixture_decodes_and_encodes_back_exactly(path: Path) -> None:
    found = _modelled(path)
    assert found is not None
    cls, wire = found
    obj = decode(path.read_bytes(), cls)
    assert json.loads(encode(obj)) == wire
    assert to_builtins(obj) == wire


@pytest.mark.parametrize("path", MODELLED, ids=lambda p: p.stem)
def test_a_fixture_converts_from_plain_values_and_back_exactly(path: Path) -> None:
    found = _modelled(path)
    assert found is not None
    cls, wire = found
    assert to_builtins(convert(wire, cls)) == wire
