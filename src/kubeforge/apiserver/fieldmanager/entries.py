"""The ``managedFields`` wire format: entries, who they belong to, and their order.

Entry points: ``decode(entries)`` (``ValueError`` when malformed) and
``encode(managers)``; ``keep_timestamps(old, new)`` undoes a change that touched
nothing but entry times. A manager is identified by name, operation, subresource and,
for ``Update`` entries, apiVersion (an applier keeps one entry across versions);
``STRIP`` holds the fields no manager ever owns. Entries sort Apply before Update,
then by time, as the real server writes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from kubeforge.apiserver.smd.fieldpath import FieldSet, field_element
from kubeforge.apiserver.smd.value import json_equal

__all__ = [
    "STRIP",
    "Entry",
    "ManagerId",
    "Managers",
    "decode",
    "decode_or_empty",
    "encode",
    "is_reset",
    "keep_timestamps",
    "without_managed",
]


@dataclass(frozen=True, order=True)
class ManagerId:
    """What tells two managedFields entries apart."""

    operation: str
    manager: str
    api_version: str  # "" for Apply: an applier keeps its entry across versions
    subresource: str

    def describe(self) -> str:
        """How conflict messages name a manager (``"m" with subresource "status" using v1``)."""
        text = orjson.dumps(self.manager).decode()
        if self.subresource:
            text += f' with subresource "{self.subresource}"'
        if self.operation == "Update":
            text += f" using {self.api_version}"
        return text


@dataclass
class Entry:
    fields: FieldSet
    api_version: str
    time: str | None


Managers = dict[ManagerId, Entry]


def _strip_set() -> FieldSet:
    """Fields no manager ever owns (server-set identity and bookkeeping)."""
    result = FieldSet()
    for path in (("apiVersion",), ("kind",), ("metadata",)):
        result.insert(tuple(field_element(p) for p in path))
    for name in (
        "name",
        "namespace",
        "creationTimestamp",
        "selfLink",
        "uid",
        "clusterName",
        "generation",
        "managedFields",
        "resourceVersion",
    ):
        result.insert((field_element("metadata"), field_element(name)))
    return result


STRIP = _strip_set()


# --- wire format ----------------------------------------------------------------------


def decode(entries: Any) -> Managers:
    """The managers of a ``managedFields`` list; ``ValueError`` if it is malformed."""
    if not isinstance(entries, list):
        raise ValueError("managedFields must be a list")
    managers: Managers = {}
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ValueError(f"managed fields entry {i} must be an object")
        operation = entry.get("operation")
        if operation not in ("Apply", "Update"):
            raise ValueError("operation must be `Apply` or `Update`")
        api_version = entry.get("apiVersion")
        if not api_version or not isinstance(api_version, str):
            raise ValueError("apiVersion must not be empty")
        fields_type = entry.get("fieldsType")
        if fields_type != "FieldsV1":
            raise ValueError(f"invalid fieldsType {fields_type!r} in managed fields entry {i}")
        identity = ManagerId(
            operation,
            str(entry.get("manager") or ""),
            "" if operation == "Apply" else api_version,
            str(entry.get("subresource") or ""),
        )
        time = entry.get("time")
        managers[identity] = Entry(
            FieldSet.from_fields_v1({} if entry.get("fieldsV1") is None else entry["fieldsV1"]),
            api_version,
            time if isinstance(time, str) else None,
        )
    return managers


def encode(managers: Managers) -> list[dict[str, Any]]:
    """``managedFields`` entries, Apply first, then oldest first (as the real server sorts)."""

    def order(item: tuple[ManagerId, Entry]) -> tuple[str, str, str, str, str]:
        identity, entry = item
        return (
            identity.operation,
            entry.time or "",
            identity.manager,
            entry.api_version,
            identity.subresource,
        )

    result = []
    for identity, entry in sorted(managers.items(), key=order):
        encoded: dict[str, Any] = {
            "manager": identity.manager,
            "operation": identity.operation,
            "apiVersion": entry.api_version,
        }
        if entry.time is not None:
            encoded["time"] = entry.time
        encoded["fieldsType"] = "FieldsV1"
        encoded["fieldsV1"] = entry.fields.to_fields_v1()
        if identity.subresource:
            encoded["subresource"] = identity.subresource
        result.append(encoded)
    return result


def is_reset(sent: Any) -> bool:
    """``managedFields: []`` or ``[{}]`` asks the server to forget all owners."""
    return isinstance(sent, list) and (not sent or (len(sent) == 1 and sent[0] == {}))


def without_managed(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def decode_or_empty(entries: Any) -> Managers:
    if entries is None:
        return {}
    try:
        return decode(entries)
    except ValueError:
        return {}


def keep_timestamps(old: dict[str, Any], new: dict[str, Any]) -> None:
    """If ``new`` differs from ``old`` only in managedFields times, restore ``old``'s."""
    old_meta, new_meta = old.get("metadata") or {}, new.get("metadata") or {}
    before, after = old_meta.get("managedFields"), new_meta.get("managedFields")
    if before == after or not isinstance(before, list) or not isinstance(after, list):
        return
    if len(before) != len(after):
        return
    for a, b in zip(before, after, strict=True):
        if not isinstance(a, dict) or not isinstance(b, dict):
            return
        if {k: v for k, v in a.items() if k != "time"} != {
            k: v for k, v in b.items() if k != "time"
        }:
            return
    if json_equal(without_managed(old), without_managed(new)):
        new_meta["managedFields"] = before
