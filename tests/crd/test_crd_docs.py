"""Descriptions from docstrings: classes, attribute docstrings, nested classes, edited sources."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubeforge import Model
from kubeforge.crd import model_schema

SOURCE = '''
from kubeforge import Model


class HullSpec(Model):
    """A hull.

    Second   paragraph,
    wrapped.
    """

    length: int = 0
    """{doc}"""
    beam: int = 0
    note = "not a field, so this string documents nothing"
    """Ignored."""
'''


@pytest.fixture
def module_dir(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    sys.modules.pop("kf_hull_docs", None)


def load(folder: Path, doc: str) -> type[Model]:
    (folder / "kf_hull_docs.py").write_text(SOURCE.replace("{doc}", doc))
    sys.modules.pop("kf_hull_docs", None)
    importlib.invalidate_caches()
    cls: type[Model] = importlib.import_module("kf_hull_docs").HullSpec
    return cls


def test_class_and_attribute_docstrings_become_descriptions(module_dir: Path) -> None:
    schema = model_schema(load(module_dir, "Length in metres."))
    assert schema["description"] == "A hull.\n\nSecond paragraph, wrapped."
    assert schema["properties"]["length"]["description"] == "Length in metres."
    assert "description" not in schema["properties"]["beam"]


def test_an_edited_and_reimported_module_gives_the_new_descriptions(module_dir: Path) -> None:
    before = model_schema(load(module_dir, "Old words."))
    after = model_schema(load(module_dir, "New, longer words."))
    assert before["properties"]["length"]["description"] == "Old words."
    assert after["properties"]["length"]["description"] == "New, longer words."


def test_classes_defined_inside_functions_are_documented_too() -> None:
    class Local(Model):
        """Local model."""

        depth: int = 0
        """How deep."""

    schema = model_schema(Local)
    assert schema["description"] == "Local model."
    assert schema["properties"]["depth"]["description"] == "How deep."
