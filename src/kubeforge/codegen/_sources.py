"""Read the two pinned registry packages the built-in models are generated from.

See ``load_definitions()`` (field schemas) and ``load_rest_mapping()`` (plural and
scope per kind). Why these two packages is explained in ``kubeforge.codegen.builtin``.
"""

from __future__ import annotations

import ast
import json
from importlib import metadata, resources
from typing import Any, NamedTuple

__all__ = [
    "KUBERNETES_VERSION",
    "MAPPING_PACKAGE",
    "MAPPING_PACKAGE_VERSION",
    "SCHEMA_PACKAGE",
    "SCHEMA_PACKAGE_VERSION",
    "RestMapping",
    "check_versions",
    "load_definitions",
    "load_rest_mapping",
]

KUBERNETES_VERSION = "1.32"
SCHEMA_PACKAGE = "kubernetes-validate"
SCHEMA_PACKAGE_VERSION = "1.37.0"
MAPPING_PACKAGE = "lightkube-models"
MAPPING_PACKAGE_VERSION = "1.32.0.8"


class RestMapping(NamedTuple):
    plural: str
    namespaced: bool


def check_versions() -> None:
    """Fail with an install hint unless the pinned versions of both sources are installed.

    Other versions would generate different code, and the committed modules would no
    longer match what the up-to-date test regenerates.
    """
    for package, wanted in (
        (SCHEMA_PACKAGE, SCHEMA_PACKAGE_VERSION),
        (MAPPING_PACKAGE, MAPPING_PACKAGE_VERSION),
    ):
        try:
            found = metadata.version(package)
        except metadata.PackageNotFoundError:
            found = "not installed"
        if found != wanted:
            raise RuntimeError(
                f"{package}=={wanted} is needed to generate the built-in models ({found}); "
                "install the test extra: pip install -e '.[test]'"
            )


def load_definitions() -> dict[str, dict[str, Any]]:
    """Every definition of the Kubernetes OpenAPI spec, as JSON Schema, by its full name."""
    folder = resources.files("kubernetes_validate") / "kubernetes-json-schema"
    path = folder / f"v{KUBERNETES_VERSION}.0-local" / "_definitions.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    definitions: dict[str, dict[str, Any]] = document["$defs"]
    return definitions


def load_rest_mapping() -> dict[tuple[str, str, str], RestMapping]:
    """``(group, version, kind)`` -> plural and scope, for every top-level REST resource.

    lightkube-models' ``resources`` modules are generated from the API paths of the
    same spec. They are read as syntax trees, never imported: their runtime
    (lightkube itself) is not a dependency. Subresources (``parent=``) are skipped.
    """
    mapping: dict[tuple[str, str, str], RestMapping] = {}
    folder = resources.files("lightkube.resources")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".py") or entry.name.startswith("_"):
            continue
        tree = ast.parse(entry.read_text(encoding="utf-8"), filename=entry.name)
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                found = _api_info(node)
                if found is not None:
                    gvk, rest = found
                    mapping[gvk] = rest
    if not mapping:
        raise RuntimeError(f"no resources found in {MAPPING_PACKAGE}")
    return mapping


def _api_info(node: ast.ClassDef) -> tuple[tuple[str, str, str], RestMapping] | None:
    bases = [ast.unparse(base) for base in node.bases]
    for statement in node.body:
        if not (
            isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.Call)
            and any(isinstance(t, ast.Name) and t.id == "_api_info" for t in statement.targets)
        ):
            continue
        keywords = {k.arg: k.value for k in statement.value.keywords}
        if "parent" in keywords:
            return None
        resource = keywords["resource"]
        plural = keywords["plural"]
        if not isinstance(resource, ast.Call) or not isinstance(plural, ast.Constant):
            raise RuntimeError(f"unexpected _api_info shape in class {node.name}")
        group, version, kind = (ast.literal_eval(arg) for arg in resource.args)
        namespaced = any(base.startswith("res.Namespaced") for base in bases)
        if not namespaced and not any(base.startswith("res.Global") for base in bases):
            raise RuntimeError(f"unknown scope for class {node.name}: {bases}")
        return (group, version, kind), RestMapping(str(plural.value), namespaced)
    return None
