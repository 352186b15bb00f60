"""Core rules of the plain core/v1 kinds: ConfigMaps, Secrets, Namespaces, Nodes, Events and
ServiceAccounts (Endpoints: ``endpoints``).

Entry points: the strategy classes, listed in ``core.kinds``.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from kubeforge.apiserver.builtin.core.config_rules import (
    config_map_errors,
    config_map_update_errors,
    secret_errors,
    secret_update_errors,
)
from kubeforge.apiserver.builtin.core.node_rules import (
    clean_secret_references,
    namespace_finalizer_errors,
    namespace_status_errors,
    node_errors,
    node_update_errors,
    node_warnings,
    service_account_warnings,
)
from kubeforge.apiserver.builtin.core.secret_warnings import secret_warnings
from kubeforge.apiserver.builtin.event_rules import legacy_errors
from kubeforge.apiserver.failures import FieldError, bad_request, forbidden
from kubeforge.apiserver.meta.validation import dns1123_label, path_segment_name
from kubeforge.apiserver.registry.strategy import Strategy, nested_str

__all__ = [
    "ConfigMapStrategy",
    "EventStrategy",
    "NamespaceStrategy",
    "NodeStrategy",
    "SecretStrategy",
    "ServiceAccountStrategy",
]


class ServiceAccountStrategy(Strategy):
    top_level_fields: tuple[str, ...] | None = (
        "secrets",
        "imagePullSecrets",
        "automountServiceAccountToken",
    )

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        clean_secret_references(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        clean_secret_references(new)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return service_account_warnings(obj, None)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return service_account_warnings(new, old)


def _check_base64(data: Any, field: str) -> None:
    # The real server decodes []byte fields while reading the body: bad base64 is a 400.
    if not isinstance(data, dict):
        return
    for value in data.values():
        if not isinstance(value, str):
            raise bad_request(f"{field}: expected a base64 string")
        try:
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as error:
            raise bad_request(f"illegal base64 data in {field}: {error}") from None


class ConfigMapStrategy(Strategy):
    top_level_fields: tuple[str, ...] | None = ("data", "binaryData", "immutable")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        _check_base64(obj.get("binaryData"), "binaryData")

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _check_base64(new.get("binaryData"), "binaryData")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return config_map_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return config_map_update_errors(new, old)


class SecretStrategy(ConfigMapStrategy):
    extra_fields = ("type",)
    top_level_fields = ("data", "stringData", "type", "immutable")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self._normalise(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        self._normalise(new)

    @staticmethod
    def _normalise(obj: dict[str, Any]) -> None:
        _check_base64(obj.get("data"), "data")
        obj.setdefault("type", "Opaque")
        string_data = obj.pop("stringData", None)
        if isinstance(string_data, dict):  # stringData is write-only: folded into data
            data = obj.setdefault("data", {})
            for key, value in string_data.items():
                data[key] = base64.b64encode(str(value).encode()).decode()

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return secret_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return secret_update_errors(new, old)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return secret_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return secret_warnings(new)


_PROTECTED_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})


class NamespaceStrategy(Strategy):
    status_subresource = True
    return_deleted_object = True
    name_validator = staticmethod(dns1123_label)
    extra_fields = ("status.phase",)
    top_level_fields = ("spec", "status")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        # The finalizers sent are kept, and "kubernetes" added to them (never defaulted:
        # it may be removed over the namespace's life).
        spec = obj.get("spec")
        spec = spec if isinstance(spec, dict) else {}
        finalizers = spec.get("finalizers")
        finalizers = finalizers if isinstance(finalizers, list) else []
        if "kubernetes" not in finalizers:
            finalizers = [*finalizers, "kubernetes"]
        obj["spec"] = {**spec, "finalizers": finalizers}
        obj["status"] = {"phase": "Active"}
        self._label(obj)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        finalizers = (obj.get("spec") or {}).get("finalizers")
        return namespace_finalizer_errors(finalizers, "spec.finalizers", indexed=False)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return []  # ValidateNamespaceUpdate checks the metadata only

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return namespace_status_errors(new)

    def validate_finalize(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        finalizers = (new.get("spec") or {}).get("finalizers")
        return namespace_finalizer_errors(finalizers, "spec.finalizers", indexed=True)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        # spec.finalizers changes only through /finalize; status only through /status.
        new["spec"] = old.get("spec", {})
        new["status"] = old.get("status", {})
        self._label(new)

    @staticmethod
    def _label(obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        if meta.get("name"):
            labels = meta.setdefault("labels", {})
            labels["kubernetes.io/metadata.name"] = meta["name"]

    def keep_on_delete(self, obj: dict[str, Any]) -> bool:
        return bool((obj.get("spec") or {}).get("finalizers"))

    def before_delete(self, obj: dict[str, Any]) -> None:
        name = obj["metadata"]["name"]
        if name in _PROTECTED_NAMESPACES:
            raise forbidden(self.served.info, name, "this namespace may not be deleted")

    def mark_deleting(self, obj: dict[str, Any]) -> None:
        obj.setdefault("status", {})["phase"] = "Terminating"

    def may_delete_now(self, obj: dict[str, Any]) -> bool:
        return super().may_delete_now(obj) and not (obj.get("spec") or {}).get("finalizers")


class NodeStrategy(Strategy):
    status_subresource = True
    return_deleted_object = True
    extra_fields = ("spec.unschedulable",)
    top_level_fields = ("spec", "status")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        # A node registers itself together with its status; the dynamic kubelet
        # configuration is gone (dropped on create, and on update unless in use).
        (obj.get("spec") or {}).pop("configSource", None)
        (obj.get("status") or {}).pop("config", None)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        if not (old.get("spec") or {}).get("configSource"):
            (new.get("spec") or {}).pop("configSource", None)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return node_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return node_errors(new) + node_update_errors(new, old)

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return node_update_errors(new, old)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return node_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return node_warnings(new)

    def field_set(self, obj: dict[str, Any]) -> dict[str, str]:
        fields = super().field_set(obj)
        fields["spec.unschedulable"] = fields["spec.unschedulable"] or "false"
        return fields


class EventStrategy(Strategy):
    allow_create_on_update = True
    top_level_fields = (
        "involvedObject",
        "reason",
        "message",
        "source",
        "firstTimestamp",
        "lastTimestamp",
        "count",
        "type",
        "eventTime",
        "series",
        "action",
        "related",
        "reportingComponent",
        "reportingInstance",
    )
    extra_fields = (
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    )

    def field_set(self, obj: dict[str, Any]) -> dict[str, str]:
        fields = super().field_set(obj)
        fields["source"] = nested_str(obj, "source.component")
        return fields

    # Through /api/v1 only the legacy rules apply, and the store checks only that the
    # name is a path segment (rest.BeforeCreate's ValidateObjectMetaAccessor).
    name_validator = staticmethod(path_segment_name)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return legacy_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return legacy_errors(new)
