"""ControllerRevisions: the immutable snapshots StatefulSet and DaemonSet controllers keep,
checked as 1.32's ``ValidateControllerRevision``/``ValidateControllerRevisionUpdate``.

``data`` is required and may never change; ``revision`` is non-negative. Go holds ``data`` as
a ``runtime.Unknown`` carrying the JSON bytes, and its immutability error prints that struct
with ``%#v``: the bytes as ``[]uint8{0x7b, ...}`` (here the data's compact JSON, which is
what Go clients send).

Entry point: ``ControllerRevisionStrategy`` (listed in ``kinds``).
"""

from __future__ import annotations

from typing import Any

import orjson

from kubeforge.apiserver.builtin.apps.workload import int_field
from kubeforge.apiserver.builtin.generic import CatalogStrategy
from kubeforge.apiserver.failures import FieldError, GoValue

__all__ = ["ControllerRevisionStrategy", "go_unknown"]


def go_unknown(data: Any) -> GoValue:
    """``%#v`` of the ``runtime.Unknown`` a RawExtension's JSON converts to."""
    raw = ", ".join(f"0x{byte:02x}" for byte in orjson.dumps(data))
    return GoValue(
        'runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, '
        f'Raw:[]uint8{{{raw}}}, ContentEncoding:"", ContentType:"application/json"}}'
    )


class ControllerRevisionStrategy(CatalogStrategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        if obj.get("data") is None:
            errors.append(FieldError.required("data", "data is mandatory"))
        return errors + int_field(obj.get("revision"), "revision")

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        if new.get("data") != old.get("data"):
            shown = go_unknown(new["data"]) if new.get("data") is not None else None
            errors.append(FieldError.invalid("data", shown, "field is immutable"))
        return errors
