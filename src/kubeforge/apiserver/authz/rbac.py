"""Authorization: the RBAC authorizer, and the 403 a denial answers.

A request is judged by its ``attributes.Attributes``. ``RBAC`` evaluates
ClusterRoleBindings, then the RoleBindings of the request's namespace, against the
stored Roles and ClusterRoles, aggregation included; ``AlwaysAllow`` is the default
mode. Members of ``system:masters`` are allowed before any of this runs, as on a real
server.

Denials read exactly as on a real server, e.g. ``pods is forbidden: User "jane"
cannot list resource "pods" in API group "" in the namespace "default"``.

Entry points: ``Authorizer`` (``AlwaysAllow``, ``RBAC``), ``forbidden``, ``aggregated_rules``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver.authn.authenticator import UserInfo, split_service_account
from kubeforge.apiserver.authz.attributes import Attributes
from kubeforge.apiserver.authz.rules import allows, dedupe
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.meta.labelselector import selector_matches
from kubeforge.apiserver.storage.sqlite import Event, Storage
from kubeforge.core.status import failure

__all__ = [
    "RBAC",
    "AlwaysAllow",
    "Authorizer",
    "Decision",
    "aggregated_rules",
    "forbidden",
]

_GROUP = "rbac.authorization.k8s.io"
_ROLES, _CLUSTER_ROLES = (_GROUP, "roles"), (_GROUP, "clusterroles")
_BINDINGS, _CLUSTER_BINDINGS = (_GROUP, "rolebindings"), (_GROUP, "clusterrolebindings")
_RBAC_KEYS = frozenset({_ROLES, _CLUSTER_ROLES, _BINDINGS, _CLUSTER_BINDINGS})


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str = ""


def forbidden(user: UserInfo, attrs: Attributes, reason: str = "") -> StatusError:
    """The 403 of a denied request, worded as ``responsewriters.Forbidden`` words it."""
    if not attrs.resource_request:
        detail = f'User "{user.name}" cannot {attrs.verb} path "{attrs.path}"'
    elif attrs.namespace:
        detail = (
            f'User "{user.name}" cannot {attrs.verb} resource "{attrs.combined_resource}" in API '
            f'group "{attrs.api_group}" in the namespace "{attrs.namespace}"'
        )
    else:
        detail = (
            f'User "{user.name}" cannot {attrs.verb} resource "{attrs.combined_resource}" in API '
            f'group "{attrs.api_group}" at the cluster scope'
        )
    if reason:
        detail = f"{detail}: {reason}"
    resource = f"{attrs.resource}.{attrs.api_group}" if attrs.api_group else attrs.resource
    details: dict[str, Any] = {}
    if not attrs.resource_request or not attrs.resource:
        message = f"forbidden: {detail}"
    elif attrs.name:
        message = f'{resource} "{attrs.name}" is forbidden: {detail}'
        details["name"] = attrs.name
    else:
        message = f"{resource} is forbidden: {detail}"
    if attrs.resource_request and attrs.resource:
        if attrs.api_group:
            details["group"] = attrs.api_group
        details["kind"] = attrs.resource
    return StatusError(failure(403, "Forbidden", message, details))


class Authorizer:
    """Decides requests; ``rules_for`` answers SelfSubjectRulesReviews."""

    mode = ""

    def authorize(self, user: UserInfo, attrs: Attributes) -> Decision:
        raise NotImplementedError

    def rules_for(self, user: UserInfo, namespace: str) -> tuple[list[dict[str, Any]], list[str]]:
        """Every rule that applies to ``user`` in ``namespace``, and resolution errors."""
        raise NotImplementedError


_EVERYTHING = [
    {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
    {"verbs": ["*"], "nonResourceURLs": ["*"]},
]


class AlwaysAllow(Authorizer):
    """Every authenticated user may do everything (the server's default)."""

    mode = "AlwaysAllow"

    def authorize(self, user: UserInfo, attrs: Attributes) -> Decision:
        return Decision(True)

    def rules_for(self, user: UserInfo, namespace: str) -> tuple[list[dict[str, Any]], list[str]]:
        return [dict(rule) for rule in _EVERYTHING], []


@dataclass
class _Index:
    """RBAC objects by where they apply, rebuilt whenever one of them changes."""

    roles: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    cluster_roles: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    cluster_bindings: list[dict[str, Any]] = field(default_factory=list)
    bindings: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


class RBAC(Authorizer):
    """Role-based access control over the stored RBAC objects."""

    mode = "RBAC"

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._index: _Index | None = None
        storage.subscribe(self._on_event, _RBAC_KEYS)

    def _on_event(self, event: Event) -> None:
        if event.resource in _RBAC_KEYS:
            self._index = None

    def _current(self) -> _Index:
        if self._index is None:
            self._index = self._build()
        return self._index

    def _build(self) -> _Index:
        index = _Index()
        stored = {obj["metadata"]["name"]: obj for obj in self._storage.objects(_CLUSTER_ROLES)}
        for name in stored:
            index.cluster_roles[name] = aggregated_rules(stored, name)
        for obj in self._storage.objects(_ROLES):
            meta = obj["metadata"]
            index.roles[(meta.get("namespace") or "", meta["name"])] = _rules(obj)
        index.cluster_bindings = self._storage.objects(_CLUSTER_BINDINGS)
        for obj in self._storage.objects(_BINDINGS):
            index.bindings.setdefault(obj["metadata"].get("namespace") or "", []).append(obj)
        return index

    def _role_rules(
        self, index: _Index, ref: dict[str, Any], namespace: str
    ) -> list[dict[str, Any]] | str:
        """The rules a ``roleRef`` grants, or the error text when the role is missing."""
        name = str(ref.get("name") or "")
        if ref.get("kind") == "Role":
            rules = index.roles.get((namespace, name))
            return rules if rules is not None else f'role.{_GROUP} "{name}" not found'
        found = index.cluster_roles.get(name)
        return found if found is not None else f'clusterrole.{_GROUP} "{name}" not found'

    def _visits(
        self, user: UserInfo, namespace: str
    ) -> Iterator[tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]] | str]]:
        """``(binding, subject, rules or error)`` for each binding that names ``user``."""
        index = self._current()
        sources = [("", index.cluster_bindings)]
        if namespace:
            sources.append((namespace, index.bindings.get(namespace, [])))
        for scope, bindings in sources:
            for binding in bindings:
                subject = _matching_subject(binding, user, scope)
                if subject is not None:
                    ref = binding.get("roleRef") or {}
                    yield binding, subject, self._role_rules(index, ref, scope)

    def authorize(self, user: UserInfo, attrs: Attributes) -> Decision:
        if user.privileged:
            return Decision(True)
        errors: list[str] = []
        for binding, subject, rules in self._visits(user, attrs.namespace):
            if isinstance(rules, str):
                errors.append(rules)
                continue
            if any(allows(rule, attrs) for rule in rules):
                return Decision(True, _allowed_reason(binding, subject))
        if not errors:
            return Decision(False)
        text = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        return Decision(False, f"RBAC: {text}")

    def rules_for(self, user: UserInfo, namespace: str) -> tuple[list[dict[str, Any]], list[str]]:
        rules: list[dict[str, Any]] = []
        errors: list[str] = []
        for _binding, _subject, found in self._visits(user, namespace):
            if isinstance(found, str):
                errors.append(found)
            else:
                rules.extend(found)
        return dedupe(rules), errors


def _rules(obj: dict[str, Any]) -> list[dict[str, Any]]:
    rules = obj.get("rules") or []
    return [r for r in rules if isinstance(r, dict)]


def aggregated_rules(cluster_roles: dict[str, dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The rules a ClusterRole grants. With an ``aggregationRule`` they are (as the
    aggregation controller writes them) the rules of every ClusterRole its selectors pick,
    computed here transitively so a decision never waits for that controller."""
    result: list[dict[str, Any]] = []
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen or current not in cluster_roles:
            continue
        seen.add(current)
        role = cluster_roles[current]
        aggregation = role.get("aggregationRule")
        if not isinstance(aggregation, dict):
            result.extend(_rules(role))
            continue
        selectors = aggregation.get("clusterRoleSelectors") or []
        for other_name, other in sorted(cluster_roles.items()):
            labels = (other.get("metadata") or {}).get("labels") or {}
            if other_name != current and any(selector_matches(s, labels) for s in selectors):
                pending.append(other_name)
    return dedupe(result)


def _matching_subject(
    binding: dict[str, Any], user: UserInfo, namespace: str
) -> dict[str, Any] | None:
    for subject in binding.get("subjects") or []:
        if not isinstance(subject, dict):
            continue
        kind, name = subject.get("kind"), subject.get("name")
        if kind == "User" and name == user.name:
            return subject
        if kind == "Group" and name in user.groups:
            return subject
        if kind == "ServiceAccount":
            # A RoleBinding may leave the account's namespace out: it means its own.
            account_namespace = subject.get("namespace") or namespace
            if account_namespace and split_service_account(user.name) == (account_namespace, name):
                return subject
    return None


def _allowed_reason(binding: dict[str, Any], subject: dict[str, Any]) -> str:
    meta = binding.get("metadata") or {}
    ref = binding.get("roleRef") or {}
    if meta.get("namespace"):
        where = f'RoleBinding "{meta.get("name")}/{meta.get("namespace")}"'
    else:
        where = f'ClusterRoleBinding "{meta.get("name")}"'
    who = subject.get("name")
    if subject.get("kind") == "ServiceAccount":
        # Go's describeSubject: the account's name, then its namespace
        who = f"{who}/{subject.get('namespace') or meta.get('namespace')}"
    return (
        f'RBAC: allowed by {where} of {ref.get("kind")} "{ref.get("name")}" to '
        f'{subject.get("kind")} "{who}"'
    )
