"""Resource classes -> ``apiextensions.k8s.io/v1`` CustomResourceDefinition objects.

Entry points: ``generate_crd(cls_or_classes)`` for one kind (one class per
version), ``generate_crds(classes)`` for any number of kinds, and
``resources_in(*modules)`` to find the resource classes a project defines::

    class Frigate(Resource):
        # the class docstring becomes the schema's description
        info = ResourceInfo(group="ship.example.com", version="v1beta1", kind="Frigate",
                            plural="frigates")
        crd = CRDOptions(printer_columns=(PrinterColumn("Foo", ".spec.foo"),))
        spec: FrigateSpec = msgspec.field(default_factory=FrigateSpec)
        status: FrigateStatus = msgspec.field(default_factory=FrigateStatus)

    manifest = generate_crd(Frigate)      # a dict; render it with render_yaml()

The result is deterministic: keys in alphabetical order at every level (which is
also the conventional order of a CRD), versions by Kubernetes version priority
(``v2``, ``v1``, ``v1beta2``, ``v1beta1``, ``v1alpha1``), properties and
``required`` lists sorted.

Names a real server would refuse (a group that is no DNS subdomain with a dot, a
plural, kind or version that is no DNS-1035 label, ...) raise ``ValueError`` here
with the server's message, before any cluster sees the CRD.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from kubeforge.core.names import dns1035_label, dns1123_subdomain
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.crd.markers import CRDOptions, PrinterColumn, Subresources
from kubeforge.crd.schema import Schema, canonical, model_schema

__all__ = ["generate_crd", "generate_crds", "resources_in", "version_priority"]

_ROOT_FIELDS = frozenset({"api_version", "kind", "metadata"})
_VERSION = re.compile(r"v([0-9]+)(?:(alpha|beta)([0-9]+))?")
_PRINTER_TYPES = frozenset({"integer", "number", "string", "boolean", "date"})

_API_VERSION = {
    "type": "string",
    "description": "The API group and version this object is written in, such as example.com/v1. "
    "Servers convert it to the storage version.",
}
_KIND = {
    "type": "string",
    "description": "The kind of this object, in CamelCase. Servers infer it from the endpoint "
    "a client writes to.",
}


def version_priority(name: str) -> tuple[int, int, int, str]:
    """Sort key for Kubernetes version priority: v2, v1, v1beta1, v1alpha1, then others."""
    match = _VERSION.fullmatch(name)
    if match is None:
        return (3, 0, 0, name)
    major, level, minor = match.groups()
    rank = {None: 0, "beta": 1, "alpha": 2}[level]
    return (rank, -int(major), -int(minor or 0), name)


def generate_crd(cls_or_classes: type[Resource] | Iterable[type[Resource]]) -> dict[str, Any]:
    """The CRD of one kind; pass one resource class per version."""
    classes = [cls_or_classes] if isinstance(cls_or_classes, type) else list(cls_or_classes)
    if not classes:
        raise ValueError("generate_crd needs at least one resource class")
    infos = [_info(cls) for cls in classes]
    first = infos[0]
    for cls, info in zip(classes[1:], infos[1:], strict=True):
        for attr in ("group", "kind", "plural", "namespaced", "short_names", "singular"):
            if getattr(info, attr) != getattr(first, attr):
                raise ValueError(
                    f"{cls.__qualname__}: {attr} {getattr(info, attr)!r} differs from "
                    f"{getattr(first, attr)!r} in {classes[0].__qualname__}; one CRD is one kind"
                )
    names = [info.version for info in infos]
    if len(set(names)) != len(names):
        raise ValueError(f"{first.kind}: a version is given twice: {sorted(names)}")
    _check_names(first, sorted(names, key=version_priority))
    options = [_options(cls) for cls in classes]
    categories = {o.categories for o in options if o.categories}
    if len(categories) > 1:
        raise ValueError(f"{first.kind}: versions disagree about categories: {sorted(categories)}")
    storage = [info.version for info, o in zip(infos, options, strict=True) if o.storage]
    if len(classes) == 1:
        storage = names
    if len(storage) != 1:
        raise ValueError(
            f"{first.kind}: exactly one version must say CRDOptions(storage=True), "
            f"not {storage or 'none'} of {sorted(names, key=version_priority)}"
        )
    versions = sorted(
        (
            _version(cls, info, opts, info.version in storage)
            for cls, info, opts in zip(classes, infos, options, strict=True)
        ),
        key=lambda v: version_priority(v["name"]),
    )
    names_block: dict[str, Any] = {}
    if categories:
        names_block["categories"] = list(next(iter(categories)))
    names_block["kind"] = first.kind
    names_block["listKind"] = first.list_kind
    names_block["plural"] = first.plural
    if first.short_names:
        names_block["shortNames"] = list(first.short_names)
    names_block["singular"] = first.singular or first.kind.lower()
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{first.plural}.{first.group}"},
        "spec": {
            "group": first.group,
            "names": names_block,
            "scope": "Namespaced" if first.namespaced else "Cluster",
            "versions": versions,
        },
    }


def generate_crds(classes: Iterable[type[Resource]]) -> list[dict[str, Any]]:
    """One CRD per kind among ``classes`` (grouped by plural and group), sorted by CRD name."""
    kinds: dict[str, list[type[Resource]]] = {}
    for cls in classes:
        info = _info(cls)
        kinds.setdefault(f"{info.plural}.{info.group}", []).append(cls)
    return [generate_crd(kinds[name]) for name in sorted(kinds)]


def resources_in(*modules: ModuleType) -> list[type[Resource]]:
    """The resource classes defined (not just imported) in ``modules``, with a group set.

    Built-in kinds (core group) are left out: they need no CRD.
    """
    found: dict[tuple[str, str, str], type[Resource]] = {}
    for module in modules:
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Resource)
                and value.__module__ == module.__name__
                and isinstance(getattr(value, "info", None), ResourceInfo)
                and value.info.group
            ):
                found[(value.info.group, value.info.kind, value.info.version)] = value
    return [found[key] for key in sorted(found)]


def _check_names(info: ResourceInfo, versions: list[str]) -> None:
    """Refuse the names apiextensions' validation refuses, in its words (Kubernetes 1.32).

    ``versions`` in the order the CRD lists them, so field paths index the same list.
    """
    problems: list[str] = []

    def invalid(field: str, value: str, message: str) -> None:
        problems.append(f'{field}: Invalid value: "{value}": {message}')

    if not info.group:
        problems.append("spec.group: Required value")
    elif errors := dns1123_subdomain(info.group):
        invalid("spec.group", info.group, ",".join(errors))
    elif "." not in info.group:
        invalid("spec.group", info.group, "should be a domain with at least one dot")
    labels = [("spec.names.plural", info.plural), ("spec.names.singular", info.singular)]
    labels += [(f"spec.names.shortNames[{i}]", s) for i, s in enumerate(info.short_names)]
    for field, value in labels:
        if value and (errors := dns1035_label(value)):
            invalid(field, value, ",".join(errors))
    for field, value in (("spec.names.kind", info.kind), ("spec.names.listKind", info.list_kind)):
        if errors := dns1035_label(value.lower()):
            invalid(
                field, value, "may have mixed case, but should otherwise match: " + ",".join(errors)
            )
    for i, version in enumerate(versions):
        if errors := dns1035_label(version):
            invalid(f"spec.versions[{i}].name", version, ",".join(errors))
    if problems:
        raise ValueError(f"{info.kind}: {'; '.join(problems)}")


def _info(cls: type[Resource]) -> ResourceInfo:
    info = getattr(cls, "info", None)
    if not isinstance(info, ResourceInfo):
        raise ValueError(f"{cls.__qualname__} has no `info = ResourceInfo(...)`")
    return info


def _options(cls: type[Resource]) -> CRDOptions:
    options = getattr(cls, "crd", None)
    if options is None:
        return CRDOptions()
    if not isinstance(options, CRDOptions):
        raise ValueError(
            f"{cls.__qualname__}.crd must be a CRDOptions, not {options!r} (declare it as "
            f"`crd = CRDOptions(...)` without an annotation, or as ClassVar[CRDOptions]: an "
            f"annotated `crd` would be a field of the object)"
        )
    return options


def _root_schema(cls: type[Resource], options: CRDOptions) -> Schema:
    # A required top-level field is fine: a watch bookmark, which carries only
    # metadata, still decodes (kubeforge.core.meta.decode fills in Go's zero values).
    schema = model_schema(cls, skip=_ROOT_FIELDS)
    schema["properties"] = {
        "apiVersion": dict(_API_VERSION),
        "kind": dict(_KIND),
        "metadata": {"type": "object"},
        **schema.get("properties", {}),
    }
    if options.validations:
        schema["x-kubernetes-validations"] = [rule.to_schema() for rule in options.validations]
    if options.preserve_unknown_fields:
        schema["x-kubernetes-preserve-unknown-fields"] = True
    return canonical(schema)


def _version(
    cls: type[Resource], info: ResourceInfo, options: CRDOptions, storage: bool
) -> dict[str, Any]:
    schema = _root_schema(cls, options)
    out: dict[str, Any] = {}
    if options.printer_columns:
        out["additionalPrinterColumns"] = [
            _column(column, schema, cls) for column in options.printer_columns
        ]
    if options.deprecated:
        out["deprecated"] = True
        if options.deprecation_warning:
            out["deprecationWarning"] = options.deprecation_warning
    out["name"] = info.version
    out["schema"] = {"openAPIV3Schema": schema}
    if options.selectable_fields:
        out["selectableFields"] = [{"jsonPath": path} for path in options.selectable_fields]
    out["served"] = options.served
    out["storage"] = storage
    subresources = _subresources(options.subresources, schema)
    if subresources:
        out["subresources"] = subresources
    return out


def _subresources(declared: Subresources | None, schema: Schema) -> dict[str, Any]:
    if declared is None:
        declared = Subresources(status="status" in schema["properties"])
    out: dict[str, Any] = {}
    if declared.scale is not None:
        scale: dict[str, Any] = {}
        if declared.scale.label_selector_path:
            scale["labelSelectorPath"] = declared.scale.label_selector_path
        scale["specReplicasPath"] = declared.scale.spec_replicas_path
        scale["statusReplicasPath"] = declared.scale.status_replicas_path
        out["scale"] = scale
    if declared.status:
        out["status"] = {}
    return out


def _column(column: PrinterColumn, schema: Schema, cls: type) -> dict[str, Any]:
    kind = column.type or _type_at(schema, column.json_path)
    if kind not in _PRINTER_TYPES:
        raise ValueError(
            f"{cls.__qualname__}: printer column {column.name!r} has type {kind!r}; "
            f"use one of {sorted(_PRINTER_TYPES)}"
        )
    out: dict[str, Any] = {}
    if column.description:
        out["description"] = column.description
    if column.format:
        out["format"] = column.format
    out["jsonPath"] = column.json_path
    out["name"] = column.name
    if column.priority:
        out["priority"] = column.priority
    out["type"] = kind
    return out


def _type_at(schema: Schema, json_path: str) -> str:
    """The printer-column type of the field at a simple ``.a.b.c`` path (``string`` if unknown)."""
    if json_path == ".metadata.creationTimestamp":
        return "date"
    node: Schema | None = schema
    for part in json_path.lstrip(".").split("."):
        node = (node or {}).get("properties", {}).get(part)
        if node is None:
            return "string"
    if node is None:
        return "string"
    if node.get("type") == "string" and node.get("format") == "date-time":
        return "date"
    kind = node.get("type")
    return kind if kind in _PRINTER_TYPES else "string"
