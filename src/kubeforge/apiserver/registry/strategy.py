"""Per-resource rules the engine applies around every write: defaults, validation, status
handling, generation, graceful deletion and the field labels a ``fieldSelector`` may use.

They mirror the "strategies" of the real server's registries (``pkg/registry/...``),
reduced to what clients can observe. ``Strategy`` is the generic base (what a plain
built-in such as a ConfigMap does); ``simple_strategy`` picks the one for a
built-in resource; pods and services live in ``workloads``, CRDs and custom
resources in ``crds``.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.failures import FieldError, bad_request, forbidden
from kubeforge.apiserver.meta.fields import prune_metadata
from kubeforge.apiserver.meta.validation import (
    NameValidator,
    dns1123_label,
    dns1123_subdomain,
)
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.smd.schema import builtin_root, prune_unknown

__all__ = ["Strategy", "nested_str", "non_metadata", "simple_strategy"]


def nested_str(obj: dict[str, Any], path: str) -> str:
    """The value at dotted ``path`` printed the way Go's ``fmt.Sprint`` would, ``""`` if absent."""
    value: Any = obj
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return ""
        value = value[part]
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or isinstance(value, dict | list):
        return ""
    return str(value)


def non_metadata(obj: dict[str, Any]) -> dict[str, Any]:
    """Everything but ``metadata``: what must change for ``generation`` to move."""
    return {k: v for k, v in obj.items() if k != "metadata"}


class Strategy:
    """How one resource is created, updated, deleted and selected (a ConfigMap's rules)."""

    has_generation = False
    """Whether ``metadata.generation`` is kept (bumped on non-metadata changes)."""
    status_subresource = False
    """With ``/status``: the main resource ignores ``.status``; ``/status`` takes only it."""
    return_deleted_object = False
    """Immediate DELETE answers the object (True) or a ``Status`` Success (False)."""
    allow_create_on_update = False
    """PUT on a missing object creates it (Leases, Events)."""
    allow_unconditional_update = True
    """PUT without ``metadata.resourceVersion`` overwrites (False for custom resources)."""
    name_validator: NameValidator = staticmethod(dns1123_subdomain)
    extra_fields: tuple[str, ...] = ()
    """Field labels beyond ``metadata.name``/``metadata.namespace``."""
    top_level_fields: tuple[str, ...] | None = None
    """The kind's fields besides apiVersion/kind/metadata; others are unknown (None: any)."""

    def __init__(self, served: ServedResource) -> None:
        self.served = served

    @property
    def kind(self) -> str:
        return self.served.info.kind

    # --- selection -------------------------------------------------------------------------

    def supported_fields(self) -> frozenset[str]:
        return frozenset(("metadata.name", "metadata.namespace", *self.extra_fields))

    def field_set(self, obj: dict[str, Any]) -> dict[str, str]:
        meta = obj.get("metadata") or {}
        fields = {
            "metadata.name": str(meta.get("name") or ""),
            "metadata.namespace": str(meta.get("namespace") or ""),
        }
        for path in self.extra_fields:
            fields[path] = nested_str(obj, path)
        return fields

    # --- writes ----------------------------------------------------------------------------

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        """Defaults and server-owned fields on a new object (status reset, ...)."""
        if self.status_subresource:
            obj.pop("status", None)

    def record_requester(self, obj: dict[str, Any], user: UserInfo) -> None:
        """Fields a create takes from the authenticated user, overriding what was sent
        (a CertificateSigningRequest's requestor); most kinds have none."""

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """Main-resource update: keep the stored status when it has its own subresource."""
        if self.status_subresource:
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)

    def on_read(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` as a read from storage shows it; never changes ``obj`` and returns it
        as is when nothing applies (custom resources fill their CRD's defaults here)."""
        return obj

    def normalize(self, obj: dict[str, Any]) -> list[str]:
        """Drop unknown fields (as decoding into the Go type does); returns their paths.

        Built-ins are checked at every depth against the Kubernetes 1.32 OpenAPI (see
        ``ssa.schema``); custom resources override this with their CRD's schema.
        """
        if self.top_level_fields is None:
            return []
        dropped = prune_metadata(obj)
        known = {"apiVersion", "kind", "metadata", *self.top_level_fields}
        for key in [k for k in obj if k not in known]:
            del obj[key]
            dropped.append(key)
        info = self.served.info
        atom = builtin_root(info.group, info.version, info.kind)
        if atom is not None:
            dropped += prune_unknown(obj, atom)
        return dropped

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.validate(new)

    def convert(self, objs: list[dict[str, Any]], api_version: str) -> list[dict[str, Any]]:
        """``objs`` at ``api_version``: relabelled, as a CRD's ``None`` conversion does (custom
        resources with a conversion webhook call it instead)."""
        return [
            obj if obj.get("apiVersion") == api_version else {**obj, "apiVersion": api_version}
            for obj in objs
        ]

    def take_warnings(self) -> list[str]:
        """Warnings the last ``validate``/``validate_update`` produced (most kinds: none)."""
        return []

    # --- deletion --------------------------------------------------------------------------

    def grace_period(self, obj: dict[str, Any], requested: int | None) -> int:
        """Seconds the object lingers after DELETE before it is removed (0 = at once)."""
        return 0

    def keep_on_delete(self, obj: dict[str, Any]) -> bool:
        """Extra reasons (beyond finalizers) for DELETE to only mark the object."""
        return False

    def mark_deleting(self, obj: dict[str, Any]) -> None:
        """Changes made when DELETE starts a deletion (namespaces turn Terminating)."""

    def before_delete(self, obj: dict[str, Any]) -> None:
        """Raise a ``StatusError`` to refuse a DELETE (protected namespaces)."""

    def committed(self, obj: dict[str, Any], gone: bool) -> None:
        """Called after every durable write of this resource (never inside a storage listener,
        so it may write again: CRD serving and cleanup hang off this)."""

    def may_delete_now(self, obj: dict[str, Any]) -> bool:
        """Whether a deleting object with no finalizers left may disappear."""
        grace = obj["metadata"].get("deletionGracePeriodSeconds")
        return not obj["metadata"].get("finalizers") and (grace is None or grace == 0)


_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")


def _config_key_errors(data: Any, field: str) -> list[FieldError]:
    if data is None:
        return []
    if not isinstance(data, dict):
        return [FieldError("Invalid", field, "must be an object", data)]
    errors = []
    for key in data:
        if not _CONFIG_KEY.fullmatch(key) or len(key) > 253:
            errors.append(
                FieldError(
                    "Invalid",
                    field,
                    "a valid config key must consist of alphanumeric characters, '-', '_' or "
                    "'.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for "
                    "validation is '[-._a-zA-Z0-9]+')",
                    key,
                )
            )
    return errors


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
        errors = _config_key_errors(obj.get("data"), "data")
        errors += _config_key_errors(obj.get("binaryData"), "binaryData")
        for key, value in (obj.get("data") or {}).items():
            if not isinstance(value, str):
                errors.append(FieldError("Invalid", f"data[{key}]", "must be a string", value))
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        if old.get("immutable") is True:
            for field in ("data", "binaryData"):
                if new.get(field) != old.get(field):
                    errors.append(
                        FieldError("Forbidden", field, "field is immutable when `immutable` is set")
                    )
            if new.get("immutable") is not True:
                errors.append(
                    FieldError(
                        "Forbidden", "immutable", "field is immutable when `immutable` is set"
                    )
                )
        return errors


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
        return _config_key_errors(obj.get("data"), "data")

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = super().validate_update(new, old)
        if new.get("type") != old.get("type"):
            errors.append(FieldError("Invalid", "type", "field is immutable", new.get("type")))
        return errors


_PROTECTED_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})


class NamespaceStrategy(Strategy):
    status_subresource = True
    return_deleted_object = True
    name_validator = staticmethod(dns1123_label)
    extra_fields = ("status.phase",)
    top_level_fields = ("spec", "status")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj["spec"] = {"finalizers": ["kubernetes"]}
        obj["status"] = {"phase": "Active"}
        self._label(obj)

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
        pass  # a node registers itself together with its status

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


class LeaseStrategy(Strategy):
    allow_create_on_update = True
    top_level_fields = ("spec",)


_SIMPLE: dict[str, type[Strategy]] = {
    "configmaps": ConfigMapStrategy,
    "secrets": SecretStrategy,
    "namespaces": NamespaceStrategy,
    "nodes": NodeStrategy,
    "events": EventStrategy,
    "leases": LeaseStrategy,
}


def simple_strategy(served: ServedResource) -> Strategy:
    """The strategy of a built-in resource that needs no cluster state (not pods/services)."""
    return _SIMPLE.get(served.info.plural, Strategy)(served)
