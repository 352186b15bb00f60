"""Protobuf bodies of the kinds the remaining typed kubectl commands send.

``kubectl create job|cronjob|quota|ingress|poddisruptionbudget|priorityclass`` and
``kubectl autoscale`` post ``application/vnd.kubernetes.protobuf``, as ``kubectl certificate
approve|deny`` put it. Their schemas are
built from ``_protobuf_kinds``' pieces (object meta, pod templates, selectors) with the
field numbers of ``k8s.io/api``'s ``generated.proto`` files, covering what those
commands set; fields outside them are skipped as an unknown field would be.

Entry point: ``KINDS``, every ``(apiVersion, kind)`` protobuf body this server decodes
beyond ``protobuf``'s own (``_protobuf_kinds.KINDS`` included).
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.protobuf import core_apps_rbac as pk
from kubeforge.apiserver.protobuf import wire
from kubeforge.apiserver.protobuf.core_apps_rbac import KEEP, MANY, MAP, ONE, Schema

__all__ = ["KINDS"]

_message, _string, _int, _bool = pk._message, pk._string, pk._int, pk._bool

_JOB_SPEC: Schema = {
    1: ("parallelism", _int, KEEP),
    2: ("completions", _int, KEEP),
    3: ("activeDeadlineSeconds", _int, KEEP),
    4: ("selector", _message(pk._SELECTOR), ONE),
    5: ("manualSelector", _bool, KEEP),
    6: ("template", _message(pk._TEMPLATE), ONE),
    7: ("backoffLimit", _int, KEEP),
    8: ("ttlSecondsAfterFinished", _int, KEEP),
    9: ("completionMode", _string, KEEP),
    10: ("suspend", _bool, KEEP),
    14: ("podReplacementPolicy", _string, KEEP),
}
_CRONJOB_SPEC: Schema = {
    1: ("schedule", _string, ONE),
    2: ("startingDeadlineSeconds", _int, KEEP),
    3: ("concurrencyPolicy", _string, ONE),
    4: ("suspend", _bool, KEEP),
    5: (
        "jobTemplate",
        _message({1: ("metadata", _message(pk._META), ONE), 2: ("spec", _message(_JOB_SPEC), ONE)}),
        ONE,
    ),
    6: ("successfulJobsHistoryLimit", _int, KEEP),
    7: ("failedJobsHistoryLimit", _int, KEEP),
    8: ("timeZone", _string, KEEP),
}
_QUOTA_SPEC: Schema = {
    1: ("hard", pk._entry(pk._quantity), MAP),
    2: ("scopes", _string, MANY),
    3: (
        "scopeSelector",
        _message(
            {
                1: (
                    "matchExpressions",
                    _message(
                        {
                            1: ("scopeName", _string, ONE),
                            2: ("operator", _string, ONE),
                            3: ("values", _string, MANY),
                        }
                    ),
                    MANY,
                )
            }
        ),
        ONE,
    ),
}
_BACKEND: Schema = {
    3: (
        "resource",
        _message(
            {1: ("apiGroup", _string, KEEP), 2: ("kind", _string, ONE), 3: ("name", _string, ONE)}
        ),
        ONE,
    ),
    4: (
        "service",
        _message(
            {
                1: ("name", _string, ONE),
                2: (
                    "port",
                    _message({1: ("name", _string, ONE), 2: ("number", _int, ONE)}),
                    ONE,
                ),
            }
        ),
        ONE,
    ),
}
_HTTP_PATH: Schema = {
    1: ("path", _string, ONE),
    2: ("backend", _message(_BACKEND), ONE),
    3: ("pathType", _string, KEEP),
}
_RULE_VALUE: Schema = {1: ("http", _message({1: ("paths", _message(_HTTP_PATH), MANY)}), ONE)}
_RULE: Schema = {1: ("host", _string, ONE), 2: ("ruleValue", _message(_RULE_VALUE), ONE)}


def _ingress_rule(raw: bytes) -> dict[str, Any]:
    """An ``IngressRule``: its embedded ``IngressRuleValue`` is inline in JSON."""
    rule = pk.decode_kind(_RULE, raw)
    value = rule.pop("ruleValue", {})
    return {**rule, **value}


_INGRESS_SPEC: Schema = {
    1: ("defaultBackend", _message(_BACKEND), ONE),
    2: (
        "tls",
        _message({1: ("hosts", _string, MANY), 2: ("secretName", _string, ONE)}),
        MANY,
    ),
    3: ("rules", _ingress_rule, MANY),
    4: ("ingressClassName", _string, KEEP),
}
_PDB_SPEC: Schema = {
    1: ("minAvailable", pk._int_or_string, KEEP),
    2: ("selector", _message(pk._SELECTOR), ONE),
    3: ("maxUnavailable", pk._int_or_string, KEEP),
    4: ("unhealthyPodEvictionPolicy", _string, KEEP),
}
_HPA_SPEC: Schema = {
    1: (
        "scaleTargetRef",
        _message(
            {1: ("kind", _string, ONE), 2: ("name", _string, ONE), 3: ("apiVersion", _string, ONE)}
        ),
        ONE,
    ),
    2: ("minReplicas", _int, KEEP),
    3: ("maxReplicas", _int, ONE),
    4: ("targetCPUUtilizationPercentage", _int, KEEP),
}

_CSR_SPEC: Schema = {
    1: ("request", wire._bytes, ONE),
    2: ("username", _string, ONE),
    3: ("uid", _string, ONE),
    4: ("groups", _string, MANY),
    5: ("usages", _string, MANY),
    6: (
        "extra",
        pk._entry(lambda raw: pk.decode_kind({1: ("items", _string, MANY)}, raw).get("items", [])),
        MAP,
    ),
    7: ("signerName", _string, ONE),
    8: ("expirationSeconds", _int, KEEP),
}
_CSR_CONDITION: Schema = {
    1: ("type", _string, ONE),
    2: ("reason", _string, ONE),
    3: ("message", _string, ONE),
    4: ("lastUpdateTime", pk._time, ONE),
    5: ("lastTransitionTime", pk._time, ONE),
    6: ("status", _string, ONE),
}
_CSR_STATUS: Schema = {
    1: ("conditions", _message(_CSR_CONDITION), MANY),
    2: ("certificate", wire._bytes, ONE),
}

KINDS: dict[tuple[str, str], Schema] = {
    **pk.KINDS,
    ("batch/v1", "Job"): pk._kind(spec=(2, _message(_JOB_SPEC), ONE)),
    ("batch/v1", "CronJob"): pk._kind(spec=(2, _message(_CRONJOB_SPEC), ONE)),
    ("v1", "ResourceQuota"): pk._kind(spec=(2, _message(_QUOTA_SPEC), ONE)),
    ("networking.k8s.io/v1", "Ingress"): pk._kind(spec=(2, _message(_INGRESS_SPEC), ONE)),
    ("policy/v1", "PodDisruptionBudget"): pk._kind(spec=(2, _message(_PDB_SPEC), ONE)),
    ("scheduling.k8s.io/v1", "PriorityClass"): pk._kind(
        value=(2, _int, KEEP),
        globalDefault=(3, _bool, ONE),
        description=(4, _string, ONE),
        preemptionPolicy=(5, _string, KEEP),
    ),
    ("autoscaling/v1", "HorizontalPodAutoscaler"): pk._kind(spec=(2, _message(_HPA_SPEC), ONE)),
    # kubectl certificate approve|deny PUTs the whole request to /approval.
    ("certificates.k8s.io/v1", "CertificateSigningRequest"): pk._kind(
        spec=(2, _message(_CSR_SPEC), ONE), status=(3, _message(_CSR_STATUS), ONE)
    ),
}
