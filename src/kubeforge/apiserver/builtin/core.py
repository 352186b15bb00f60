"""Core built-ins beyond the first set: ServiceAccounts, Endpoints, and ``events.k8s.io/v1``
Events, which are the core/v1 Events seen through another representation.

A real server stores both Event APIs in one place and converts on the way in and out,
so an event written through either API is read through both. Here the core/v1 form
is stored (under the ``events`` key of the core group) and ``EventsRepresentation``
converts: ``regarding`` <-> ``involvedObject``, ``note`` <-> ``message``,
``reportingController`` <-> ``reportingComponent``, ``deprecated*`` <-> the legacy
fields. Field selectors on ``events.k8s.io`` use its own names (``regarding.name``,
``reportingController``) and are answered from the stored form.

Entry points: ``CORE_STRATEGIES`` (``(group, plural)`` -> strategy class) and
``REPRESENTATIONS`` (served ``(group, version, plural)`` -> representation).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.meta.validation import dns1123_subdomain, is_qualified_name
from kubeforge.apiserver.registry.served import Representation
from kubeforge.apiserver.registry.strategy import Strategy, nested_str

__all__ = [
    "CORE_STRATEGIES",
    "REPRESENTATIONS",
    "EndpointsStrategy",
    "EventsRepresentation",
    "EventsV1Strategy",
    "ServiceAccountStrategy",
]


class ServiceAccountStrategy(Strategy):
    top_level_fields: tuple[str, ...] | None = (
        "secrets",
        "imagePullSecrets",
        "automountServiceAccountToken",
    )


_PROTOCOLS = ("SCTP", "TCP", "UDP")


class EndpointsStrategy(Strategy):
    allow_create_on_update = True
    top_level_fields: tuple[str, ...] | None = ("subsets",)

    @staticmethod
    def _default(obj: dict[str, Any]) -> None:
        for subset in obj.get("subsets") or []:
            for port in (subset.get("ports") or []) if isinstance(subset, dict) else []:
                if isinstance(port, dict):
                    port.setdefault("protocol", "TCP")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self._default(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        self._default(new)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        subsets = obj.get("subsets") or []
        if not isinstance(subsets, list):
            return [FieldError("Invalid", "subsets", "must be a list", subsets)]
        errors: list[FieldError] = []
        for i, subset in enumerate(subsets):
            path = f"subsets[{i}]"
            if not isinstance(subset, dict):
                errors.append(FieldError("Invalid", path, "must be an object", subset))
                continue
            if not subset.get("addresses") and not subset.get("notReadyAddresses"):
                errors.append(
                    FieldError("Required", path, "must specify `addresses` or `notReadyAddresses`")
                )
            for key in ("addresses", "notReadyAddresses"):
                for j, address in enumerate(subset.get(key) or []):
                    errors += _address_errors(address, f"{path}.{key}[{j}]")
            ports = subset.get("ports") or []
            for j, port in enumerate(ports):
                errors += _port_errors(port, f"{path}.ports[{j}]", named=len(ports) > 1)
        return errors


def _address_errors(address: Any, path: str) -> list[FieldError]:
    ip = address.get("ip") if isinstance(address, dict) else None
    try:
        ipaddress.ip_address(str(ip))
    except ValueError:
        return [
            FieldError(
                "Invalid",
                f"{path}.ip",
                "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                ip,
            )
        ]
    return []


def _port_errors(port: Any, path: str, *, named: bool) -> list[FieldError]:
    if not isinstance(port, dict):
        return [FieldError("Invalid", path, "must be an object", port)]
    errors = []
    number = port.get("port")
    if not isinstance(number, int) or not 0 < number < 65536:
        errors.append(
            FieldError("Invalid", f"{path}.port", "must be between 1 and 65535, inclusive", number)
        )
    if port.get("protocol") not in _PROTOCOLS:
        errors.append(
            FieldError.not_supported(
                f"{path}.protocol", port.get("protocol"), ("SCTP", "TCP", "UDP")
            )
        )
    if named and not port.get("name"):
        errors.append(FieldError("Required", f"{path}.name"))
    return errors


# --- events.k8s.io/v1 --------------------------------------------------------------------

# events.k8s.io/v1 name -> core/v1 name, for the fields whose names differ.
_RENAMED = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingComponent",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}
_SHARED = ("eventTime", "series", "action", "reason", "related", "type", "reportingInstance")
_TO_SERVED = {core: served for served, core in _RENAMED.items()}


@dataclass(frozen=True)
class EventsRepresentation(Representation):
    """``events.k8s.io/v1`` Events over stored core/v1 Events."""

    def to_served(self, stored: dict[str, Any]) -> dict[str, Any]:
        if stored.get("apiVersion") == self.api_version:
            return stored
        out: dict[str, Any] = {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": stored.get("metadata") or {},
            # Not omitempty in the Go type: a legacy event shows "eventTime: null".
            "eventTime": stored.get("eventTime"),
        }
        for key, value in stored.items():
            if key in _SHARED:
                out[key] = value
            elif key in _TO_SERVED:
                out[_TO_SERVED[key]] = value
        return out

    def to_stored(self, served: dict[str, Any]) -> dict[str, Any]:
        if served.get("apiVersion") == "v1":
            return served  # already the stored form (a deletion step of a stored object)
        out: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": served.get("metadata") or {},
        }
        for key, value in served.items():
            if value is None or value == {}:
                continue  # nulls and empty structs are how Go shows "unset"
            if key in _SHARED:
                out[key] = value
            elif key in _RENAMED:
                out[_RENAMED[key]] = value
        return out


_EVENTS_V1 = EventsRepresentation(("", "events"), "events.k8s.io/v1", "Event")

REPRESENTATIONS: dict[tuple[str, str, str], Representation] = {
    ("events.k8s.io", "v1", "events"): _EVENTS_V1,
}

# events.k8s.io field label -> the stored core/v1 field it reads.
_EVENT_FIELDS = {
    "reason": "reason",
    "type": "type",
    "reportingController": "reportingComponent",
    **{
        f"regarding.{k}": f"involvedObject.{k}"
        for k in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")
    },
}

_LIMITS = {"reportingInstance": 128, "action": 128, "reason": 128, "note": 1024}


class EventsV1Strategy(Strategy):
    """``events.k8s.io/v1``: strict validation of new-style events, legacy fields refused."""

    allow_create_on_update = True
    top_level_fields: tuple[str, ...] | None = (*_SHARED, *_RENAMED)
    extra_fields = tuple(_EVENT_FIELDS)

    def field_set(self, obj: dict[str, Any]) -> dict[str, str]:
        meta = obj.get("metadata") or {}
        fields = {
            "metadata.name": str(meta.get("name") or ""),
            "metadata.namespace": str(meta.get("namespace") or ""),
        }
        for label, stored in _EVENT_FIELDS.items():
            fields[label] = nested_str(obj, stored)
        return fields

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        namespace = str((obj.get("metadata") or {}).get("namespace") or "")
        regarding = obj.get("regarding") or {}
        if not regarding.get("namespace") and namespace not in ("default", "kube-system"):
            errors.append(
                FieldError(
                    "Invalid",
                    "involvedObject.namespace",
                    "does not match event.namespace",
                    regarding.get("namespace") or "",
                )
            )
        controller = str(obj.get("reportingController") or "")
        if not controller:
            errors.append(FieldError("Required", "reportingController"))
        elif not is_qualified_name(controller):
            errors.append(
                FieldError("Invalid", "reportingController", "must be a qualified name", controller)
            )
        for key in ("reportingInstance", "action", "reason"):
            if not obj.get(key):
                errors.append(FieldError("Required", key))
        for key, limit in _LIMITS.items():
            if len(str(obj.get(key) or "")) > limit:
                errors.append(
                    FieldError("Invalid", key, f"can have at most {limit} characters", "")
                )
        errors += [
            FieldError("Invalid", "namespace", p, namespace) for p in dns1123_subdomain(namespace)
        ]
        errors += _series_errors(obj.get("series"))
        if not obj.get("eventTime"):
            errors.append(FieldError("Required", "eventTime"))
        if obj.get("type") not in ("Normal", "Warning"):
            errors.append(
                FieldError("Invalid", "type", f"has invalid value: {obj.get('type') or ''}", "")
            )
        for key in ("deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedSource"):
            if obj.get(key):
                errors.append(FieldError("Invalid", key, "needs to be unset", ""))
        if obj.get("deprecatedCount"):
            errors.append(FieldError("Invalid", "deprecatedCount", "needs to be unset", ""))
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        previous = _EVENTS_V1.to_served(old)
        errors: list[FieldError] = []
        if new.get("series") != previous.get("series"):
            errors += _series_errors(new.get("series"))
        # The real server names the fields of this check by their core/v1 names.
        for key in (*_SHARED, *_RENAMED):
            if key == "series":
                continue
            if (new.get(key) or None) != (previous.get(key) or None):
                errors.append(
                    FieldError(
                        "Invalid", _RENAMED.get(key, key), "field is immutable", new.get(key)
                    )
                )
        return errors


def _series_errors(series: Any) -> list[FieldError]:
    if series is None:
        return []
    if not isinstance(series, dict):
        return [FieldError("Invalid", "series", "must be an object", series)]
    errors = []
    count = series.get("count")
    if not isinstance(count, int) or count < 2:
        errors.append(FieldError("Invalid", "series.count", "should be at least 2", ""))
    if not series.get("lastObservedTime"):
        errors.append(FieldError("Required", "series.lastObservedTime"))
    return errors


CORE_STRATEGIES: dict[tuple[str, str], type[Strategy]] = {
    ("", "serviceaccounts"): ServiceAccountStrategy,
    ("", "endpoints"): EndpointsStrategy,
    ("events.k8s.io", "events"): EventsV1Strategy,
}
