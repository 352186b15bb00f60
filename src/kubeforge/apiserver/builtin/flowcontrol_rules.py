"""FlowSchema and PriorityLevelConfiguration rules of 1.32: ``pkg/apis/flowcontrol/v1``'s
defaults and ``pkg/apis/flowcontrol/validation`` (its 1.29+ form: nominal concurrency
shares, lendable and borrowing percents, the ``exempt`` level's configurable part), in
their order and words. A mandatory object (``exempt``, ``catch-all``) must keep 1.32's
fixed spec; the ``exempt`` level may change only ``spec.exempt``. A zero
``nominalConcurrencyShares`` on a Limited level is refused, as 1.32's strategy still
refuses it (``AllowZeroLimitedNominalConcurrencyShares`` is off).

Entry points: ``default_schema``, ``default_level``, ``schema_errors``, ``level_errors``,
``status_errors``.
"""

from __future__ import annotations

import math
from typing import Any

from kubeforge.apiserver.builtin.core.service_ips import go_strings
from kubeforge.apiserver.builtin.flowcontrol_bootstrap import MANDATORY_LEVELS, MANDATORY_SCHEMAS
from kubeforge.apiserver.builtin.flowcontrol_gostruct import level_spec_value, schema_spec_value
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.core.names import dns1123_label, dns1123_subdomain

__all__ = [
    "default_level",
    "default_schema",
    "level_errors",
    "schema_errors",
    "semantic_form",
    "status_errors",
]

_VERBS = (
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "proxy",
    "update",
    "watch",
)
_SUBJECT_KINDS = ("Group", "ServiceAccount", "User")
_MAX_PRECEDENCE = 10000
_MAX_QUEUES = 10_000_000
_MAX_HASH_BITS = 60
_NS_INTRO = "each member of this list must be '*' or a DNS-1123 label; "


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# --- defaults --------------------------------------------------------------------------------


def default_schema(obj: dict[str, Any]) -> None:
    """``SetDefaults_FlowSchemaSpec``: precedence 1000 when unset (or 0)."""
    spec = obj.get("spec")
    if isinstance(spec, dict) and not _int(spec.get("matchingPrecedence")):
        spec["matchingPrecedence"] = 1000


def default_level(obj: dict[str, Any]) -> None:
    """``SetObjectDefaults_PriorityLevelConfiguration``."""
    spec = _dict(obj.get("spec"))
    limited = spec.get("limited")
    if isinstance(limited, dict):
        if limited.get("nominalConcurrencyShares") is None:
            limited["nominalConcurrencyShares"] = 30
        if limited.get("lendablePercent") is None:
            limited["lendablePercent"] = 0
        queuing = _dict(limited.get("limitResponse")).get("queuing")
        if isinstance(queuing, dict):
            for key, value in (("handSize", 8), ("queues", 64), ("queueLengthLimit", 50)):
                if not _int(queuing.get(key)):
                    queuing[key] = value
    exempt = spec.get("exempt")
    if isinstance(exempt, dict):
        for key in ("nominalConcurrencyShares", "lendablePercent"):
            if exempt.get(key) is None:
                exempt[key] = 0


# --- FlowSchema ------------------------------------------------------------------------------


def schema_errors(name: str, spec: dict[str, Any]) -> list[FieldError]:
    """``ValidateFlowSchemaSpec`` and the mandatory schemas' fixed spec."""
    errors: list[FieldError] = []
    precedence = _int(spec.get("matchingPrecedence"))
    at = "spec.matchingPrecedence"
    if precedence <= 0:
        errors.append(FieldError.invalid(at, precedence, "must be a positive value"))
    if precedence > _MAX_PRECEDENCE:
        detail = f"must not be greater than {_MAX_PRECEDENCE}"
        errors.append(FieldError.invalid(at, precedence, detail))
    if precedence == 1 and name != "exempt":
        detail = "only the schema named 'exempt' may have matchingPrecedence 1"
        errors.append(FieldError.invalid(at, precedence, detail))
    method = spec.get("distinguisherMethod")
    if isinstance(method, dict) and method.get("type") not in ("ByNamespace", "ByUser"):
        kind = GoValue.quote(str(method.get("type") or ""))
        shown = GoValue(f"flowcontrol.FlowDistinguisherMethod{{Type:{kind}}}")
        errors.append(
            FieldError.not_supported(
                "spec.distinguisherMethod.type", shown, ("ByNamespace", "ByUser")
            )
        )
    level = str(_dict(spec.get("priorityLevelConfiguration")).get("name") or "")
    at = "spec.priorityLevelConfiguration.name"
    if level:
        errors += [FieldError.invalid(at, level, m) for m in dns1123_subdomain(level)]
    else:
        errors.append(FieldError.required(at, "must reference a priority level"))
    for i, rule in enumerate(spec.get("rules") or []):
        errors += _rule_errors(_dict(rule), f"spec.rules[{i}]")
    for mandatory in MANDATORY_SCHEMAS:
        if mandatory["metadata"]["name"] == name and not _same_schema(spec, mandatory["spec"]):
            detail = f"spec of '{name}' must equal the fixed value"
            errors.append(FieldError.invalid("spec", schema_spec_value(spec), detail))
    return errors


def _same_schema(spec: dict[str, Any], fixed: dict[str, Any]) -> bool:
    """``Semantic.DeepEqual`` of the defaulted specs: empty and missing lists are equal."""
    return bool(semantic_form(spec) == semantic_form(fixed))


def semantic_form(value: Any) -> Any:
    """``value`` with its empty and zero-valued fields dropped, so that two specs compare
    as ``Semantic.DeepEqual`` compares the Go structs they decode to."""
    if isinstance(value, dict):
        kept = {k: semantic_form(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in ([], {}, None, False, "")}
    if isinstance(value, list):
        return [semantic_form(v) for v in value]
    return value


def _rule_errors(rule: dict[str, Any], at: str) -> list[FieldError]:
    errors: list[FieldError] = []
    subjects = rule.get("subjects") or []
    if subjects:
        for i, subject in enumerate(subjects):
            errors += _subject_errors(_dict(subject), f"{at}.subjects[{i}]")
    else:
        detail = "subjects must contain at least one value"
        errors.append(FieldError.required(f"{at}.subjects", detail))
    resource_rules = rule.get("resourceRules") or []
    non_resource_rules = rule.get("nonResourceRules") or []
    if not resource_rules and not non_resource_rules:
        detail = "at least one of resourceRules and nonResourceRules has to be non-empty"
        errors.append(FieldError.required(at, detail))
    for i, item in enumerate(resource_rules):
        errors += _resource_rule_errors(_dict(item), f"{at}.resourceRules[{i}]")
    for i, item in enumerate(non_resource_rules):
        errors += _non_resource_rule_errors(_dict(item), f"{at}.nonResourceRules[{i}]")
    return errors


_OTHERS = {  # the fields a subject of each kind must leave unset, in Go's order
    "ServiceAccount": (("User", "user"), ("Group", "group")),
    "User": (("ServiceAccount", "serviceAccount"), ("Group", "group")),
    "Group": (("ServiceAccount", "serviceAccount"), ("User", "user")),
}


def _subject_errors(subject: dict[str, Any], at: str) -> list[FieldError]:
    kind = subject.get("kind")
    if kind not in _SUBJECT_KINDS:
        return [FieldError.not_supported(f"{at}.kind", kind or "", _SUBJECT_KINDS)]
    own = {"User": "user", "Group": "group", "ServiceAccount": "serviceAccount"}[kind]
    errors = _own_subject_errors(kind, subject.get(own), f"{at}.{own}")
    for other_kind, key in _OTHERS[kind]:
        if subject.get(key) is not None:
            detail = f"{key} is forbidden when subject kind is not '{other_kind}'"
            errors.append(FieldError.forbidden(f"{at}.{key}", detail))
    return errors


def _own_subject_errors(kind: str, value: Any, at: str) -> list[FieldError]:
    if value is None:
        key = at.rsplit(".", 1)[1]
        return [FieldError.required(at, f"{key} is required when subject kind is '{kind}'")]
    subject = _dict(value)
    name = str(subject.get("name") or "")
    errors: list[FieldError] = []
    if not name:
        errors.append(FieldError.required(f"{at}.name"))
    elif kind == "ServiceAccount" and name != "*":
        errors += [FieldError.invalid(f"{at}.name", name, m) for m in dns1123_subdomain(name)]
    if kind == "ServiceAccount":
        namespace = str(subject.get("namespace") or "")
        if namespace:
            errors += [
                FieldError.invalid(f"{at}.namespace", namespace, m)
                for m in dns1123_label(namespace)
            ]
        else:
            detail = "must specify namespace for service account"
            errors.append(FieldError.required(f"{at}.namespace", detail))
    return errors


def _verb_errors(verbs: list[Any], at: str) -> list[FieldError]:
    if not verbs:
        return [FieldError.required(at, "verbs must contain at least one value")]
    if "*" in verbs:
        if len(verbs) > 1:
            detail = "if '*' is present, must not specify other verbs"
            return [FieldError.invalid(at, go_strings(verbs), detail)]
        return []
    if not set(verbs) <= set(_VERBS):
        return [FieldError.not_supported(at, go_strings(verbs), _VERBS)]
    return []


def _listed(values: list[Any], at: str, what: str, required: str) -> list[FieldError]:
    if not values:
        return [FieldError.required(at, required)]
    if len(values) > 1 and "*" in values:
        detail = f"if '*' is present, must not specify other {what}"
        return [FieldError.invalid(at, go_strings(values), detail)]
    return []


def _resource_rule_errors(rule: dict[str, Any], at: str) -> list[FieldError]:
    errors = _verb_errors(list(rule.get("verbs") or []), f"{at}.verbs")
    groups = list(rule.get("apiGroups") or [])
    errors += _listed(
        groups, f"{at}.apiGroups", "api groups", "resource rules must supply at least one api group"
    )
    resources = list(rule.get("resources") or [])
    errors += _listed(
        resources,
        f"{at}.resources",
        "resources",
        "resource rules must supply at least one resource",
    )
    namespaces = list(rule.get("namespaces") or [])
    where = f"{at}.namespaces"
    if not namespaces and not rule.get("clusterScope"):
        detail = "resource rules that are not cluster scoped must supply at least one namespace"
        errors.append(FieldError.required(where, detail))
    elif "*" in namespaces:
        if len(namespaces) > 1:
            detail = "if '*' is present, must not specify other namespaces"
            errors.append(FieldError.invalid(where, go_strings(namespaces), detail))
    else:
        for i, namespace in enumerate(namespaces):
            for message in dns1123_label(str(namespace)):
                errors.append(FieldError.invalid(f"{where}[{i}]", namespace, _NS_INTRO + message))
    return errors


def _non_resource_rule_errors(rule: dict[str, Any], at: str) -> list[FieldError]:
    errors = _verb_errors(list(rule.get("verbs") or []), f"{at}.verbs")
    urls = list(rule.get("nonResourceURLs") or [])
    where = f"{at}.nonResourceURLs"
    if not urls:
        errors.append(FieldError.required(where, "nonResourceURLs must contain at least one value"))
    elif "*" in urls:
        if len(urls) > 1:
            detail = "if '*' is present, must not specify other non-resource URLs"
            errors.append(FieldError.invalid(where, go_strings(urls), detail))
    else:
        for i, url in enumerate(urls):
            problem = _url_problem(str(url))
            if problem:
                errors.append(FieldError.invalid(f"{where}[{i}]", url, problem))
    return errors


def _url_problem(path: str) -> str:
    """``ValidateNonResourceURLPath``."""
    if not path:
        return "must not be empty"
    if path == "/":
        return ""
    if not path.startswith("/"):
        return "must start with slash"
    if " " in path:
        return "must not contain white-space"
    if "//" in path:
        return "must not contain double slash"
    stars = path.count("*")
    if stars > 1 or (stars == 1 and not path.endswith("/*")):
        return "wildcard can only do suffix matching"
    return ""


# --- PriorityLevelConfiguration --------------------------------------------------------------


def level_errors(name: str, spec: dict[str, Any]) -> list[FieldError]:
    """``ValidatePriorityLevelConfigurationSpec`` and the mandatory levels' fixed spec."""
    errors: list[FieldError] = []
    kind = spec.get("type") or ""
    if (name == "exempt") != (kind == "Exempt"):
        detail = "type must be 'Exempt' if and only if name is 'exempt'"
        errors.append(FieldError.invalid("spec.type", kind, detail))
    limited, exempt = spec.get("limited"), spec.get("exempt")
    if kind == "Exempt":
        if limited is not None:
            errors.append(
                FieldError.forbidden("spec.limited", "must be nil if the type is not Limited")
            )
        if exempt is not None:
            errors += _exempt_errors(_dict(exempt))
    elif kind == "Limited":
        if exempt is not None:
            errors.append(FieldError.forbidden("spec.exempt", "must be nil if the type is Limited"))
        if limited is None:
            detail = "must not be empty when type is Limited"
            errors.append(FieldError.required("spec.limited", detail))
        else:
            errors += _limited_errors(_dict(limited))
    else:
        errors.append(FieldError.not_supported("spec.type", kind, ("Exempt", "Limited")))
    return errors + _mandatory_level_errors(name, spec)


def _mandatory_level_errors(name: str, spec: dict[str, Any]) -> list[FieldError]:
    for mandatory in MANDATORY_LEVELS:
        if mandatory["metadata"]["name"] != name:
            continue
        fixed = mandatory["spec"]
        if name == "exempt":  # its spec.exempt is the operator's to change
            if semantic_form({**spec, "exempt": None}) != semantic_form({**fixed, "exempt": None}):
                detail = (
                    "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value"
                )
                return [FieldError.invalid("spec", level_spec_value(spec), detail)]
        elif semantic_form(spec) != semantic_form(fixed):
            detail = f"spec of '{name}' must equal the fixed value"
            return [FieldError.invalid("spec", level_spec_value(spec), detail)]
    return []


def _percent_error(value: Any, at: str) -> list[FieldError]:
    if isinstance(value, int) and not 0 <= value <= 100:
        return [FieldError.invalid(at, value, "must be between 0 and 100, inclusive")]
    return []


def _exempt_errors(exempt: dict[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    shares = exempt.get("nominalConcurrencyShares")
    if isinstance(shares, int) and shares < 0:
        at = "spec.exempt.nominalConcurrencyShares"
        errors.append(FieldError.invalid(at, shares, "must be a non-negative integer"))
    return errors + _percent_error(exempt.get("lendablePercent"), "spec.exempt.lendablePercent")


def _limited_errors(limited: dict[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    shares = _int(limited.get("nominalConcurrencyShares"))
    if shares <= 0:
        at = "spec.limited.nominalConcurrencyShares"
        errors.append(FieldError.invalid(at, shares, "must be positive"))
    errors += _limit_response_errors(_dict(limited.get("limitResponse")))
    errors += _percent_error(limited.get("lendablePercent"), "spec.limited.lendablePercent")
    borrowing = limited.get("borrowingLimitPercent")
    if isinstance(borrowing, int) and borrowing < 0:
        at = "spec.limited.borrowingLimitPercent"
        errors.append(
            FieldError.invalid(at, borrowing, "if specified, must be a non-negative integer")
        )
    return errors


def _limit_response_errors(response: dict[str, Any]) -> list[FieldError]:
    at = "spec.limited.limitResponse"
    kind, queuing = response.get("type") or "", response.get("queuing")
    if kind == "Reject":
        if queuing is not None:
            detail = "must be nil if limited.limitResponse.type is not Limited"
            return [FieldError.forbidden(f"{at}.queuing", detail)]
        return []
    if kind == "Queue":
        if queuing is None:
            detail = "must not be empty if limited.limitResponse.type is Limited"
            return [FieldError.required(f"{at}.queuing", detail)]
        return _queuing_errors(_dict(queuing), f"{at}.queuing")
    return [FieldError.not_supported(f"{at}.type", kind, ("Queue", "Reject"))]


def _queuing_errors(queuing: dict[str, Any], at: str) -> list[FieldError]:
    errors: list[FieldError] = []
    limit, queues, hand = (_int(queuing.get(k)) for k in ("queueLengthLimit", "queues", "handSize"))
    if limit <= 0:
        errors.append(FieldError.invalid(f"{at}.queueLengthLimit", limit, "must be positive"))
    if queues <= 0:
        errors.append(FieldError.invalid(f"{at}.queues", queues, "must be positive"))
    elif queues > _MAX_QUEUES:
        errors.append(
            FieldError.invalid(f"{at}.queues", queues, f"must not be greater than {_MAX_QUEUES}")
        )
    if hand <= 0:
        errors.append(FieldError.invalid(f"{at}.handSize", hand, "must be positive"))
    elif hand > queues:
        detail = f"should not be greater than queues ({queues})"
        errors.append(FieldError.invalid(f"{at}.handSize", hand, detail))
    elif _entropy_bits(queues, hand) > _MAX_HASH_BITS:
        detail = (
            f"required entropy bits of deckSize {queues} and handSize {hand} "
            f"should not be greater than {_MAX_HASH_BITS}"
        )
        errors.append(FieldError.invalid(f"{at}.handSize", hand, detail))
    return errors


def _entropy_bits(deck: int, hand: int) -> int:
    """``shufflesharding.RequiredEntropyBits``: ceil(log2(deck) * hand)."""
    return math.ceil(math.log2(deck) * hand)


# --- status ----------------------------------------------------------------------------------


def status_errors(status: Any) -> list[FieldError]:
    """``ValidateFlowSchemaStatus`` / ``ValidatePriorityLevelConfigurationStatus``."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, condition in enumerate(_dict(status).get("conditions") or []):
        kind = str(_dict(condition).get("type") or "")
        at = f"status.conditions[{i}].type"
        if kind in seen:
            errors.append(FieldError.duplicate(at, kind))
        seen.add(kind)
        if not kind:
            errors.append(FieldError.required(at, "must not be empty"))
    return errors
