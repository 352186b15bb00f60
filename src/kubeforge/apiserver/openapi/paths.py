"""The ``paths`` section of an OpenAPI v3 group/version document: one resource at a time.

Each REST verb the registry grants becomes an operation carrying
``x-kubernetes-action`` and ``x-kubernetes-group-version-kind``, with its query
parameters listed inline on the operation (kubectl's field-validation probe only
looks there). Entry point: ``resource_paths(served, schema, list_schema)``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.openapi.builtin_schemas import META, SCALE, ref
from kubeforge.apiserver.registry.served import ServedResource

__all__ = ["PATCH_CONTENT_TYPES", "STRATEGIC_MERGE_PATCH", "resource_paths"]

# Every resource's PATCH media types; built-in kinds add strategic merge patch (see
# kubeforge.apiserver.openapi for why custom resources must not).
PATCH_CONTENT_TYPES = (
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
)
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"

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
_WRITE = (_DRY_RUN, _FIELD_MANAGER, _FIELD_VALIDATION)

_LIST = (
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
)
_DELETE = (
    _DRY_RUN,
    _query("gracePeriodSeconds", "Seconds before the object is removed.", "integer"),
    _query("orphanDependents", "Deprecated: use propagationPolicy.", "boolean"),
    _query("propagationPolicy", "Orphan, Background or Foreground."),
)


def _content(schema: str) -> dict[str, Any]:
    return {media: {"schema": ref(schema)} for media in ("application/json", "application/yaml")}


def _responses(schema: str, *codes: str) -> dict[str, Any]:
    text = {"200": "OK", "201": "Created", "202": "Accepted"}
    responses: dict[str, Any] = {
        c: {"description": text[c], "content": _content(schema)} for c in codes
    }
    responses["401"] = {"description": "Unauthorized"}
    return responses


def _operation_ids(served: ServedResource) -> tuple[str, str]:
    """The group/version word of operationIds and the tag, named as the real server does.

    Built-in groups drop ".k8s.io" (``CoordinationV1``), CRD groups keep every word
    (``ExampleComV1``), the core group is ``CoreV1``.
    """
    info = served.info
    name = info.group.removesuffix(".k8s.io") if served.builtin else info.group
    group = "".join(w.capitalize() for w in re.split(r"[.-]", name) if w) or "Core"
    return group + info.version.capitalize(), group[0].lower() + group[1:] + "_" + info.version


def _body(schema: str) -> dict[str, Any]:
    return {"content": {"*/*": {"schema": ref(schema)}}, "required": True}


def _patch_body(builtin: bool) -> dict[str, Any]:
    types = (*PATCH_CONTENT_TYPES, STRATEGIC_MERGE_PATCH) if builtin else PATCH_CONTENT_TYPES
    return {
        "content": {media: {"schema": ref(META + "Patch")} for media in types},
        "required": True,
    }


@dataclass(frozen=True, slots=True)
class _Verb:
    """How one REST verb appears on a path: the operation kubectl and explain look for."""

    rest: str  # the verb the registry grants
    method: str  # HTTP method on the path
    op: str  # operationId prefix: list, create, read, replace, patch, delete, ...
    action: str  # x-kubernetes-action
    text: str  # description, with {kind}
    params: tuple[dict[str, Any], ...]
    returns: str  # "object", "list" or "status"
    codes: tuple[str, ...]
    body: str | None  # "object", "delete", "patch" or no request body


_ON_COLLECTION = (
    _Verb("list", "get", "list", "list", "list or watch objects of kind {kind}",
          _LIST, "list", ("200",), None),
    _Verb("create", "post", "create", "post", "create a {kind}",
          _WRITE, "object", ("200", "201", "202"), "object"),
    _Verb("deletecollection", "delete", "deletecollection", "deletecollection",
          "delete a collection of {kind}", _LIST + _DELETE, "status", ("200",), "delete"),
)  # fmt: skip
_ON_ITEM = (
    _Verb("get", "get", "read", "get", "read the specified {kind}",
          (), "object", ("200",), None),
    _Verb("update", "put", "replace", "put", "replace the specified {kind}",
          _WRITE, "object", ("200", "201"), "object"),
    _Verb("delete", "delete", "delete", "delete", "delete a {kind}",
          _DELETE, "status", ("200", "202"), "delete"),
    _Verb("patch", "patch", "patch", "patch", "partially update the specified {kind}",
          (*_WRITE, _FORCE), "object", ("200", "201"), "patch"),
)  # fmt: skip
_ON_SUBRESOURCE = (
    _Verb("get", "get", "read", "get", "read {sub} of the specified {kind}",
          (), "object", ("200",), None),
    _Verb("update", "put", "replace", "put", "replace {sub} of the specified {kind}",
          _WRITE, "object", ("200", "201"), "object"),
    _Verb("patch", "patch", "patch", "patch", "partially update {sub} of the specified {kind}",
          (*_WRITE, _FORCE), "object", ("200", "201"), "patch"),
)  # fmt: skip


def resource_paths(served: ServedResource, schema: str, list_schema: str) -> dict[str, Any]:
    """Every path of one resource (collection, item, subresources), keyed by URL template."""
    info = served.info
    ident, tag = _operation_ids(served)
    gvk = {"group": info.group, "kind": info.kind, "version": info.version}
    prefix = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
    scoped = f"{prefix}/namespaces/{{namespace}}" if info.namespaced else prefix
    scope_params = [_NAMESPACE, _PRETTY] if info.namespaced else [_PRETTY]
    collection = f"{scoped}/{info.plural}"
    item = f"{collection}/{{name}}"

    def path_item(
        verbs: tuple[_Verb, ...],
        params: list[dict[str, Any]],
        *,
        sub: str = "",
        target: str = schema,
        target_gvk: dict[str, str] = gvk,
        scope: str = "Namespaced" if info.namespaced else "",
        suffix: str = "",
    ) -> dict[str, Any]:
        bodies = {"object": _body(target), "delete": _body(META + "DeleteOptions")}
        bodies["patch"] = _patch_body(served.builtin)
        returns = {"object": target, "list": list_schema, "status": _STATUS}
        entry: dict[str, Any] = {}
        for verb in verbs:
            if verb.rest not in served.verbs:
                continue
            operation: dict[str, Any] = {
                "tags": [tag],
                "description": verb.text.format(kind=info.kind, sub=sub),
                "operationId": f"{verb.op}{ident}{scope}{info.kind}{suffix}",
                "parameters": list(verb.params),
            }
            if verb.body:
                operation["requestBody"] = bodies[verb.body]
            operation["responses"] = _responses(returns[verb.returns], *verb.codes)
            operation["x-kubernetes-action"] = verb.action
            operation["x-kubernetes-group-version-kind"] = target_gvk
            entry[verb.method] = operation
        return {**entry, "parameters": params} if entry else {}

    paths = {
        collection: path_item(_ON_COLLECTION, scope_params),
        item: path_item(_ON_ITEM, [_NAME, *scope_params]),
    }
    for sub in served.subresources:
        if sub in ("status", "scale"):
            target, target_gvk = (schema, gvk) if sub == "status" else (SCALE, _SCALE_GVK)
            paths[f"{item}/{sub}"] = path_item(
                _ON_SUBRESOURCE,
                [_NAME, *scope_params],
                sub=sub,
                target=target,
                target_gvk=target_gvk,
                suffix=sub.capitalize(),
            )
    if info.namespaced:
        text = "list or watch objects of kind {kind} in all namespaces"
        every = (dataclasses.replace(_ON_COLLECTION[0], text=text),)
        paths[f"{prefix}/{info.plural}"] = path_item(
            every, [_PRETTY], scope="", suffix="ForAllNamespaces"
        )
    return {path: entry for path, entry in paths.items() if entry}
