"""A request as admission sees it, and whether an admission rule names it.

``AdmissionRequest`` carries the fields of ``AdmissionReview.request`` and renders the
review a webhook receives; ``rule_matches`` is the real server's ``RuleWithOperations``
match (operations, groups, versions under ``matchPolicy``, scope, resources and
subresources with their wildcards), shared by webhooks and admission policies.

Entry points: ``AdmissionRequest(...).review(obj, old, version)``,
``rule_matches(rule, req, exact)``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["AdmissionRequest", "rule_matches"]

_OPTIONS_KIND = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}


@dataclass(frozen=True)
class AdmissionRequest:
    """One request as admission sees it (the fields of ``AdmissionReview.request``)."""

    operation: str  # CREATE UPDATE DELETE
    group: str
    version: str
    kind: str
    resource: str
    subresource: str
    namespace: str
    name: str
    namespaced: bool
    user: dict[str, Any]
    dry_run: bool = False
    uid: str = field(default_factory=lambda: str(uuid.uuid4()))
    object_kind: tuple[str, str, str] | None = None
    """(group, version, kind) of the object when it is not the resource's own kind: a
    ``pods/eviction`` request carries a ``policy/v1`` Eviction."""
    options: Mapping[str, Any] | None = None
    """The request's ``CreateOptions``/``UpdateOptions``/``DeleteOptions`` fields, shown as
    the review's ``options`` (their kind and apiVersion are added)."""

    def review(
        self, obj: dict[str, Any] | None, old: dict[str, Any] | None, version: str
    ) -> dict[str, Any]:
        group, api_version, name = self.object_kind or (self.group, self.version, self.kind)
        kind = {"group": group, "version": api_version, "kind": name}
        resource = {"group": self.group, "version": self.version, "resource": self.resource}
        request: dict[str, Any] = {
            "uid": self.uid,
            "kind": kind,
            "resource": resource,
            "requestKind": kind,
            "requestResource": resource,
            "name": self.name,
            "operation": self.operation,
            "userInfo": self.user,
            "object": obj,
            "oldObject": old,
            "dryRun": self.dry_run,
            "options": {
                "kind": _OPTIONS_KIND[self.operation],
                "apiVersion": "meta.k8s.io/v1",
                **(self.options or {}),
            },
        }
        if self.subresource:
            request["subResource"] = self.subresource
            request["requestSubResource"] = self.subresource
        if self.namespace:
            request["namespace"] = self.namespace
        return {
            "apiVersion": f"admission.k8s.io/{version}",
            "kind": "AdmissionReview",
            "request": request,
        }


def rule_matches(rule: dict[str, Any], req: AdmissionRequest, exact: bool) -> bool:
    """Whether ``rule`` names ``req``; ``exact`` (``matchPolicy: Exact``) also requires its
    version to be listed."""
    operations = rule.get("operations") or []
    if "*" not in operations and req.operation not in operations:
        return False
    groups = rule.get("apiGroups") or []
    if "*" not in groups and req.group not in groups:
        return False
    # Equivalent (the default) matches the same resource at any version it is served at.
    versions = rule.get("apiVersions") or []
    if exact and "*" not in versions and req.version not in versions:
        return False
    scope = rule.get("scope") or "*"
    if (scope == "Cluster" and req.namespaced) or (scope == "Namespaced" and not req.namespaced):
        return False
    wanted = f"{req.resource}/{req.subresource}" if req.subresource else req.resource
    for resource in rule.get("resources") or []:
        if resource == wanted or resource == "*/*":
            return True
        base, _, sub = resource.partition("/")
        if not req.subresource and resource == "*":
            return True
        if (
            req.subresource
            and sub
            and (base in ("*", req.resource))
            and sub in ("*", req.subresource)
        ):
            return True
    return False
