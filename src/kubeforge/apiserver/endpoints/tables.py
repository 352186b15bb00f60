"""Table output: the ``meta.k8s.io/v1`` ``Table`` that ``kubectl get`` asks the server for.

kubectl sends ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io, ...`` and
prints whatever columns come back. Custom resources get their CRD's
``additionalPrinterColumns`` (``Name`` plus ``Age`` when it has none), evaluated with
kubectl's JSONPath dialect; a path that fails or finds nothing gives an empty cell,
never an error. Built-in kinds get the columns a real server prints for them: the
``printer`` of their ``Kind`` entry (in their API group's module under ``builtin``),
which the registry hands over as ``ServedResource.printer``.

Entry points, called by the list/get/watch handlers:

* ``wants_table(request)``: did the client ask for a Table (before plain JSON)?
* ``to_table(served, objects, list_metadata, include_object)``: the Table body.
  For a watch, call it once per event with a single object; pass
  ``with_headers=False`` after the first event to save bandwidth, as the real
  server does (kubectl reuses the columns it already has).

Respond with ``Content-Type: TABLE_CONTENT_TYPE`` (watch streams stay
``application/json``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import orjson
from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.negotiation import media_ranges
from kubeforge.apiserver.printers import jsonpath
from kubeforge.apiserver.printers.columns import (
    AGE_DESCRIPTION,
    NAME_COLUMN,
    Printer,
    age,
    column,
    parse_time,
)
from kubeforge.apiserver.registry.served import ServedResource

__all__ = [
    "INCLUDE_OBJECT_VALUES",
    "TABLE_CONTENT_TYPE",
    "printer_for",
    "to_table",
    "wants_table",
]

TABLE_CONTENT_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io"
INCLUDE_OBJECT_VALUES = ("None", "Metadata", "Object")
_TABLE_VERSIONS = ("v1", "v1beta1")

# What a CRD without additionalPrinterColumns shows besides the name.
_DEFAULT_CR_COLUMNS: tuple[dict[str, Any], ...] = (
    {
        "name": "Age",
        "type": "date",
        "jsonPath": ".metadata.creationTimestamp",
        "description": AGE_DESCRIPTION,
    },
)


def wants_table(request: web.BaseRequest) -> bool:
    """True when the first ``Accept`` entry this server can serve is a ``meta.k8s.io`` Table.

    Entries are taken in the client's order; kinds the server cannot produce (such as
    ``PartialObjectMetadataList``) and non-JSON types are skipped.
    """
    for entry in media_ranges(request.headers.get("Accept")):
        if not entry.is_json:
            continue
        kind = entry.kind()
        if kind is None:
            return False
        group, version, as_kind = kind
        if group == "meta.k8s.io" and version in _TABLE_VERSIONS and as_kind == "Table":
            return True
    return False


@functools.lru_cache(maxsize=512)
def _column_cell(json_path: str, kind: str) -> Callable[[dict[str, Any], datetime], Any]:
    """A cell function for one printer column; compiled once per distinct path and type."""

    def cell(obj: dict[str, Any], now: datetime) -> Any:
        try:
            found = jsonpath.find(json_path, obj)
        except jsonpath.JsonPathError:
            return None
        if not found:
            return None
        return _typed_cell(kind, found[0], now)

    return cell


def _typed_cell(kind: str, value: Any, now: datetime) -> Any:
    """A found value as the column's type promises; a mismatch gives an empty cell."""
    if value is None:
        return None
    if kind == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return str(value)
        return orjson.dumps(value).decode()
    if kind == "integer" and isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    if kind == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "date" and isinstance(value, str):
        return age(value, now) if parse_time(value) is not None else "<invalid>"
    return None


def _custom_printer(served: ServedResource) -> Printer:
    specs = served.printer_columns or _DEFAULT_CR_COLUMNS
    columns = [NAME_COLUMN]
    cells = []
    for spec in specs:
        json_path = str(spec.get("jsonPath") or "")
        kind = str(spec.get("type") or "string")
        description = str(spec.get("description") or "")
        columns.append(
            column(
                str(spec.get("name") or ""),
                kind,
                description
                or f"Custom resource definition column (in JSONPath format): {json_path}",
                priority=int(spec.get("priority") or 0),
                fmt=str(spec.get("format") or ""),
            )
        )
        cells.append(_column_cell(json_path, kind))

    def row(obj: dict[str, Any], now: datetime) -> list[Any]:
        name = (obj.get("metadata") or {}).get("name") or ""
        return [name, *(cell(obj, now) for cell in cells)]

    return Printer(tuple(columns), row)


def printer_for(served: ServedResource) -> Printer:
    """The columns of ``served``: its CRD's printer columns, or a built-in's own."""
    if not served.builtin:
        return _custom_printer(served)
    return served.printer


def _row_object(obj: dict[str, Any], include_object: str) -> dict[str, Any] | None:
    if include_object == "Object":
        return obj
    if include_object == "None":
        return None
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": obj.get("metadata") or {},
    }


def to_table(
    served: ServedResource,
    objects: list[dict[str, Any]],
    list_metadata: dict[str, Any],
    include_object: str,
    *,
    with_headers: bool = True,
    now: datetime | None = None,
) -> dict[str, Any]:
    """A ``Table`` with one row per object, in order.

    ``list_metadata`` supplies the Table's ``resourceVersion``/``continue``/
    ``remainingItemCount`` (for a single get, pass the object's resourceVersion).
    ``include_object`` is the ``includeObject`` query value: ``None``, ``Metadata``
    (also for ``""``) or ``Object``. ``now`` is the wall-clock time ages are measured
    from; it defaults to the current time.

    *Raises* ``failures.StatusError`` (400 ``BadRequest``) for any other
    ``include_object``, as the real server does.
    """
    include = include_object or "Metadata"
    if include not in INCLUDE_OBJECT_VALUES:
        raise failures.bad_request(f'unrecognized includeObject value: "{include_object}"')
    moment = now or datetime.now(UTC)
    printer = printer_for(served)
    rows = []
    for obj in objects:
        row: dict[str, Any] = {"cells": printer.row(obj, moment)}
        shown = _row_object(obj, include)
        if shown is not None:
            row["object"] = shown
        rows.append(row)
    metadata = {
        key: list_metadata[key]
        for key in ("resourceVersion", "continue", "remainingItemCount")
        if list_metadata.get(key) not in (None, "")
    }
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata,
        "columnDefinitions": [dict(c) for c in printer.columns] if with_headers else [],
        "rows": rows,
    }
