"""Descriptions for schemas: class docstrings and attribute docstrings.

Entry points: ``class_description(cls)`` and ``field_descriptions(cls)``. An
attribute docstring is the string literal right under a field (the convention
kubeforge's generated models use, and what Sphinx and IDEs show): a field line
``foo: str = ""`` followed by a line holding only a string literal, such as a
triple-quoted ``Foo is an example field.``

Python keeps no record of those strings at run time, so they are read from the
class's source with ``ast``. Without source (a class built by ``exec``), fields
simply have no description.

Text is normalised the way ``kubectl explain`` shows it best and the model
generator writes it back: paragraphs separated by one blank line, whitespace
inside a paragraph collapsed.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
from functools import cache

import msgspec

__all__ = ["class_description", "field_descriptions", "normalise"]


def normalise(text: str) -> str:
    """Paragraphs joined by one blank line, each with its whitespace collapsed."""
    paragraphs = [" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def class_description(cls: type) -> str:
    """The class's own docstring (never an inherited one), normalised; ``""`` if none."""
    doc = cls.__dict__.get("__doc__")
    return normalise(doc) if isinstance(doc, str) else ""


def field_descriptions(cls: type) -> dict[str, str]:
    """Attribute docstrings of ``cls`` and its bases (nearest class wins), by attribute name."""
    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass is object or klass is msgspec.Struct:
            continue
        out.update(_own_field_docs(klass))
    return out


@cache
def _own_field_docs(cls: type) -> dict[str, str]:
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    body = next((n.body for n in tree.body if isinstance(n, ast.ClassDef)), [])
    docs: dict[str, str] = {}
    for node, after in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = normalise(after.value.value)
    return docs
