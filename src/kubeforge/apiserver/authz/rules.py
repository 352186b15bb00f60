"""``PolicyRule`` arithmetic: does a rule allow a request, does one set of rules cover another.

``allows`` is the matcher every RBAC decision uses (``*`` wildcards, ``*/subresource``,
resource names, non-resource URL prefixes ending in ``*``). ``uncovered`` is the
escalation check: the rules of a Role being written (or bound) that the writer does not
hold itself, each broken down to one verb on one resource, as the real server reports
them. Entry points: ``allows``, ``uncovered``, ``compact``, ``dedupe``.
"""

from __future__ import annotations

from typing import Any

import orjson

from kubeforge.apiserver.authz.attributes import Attributes

__all__ = ["allows", "compact", "dedupe", "uncovered"]

Rule = dict[str, Any]


def _has(values: Any, wanted: str) -> bool:
    return isinstance(values, list) and wanted in values


def _url_matches(rule_url: str, url: str) -> bool:
    if rule_url == "*" or rule_url == url:
        return True
    return rule_url.endswith("*") and url.startswith(rule_url.rstrip("*"))


def _resource_matches(rule: Rule, combined: str, subresource: str) -> bool:
    for resource in rule.get("resources") or []:
        if resource in ("*", combined):
            return True
        if subresource and resource == f"*/{subresource}":
            return True
    return False


def allows(rule: Rule, attrs: Attributes) -> bool:
    """Whether one ``PolicyRule`` allows the request ``attrs``.

    >>> from kubeforge.apiserver.authz.attributes import Attributes
    >>> rule = {"verbs": ["get"], "apiGroups": [""], "resources": ["*/status"]}
    >>> allows(rule, Attributes("get", resource="pods", subresource="status", name="web"))
    True
    >>> allows(rule, Attributes("get", resource="pods", name="web"))
    False
    """
    verbs = rule.get("verbs") or []
    if "*" not in verbs and attrs.verb not in verbs:
        return False
    if not attrs.resource_request:
        return any(_url_matches(url, attrs.path) for url in rule.get("nonResourceURLs") or [])
    groups = rule.get("apiGroups") or []
    if "*" not in groups and attrs.api_group not in groups:
        return False
    if not _resource_matches(rule, attrs.combined_resource, attrs.subresource):
        return False
    names = rule.get("resourceNames") or []
    return not names or attrs.name in names


def dedupe(rules: list[Rule]) -> list[Rule]:
    """Rules in order, each distinct one once."""
    seen: set[bytes] = set()
    result = []
    for rule in rules:
        key = orjson.dumps(rule, option=orjson.OPT_SORT_KEYS)
        if key not in seen:
            seen.add(key)
            result.append(rule)
    return result


def _breakdown(rule: Rule) -> list[Rule]:
    """One sub-rule per verb and group/resource (and name), or per verb and URL."""
    verbs = rule.get("verbs") or []
    parts: list[Rule] = []
    for group in rule.get("apiGroups") or []:
        for resource in rule.get("resources") or []:
            for verb in verbs:
                names = rule.get("resourceNames") or []
                if names:
                    parts += [
                        {
                            "verbs": [verb],
                            "apiGroups": [group],
                            "resources": [resource],
                            "resourceNames": [name],
                        }
                        for name in names
                    ]
                else:
                    parts.append({"verbs": [verb], "apiGroups": [group], "resources": [resource]})
    for url in rule.get("nonResourceURLs") or []:
        parts += [{"verbs": [verb], "nonResourceURLs": [url]} for verb in verbs]
    return parts


def _covers_resources(owned: list[str], wanted: list[str]) -> bool:
    if "*" in owned:
        return True
    for resource in wanted:
        if resource in owned:
            continue
        if "/" not in resource:
            return False
        if f"*/{resource.split('/', 1)[1]}" not in owned:
            return False
    return True


def _covers(owner: Rule, sub: Rule) -> bool:
    def all_in(key: str, wildcard: bool = True) -> bool:
        owned = owner.get(key) or []
        return (wildcard and "*" in owned) or all(v in owned for v in sub.get(key) or [])

    names_owned, names_wanted = owner.get("resourceNames") or [], sub.get("resourceNames") or []
    names = not names_owned or (bool(names_wanted) and all(n in names_owned for n in names_wanted))
    urls = all(
        any(_url_matches(have, url) for have in owner.get("nonResourceURLs") or [])
        for url in sub.get("nonResourceURLs") or []
    )
    return (
        all_in("verbs")
        and all_in("apiGroups")
        and _covers_resources(owner.get("resources") or [], sub.get("resources") or [])
        and names
        and urls
    )


def uncovered(owned: list[Rule], requested: list[Rule]) -> list[Rule]:
    """The broken-down parts of ``requested`` that no rule in ``owned`` covers."""
    missing = []
    for rule in requested:
        for part in _breakdown(rule):
            if not any(_covers(owner, part) for owner in owned):
                missing.append(part)
    return dedupe(missing)


def compact(rule: Rule) -> str:
    """A rule the way the real escalation error prints it (``PolicyRule.CompactString``).

    >>> compact({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]})
    '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}'
    """
    fields = []
    for key, label in (
        ("apiGroups", "APIGroups"),
        ("resources", "Resources"),
        ("resourceNames", "ResourceNames"),
        ("nonResourceURLs", "NonResourceURLs"),
        ("verbs", "Verbs"),
    ):
        values = rule.get(key) or []
        if values:
            quoted = " ".join(orjson.dumps(v).decode() for v in values)
            fields.append(f"{label}:[{quoted}]")
    return "{" + ", ".join(fields) + "}"
