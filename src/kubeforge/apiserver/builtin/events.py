"""``events.k8s.io/v1`` Events: the core/v1 Events seen through another representation.

A real server stores both Event APIs in one place and converts on the way in and out,
so an event written through either API is read through both. Here the core/v1 form
is stored (under the ``events`` key of the core group) and ``EventsRepresentation``
converts: ``regarding`` <-> ``involvedObject``, ``note`` <-> ``message``,
``reportingController`` <-> ``reportingComponent``, ``deprecated*`` <-> the legacy
fields. Field selectors on ``events.k8s.io`` use its own names (``regarding.name``,
``reportingController``) and are answered from the stored form.

Entry point: ``KINDS`` (the resource, its ``EventsV1Strategy`` and its representation).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kubeforge.apiserver.builtin.core.columns import EVENT_COLUMNS
from kubeforge.apiserver.builtin.event_rules import (
    legacy_errors,
    strict_create_errors,
    strict_update_errors,
)
from kubeforge.apiserver.builtin.kind import Kind
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.printers.cells import dict_at
from kubeforge.apiserver.printers.columns import Printer, age
from kubeforge.apiserver.registry.served import Representation
from kubeforge.apiserver.registry.strategy import Strategy, nested_str

__all__ = [
    "KINDS",
    "EventsRepresentation",
    "EventsV1Strategy",
]


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


class EventsV1Strategy(Strategy):
    """``events.k8s.io/v1``: the legacy rules and the strict ones of new-style events, run
    on the stored (core/v1) form, as Go validates the internal Event."""

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
        event = _EVENTS_V1.to_stored(obj)
        return legacy_errors(event) + strict_create_errors(event)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        event = _EVENTS_V1.to_stored(new)
        return legacy_errors(event) + strict_update_errors(event, old)


def _event_row(event: dict[str, Any], now: datetime) -> list[Any]:
    """An ``events.k8s.io`` Event in the same columns as a core/v1 one."""
    seen = (
        event.get("deprecatedLastTimestamp")
        or (event.get("series") or {}).get("lastObservedTime")
        or event.get("eventTime")
        or event.get("deprecatedFirstTimestamp")
    )
    regarding = dict_at(event, "regarding")
    target = f"{str(regarding.get('kind') or '').lower()}/{regarding.get('name') or ''}"
    note = str(event.get("note") or "").strip()
    return [age(seen, now), event.get("type") or "", event.get("reason") or "", target, note]


_EVENT_PRINTER = Printer(EVENT_COLUMNS, _event_row)

KINDS = (
    # Stored as core/v1 Events, so not a storage resource of its own.
    Kind(
        "events.k8s.io",
        "v1",
        "Event",
        "events",
        short=("ev",),
        storage=False,
        strategy=EventsV1Strategy,
        representation=_EVENTS_V1,
        printer=_EVENT_PRINTER,
    ),
)
"""The events.k8s.io/v1 kinds."""
