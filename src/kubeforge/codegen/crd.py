"""Models for a custom resource from its ``CustomResourceDefinition``: ``plan_crd()``.

One module per served version, holding the kind as a ``Resource`` (with the REST
mapping from ``spec.names`` and ``spec.scope``) and its nested objects as models
named by path (``FrigateSpec``, ``FrigateStatus``). Render the plans with
``kubeforge.codegen.render_module``; the rules are those of ``kubeforge.codegen.plan``.

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

from kubeforge.codegen.plan import ModulePlan, plan_modules
from kubeforge.core.resource import ResourceInfo

__all__ = ["plan_crd"]


def plan_crd(crd: Mapping[str, Any], *, package: str) -> dict[str, ModulePlan]:
    """Module plans (``<kind>_<version>`` -> plan) for every version of ``crd`` with a schema."""
    spec = crd["spec"]
    names = spec["names"]
    kind = str(names["kind"])
    schemas: dict[str, Any] = {}
    resources: dict[str, ResourceInfo] = {}
    modules: dict[str, str] = {}
    for version in spec.get("versions") or []:
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        if not schema:
            continue
        key = f"{kind}/{version['name']}"
        schemas[key] = schema
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
    return plan_modules(
        schemas,
        package=package,
        place=lambda key: (modules[key], kind),
        resources=resources,
    )
