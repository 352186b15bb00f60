"""Custom resource definitions and RBAC from Python, and Python models from CRDs.

Entry points:

* ``generate_crd(Frigate)`` (one kind; several classes for several versions) and
  ``generate_crds(classes)``: ``apiextensions.k8s.io/v1`` CRDs from ``Resource``
  classes; ``CRDOptions`` and the ``Annotated`` markers (``ListType``, ``CEL``, ...)
  say what type hints cannot. ``resources_in(*modules)`` finds the classes.
* ``Rule`` and ``generate_rbac(rules, name=...)``: a ClusterRole from rules declared
  next to the controllers (a module-level ``rbac = [Rule(...)]``, see ``rules_in``).
* ``render_yaml(objects)``: deterministic YAML for any manifests.
* ``generate_models(crds, package=...)``: typed models for any third-party CRD.
* ``install_crds(client, manifests)``: apply CRDs and wait until they are Established.
"""

from typing import TYPE_CHECKING

from kubeforge.crd.generate import generate_crd, generate_crds, resources_in, version_priority
from kubeforge.crd.install import install_crds, load_manifests
from kubeforge.crd.markers import (
    CEL,
    CRDOptions,
    Default,
    EmbeddedResource,
    Format,
    IntOrString,
    ListType,
    MapType,
    PreserveUnknownFields,
    PrinterColumn,
    Required,
    Scale,
    Subresources,
)
from kubeforge.crd.render import render_yaml
from kubeforge.crd.schema import SchemaError, model_schema

if TYPE_CHECKING:
    from kubeforge.crd.models import generate_models
    from kubeforge.crd.rbac import Rule, generate_rbac, merge_rules, rules_in


def __getattr__(name: str) -> object:
    # Loaded on first use (PEP 562): a controller module that defines its CRD's classes
    # needs the markers, not the model generator (the code generator behind it) or RBAC.
    if name == "generate_models":
        from kubeforge.crd.models import generate_models

        return generate_models
    if name in ("Rule", "generate_rbac", "merge_rules", "rules_in"):
        from kubeforge.crd import rbac

        return getattr(rbac, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CEL",
    "CRDOptions",
    "Default",
    "EmbeddedResource",
    "Format",
    "IntOrString",
    "ListType",
    "MapType",
    "PreserveUnknownFields",
    "PrinterColumn",
    "Required",
    "Rule",
    "Scale",
    "SchemaError",
    "Subresources",
    "generate_crd",
    "generate_crds",
    "generate_models",
    "generate_rbac",
    "install_crds",
    "load_manifests",
    "merge_rules",
    "model_schema",
    "render_yaml",
    "resources_in",
    "rules_in",
    "version_priority",
]
