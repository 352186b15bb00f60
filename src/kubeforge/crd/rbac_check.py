"""Does a set of RBAC manifests grant what a manager needs? ``missing(needs, grants)``.

Entry points: ``grants_for(objects, namespace=..., name=...)`` reads Roles,
ClusterRoles and their bindings (as parsed YAML) and keeps what they grant one
ServiceAccount; ``missing(needs, grants)`` lists each need with the verbs no grant
covers. Matching follows Kubernetes' RBAC rule semantics: ``*`` matches any
verb, group or resource, ``*/status`` any resource's status and ``pods/*`` any
subresource of pods; a rule with ``resourceNames`` never covers a need for every
name; a ClusterRole bound by a ClusterRoleBinding counts in every namespace, one
bound by a RoleBinding (and any Role) only in the binding's namespace.

>>> role = {"kind": "ClusterRole", "metadata": {"name": "r"},
...         "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}
>>> binding = {"kind": "ClusterRoleBinding", "metadata": {"name": "b"},
...            "roleRef": {"kind": "ClusterRole", "name": "r"},
...            "subjects": [{"kind": "ServiceAccount", "name": "m", "namespace": "sys"}]}
>>> need = Need(Rule(groups=[""], resources=["pods"], verbs=["get", "list"]), "watched")
>>> [verbs for _, verbs in missing([need], grants_for([role, binding], namespace="sys", name="m"))]
[('list',)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kubeforge.crd.needs import Need
from kubeforge.crd.rbac import Rule

__all__ = ["Grant", "grants_for", "missing"]


@dataclass(frozen=True, slots=True)
class Grant:
    """The rules of one bound role, and where they apply (``None``: every namespace)."""

    rules: tuple[Mapping[str, Any], ...]
    namespace: str | None
    source: str


def grants_for(objects: Iterable[Mapping[str, Any]], *, namespace: str, name: str) -> list[Grant]:
    """What the bindings among ``objects`` grant ServiceAccount ``namespace/name``."""
    objects = list(objects)
    roles = {
        (obj.get("kind"), _meta(obj, "namespace"), _meta(obj, "name")): obj
        for obj in objects
        if obj.get("kind") in ("Role", "ClusterRole")
    }
    grants: list[Grant] = []
    for binding in objects:
        kind = binding.get("kind")
        if kind not in ("RoleBinding", "ClusterRoleBinding"):
            continue
        if not any(_is_account(s, namespace, name) for s in binding.get("subjects") or ()):
            continue
        ref = binding.get("roleRef") or {}
        where = _meta(binding, "namespace") if kind == "RoleBinding" else None
        role_namespace = where if ref.get("kind") == "Role" else None
        role = roles.get((ref.get("kind"), role_namespace, ref.get("name")))
        if role is not None:
            rules = tuple(role.get("rules") or ())
            grants.append(Grant(rules, where, f"{ref.get('kind')} {ref.get('name')}"))
    return grants


def missing(needs: Iterable[Need], grants: list[Grant]) -> list[tuple[Need, tuple[str, ...]]]:
    """Each need some verb of which no grant covers, with those verbs."""
    found: list[tuple[Need, tuple[str, ...]]] = []
    for need in needs:
        applicable = [g for g in grants if g.namespace is None or g.namespace == need.namespace]
        lacking = tuple(
            verb
            for verb in need.rule.verbs
            if not any(_covers(rule, need.rule, verb) for g in applicable for rule in g.rules)
        )
        if lacking:
            found.append((need, lacking))
    return found


def _covers(policy: Mapping[str, Any], rule: Rule, verb: str) -> bool:
    verbs = policy.get("verbs") or ()
    if verb not in verbs and "*" not in verbs:
        return False
    if rule.urls:
        urls = policy.get("nonResourceURLs") or ()
        return all(u in urls or "*" in urls for u in rule.urls)
    names = set(policy.get("resourceNames") or ())
    if names and not names >= set(rule.resource_names or ("",)):
        return False  # a rule for some names never covers a need for every name
    groups = policy.get("apiGroups") or ()
    resources = policy.get("resources") or ()
    return all(
        (_group(g) in groups or "*" in groups) and _resource_matches(r, resources)
        for g in rule.groups
        for r in rule.resources
    )


def _resource_matches(resource: str, granted: Iterable[str]) -> bool:
    granted = set(granted)
    if "*" in granted or resource in granted:
        return True
    main, _, sub = resource.partition("/")
    return bool(sub) and (f"*/{sub}" in granted or f"{main}/*" in granted)


def _group(group: str) -> str:
    return "" if group == "core" else group


def _meta(obj: Mapping[str, Any], field: str) -> str | None:
    value = (obj.get("metadata") or {}).get(field)
    return str(value) if value is not None else None


def _is_account(subject: Mapping[str, Any], namespace: str, name: str) -> bool:
    return bool(
        subject.get("kind") == "ServiceAccount"
        and subject.get("name") == name
        and subject.get("namespace") == namespace
    )
