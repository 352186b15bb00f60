"""A container's ``env`` and ``envFrom`` (``ValidateEnv``, ``validateEnvVarValueFrom``,
``validateObjectFieldSelector``, ``validateContainerResourceFieldSelector`` and
``ValidateEnvFrom`` of kubernetes 1.32): names (relaxed: RelaxedEnvironmentVariableValidation
is beta, on, in 1.32), exactly one source per ``valueFrom``, downward API field paths the
pod strategy can convert, resource names and divisors, and the names and keys a
reference points at.

A ``fieldRef`` without ``apiVersion`` is given ``v1`` first (``SetDefaults_ObjectFieldSelector``).

Entry points: ``container_env(container, path)``, ``default_env(container)``.

>>> env = [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.nam"}}}]
>>> container = {"env": env}; default_env(container)
>>> [str(e) for e in container_env(container, "spec.containers[0]")]
['spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "metadata.nam": error converting fieldPath: field label not supported: metadata.nam']
"""  # noqa: E501

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.resources import canonical_quantity, quantity_value
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.validation import mask_trailing_dash
from kubeforge.core.names import config_map_key, dns1123_subdomain, qualified_name

__all__ = ["container_env", "default_env"]

_RELAXED = "a valid environment variable name must consist only of printable ASCII characters other than '='"  # noqa: E501
_ENV_FIELDS = ("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
               "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP",
               "status.podIPs")  # fmt: skip
# What ConvertDownwardAPIFieldLabel accepts for v1 (``spec.host`` is the old nodeName).
_CONVERTIBLE = ("metadata.annotations", "metadata.labels", "metadata.name",
                "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.restartPolicy",
                "spec.serviceAccountName", "spec.schedulerName", "status.phase",
                "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")  # fmt: skip
_RESOURCES = ("limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu",
              "requests.ephemeral-storage", "requests.memory")  # fmt: skip
_SIZES = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")
_SIZES_TEXT = ", ".join(_SIZES)
_DIVISORS = {
    "cpu": (("1m", "1"), "only divisor's values 1m and 1 are supported with the cpu resource"),
    "memory": (_SIZES, f"only divisor's values {_SIZES_TEXT} are supported with the memory resource"),  # noqa: E501
    "ephemeral-storage": (_SIZES, f"only divisor's values {_SIZES_TEXT} are supported with the local ephemeral storage resource"),  # noqa: E501
    "hugepages": (_SIZES, f"only divisor's values {_SIZES_TEXT} are supported with the hugepages resource"),  # noqa: E501
}  # fmt: skip
_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef")


def default_env(container: dict[str, Any]) -> None:
    for var in container.get("env") or []:
        source = var.get("valueFrom") if isinstance(var, dict) else None
        field = source.get("fieldRef") if isinstance(source, dict) else None
        if isinstance(field, dict) and not field.get("apiVersion"):
            field["apiVersion"] = "v1"


def _env_name(name: str, path: str) -> list[FieldError]:
    """``IsRelaxedEnvVarName``."""
    if any(not " " <= ch <= "~" or ch == "=" for ch in name):
        return [FieldError.invalid(path, name, _RELAXED)]
    return []


def _subscripted(path: str) -> tuple[str, str] | None:
    """``SplitMaybeSubscriptedPath``: ``metadata.labels['key']`` as (path, key)."""
    if not path.endswith("']"):
        return None
    head, found, key = path[:-2].partition("['")
    return (head, key) if found and head else None


def _converted(field_path: str) -> tuple[str, str]:
    """``ConvertDownwardAPIFieldLabel`` for v1: the internal path, or "" and the error."""
    split = _subscripted(field_path)
    if split is not None:
        if split[0] in ("metadata.annotations", "metadata.labels"):
            return field_path, ""
        return "", f"field label does not support subscript: {field_path}"
    if field_path == "spec.host":
        return "spec.nodeName", ""
    if field_path in _CONVERTIBLE:
        return field_path, ""
    return "", f"field label not supported: {field_path}"


def _field_ref(ref: dict[str, Any], path: str) -> list[FieldError]:
    version, field_path = ref.get("apiVersion") or "", ref.get("fieldPath") or ""
    if not version:
        return [FieldError.required(f"{path}.apiVersion")]
    if not field_path:
        return [FieldError.required(f"{path}.fieldPath")]
    internal, problem = _converted(field_path)
    if version != "v1":
        internal, problem = "", f"unsupported pod version: {version}"
    if problem:
        detail = f"error converting fieldPath: {problem}"
        return [FieldError.invalid(f"{path}.fieldPath", field_path, detail)]
    split = _subscripted(internal)
    if split is not None:
        key = split[1].lower() if split[0] == "metadata.annotations" else split[1]
        return [FieldError.invalid(path, key, m) for m in qualified_name(key)]
    if internal not in _ENV_FIELDS:
        return [FieldError.not_supported(f"{path}.fieldPath", internal, _ENV_FIELDS)]
    return []


def _divisor(resource: str, divisor: Any, path: str) -> list[FieldError]:
    if divisor is None or not quantity_value(divisor):
        return []  # unset, or zero: Go compares with the zero Quantity
    kind = resource.split(".", 1)[-1]
    if kind.startswith("hugepages-"):
        kind = "hugepages"
    allowed, detail = _DIVISORS.get(kind, ((), ""))
    if detail and canonical_quantity(str(divisor)) not in allowed:
        return [FieldError.invalid(f"{path}.divisor", resource, detail)]
    return []


def _resource_ref(ref: dict[str, Any], path: str) -> list[FieldError]:
    resource = ref.get("resource") or ""
    errors: list[FieldError] = []
    if not resource:
        errors.append(FieldError.required(f"{path}.resource"))
    elif resource not in _RESOURCES and not resource.startswith(
        ("requests.hugepages-", "limits.hugepages-")
    ):
        errors.append(FieldError.not_supported(f"{path}.resource", resource, _RESOURCES))
    return errors + _divisor(resource, ref.get("divisor"), path)


def _key_ref(ref: dict[str, Any], path: str) -> list[FieldError]:
    """``validateConfigMapKeySelector`` / ``validateSecretKeySelector``."""
    name, key = str(ref.get("name") or ""), str(ref.get("key") or "")
    errors = [FieldError.invalid(f"{path}.name", name, m) for m in dns1123_subdomain(name)]
    if not key:
        return [*errors, FieldError.required(f"{path}.key")]
    return errors + [FieldError.invalid(f"{path}.key", key, m) for m in config_map_key(key)]


def _value_from(var: dict[str, Any], path: str) -> list[FieldError]:
    source = var.get("valueFrom")
    if not isinstance(source, dict):
        return []
    checks = {"fieldRef": _field_ref, "resourceFieldRef": _resource_ref,
              "configMapKeyRef": _key_ref, "secretKeyRef": _key_ref}  # fmt: skip
    errors: list[FieldError] = []
    count = 0
    for key in _SOURCES:
        if isinstance(source.get(key), dict):
            count += 1
            errors += checks[key](source[key], f"{path}.{key}")
    if count == 0:
        detail = "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"  # noqa: E501
        errors.append(FieldError.invalid(path, "", detail))
    elif var.get("value"):
        errors.append(
            FieldError.invalid(path, "", "may not be specified when `value` is not empty")
        )
    elif count > 1:
        detail = "may not have more than one field specified at a time"
        errors.append(FieldError.invalid(path, "", detail))
    return errors


def _env_source(ref: dict[str, Any], path: str) -> list[FieldError]:
    name = str(ref.get("name") or "")
    if not name:
        return [FieldError.required(f"{path}.name")]
    masked = mask_trailing_dash(name)  # validated as a name prefix, as Go does here
    return [FieldError.invalid(f"{path}.name", name, m) for m in dns1123_subdomain(masked)]


def _env_from(sources: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, source in enumerate(sources if isinstance(sources, list) else ()):
        if not isinstance(source, dict):
            continue
        at = f"{path}[{i}]"
        if source.get("prefix"):
            errors += _env_name(str(source["prefix"]), f"{at}.prefix")
        count = 0
        for key in ("configMapRef", "secretRef"):
            if isinstance(source.get(key), dict):
                count += 1
                errors += _env_source(source[key], f"{at}.{key}")
        if count == 0:
            detail = "must specify one of: `configMapRef` or `secretRef`"
            errors.append(FieldError.invalid(path, "", detail))
        elif count > 1:
            detail = "may not have more than one field specified at a time"
            errors.append(FieldError.invalid(path, "", detail))
    return errors


def container_env(container: dict[str, Any], path: str) -> list[FieldError]:
    """``env`` then ``envFrom`` of the container at ``path``."""
    errors: list[FieldError] = []
    env = container.get("env")
    for i, var in enumerate(env if isinstance(env, list) else ()):
        if not isinstance(var, dict):
            continue
        at = f"{path}.env[{i}]"
        name = str(var.get("name") or "")
        if not name:
            errors.append(FieldError.required(f"{at}.name"))
        else:
            errors += _env_name(name, f"{at}.name")
        errors += _value_from(var, f"{at}.valueFrom")
    return errors + _env_from(container.get("envFrom"), f"{path}.envFrom")
