"""Models for a custom resource from its ``CustomResourceDefinition``: ``plan_crd()``.

One module per served version, holding the kind as a ``Resource`` (with the REST
mapping from ``spec.names`` and ``spec.scope``) and its nested objects as models
named by path (``FrigateSpec``, ``FrigateStatus``). Render the plans with
``kubeforge.codegen.render_module``; the rules are those of ``kubeforge.codegen.planner``.

``faithful=True`` keeps the whole schema (enums, bounds, markers, whole
descriptions; see ``kubeforge.codegen._faithful``) and the version's CRD options
(``crd = CRDOptions(...)``: categories, printer columns, subresources, ...), so
that ``kubeforge.crd.generate_crd`` on the generated classes gives the CRD back.

>>> crd = {"spec": {"group": "ship.example.com", "scope": "Namespaced",
...        "names": {"kind": "Frigate", "plural": "frigates"},
...        "versions": [{"name": "v1beta1", "schema": {"openAPIV3Schema": {
...            "type": "object", "properties": {"spec": {"type": "object",
...            "properties": {"foo": {"type": "string"}}}}}}}]}}
>>> plans = plan_crd(crd, package="myproject.models")
>>> [c.name for c in plans["frigate_v1beta1"].classes]
['Frigate', 'FrigateSpec']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubeforge.codegen._faithful import MARKERS, FaithfulPlanner, cel_args, py_literal
from kubeforge.codegen.plan import External, ModulePlan
from kubeforge.codegen.planner import plan_modules
from kubeforge.core.resource import ResourceInfo

__all__ = ["plan_crd"]


def plan_crd(
    crd: Mapping[str, Any], *, package: str, faithful: bool = False
) -> dict[str, ModulePlan]:
    """Module plans (``<kind>_<version>`` -> plan) for every version of ``crd`` with a schema."""
    spec = crd["spec"]
    names = spec["names"]
    kind = str(names["kind"])
    schemas: dict[str, Any] = {}
    resources: dict[str, ResourceInfo] = {}
    modules: dict[str, str] = {}
    versions: dict[str, Mapping[str, Any]] = {}
    for version in spec.get("versions") or []:
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        if not schema:
            continue
        key = f"{kind}/{version['name']}"
        schemas[key] = schema
        versions[key] = version
        modules[key] = f"{kind.lower()}_{version['name']}"
        resources[key] = ResourceInfo(
            group=str(spec["group"]),
            version=str(version["name"]),
            kind=kind,
            plural=str(names["plural"]),
            namespaced=spec.get("scope", "Namespaced") == "Namespaced",
            short_names=tuple(names.get("shortNames") or ()),
            singular=str(names.get("singular") or kind.lower()),
        )
    if not faithful:
        return plan_modules(
            schemas,
            package=package,
            place=lambda key: (modules[key], kind),
            resources=resources,
        )
    planner = FaithfulPlanner(
        schemas=schemas,
        package=package,
        place=lambda key: (modules[key], kind),
        externals={},
        resources=resources,
        int_or_string=External("int | str"),
    )
    several = len(spec.get("versions") or []) > 1
    for key in sorted(schemas):
        plan = planner.resource(key, modules[key], kind)
        options = _options_source(spec, versions[key], schemas[key], several=several)
        if options is not None:
            source, refs = options
            plan.body = [f"crd = {source}"]
            plan.body_refs = frozenset((MARKERS, name) for name in refs)
    return planner.finish()


def _options_source(
    spec: Mapping[str, Any], version: Mapping[str, Any], schema: Mapping[str, Any], *, several: bool
) -> tuple[str, set[str]] | None:
    """``CRDOptions(...)`` source for what this version of the CRD says beyond the schema."""
    args: list[str] = []
    refs = {"CRDOptions"}
    categories = spec["names"].get("categories")
    if categories:
        args.append(f"categories={py_literal(tuple(categories))}")
    columns = version.get("additionalPrinterColumns") or []
    if columns:
        refs.add("PrinterColumn")
        args.append(f"printer_columns=({''.join(_column(c) + ', ' for c in columns)})")
    subresources = version.get("subresources") or {}
    has_status = "status" in (schema.get("properties") or {})
    if ("status" in subresources) != has_status or "scale" in subresources:
        refs.add("Subresources")
        inner = [f"status={'status' in subresources}"]
        scale = subresources.get("scale")
        if scale is not None:
            refs.add("Scale")
            inner.append(f"scale={_scale(scale)}")
        args.append(f"subresources=Subresources({', '.join(inner)})")
    if several and version.get("storage"):
        args.append("storage=True")
    if version.get("served") is False:
        args.append("served=False")
    if version.get("deprecated"):
        args.append("deprecated=True")
    if version.get("deprecationWarning"):
        args.append(f"deprecation_warning={py_literal(version['deprecationWarning'])}")
    selectable = [f["jsonPath"] for f in version.get("selectableFields") or []]
    if selectable:
        args.append(f"selectable_fields={py_literal(tuple(selectable))}")
    rules = schema.get("x-kubernetes-validations") or []
    if rules:
        refs.add("CEL")
        args.append(f"validations=({''.join(f'CEL({cel_args(r)}), ' for r in rules)})")
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        args.append("preserve_unknown_fields=True")
    if not args:
        return None
    return f"CRDOptions({', '.join(args)})", refs


def _column(column: Mapping[str, Any]) -> str:
    args = [py_literal(column["name"]), py_literal(column["jsonPath"]), py_literal(column["type"])]
    for key, name in (("description", "description"), ("format", "format")):
        if column.get(key):
            args.append(f"{name}={py_literal(column[key])}")
    if column.get("priority"):
        args.append(f"priority={py_literal(column['priority'])}")
    return f"PrinterColumn({', '.join(args)})"


def _scale(scale: Mapping[str, Any]) -> str:
    args = [
        f"spec_replicas_path={py_literal(scale['specReplicasPath'])}",
        f"status_replicas_path={py_literal(scale['statusReplicasPath'])}",
    ]
    if scale.get("labelSelectorPath"):
        args.append(f"label_selector_path={py_literal(scale['labelSelectorPath'])}")
    return f"Scale({', '.join(args)})"
