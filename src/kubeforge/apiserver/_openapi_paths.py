"""The ``paths`` section of an OpenAPI v3 group/version document: one resource at a time.

Each REST verb the registry grants becomes an operation carrying
``x-kubernetes-action`` and ``x-kubernetes-group-version-kind``, with its query
parameters listed inline on the operation (kubectl's field-validation probe only
looks there). Entry point: ``resource_paths(served, schema, list_schema)``.
"""

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver._builtin_schemas import META, SCALE, ref
from kubeforge.apiserver.registry import ServedResource

__all__ = ["PATCH_CONTENT_TYPES", "resource_paths"]

# Deliberately without application/strategic-merge-patch+json; see kubeforge.apiserver.openapi.
PATCH_CONTENT_TYPES = (
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
)

_STATUS = META + "Status"
_SCALE_GVK = {"group": "autoscaling", "kind": "Scale", "version": "v1"}


def _query(name: str, description: str, kind: str = "string") -> dict[str, Any]:
    schema: dict[str, Any] = {"type": kind, "uniqueItems": True}
    return {"name": name, "in": "query", "description": description, "schema": schema}


def _path_param(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "description": description,
        "required": True,
        "schema": {"type": "string", "uniqueItems": True},
    }


_PRETTY = _query("pretty", "When 'true', the output is indented.")
_NAMESPACE = _path_param("namespace", "The namespace of the objects.")
_NAME = _path_param("name", "The name of the object.")

_DRY_RUN = _query("dryRun", "When 'All', validate and report the result without persisting.")
_FIELD_MANAGER = _query("fieldManager", "Name of the actor making the change, for ownership.")
_FIELD_VALIDATION = _query(
    "fieldValidation",
    "What to do with unknown or duplicate fields: Ignore, Warn or Strict (reject with 422).",
)
_FORCE = _query("force", "Apply only: take ownership of conflicting fields.", "boolean")
_WRITE = [_DRY_RUN, _FIELD_MANAGER, _FIELD_VALIDATION]

_LIST = [
    _query("allowWatchBookmarks", "Ask for BOOKMARK events on a watch.", "boolean"),
    _query("continue", "Token from a previous page's metadata.continue."),
    _query("fieldSelector", "Restrict by fields, e.g. metadata.name=x."),
    _query("labelSelector", "Restrict by labels, e.g. app=web,tier!=db."),
    _query("limit", "Return at most this many items and a continue token.", "integer"),
    _query("resourceVersion", "Read at (or after) this resourceVersion; watch from it."),
    _query("resourceVersionMatch", "Exact or NotOlderThan, qualifying resourceVersion."),
    _query("sendInitialEvents", "Watch: start with ADDED events for the current state.", "boolean"),
    _query("timeoutSeconds", "Close a watch after this many seconds.", "integer"),
    _query("watch", "Stream changes instead of returning a list.", "boolean"),
]
_DELETE = [
    _DRY_RUN,
    _query("gracePeriodSeconds", "Seconds before the object is removed.", "integer"),
    _query("orphanDependents", "Deprecated: use propagationPolicy.", "boolean"),
    _query("propagationPolicy", "Orphan, Background or Foreground."),
]


def _content(schema: str) -> dict[str, Any]:
    return {media: {"schema": ref(schema)} for media in ("application/json", "application/yaml")}


def _responses(schema: str, *codes: str) -> dict[str, Any]:
    text = {"200": "OK", "201": "Created", "202": "Accepted"}
    responses: dict[str, Any] = {
        c: {"description": text[c], "content": _content(schema)} for c in codes
    }
    responses["401"] = {"description": "Unauthorized"}
    return responses


class _Ops:
    """Builds operations for one resource; names follow the real server's operationIds."""

    def __init__(self, served: ServedResource) -> None:
        info = served.info
        # Built-in groups drop ".k8s.io" (CoordinationV1); CRD groups keep every word
        # (ExampleComV1); the core group is "Core".
        name = info.group.removesuffix(".k8s.io") if served.builtin else info.group
        group = "".join(w.capitalize() for w in re.split(r"[.-]", name) if w) or "Core"
        self.ident = group + info.version.capitalize()
        self.tag = group[0].lower() + group[1:] + "_" + info.version
        self.scope = "Namespaced" if info.namespaced else ""
        self.served = served

    def op(
        self,
        verb: str,
        action: str,
        target: str,
        params: list[dict[str, Any]],
        responses: dict[str, Any],
        *,
        gvk: dict[str, str],
        body: dict[str, Any] | None = None,
        suffix: str = "",
        scope: str | None = None,
    ) -> dict[str, Any]:
        scope = self.scope if scope is None else scope
        kind = self.served.info.kind
        operation: dict[str, Any] = {
            "tags": [self.tag],
            "description": target,
            "operationId": f"{verb}{self.ident}{scope}{kind}{suffix}",
            "parameters": params,
        }
        if body is not None:
            operation["requestBody"] = body
        operation["responses"] = responses
        operation["x-kubernetes-action"] = action
        operation["x-kubernetes-group-version-kind"] = gvk
        return operation


def _body(schema: str) -> dict[str, Any]:
    return {"content": {"*/*": {"schema": ref(schema)}}, "required": True}


def _patch_body() -> dict[str, Any]:
    return {
        "content": {media: {"schema": ref(META + "Patch")} for media in PATCH_CONTENT_TYPES},
        "required": True,
    }


def resource_paths(served: ServedResource, schema: str, list_schema: str) -> dict[str, Any]:
    """Every path of one resource (collection, item, subresources), keyed by URL template."""
    info = served.info
    verbs = set(served.verbs)
    ops = _Ops(served)
    kind = info.kind
    gvk = {"group": info.group, "kind": kind, "version": info.version}
    prefix = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
    scope_params = [_NAMESPACE, _PRETTY] if info.namespaced else [_PRETTY]
    collection = (
        f"{prefix}/namespaces/{{namespace}}/{info.plural}"
        if info.namespaced
        else (f"{prefix}/{info.plural}")
    )
    item = f"{collection}/{{name}}"
    delete_options = _body(META + "DeleteOptions")

    # (REST verb granted, HTTP method, operationId verb, x-kubernetes-action, description,
    #  query parameters, responses, request body)
    on_collection = [
        (
            "list",
            "get",
            "list",
            "list",
            f"list or watch objects of kind {kind}",
            _LIST,
            _responses(list_schema, "200"),
            None,
        ),
        (
            "create",
            "post",
            "create",
            "post",
            f"create a {kind}",
            _WRITE,
            _responses(schema, "200", "201", "202"),
            _body(schema),
        ),
        (
            "deletecollection",
            "delete",
            "deletecollection",
            "deletecollection",
            f"delete a collection of {kind}",
            _LIST + _DELETE,
            _responses(_STATUS, "200"),
            delete_options,
        ),
    ]
    on_item = [
        (
            "get",
            "get",
            "read",
            "get",
            f"read the specified {kind}",
            [],
            _responses(schema, "200"),
            None,
        ),
        (
            "update",
            "put",
            "replace",
            "put",
            f"replace the specified {kind}",
            _WRITE,
            _responses(schema, "200", "201"),
            _body(schema),
        ),
        (
            "delete",
            "delete",
            "delete",
            "delete",
            f"delete a {kind}",
            _DELETE,
            _responses(_STATUS, "200", "202"),
            delete_options,
        ),
        (
            "patch",
            "patch",
            "patch",
            "patch",
            f"partially update the specified {kind}",
            [*_WRITE, _FORCE],
            _responses(schema, "200", "201"),
            _patch_body(),
        ),
    ]

    paths: dict[str, Any] = {}
    for path, table, params in (
        (collection, on_collection, scope_params),
        (item, on_item, [_NAME, *scope_params]),
    ):
        entry = {
            method: ops.op(verb, action, text, query, responses, gvk=gvk, body=body)
            for need, method, verb, action, text, query, responses, body in table
            if need in verbs
        }
        if entry:
            paths[path] = {**entry, "parameters": params}

    for sub in served.subresources:
        if sub not in ("status", "scale"):
            continue
        sub_schema, sub_gvk = (schema, gvk) if sub == "status" else (SCALE, _SCALE_GVK)
        suffix = sub.capitalize()
        paths[f"{item}/{sub}"] = {
            "get": ops.op(
                "read",
                "get",
                f"read {sub} of the specified {kind}",
                [],
                _responses(sub_schema, "200"),
                gvk=sub_gvk,
                suffix=suffix,
            ),
            "put": ops.op(
                "replace",
                "put",
                f"replace {sub} of the specified {kind}",
                _WRITE,
                _responses(sub_schema, "200", "201"),
                gvk=sub_gvk,
                body=_body(sub_schema),
                suffix=suffix,
            ),
            "patch": ops.op(
                "patch",
                "patch",
                f"partially update {sub} of the specified {kind}",
                [*_WRITE, _FORCE],
                _responses(sub_schema, "200", "201"),
                gvk=sub_gvk,
                body=_patch_body(),
                suffix=suffix,
            ),
            "parameters": [_NAME, *scope_params],
        }

    if info.namespaced and "list" in verbs:
        paths[f"{prefix}/{info.plural}"] = {
            "get": ops.op(
                "list",
                "list",
                f"list or watch objects of kind {kind} in all namespaces",
                _LIST,
                _responses(list_schema, "200"),
                gvk=gvk,
                suffix="ForAllNamespaces",
                scope="",
            ),
            "parameters": [_PRETTY],
        }
    return paths
