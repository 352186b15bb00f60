"""Protobuf bodies of the second set of kinds kubectl's typed commands send.

``kubectl create deployment|service|serviceaccount|role|clusterrole|rolebinding|
clusterrolebinding|token`` and ``kubectl auth can-i|whoami`` post
``application/vnd.kubernetes.protobuf``. ``KINDS`` maps ``(apiVersion, kind)`` to the
schema ``decode_kind`` turns such a body into the JSON form with; ``wire.decode``
consults it for kinds it does not know itself.

Field numbers are those of ``k8s.io/api``'s ``generated.proto`` files. Pod specs are
covered for what kubectl's generators set (containers with their ports, env,
resources, mounts and commands; scheduling fields); fields outside these schemas are
skipped, as a real decoder skips fields it does not know. Unlike JSON's omitempty,
Go writes pointer fields (``replicas``, ``expirationSeconds`` ...) even when zero:
those are marked ``KEEP`` so an explicit 0 survives.

Entry points: ``KINDS`` and ``decode_kind(schema, payload)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.protobuf import wire

__all__ = ["KINDS", "decode_kind"]

ONE, MANY, KEEP, MAP = "one", "many", "keep", "map"
Decoder = Callable[[bytes], Any]
Schema = dict[int, tuple[str, Decoder, str]]


def decode_kind(schema: Schema, data: bytes) -> dict[str, Any]:
    """The JSON form of one message: zero scalars left out unless ``KEEP``."""
    out: dict[str, Any] = {}
    for number, wire_type, value in wire._fields(data):  # the wire reader is shared
        if number not in schema:
            continue
        name, decoder, how = schema[number]
        raw = value if wire_type == 0 else bytes(value)
        decoded = decoder(raw)
        if how == MAP:
            key, item = decoded
            out.setdefault(name, {})[key] = item
        elif how == MANY:
            out.setdefault(name, []).append(decoded)
        elif how == KEEP or isinstance(decoded, dict) or decoded not in ("", 0, False, None):
            out[name] = decoded
    return out


def _string(raw: Any) -> str:
    return bytes(raw).decode("utf-8")


def _int(raw: Any) -> int:
    number = int(raw)
    return number - (1 << 64) if number >= 1 << 63 else number


def _bool(raw: Any) -> bool:
    return bool(raw)


def _time(raw: Any) -> str | None:
    return wire._time(raw)  # metav1.Time, whole seconds


def _message(schema: Schema) -> Decoder:
    return lambda raw: decode_kind(schema, raw)


def _entry(value: Decoder) -> Decoder:
    """A ``map<string, V>`` entry: ``(key, value)``."""

    def decode(raw: bytes) -> tuple[str, Any]:
        fields = {n: v for n, _, v in wire._fields(raw)}
        return _string(fields.get(1, b"")), value(bytes(fields[2])) if 2 in fields else ""

    return decode


def _int_or_string(raw: bytes) -> int | str:
    fields = {n: v for n, _, v in wire._fields(raw)}
    if int(fields.get(1, 0)) == 1:
        return _string(fields.get(3, b""))
    return _int(fields.get(2, 0))


def _quantity(raw: bytes) -> str:
    fields = {n: v for n, _, v in wire._fields(raw)}
    return _string(fields.get(1, b""))


_STRINGS = _entry(_string)

_OWNER: Schema = {
    1: ("kind", _string, ONE),
    3: ("name", _string, ONE),
    4: ("uid", _string, ONE),
    5: ("apiVersion", _string, ONE),
    6: ("controller", _bool, KEEP),
    7: ("blockOwnerDeletion", _bool, KEEP),
}
_META: Schema = {
    1: ("name", _string, ONE),
    2: ("generateName", _string, ONE),
    3: ("namespace", _string, ONE),
    5: ("uid", _string, ONE),
    6: ("resourceVersion", _string, ONE),
    7: ("generation", _int, ONE),
    8: ("creationTimestamp", _time, ONE),
    10: ("deletionGracePeriodSeconds", _int, KEEP),
    11: ("labels", _STRINGS, MAP),
    12: ("annotations", _STRINGS, MAP),
    13: ("ownerReferences", _message(_OWNER), MANY),
    14: ("finalizers", _string, MANY),
}
_SELECTOR: Schema = {
    1: ("matchLabels", _STRINGS, MAP),
    2: (
        "matchExpressions",
        _message(
            {1: ("key", _string, ONE), 2: ("operator", _string, ONE), 3: ("values", _string, MANY)}
        ),
        MANY,
    ),
}
_NAME_REF: Schema = {1: ("name", _string, ONE)}
_KEY_REF: Schema = {
    1: ("localObjectReference", _message(_NAME_REF), ONE),
    2: ("key", _string, ONE),
    3: ("optional", _bool, KEEP),
}


def _key_ref(raw: bytes) -> dict[str, Any]:
    """A config map or secret key selector; its embedded reference is inline in JSON."""
    ref = decode_kind(_KEY_REF, raw)
    return {**ref.pop("localObjectReference", {}), **ref}


_ENV_SOURCE: Schema = {
    1: (
        "fieldRef",
        _message({1: ("apiVersion", _string, ONE), 2: ("fieldPath", _string, ONE)}),
        ONE,
    ),
    2: (
        "resourceFieldRef",
        _message({1: ("containerName", _string, ONE), 2: ("resource", _string, ONE)}),
        ONE,
    ),
    3: ("configMapKeyRef", _key_ref, ONE),
    4: ("secretKeyRef", _key_ref, ONE),
}
_CONTAINER: Schema = {
    1: ("name", _string, ONE),
    2: ("image", _string, ONE),
    3: ("command", _string, MANY),
    4: ("args", _string, MANY),
    5: ("workingDir", _string, ONE),
    6: (
        "ports",
        _message(
            {
                1: ("name", _string, ONE),
                2: ("hostPort", _int, ONE),
                3: ("containerPort", _int, ONE),
                4: ("protocol", _string, ONE),
                5: ("hostIP", _string, ONE),
            }
        ),
        MANY,
    ),
    7: (
        "env",
        _message(
            {
                1: ("name", _string, ONE),
                2: ("value", _string, ONE),
                3: ("valueFrom", _message(_ENV_SOURCE), ONE),
            }
        ),
        MANY,
    ),
    8: (
        "resources",
        _message({1: ("limits", _entry(_quantity), MAP), 2: ("requests", _entry(_quantity), MAP)}),
        ONE,
    ),
    9: (
        "volumeMounts",
        _message(
            {
                1: ("name", _string, ONE),
                2: ("readOnly", _bool, ONE),
                3: ("mountPath", _string, ONE),
                4: ("subPath", _string, ONE),
                6: ("subPathExpr", _string, ONE),
            }
        ),
        MANY,
    ),
    13: ("terminationMessagePath", _string, ONE),
    14: ("imagePullPolicy", _string, ONE),
    16: ("stdin", _bool, ONE),
    17: ("stdinOnce", _bool, ONE),
    18: ("tty", _bool, ONE),
    20: ("terminationMessagePolicy", _string, ONE),
}
_TOLERATION: Schema = {
    1: ("key", _string, ONE),
    2: ("operator", _string, ONE),
    3: ("value", _string, ONE),
    4: ("effect", _string, ONE),
    5: ("tolerationSeconds", _int, KEEP),
}
_POD_SPEC: Schema = {
    2: ("containers", _message(_CONTAINER), MANY),
    3: ("restartPolicy", _string, ONE),
    4: ("terminationGracePeriodSeconds", _int, KEEP),
    5: ("activeDeadlineSeconds", _int, KEEP),
    6: ("dnsPolicy", _string, ONE),
    7: ("nodeSelector", _STRINGS, MAP),
    8: ("serviceAccountName", _string, ONE),
    9: ("serviceAccount", _string, ONE),
    10: ("nodeName", _string, ONE),
    11: ("hostNetwork", _bool, ONE),
    12: ("hostPID", _bool, ONE),
    13: ("hostIPC", _bool, ONE),
    15: ("imagePullSecrets", _message(_NAME_REF), MANY),
    16: ("hostname", _string, ONE),
    17: ("subdomain", _string, ONE),
    19: ("schedulerName", _string, ONE),
    20: ("initContainers", _message(_CONTAINER), MANY),
    21: ("automountServiceAccountToken", _bool, KEEP),
    22: ("tolerations", _message(_TOLERATION), MANY),
    24: ("priorityClassName", _string, ONE),
    25: ("priority", _int, KEEP),
    29: ("runtimeClassName", _string, KEEP),
    30: ("enableServiceLinks", _bool, KEEP),
    31: ("preemptionPolicy", _string, KEEP),
}
_TEMPLATE: Schema = {1: ("metadata", _message(_META), ONE), 2: ("spec", _message(_POD_SPEC), ONE)}
_DEPLOYMENT_SPEC: Schema = {
    1: ("replicas", _int, KEEP),
    2: ("selector", _message(_SELECTOR), ONE),
    3: ("template", _message(_TEMPLATE), ONE),
    4: (
        "strategy",
        _message(
            {
                1: ("type", _string, ONE),
                2: (
                    "rollingUpdate",
                    _message(
                        {
                            1: ("maxUnavailable", _int_or_string, KEEP),
                            2: ("maxSurge", _int_or_string, KEEP),
                        }
                    ),
                    ONE,
                ),
            }
        ),
        ONE,
    ),
    5: ("minReadySeconds", _int, ONE),
    6: ("revisionHistoryLimit", _int, KEEP),
    7: ("paused", _bool, ONE),
    9: ("progressDeadlineSeconds", _int, KEEP),
}
_SERVICE_SPEC: Schema = {
    1: (
        "ports",
        _message(
            {
                1: ("name", _string, ONE),
                2: ("protocol", _string, ONE),
                3: ("port", _int, ONE),
                4: ("targetPort", _int_or_string, ONE),
                5: ("nodePort", _int, ONE),
                6: ("appProtocol", _string, ONE),
            }
        ),
        MANY,
    ),
    2: ("selector", _STRINGS, MAP),
    3: ("clusterIP", _string, ONE),
    4: ("type", _string, ONE),
    5: ("externalIPs", _string, MANY),
    7: ("sessionAffinity", _string, ONE),
    8: ("loadBalancerIP", _string, ONE),
    9: ("loadBalancerSourceRanges", _string, MANY),
    10: ("externalName", _string, ONE),
    11: ("externalTrafficPolicy", _string, ONE),
    12: ("healthCheckNodePort", _int, ONE),
    13: ("publishNotReadyAddresses", _bool, ONE),
    17: ("ipFamilyPolicy", _string, ONE),
    18: ("clusterIPs", _string, MANY),
    19: ("ipFamilies", _string, MANY),
}
_RULE: Schema = {
    1: ("verbs", _string, MANY),
    2: ("apiGroups", _string, MANY),
    3: ("resources", _string, MANY),
    4: ("resourceNames", _string, MANY),
    5: ("nonResourceURLs", _string, MANY),
}
_BINDING: Schema = {
    2: (
        "subjects",
        _message(
            {
                1: ("kind", _string, ONE),
                2: ("apiGroup", _string, ONE),
                3: ("name", _string, ONE),
                4: ("namespace", _string, ONE),
            }
        ),
        MANY,
    ),
    3: (
        "roleRef",
        _message(
            {1: ("apiGroup", _string, ONE), 2: ("kind", _string, ONE), 3: ("name", _string, ONE)}
        ),
        ONE,
    ),
}
_RESOURCE_ATTRIBUTES: Schema = {
    1: ("namespace", _string, ONE),
    2: ("verb", _string, ONE),
    3: ("group", _string, ONE),
    4: ("version", _string, ONE),
    5: ("resource", _string, ONE),
    6: ("subresource", _string, ONE),
    7: ("name", _string, ONE),
}
_NON_RESOURCE_ATTRIBUTES: Schema = {1: ("path", _string, ONE), 2: ("verb", _string, ONE)}
_ACCESS_SPEC: Schema = {
    1: ("resourceAttributes", _message(_RESOURCE_ATTRIBUTES), ONE),
    2: ("nonResourceAttributes", _message(_NON_RESOURCE_ATTRIBUTES), ONE),
    3: ("user", _string, ONE),
    4: ("groups", _string, MANY),
    5: (
        "extra",
        _entry(lambda raw: decode_kind({1: ("items", _string, MANY)}, raw).get("items", [])),
        MAP,
    ),
    6: ("uid", _string, ONE),
}


def _kind(**fields: tuple[int, Decoder, str]) -> Schema:
    schema: Schema = {1: ("metadata", _message(_META), ONE)}
    for name, (number, decoder, how) in fields.items():
        schema[number] = (name, decoder, how)
    return schema


_OBJECT_REF: Schema = {
    1: ("kind", _string, ONE),
    2: ("namespace", _string, ONE),
    3: ("name", _string, ONE),
    4: ("uid", _string, ONE),
    5: ("apiVersion", _string, ONE),
}
_RBAC = "rbac.authorization.k8s.io/v1"
_AUTHZ = "authorization.k8s.io/v1"
_AUTHN = "authentication.k8s.io/v1"

KINDS: dict[tuple[str, str], Schema] = {
    ("apps/v1", "Deployment"): _kind(spec=(2, _message(_DEPLOYMENT_SPEC), ONE)),
    ("v1", "Pod"): _kind(spec=(2, _message(_POD_SPEC), ONE)),
    ("v1", "Service"): _kind(spec=(2, _message(_SERVICE_SPEC), ONE)),
    ("v1", "ServiceAccount"): _kind(
        secrets=(2, _message(_OBJECT_REF), MANY),
        imagePullSecrets=(3, _message(_NAME_REF), MANY),
        automountServiceAccountToken=(4, _bool, KEEP),
    ),
    (_RBAC, "Role"): _kind(rules=(2, _message(_RULE), MANY)),
    (_RBAC, "ClusterRole"): _kind(
        rules=(2, _message(_RULE), MANY),
        aggregationRule=(
            3,
            _message({1: ("clusterRoleSelectors", _message(_SELECTOR), MANY)}),
            ONE,
        ),
    ),
    (_RBAC, "RoleBinding"): {1: ("metadata", _message(_META), ONE), **_BINDING},
    (_RBAC, "ClusterRoleBinding"): {1: ("metadata", _message(_META), ONE), **_BINDING},
    (_AUTHN, "TokenRequest"): _kind(
        spec=(
            2,
            _message(
                {
                    1: ("audiences", _string, MANY),
                    3: (
                        "boundObjectRef",
                        _message(
                            {
                                1: ("kind", _string, ONE),
                                2: ("apiVersion", _string, ONE),
                                3: ("name", _string, ONE),
                                4: ("uid", _string, ONE),
                            }
                        ),
                        ONE,
                    ),
                    4: ("expirationSeconds", _int, KEEP),
                }
            ),
            ONE,
        )
    ),
    (_AUTHN, "TokenReview"): _kind(
        spec=(2, _message({1: ("token", _string, ONE), 2: ("audiences", _string, MANY)}), ONE)
    ),
    (_AUTHN, "SelfSubjectReview"): _kind(),
    (_AUTHZ, "SelfSubjectAccessReview"): _kind(spec=(2, _message(_ACCESS_SPEC), ONE)),
    (_AUTHZ, "SubjectAccessReview"): _kind(spec=(2, _message(_ACCESS_SPEC), ONE)),
    (_AUTHZ, "LocalSubjectAccessReview"): _kind(spec=(2, _message(_ACCESS_SPEC), ONE)),
    (_AUTHZ, "SelfSubjectRulesReview"): _kind(
        spec=(2, _message({1: ("namespace", _string, ONE)}), ONE)
    ),
}
