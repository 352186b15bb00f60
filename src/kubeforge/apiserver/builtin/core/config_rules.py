"""Validation of Secrets and ConfigMaps: 1.32's ``ValidateSecret``/``ValidateSecretUpdate`` and
``ValidateConfigMap``/``ValidateConfigMapUpdate`` (pkg/apis/core/validation), in their order
and words: key names, the 1 MiB total, each Secret type's required keys, and immutability.

Entry points: ``secret_errors``, ``secret_update_errors``, ``config_map_errors``,
``config_map_update_errors``; the strategies in ``core.objects`` call them.

>>> [str(e) for e in secret_errors({"type": "kubernetes.io/tls", "data": {"tls.crt": ""}})]
['data[tls.key]: Required value']
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from kubeforge.apiserver.builtin.core.gojson import unmarshal_object_error
from kubeforge.apiserver.failures import FieldError
from kubeforge.core.names import config_map_key

__all__ = [
    "MAX_SECRET_SIZE",
    "config_map_errors",
    "config_map_update_errors",
    "decoded_data",
    "secret_errors",
    "secret_update_errors",
]

MAX_SECRET_SIZE = 1024 * 1024
"""core.MaxSecretSize: the most bytes of data a Secret (or a ConfigMap) may hold."""

_IMMUTABLE = "field is immutable when `immutable` is set"
_REDACTED = "<secret contents redacted>"
_SERVICE_ACCOUNT_NAME = "kubernetes.io/service-account.name"


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def decoded_data(obj: dict[str, Any], field: str = "data") -> dict[str, bytes]:
    """``obj[field]`` as the Go ``map[string][]byte`` holds it: each value base64-decoded
    (the body decoder already refused what is not base64)."""
    decoded: dict[str, bytes] = {}
    for key, value in _mapping(obj.get(field)).items():
        try:
            decoded[key] = base64.b64decode(str(value or ""), validate=True)
        except (binascii.Error, ValueError):
            decoded[key] = b""
    return decoded


def _key_errors(keys: list[str], field: str) -> list[FieldError]:
    return [
        FieldError.invalid(f"{field}[{key}]", key, message)
        for key in keys
        for message in config_map_key(key)
    ]


def _json_key(data: dict[str, bytes], key: str) -> list[FieldError]:
    if key not in data:
        return [FieldError.required(f"data[{key}]")]
    problem = unmarshal_object_error(data[key])
    return [FieldError.invalid(f"data[{key}]", _REDACTED, problem)] if problem else []


def _type_errors(
    secret_type: str, annotations: dict[str, Any], data: dict[str, bytes]
) -> list[FieldError]:
    if secret_type == "kubernetes.io/service-account-token":
        # Only the account's name is required: a controller adds the uid and token later.
        if not annotations.get(_SERVICE_ACCOUNT_NAME):
            return [FieldError.required(f"metadata.annotations[{_SERVICE_ACCOUNT_NAME}]")]
    elif secret_type == "kubernetes.io/dockercfg":
        return _json_key(data, ".dockercfg")
    elif secret_type == "kubernetes.io/dockerconfigjson":
        return _json_key(data, ".dockerconfigjson")
    elif secret_type == "kubernetes.io/basic-auth":
        # Either may be empty, but one of the two must be there.
        if "username" not in data and "password" not in data:
            return [FieldError.required("data[username]"), FieldError.required("data[password]")]
    elif secret_type == "kubernetes.io/ssh-auth":
        if not data.get("ssh-privatekey"):
            return [FieldError.required("data[ssh-privatekey]")]
    elif secret_type == "kubernetes.io/tls":
        return [
            FieldError.required(f"data[{key}]") for key in ("tls.crt", "tls.key") if key not in data
        ]
    return []


def secret_errors(secret: dict[str, Any]) -> list[FieldError]:
    """``ValidateSecret`` past the metadata: keys, total size, then the type's own keys."""
    data = decoded_data(secret)
    errors = _key_errors(list(data), "data")
    if sum(map(len, data.values())) > MAX_SECRET_SIZE:
        errors.append(FieldError.too_long("data", "", MAX_SECRET_SIZE))
    annotations = _mapping(_mapping(secret.get("metadata")).get("annotations"))
    errors += _type_errors(str(secret.get("type") or ""), annotations, data)
    return errors


def secret_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateSecretUpdate`` past the metadata: the type never changes, an immutable
    Secret's data neither, then every create rule."""
    errors: list[FieldError] = []
    if new.get("type") != old.get("type"):
        errors.append(FieldError.invalid("type", new.get("type"), "field is immutable"))
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errors.append(FieldError.forbidden("immutable", _IMMUTABLE))
        if decoded_data(new) != decoded_data(old):
            errors.append(FieldError.forbidden("data", _IMMUTABLE))
    return errors + secret_errors(new)


def config_map_errors(config_map: dict[str, Any]) -> list[FieldError]:
    """``ValidateConfigMap`` past the metadata: keys of both maps, no key in both, and the
    1 MiB total (reported at the empty path: it concerns the whole object)."""
    data = _mapping(config_map.get("data"))
    binary = decoded_data(config_map, "binaryData")
    errors: list[FieldError] = []
    size = 0
    for key, value in data.items():
        errors += _key_errors([key], "data")
        if key in binary:
            errors.append(
                FieldError.invalid(f"data[{key}]", key, "duplicate of key present in binaryData")
            )
        if not isinstance(value, str):
            errors.append(FieldError.invalid(f"data[{key}]", value, "must be a string"))
        size += len(str(value).encode())
    errors += _key_errors(list(binary), "binaryData")
    size += sum(map(len, binary.values()))
    if size > MAX_SECRET_SIZE:
        errors.append(FieldError.too_long("", "", MAX_SECRET_SIZE))
    return errors


def config_map_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateConfigMapUpdate`` past the metadata: immutability first, then every create rule."""
    errors: list[FieldError] = []
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errors.append(FieldError.forbidden("immutable", _IMMUTABLE))
        if _mapping(new.get("data")) != _mapping(old.get("data")):
            errors.append(FieldError.forbidden("data", _IMMUTABLE))
        if decoded_data(new, "binaryData") != decoded_data(old, "binaryData"):
            errors.append(FieldError.forbidden("binaryData", _IMMUTABLE))
    return errors + config_map_errors(new)
