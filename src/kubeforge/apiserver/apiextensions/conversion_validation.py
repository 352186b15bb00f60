"""``spec.conversion`` of a CRD, checked as a 1.32 server checks it when the CRD is written.

Kubernetes validates the internal form of the CRD, so the paths are its names:
``spec.conversion.webhookClientConfig`` (``spec.conversion.webhook.clientConfig`` in v1)
and ``spec.conversion.conversionReviewVersions``. Written from apiextensions-apiserver
v0.32.0 ``pkg/apis/apiextensions/validation/validation.go``
(``validateCustomResourceConversion``, ``validateConversionReviewVersions``); the URL
and service rules are ``k8s.io/apiserver``'s, shared with admission webhooks
(``meta.webhook_client``).

Entry point: ``conversion_errors(spec)``.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.apiserver.meta.webhook_client import client_config_errors
from kubeforge.core.names import dns1035_label

__all__ = ["conversion_errors"]

_PATH = "spec.conversion"
_CONFIG = f"{_PATH}.webhookClientConfig"
_VERSIONS = f"{_PATH}.conversionReviewVersions"
_ACCEPTED = ("v1", "v1beta1")
_ONE_OF = ", ".join(_ACCEPTED)


def conversion_errors(spec: dict[str, Any]) -> list[FieldError]:
    conversion = spec.get("conversion")
    if not isinstance(conversion, dict):
        return []
    strategy = conversion.get("strategy")
    if strategy not in ("None", "Webhook"):
        return [FieldError.not_supported(f"{_PATH}.strategy", strategy, ("None", "Webhook"))]
    webhook = conversion.get("webhook")
    if not isinstance(webhook, dict):
        webhook = {}
    config = webhook.get("clientConfig")
    versions = webhook.get("conversionReviewVersions") or []
    if strategy != "Webhook":
        errors = []
        detail = "should not be set when strategy is not set to Webhook"
        if config is not None:
            errors.append(FieldError.forbidden(_CONFIG, detail))
        if versions:
            errors.append(FieldError.forbidden(_VERSIONS, detail))
        return errors
    errors = _client_config_errors(config)
    return errors + _review_version_errors(versions)


def _client_config_errors(config: Any) -> list[FieldError]:
    if not isinstance(config, dict):
        return [FieldError.required(_CONFIG, "required when strategy is set to Webhook")]
    errors = client_config_errors(config, _CONFIG)
    bundle = config.get("caBundle")
    if bundle:
        try:
            base64.b64decode(str(bundle), validate=True)
        except (binascii.Error, ValueError):
            errors.append(FieldError.invalid(f"{_CONFIG}.caBundle", bundle, "illegal base64 data"))
    return errors


def _review_version_errors(versions: Any) -> list[FieldError]:
    if not isinstance(versions, list) or not versions:
        return [FieldError.required(_VERSIONS)]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, version in enumerate(versions):
        if version in seen:
            errors.append(FieldError.invalid(f"{_VERSIONS}[{i}]", version, "duplicate version"))
            continue
        seen.add(str(version))
        errors += [
            FieldError.invalid(f"{_VERSIONS}[{i}]", version, p) for p in dns1035_label(str(version))
        ]
    if not any(v in _ACCEPTED for v in versions):
        errors.append(
            FieldError.invalid(
                _VERSIONS, _string_slice(versions), f"must include at least one of {_ONE_OF}"
            )
        )
    return errors


def _string_slice(values: list[Any]) -> GoValue:
    """``[]string{"v2"}``: how Go's field errors print a list of versions."""
    return GoValue("[]string{" + ", ".join(GoValue.quote(str(v)) for v in values) + "}")
