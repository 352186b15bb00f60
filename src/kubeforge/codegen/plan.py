"""What a code-generation plan is: modules, classes, fields and their Python types.

Pure data, no schema reading: ``kubeforge.codegen.planner`` fills these in from
schemas (``plan_modules()``), ``kubeforge.codegen.render`` turns them into source.
``first_sentence()`` and ``first_paragraph()`` cut schema descriptions to the
docstrings both sides write.

>>> PyType("list[str]").is_any
False
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubeforge.core.resource import ResourceInfo

__all__ = [
    "ANY",
    "ClassPlan",
    "External",
    "FieldPlan",
    "ModulePlan",
    "PyType",
    "Schema",
    "TypeAlias",
    "container_type",
    "first_paragraph",
    "first_sentence",
    "optional",
]

Schema = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class PyType:
    """A Python annotation plus what it needs.

    ``refs`` are the ``(module, name)`` pairs the annotation names. No default goes
    with a type: required fields have none, optional ones ``None``.
    """

    expr: str
    refs: frozenset[tuple[str, str]] = frozenset()

    @property
    def is_any(self) -> bool:
        return self.expr == "Any"


# ``Any`` already admits ``None``: its fields default to ``None`` without ``| None``.
ANY = PyType("Any", frozenset({("typing", "Any")}))


def optional(py: PyType) -> str:
    """The annotation of ``py`` that also admits ``None`` (once, however ``py`` is spelled)."""
    if py.is_any or py.expr.endswith("| None"):
        return py.expr
    return f"{py.expr} | None"


def container_type(expr: str, inner: PyType) -> PyType:
    """A ``list[...]`` or ``dict[str, ...]`` of ``inner``."""
    return PyType(expr, inner.refs)


@dataclass(frozen=True, slots=True)
class External:
    """A schema name mapped to an existing Python type instead of a generated class.

    ``imports`` lists ``(module, name)`` pairs.
    """

    expr: str
    imports: tuple[tuple[str, str], ...] = ()

    def as_type(self) -> PyType:
        return PyType(self.expr, frozenset(self.imports))


@dataclass(frozen=True, slots=True)
class TypeAlias:
    """A module-level ``Name: TypeAlias = expr`` the generated code refers to."""

    name: str
    expr: str
    doc: str


@dataclass(frozen=True, slots=True)
class FieldPlan:
    attribute: str
    wire_override: str | None  # explicit msgspec name when camel-casing gets it wrong
    type: PyType
    annotation: str
    default: str | None  # a default expression; None for a required field
    doc: str


@dataclass(slots=True)
class ClassPlan:
    """One class. ``full_doc``: ``doc`` is kept whole rather than cut to a summary line.

    ``body`` holds extra class-body lines (``crd = CRDOptions(...)``), which import
    the ``(module, name)`` pairs in ``body_refs``.
    """

    name: str
    doc: str
    fields: list[FieldPlan]
    info: ResourceInfo | None = None
    full_doc: bool = False
    body: list[str] = field(default_factory=list)
    body_refs: frozenset[tuple[str, str]] = frozenset()

    @property
    def base(self) -> str:
        return "Resource" if self.info is not None else "Model"


@dataclass(slots=True)
class ModulePlan:
    """One Python module of ``package``: its classes in definition order, and its aliases."""

    name: str
    package: str
    classes: list[ClassPlan] = field(default_factory=list)
    aliases: list[TypeAlias] = field(default_factory=list)


def first_paragraph(text: str) -> str:
    """A description's first paragraph: class docstrings keep only that much."""
    return text.strip().split("\n\n")[0].strip()


def first_sentence(text: str) -> str:
    """A description's first sentence: field docstrings and summary lines keep only that much."""
    paragraph = " ".join(first_paragraph(text).split())
    for index in range(len(paragraph) - 1):
        # ". " followed by a capital, so "e.g. foo" and "1.5 Gi" do not end a sentence
        if paragraph[index] == "." and paragraph[index + 1] == " ":
            rest = paragraph[index + 2 : index + 3]
            before = paragraph[max(0, index - 4) : index]
            if rest.isupper() and not before.endswith(("e.g", "i.e", "etc", "vs")):
                return paragraph[: index + 1]
    return paragraph
