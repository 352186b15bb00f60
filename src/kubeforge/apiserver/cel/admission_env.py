"""The CEL environment of ValidatingAdmissionPolicy (and webhook ``matchConditions``).

Variables, as k8s.io/apiserver v0.32.0 ``pkg/admission/plugin/cel/compile.go`` declares
them: ``object`` and ``oldObject`` (dyn), ``request`` (the admission request's fields),
``namespaceObject`` (the namespace's metadata, spec and status), ``params`` (dyn, when
the policy has a ``paramKind``), ``authorizer`` and ``authorizer.requestResource``
(when authorization is available), and ``variables`` (the policy's named variables,
each typed by its expression).

Entry points: ``declarations(...)`` (names -> types for compiling) and
``activation(...)`` (names -> values for evaluating).
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.cel.schema_types import Decl, schema_decl, to_cel
from kubeforge.apiserver.cel.types import DYN, LIBRARY_TYPES, Type, struct

__all__ = ["NAMESPACE_DECL", "REQUEST_DECL", "activation", "declarations"]


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


_STRING = {"type": "string"}
_STRINGS = {"type": "array", "items": _STRING}
_STRING_MAP = {"type": "object", "additionalProperties": _STRING}
_GVK = _object({"group": _STRING, "version": _STRING, "kind": _STRING})
_GVR = _object({"group": _STRING, "version": _STRING, "resource": _STRING})
_REQUEST_SCHEMA = _object(
    {
        "kind": _GVK,
        "resource": _GVR,
        "subResource": _STRING,
        "requestKind": _GVK,
        "requestResource": _GVR,
        "requestSubResource": _STRING,
        "name": _STRING,
        "namespace": _STRING,
        "operation": _STRING,
        "userInfo": _object(
            {
                "username": _STRING,
                "uid": _STRING,
                "groups": _STRINGS,
                "extra": {"type": "object", "additionalProperties": _STRINGS},
            }
        ),
        "dryRun": {"type": "boolean"},
        "options": {"x-kubernetes-preserve-unknown-fields": True, "type": "object"},
    }
)
_TIME = {"type": "string", "format": "date-time"}
_NAMESPACE_SCHEMA = _object(
    {
        "metadata": _object(
            {
                "name": _STRING,
                "generateName": _STRING,
                "namespace": _STRING,
                "labels": _STRING_MAP,
                "annotations": _STRING_MAP,
                "uid": _STRING,
                "creationTimestamp": _TIME,
                "deletionGracePeriodSeconds": {"type": "integer"},
                "deletionTimestamp": _TIME,
                "generation": {"type": "integer"},
                "resourceVersion": _STRING,
            }
        ),
        "spec": _object({"finalizers": _STRINGS}),
        "status": _object(
            {
                "phase": _STRING,
                "conditions": {
                    "type": "array",
                    "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                },
            }
        ),
    }
)


def _decl(schema: dict[str, Any], name: str) -> Decl:
    decl = schema_decl(schema, False, name, escaped=False)
    assert decl is not None
    return decl


REQUEST_DECL = _decl(_REQUEST_SCHEMA, "kubernetes.AdmissionRequest")
NAMESPACE_DECL = _decl(_NAMESPACE_SCHEMA, "kubernetes.Namespace")


def declarations(
    *, params: bool, authorizer: bool, variables: dict[str, Type] | None = None
) -> dict[str, Type]:
    names: dict[str, Type] = {
        "object": DYN,
        "oldObject": DYN,
        "request": REQUEST_DECL.type,
        "namespaceObject": NAMESPACE_DECL.type,
    }
    if params:
        names["params"] = DYN
    if authorizer:
        names["authorizer"] = LIBRARY_TYPES["kubernetes.authorization.Authorizer"]
        names["authorizer.requestResource"] = LIBRARY_TYPES[
            "kubernetes.authorization.ResourceCheck"
        ]
    if variables is not None:
        names["variables"] = struct("kubernetes.variables", dict(variables))
    return names


def activation(
    *,
    obj: Any,
    old: Any,
    request: dict[str, Any],
    namespace: dict[str, Any] | None,
    params: Any = None,
    authorizer: Any = None,
    request_resource: Any = None,
) -> dict[str, Any]:
    values: dict[str, Any] = {
        "object": obj,
        "oldObject": old,
        "request": to_cel(request, REQUEST_DECL),
        "namespaceObject": None if namespace is None else to_cel(namespace, NAMESPACE_DECL),
        "params": params,
    }
    if authorizer is not None:
        values["authorizer"] = authorizer
        values["authorizer.requestResource"] = request_resource
    return values
