"""Descriptions for schemas: class docstrings and attribute docstrings.

Entry points: ``class_description(cls)`` and ``field_descriptions(cls)``. An
attribute docstring is the string literal right under a field (the convention
kubeforge's generated models use, and what Sphinx and IDEs show): a field line
``foo: str = ""`` followed by a line holding only a string literal, such as a
triple-quoted ``Foo is an example field.``

Python keeps no record of those strings at run time, so they are read from the
source of the class's module with ``ast`` (parsed once per module). Without
source (a class built by ``exec``), fields simply have no description; of two
classes with one qualified name (redefined in one module), the first is read.

Text is normalised the way ``kubectl explain`` shows it best and the model
generator writes it back: paragraphs separated by one blank line, whitespace
inside a paragraph collapsed.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import os
import sys
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


def _own_field_docs(cls: type) -> dict[str, str]:
    node = _class_nodes(*_source_key(cls.__module__)).get(cls.__qualname__)
    if node is None:
        return {}
    docs: dict[str, str] = {}
    for field, after in itertools.pairwise(node.body):
        if (
            isinstance(field, ast.AnnAssign)
            and isinstance(field.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[field.target.id] = normalise(after.value.value)
    return docs


def _source_key(module_name: str) -> tuple[str, str, int, int]:
    """The module and the identity of its source file (path, mtime, size).

    A tool that imports a project, edits it and imports it again (the CLI, run
    in-process by tests) gets the new docstrings: a changed file is parsed anew.
    """
    module = sys.modules.get(module_name)
    path = getattr(module, "__file__", None) or ""
    try:
        stat = os.stat(path)
    except OSError:
        return module_name, path, 0, 0
    return module_name, path, stat.st_mtime_ns, stat.st_size


@cache
def _class_nodes(module_name: str, path: str, mtime: int, size: int) -> dict[str, ast.ClassDef]:
    """Every class statement of a module by qualified name, from one parse of its source.

    (``inspect.getsource(cls)`` would parse the whole module again for each class,
    which for the generated built-in models costs seconds.) ``path``, ``mtime`` and
    ``size`` only key the cache.
    """
    del path, mtime, size
    module = sys.modules.get(module_name)
    try:
        source = inspect.getsource(module) if module is not None else ""
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return {}
    found: dict[str, ast.ClassDef] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                found.setdefault(prefix + node.name, node)
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(node.body, f"{prefix}{node.name}.<locals>.")

    visit(tree.body, "")
    return found
