"""What Go's ``encoding/json`` leaves out of a built-in object: zero ``omitempty`` scalars.

A real server decodes a built-in object into Go structs and encodes it again for
storage and every answer, so a value field tagged ``omitempty`` that holds "", 0 or
false is gone: a pod sent with ``hostNetwork: false`` or ``nodeName: ""``, a container's
``workingDir: ""``, a ServiceAccount subject's defaulted ``apiGroup: ""`` come back
without them. A controller comparing what it wants with what it reads must see that
here too. Pointer fields (``*bool`` and the like) keep their zero, lists and maps are
left as sent; which field is which comes from the protobuf table
(``Field.omit_zero``: a value scalar with omitempty).

Entry point: ``drop_omitted_zeros(obj)`` (in place; a kind the table lacks is left alone).
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.protobuf.table import SCALARS, by_name, message_for

__all__ = ["drop_omitted_zeros"]


def _is_zero(type_: str, value: Any) -> bool:
    if type_ == "bool":
        return value is False
    if type_ in ("string", "bytes"):
        return isinstance(value, str) and not value
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def drop_omitted_zeros(obj: dict[str, Any]) -> None:
    message = message_for(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
    if message is not None:
        _walk(message, obj)


def _walk(message: str, obj: dict[str, Any]) -> None:
    try:
        rows = by_name(message)
    except KeyError:
        return
    for name, field in rows:
        if field.inline:
            _walk(field.type, obj)
            continue
        if name not in obj:
            continue
        value = obj[name]
        if field.omit_zero and not field.repeated and _is_zero(field.type, value):
            del obj[name]
        elif field.type in SCALARS or field.map:
            continue
        elif field.repeated and isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    _walk(field.type, item)
        elif isinstance(value, dict):
            _walk(field.type, value)
