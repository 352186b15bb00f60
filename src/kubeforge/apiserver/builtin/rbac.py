"""``rbac.authorization.k8s.io/v1`` objects: Roles, ClusterRoles and their bindings.

Defaults and validation follow ``pkg/apis/rbac/v1`` and ``pkg/apis/rbac/validation``:
subjects get their ``apiGroup`` filled in, a binding's ``roleRef`` can never change,
a namespaced Role may not name non-resource URLs. Names only have to be usable as
a URL path segment. What the rules *mean* is in ``authz.rbac``.

Entry point: ``KINDS``, the group's kinds with their strategies.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.labelselector import validate_selector
from kubeforge.apiserver.meta.validation import dns1123_subdomain, path_segment_name
from kubeforge.apiserver.printers.cells import created, dict_at, name_of
from kubeforge.apiserver.printers.columns import AGE_COLUMN, NAME_COLUMN, Printer, column
from kubeforge.apiserver.registry.strategy import Strategy

__all__ = [
    "KINDS",
    "RBAC_GROUP",
    "BindingStrategy",
    "ClusterBindingStrategy",
    "ClusterRoleStrategy",
    "RoleStrategy",
    "validate_rule",
]

RBAC_GROUP = "rbac.authorization.k8s.io"


def validate_rule(rule: Any, path: str, *, namespaced: bool) -> list[FieldError]:
    """``ValidatePolicyRule``: verbs always; either resources (with groups) or URLs."""
    if not isinstance(rule, dict):
        return [FieldError("Invalid", path, "must be an object", rule)]
    errors: list[FieldError] = []
    for key in ("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"):
        value = rule.get(key)
        if value is not None and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            errors.append(
                FieldError("Invalid", f"{path}.{key}", "must be a list of strings", value)
            )
    if errors:
        return errors
    if not rule.get("verbs"):
        errors.append(
            FieldError("Required", f"{path}.verbs", "verbs must contain at least one value")
        )
    urls = rule.get("nonResourceURLs") or []
    if urls:
        if namespaced:
            errors.append(
                FieldError(
                    "Invalid",
                    f"{path}.nonResourceURLs",
                    "namespaced rules cannot apply to non-resource URLs",
                    urls,
                )
            )
        if rule.get("apiGroups") or rule.get("resources") or rule.get("resourceNames"):
            errors.append(
                FieldError(
                    "Invalid",
                    f"{path}.nonResourceURLs",
                    "rules cannot apply to both regular resources and non-resource URLs",
                    urls,
                )
            )
        return errors
    if not rule.get("apiGroups"):
        errors.append(
            FieldError(
                "Required", f"{path}.apiGroups", "resource rules must supply at least one api group"
            )
        )
    if not rule.get("resources"):
        errors.append(
            FieldError(
                "Required", f"{path}.resources", "resource rules must supply at least one resource"
            )
        )
    return errors


class RoleStrategy(Strategy):
    name_validator = staticmethod(path_segment_name)
    top_level_fields: tuple[str, ...] | None = ("rules",)
    namespaced_rules = True

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        rules = obj.get("rules")
        if rules is None:
            return []
        if not isinstance(rules, list):
            return [FieldError("Invalid", "rules", "must be a list", rules)]
        errors: list[FieldError] = []
        for i, rule in enumerate(rules):
            errors += validate_rule(rule, f"rules[{i}]", namespaced=self.namespaced_rules)
        return errors


class ClusterRoleStrategy(RoleStrategy):
    top_level_fields = ("rules", "aggregationRule")
    namespaced_rules = False

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errors = super().validate(obj)
        aggregation = obj.get("aggregationRule")
        if aggregation is None:
            return errors
        selectors = aggregation.get("clusterRoleSelectors") if isinstance(aggregation, dict) else 0
        if not selectors or not isinstance(selectors, list):
            errors.append(FieldError("Required", "aggregationRule.clusterRoleSelectors"))
            return errors
        for i, selector in enumerate(selectors):
            errors += validate_selector(selector, f"aggregationRule.clusterRoleSelectors[{i}]")
        return errors


def _default_subjects(obj: dict[str, Any]) -> None:
    ref = obj.get("roleRef")
    if isinstance(ref, dict) and not ref.get("apiGroup"):
        ref["apiGroup"] = RBAC_GROUP
    for subject in obj.get("subjects") or []:
        if isinstance(subject, dict) and not subject.get("apiGroup"):
            kind = subject.get("kind")
            if kind in ("User", "Group"):
                subject["apiGroup"] = RBAC_GROUP
            elif kind == "ServiceAccount":
                subject["apiGroup"] = ""


def _subject_errors(subject: Any, path: str, *, namespaced: bool) -> list[FieldError]:
    """``ValidateRoleBindingSubject``."""
    if not isinstance(subject, dict):
        return [FieldError("Invalid", path, "must be an object", subject)]
    errors: list[FieldError] = []
    name = str(subject.get("name") or "")
    if not name:
        errors.append(FieldError("Required", f"{path}.name"))
    kind, group = subject.get("kind"), subject.get("apiGroup") or ""
    if kind == "ServiceAccount":
        if name:
            errors += [
                FieldError("Invalid", f"{path}.name", p, name) for p in dns1123_subdomain(name)
            ]
        if group:
            errors.append(FieldError.not_supported(f"{path}.apiGroup", group, ("",)))
        if not namespaced and not subject.get("namespace"):
            errors.append(FieldError("Required", f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if group != RBAC_GROUP:
            errors.append(FieldError.not_supported(f"{path}.apiGroup", group, (RBAC_GROUP,)))
    else:
        errors.append(
            FieldError.not_supported(f"{path}.kind", kind, ("ServiceAccount", "User", "Group"))
        )
    return errors


class BindingStrategy(Strategy):
    name_validator = staticmethod(path_segment_name)
    top_level_fields: tuple[str, ...] | None = ("subjects", "roleRef")
    role_kinds: tuple[str, ...] = ("Role", "ClusterRole")
    namespaced_subjects = True

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        _default_subjects(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _default_subjects(new)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        ref = obj.get("roleRef")
        if not isinstance(ref, dict):
            ref = {}
        kind = ref.get("kind")
        if kind not in self.role_kinds:
            errors.append(FieldError.not_supported("roleRef.kind", kind, self.role_kinds))
        if ref.get("apiGroup") != RBAC_GROUP:
            errors.append(
                FieldError.not_supported(
                    "roleRef.apiGroup", ref.get("apiGroup") or "", (RBAC_GROUP,)
                )
            )
        name = str(ref.get("name") or "")
        if not name:
            errors.append(FieldError("Required", "roleRef.name"))
        errors += [
            FieldError("Invalid", "roleRef.name", p, name) for p in path_segment_name(name) if name
        ]
        subjects = obj.get("subjects") or []
        if not isinstance(subjects, list):
            return [*errors, FieldError("Invalid", "subjects", "must be a list", subjects)]
        for i, subject in enumerate(subjects):
            errors += _subject_errors(
                subject, f"subjects[{i}]", namespaced=self.namespaced_subjects
            )
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        if new.get("roleRef") != old.get("roleRef"):
            errors.append(
                FieldError("Invalid", "roleRef", "cannot change roleRef", new.get("roleRef"))
            )
        return errors


class ClusterBindingStrategy(BindingStrategy):
    role_kinds = ("ClusterRole",)
    namespaced_subjects = False


def _binding_row(obj: dict[str, Any], now: datetime) -> list[Any]:
    ref = dict_at(obj, "roleRef")
    subjects = [s for s in obj.get("subjects") or [] if isinstance(s, dict)]

    def named(kind: str) -> str:
        names = []
        for subject in subjects:
            if subject.get("kind") != kind:
                continue
            name = str(subject.get("name") or "")
            if kind == "ServiceAccount":
                name = f"{subject.get('namespace') or ''}/{name}"
            names.append(name)
        return ", ".join(names)

    return [
        name_of(obj),
        f"{ref.get('kind') or ''}/{ref.get('name') or ''}",
        created(obj, now),
        named("User"),
        named("Group"),
        named("ServiceAccount"),
    ]


_BINDING_PRINTER = Printer(
    (
        NAME_COLUMN,
        column("Role", "string", "The role bound."),
        AGE_COLUMN,
        column("Users", "string", "Users bound.", priority=1),
        column("Groups", "string", "Groups bound.", priority=1),
        column("ServiceAccounts", "string", "Service accounts bound.", priority=1),
    ),
    _binding_row,
)

KINDS = (
    Kind(
        RBAC_GROUP,
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        namespaced=False,
        strategy=ClusterBindingStrategy,
        printer=_BINDING_PRINTER,
    ),
    Kind(
        RBAC_GROUP,
        "v1",
        "ClusterRole",
        "clusterroles",
        namespaced=False,
        strategy=ClusterRoleStrategy,
    ),
    Kind(
        RBAC_GROUP,
        "v1",
        "RoleBinding",
        "rolebindings",
        strategy=BindingStrategy,
        printer=_BINDING_PRINTER,
    ),
    Kind(
        RBAC_GROUP,
        "v1",
        "Role",
        "roles",
        strategy=RoleStrategy,
    ),
)
"""The rbac.authorization.k8s.io/v1 kinds."""
