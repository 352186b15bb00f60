"""RBAC declared next to the code that needs it -> one ClusterRole (or Role).

Entry points: ``Rule`` (one permission), ``generate_rbac(rules, name=...)`` and
``rules_in(*modules)``, which collects every module's ``rbac`` list::

    # in the controller module, beside the reconcile function that needs it
    rbac = [
        Rule(groups=["ship.example.com"], resources=["frigates"],
             verbs=["get", "list", "watch", "update", "patch"]),
        Rule(groups=["ship.example.com"], resources=["frigates/status"],
             verbs=["get", "update", "patch"]),
    ]

    role = generate_rbac(rules_in(controller_module), name="manager-role")

Rules from many places are merged the way controller-gen merges its
``+kubebuilder:rbac`` markers: ``core`` means the core group (``""``); the verbs
for one group, resource and set of resource names are united (``*`` absorbs
the rest); resources with identical groups and verbs share a rule, then groups
with identical resources and verbs do; the rules come out sorted, so the output
is the same whatever order the rules were declared in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = ["Rule", "generate_rbac", "rules_in"]

_Names = tuple[str, ...]


def _strings(field: str, value: Sequence[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        raise TypeError(f"Rule.{field} is a list of strings, not the string {value!r}")
    return tuple(value)


@dataclass(frozen=True, slots=True, init=False)
class Rule:
    """One RBAC permission: ``verbs`` on ``resources`` of ``groups`` (or on non-resource ``urls``).

    ``groups=[""]`` (or ``["core"]``) is the core group. ``resource_names`` limits the
    rule to objects with those names. Either ``resources`` or ``urls`` is given.
    """

    groups: tuple[str, ...]
    resources: tuple[str, ...]
    verbs: tuple[str, ...]
    resource_names: tuple[str, ...]
    urls: tuple[str, ...]

    def __init__(
        self,
        *,
        groups: Sequence[str] = (),
        resources: Sequence[str] = (),
        verbs: Sequence[str],
        resource_names: Sequence[str] = (),
        urls: Sequence[str] = (),
    ) -> None:
        for name, value in (
            ("groups", groups),
            ("resources", resources),
            ("verbs", verbs),
            ("resource_names", resource_names),
            ("urls", urls),
        ):
            object.__setattr__(self, name, _strings(name, value))
        if not self.verbs:
            raise ValueError("Rule needs at least one verb")
        if bool(self.resources) == bool(self.urls):
            raise ValueError("Rule takes either resources (with groups) or urls")
        if self.resources and not self.groups:
            raise ValueError('Rule with resources needs groups ([""] is the core group)')


def rules_in(*modules: ModuleType) -> list[Rule]:
    """Every ``Rule`` in each module's ``rbac`` list, in order (a module without one adds none)."""
    found: list[Rule] = []
    for module in modules:
        declared = getattr(module, "rbac", ())
        for rule in declared:
            if not isinstance(rule, Rule):
                raise TypeError(f"{module.__name__}.rbac holds {rule!r}, not a Rule")
            found.append(rule)
    return found


def generate_rbac(
    rules: Iterable[Rule], *, name: str, namespace: str | None = None
) -> dict[str, Any]:
    """A ClusterRole named ``name`` granting ``rules`` (a Role when ``namespace`` is given)."""
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role" if namespace is not None else "ClusterRole",
        "metadata": metadata,
        "rules": merge_rules(rules),
    }


def merge_rules(rules: Iterable[Rule]) -> list[dict[str, Any]]:
    """``rules`` merged, deduplicated and sorted, as PolicyRule dicts."""
    verbs_of: dict[tuple[str, str, _Names], set[str]] = {}
    url_verbs: dict[str, set[str]] = {}
    for rule in rules:
        names = tuple(sorted(set(rule.resource_names)))
        for group in rule.groups:
            for resource in rule.resources:
                key = ("" if group == "core" else group, resource, names)
                verbs_of.setdefault(key, set()).update(rule.verbs)
        for url in rule.urls:
            url_verbs.setdefault(url, set()).update(rule.verbs)

    # resources that share group, names and verbs -> one rule
    by_group: dict[tuple[str, _Names, _Names], set[str]] = {}
    for (group, resource, names), granted in verbs_of.items():
        by_group.setdefault((group, names, _verbs(granted)), set()).add(resource)
    # then groups that share resources, names and verbs -> one rule
    by_resources: dict[tuple[_Names, _Names, _Names], set[str]] = {}
    for (group, names, verbs), members in by_group.items():
        by_resources.setdefault((tuple(sorted(members)), names, verbs), set()).add(group)

    merged: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    for (resources, names, verbs), groups in by_resources.items():
        policy: dict[str, Any] = {"apiGroups": sorted(groups), "resources": list(resources)}
        if names:
            policy["resourceNames"] = list(names)
        policy["verbs"] = list(verbs)
        merged.append(((0, sorted(groups), resources, names, verbs), policy))
    by_verbs: dict[_Names, set[str]] = {}
    for url, granted in url_verbs.items():
        by_verbs.setdefault(_verbs(granted), set()).add(url)
    for verbs, urls in by_verbs.items():
        ordered = tuple(sorted(urls))
        merged.append(
            ((1, [], ordered, (), verbs), {"nonResourceURLs": list(ordered), "verbs": list(verbs)})
        )
    return [policy for _, policy in sorted(merged, key=lambda pair: pair[0])]


def _verbs(verbs: set[str]) -> _Names:
    return ("*",) if "*" in verbs else tuple(sorted(verbs))
