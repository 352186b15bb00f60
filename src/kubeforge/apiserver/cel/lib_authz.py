"""Kubernetes' authorizer library (ValidatingAdmissionPolicy's ``authorizer`` variable).

``authorizer.group("apps").resource("deployments").namespace("ns").check("create")``
asks the server's authorizer whether the requesting user may do that; the ``Decision``
answers ``allowed()``, ``reason()``, ``errored()``, ``error()``.
``authorizer.serviceAccount(ns, name)`` asks for a service account instead, and
``authorizer.path("/healthz").check("get")`` for a non-resource URL.
``authorizer.requestResource`` is the check for the request's own resource.

The server supplies an ``Authorize`` callable: ``(user, attributes) -> (decision,
reason)`` where decision is ``"allow"``, ``"deny"`` or ``"no-opinion"``.

Entry point: ``Authorizer``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["Authorize", "Authorizer", "Decision", "ResourceCheck"]

Authorize = Callable[[dict[str, Any], dict[str, str]], tuple[str, str]]


@dataclass(frozen=True)
class Decision:
    cel_type_name = "kubernetes.authorization.Decision"
    decision: str
    reason_text: str = ""
    error_text: str = ""

    def cel_allowed(self) -> bool:
        return self.decision == "allow"

    def cel_reason(self) -> str:
        return self.reason_text

    def cel_errored(self) -> bool:
        return bool(self.error_text)

    def cel_error(self) -> str:
        return self.error_text

    def cel_equal(self, other: Any) -> bool:
        return isinstance(other, Decision) and (self.decision, self.reason_text) == (
            other.decision,
            other.reason_text,
        )


@dataclass(frozen=True)
class Authorizer:
    cel_type_name = "kubernetes.authorization.Authorizer"
    authorize: Authorize = field(compare=False)
    user: dict[str, Any] = field(default_factory=dict, compare=False)

    def cel_path(self, path: str) -> PathCheck:
        return PathCheck(self, path)

    def cel_group(self, group: str) -> GroupCheck:
        return GroupCheck(self, group)

    def cel_serviceAccount(self, namespace: str, name: str) -> Authorizer:
        username = f"system:serviceaccount:{namespace}:{name}"
        groups = ["system:serviceaccounts", f"system:serviceaccounts:{namespace}"]
        return Authorizer(self.authorize, {"username": username, "groups": groups})

    def decide(self, attributes: dict[str, str]) -> Decision:
        try:
            verdict, reason = self.authorize(self.user, attributes)
        except Exception as error:
            return Decision("deny", "", str(error))
        return Decision(verdict, reason)

    def cel_equal(self, other: Any) -> bool:
        return self is other

    def for_request(self, request: dict[str, Any]) -> ResourceCheck:
        """``authorizer.requestResource``: the check for an admission request's own resource."""
        resource = request.get("resource") or {}
        return ResourceCheck(
            self,
            str(resource.get("group", "")),
            str(resource.get("resource", "")),
            str(request.get("subResource") or ""),
            str(request.get("namespace") or ""),
            str(request.get("name") or ""),
        )


@dataclass(frozen=True)
class PathCheck:
    cel_type_name = "kubernetes.authorization.PathCheck"
    authorizer: Authorizer
    path: str

    def cel_check(self, verb: str) -> Decision:
        return self.authorizer.decide({"path": self.path, "verb": verb})


@dataclass(frozen=True)
class GroupCheck:
    cel_type_name = "kubernetes.authorization.GroupCheck"
    authorizer: Authorizer
    group: str

    def cel_resource(self, resource: str) -> ResourceCheck:
        return ResourceCheck(self.authorizer, self.group, resource)


@dataclass(frozen=True)
class ResourceCheck:
    cel_type_name = "kubernetes.authorization.ResourceCheck"
    authorizer: Authorizer
    group: str
    resource: str
    subresource_name: str = ""
    namespace_name: str = ""
    object_name: str = ""
    field_selector: str = ""
    label_selector: str = ""

    def cel_subresource(self, value: str) -> ResourceCheck:
        return replace(self, subresource_name=value)

    def cel_namespace(self, value: str) -> ResourceCheck:
        return replace(self, namespace_name=value)

    def cel_name(self, value: str) -> ResourceCheck:
        return replace(self, object_name=value)

    def cel_fieldSelector(self, value: str) -> ResourceCheck:
        return replace(self, field_selector=value)

    def cel_labelSelector(self, value: str) -> ResourceCheck:
        return replace(self, label_selector=value)

    def cel_check(self, verb: str) -> Decision:
        return self.authorizer.decide(
            {
                "verb": verb,
                "group": self.group,
                "resource": self.resource,
                "subresource": self.subresource_name,
                "namespace": self.namespace_name,
                "name": self.object_name,
            }
        )
