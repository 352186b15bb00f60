"""A FlowSchema or PriorityLevelConfiguration spec as Go's ``%#v`` prints the internal
struct, which is how 1.32 shows a mandatory object's spec it refuses (``field.Invalid``
with the whole spec as the value). Pointers print as their addresses; these stand in
for them, as the other ``%#v`` renderings of this server do.

Entry points: ``schema_spec_value(spec)``, ``level_spec_value(spec)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.core.service_ips import go_strings
from kubeforge.apiserver.failures import GoValue

__all__ = ["level_spec_value", "schema_spec_value"]

_P = "flowcontrol."
_ADDRESS = "0xc000a1b2c0"


def _string(value: Any) -> str:
    return GoValue.quote(str(value or ""))


def _strings(values: Any) -> str:
    return go_strings(values or None).text  # an empty list decodes to a nil slice too


def _pointer(kind: str, present: Any) -> str:
    return f"(*{_P}{kind})({_ADDRESS if present is not None else 'nil'})"


def _struct(kind: str, fields: list[tuple[str, str]]) -> str:
    return f"{_P}{kind}{{" + ", ".join(f"{k}:{v}" for k, v in fields) + "}"


def _slice(kind: str, items: list[str]) -> str:
    if not items:
        return f"[]{_P}{kind}(nil)"
    return f"[]{_P}{kind}{{" + ", ".join(items) + "}"


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v if isinstance(v, dict) else {} for v in value or []]


def _subject(subject: dict[str, Any]) -> str:
    return _struct(
        "Subject",
        [
            ("Kind", _string(subject.get("kind"))),
            ("User", _pointer("UserSubject", subject.get("user"))),
            ("Group", _pointer("GroupSubject", subject.get("group"))),
            ("ServiceAccount", _pointer("ServiceAccountSubject", subject.get("serviceAccount"))),
        ],
    )


def _resource_rule(rule: dict[str, Any]) -> str:
    return _struct(
        "ResourcePolicyRule",
        [
            ("Verbs", _strings(rule.get("verbs"))),
            ("APIGroups", _strings(rule.get("apiGroups"))),
            ("Resources", _strings(rule.get("resources"))),
            ("ClusterScope", "true" if rule.get("clusterScope") else "false"),
            ("Namespaces", _strings(rule.get("namespaces"))),
        ],
    )


def _non_resource_rule(rule: dict[str, Any]) -> str:
    return _struct(
        "NonResourcePolicyRule",
        [
            ("Verbs", _strings(rule.get("verbs"))),
            ("NonResourceURLs", _strings(rule.get("nonResourceURLs"))),
        ],
    )


def _rules(rule: dict[str, Any]) -> str:
    return _struct(
        "PolicyRulesWithSubjects",
        [
            ("Subjects", _slice("Subject", [_subject(s) for s in _dicts(rule.get("subjects"))])),
            (
                "ResourceRules",
                _slice(
                    "ResourcePolicyRule",
                    [_resource_rule(r) for r in _dicts(rule.get("resourceRules"))],
                ),
            ),
            (
                "NonResourceRules",
                _slice(
                    "NonResourcePolicyRule",
                    [_non_resource_rule(r) for r in _dicts(rule.get("nonResourceRules"))],
                ),
            ),
        ],
    )


def schema_spec_value(spec: dict[str, Any]) -> GoValue:
    """``%#v`` of a ``flowcontrol.FlowSchemaSpec``."""
    level = spec.get("priorityLevelConfiguration") or {}
    reference = _struct(
        "PriorityLevelConfigurationReference", [("Name", _string(level.get("name")))]
    )
    rules = _slice("PolicyRulesWithSubjects", [_rules(r) for r in _dicts(spec.get("rules"))])
    return GoValue(
        _struct(
            "FlowSchemaSpec",
            [
                ("PriorityLevelConfiguration", reference),
                ("MatchingPrecedence", str(int(spec.get("matchingPrecedence") or 0))),
                (
                    "DistinguisherMethod",
                    _pointer("FlowDistinguisherMethod", spec.get("distinguisherMethod")),
                ),
                ("Rules", rules),
            ],
        )
    )


def level_spec_value(spec: dict[str, Any]) -> GoValue:
    """``%#v`` of a ``flowcontrol.PriorityLevelConfigurationSpec``."""
    return GoValue(
        _struct(
            "PriorityLevelConfigurationSpec",
            [
                ("Type", _string(spec.get("type"))),
                ("Limited", _pointer("LimitedPriorityLevelConfiguration", spec.get("limited"))),
                ("Exempt", _pointer("ExemptPriorityLevelConfiguration", spec.get("exempt"))),
            ],
        )
    )
