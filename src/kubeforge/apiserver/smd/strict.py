"""What decoding a JSON body into a built-in kind's Go struct refuses, in Go's words.

A real server decodes every create and update body into the kind's Go type before anything
else looks at it, so a wrongly typed field is a 400 (``json: cannot unmarshal number into Go
struct field EnvVar.spec.containers.env.value of type string``), never a stored value. This
module replays that decoding over an already parsed body, against the types of
``builtin_types.json``:

* a JSON value of the wrong kind for a scalar, list, map or struct is Go's
  ``UnmarshalTypeError``: the first one is reported, after the walk, as ``encoding/json``
  saves it and keeps decoding (the field path is the JSON names from the root, without list
  indices or map keys; the struct is the innermost Go struct holding the field);
* an integer that does not fit its Go type, or a fraction, is ``number <literal>``;
* the types with their own ``UnmarshalJSON`` (``resource.Quantity``, ``intstr.IntOrString``,
  ``v1.Time``, ``v1.MicroTime``) and base64 ``[]byte`` fail with their own messages; a
  failing ``UnmarshalJSON`` ends decoding at once, as in Go.

Entry point: ``decode_error(obj, root, struct)``: the message, or None when Go would decode
``obj``. A named string or integer type (``v1.Protocol``) is reported under its underlying
type, since the OpenAPI the table comes from does not name it.
"""

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.smd.schema import Atom

__all__ = ["decode_error", "go_type", "json_kind"]

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_QUANTITY = re.compile(r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")
_QUANTITY_FORMAT = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
_QUANTITY_SUFFIXES = frozenset(
    {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E"}
)
_DECIMAL_EXPONENT = re.compile(r"^[eE][-+]?[0-9]+$")
_BASE64 = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_RFC3339 = "2006-01-02T15:04:05Z07:00"
_RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"


class _Fatal(Exception):
    """An ``UnmarshalJSON`` error: Go stops decoding and returns it as it is."""


def json_kind(value: Any) -> str:
    """How ``encoding/json`` names a JSON value in ``cannot unmarshal <kind>``."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def go_type(atom: Atom) -> str:
    """The Go type of a node as ``reflect.Type.String()`` prints it."""
    if atom.kind == "list":
        return "[]" + (go_type(atom.element) if atom.element is not None else "interface {}")
    if atom.kind == "map" and not atom.go:
        return "map[string]" + (go_type(atom.element) if atom.element else "interface {}")
    if atom.kind == "any" or not atom.go:
        return "interface {}"
    return atom.go


def _number_literal(value: int | float) -> str:
    return repr(value) if isinstance(value, float) else str(value)


class _Decoder:
    def __init__(self) -> None:
        self.saved: str | None = None

    def mismatch(self, value: str, atom: Atom, struct: str, path: list[str]) -> None:
        if self.saved is None:
            where = f"{struct}.{'.'.join(path)}" if struct or path else ""
            into = f"Go struct field {where}" if where else "Go value"
            self.saved = f"json: cannot unmarshal {value} into {into} of type {go_type(atom)}"

    def value(self, value: Any, atom: Atom, struct: str, path: list[str]) -> None:
        if value is None or atom.kind == "any":
            return
        if atom.kind == "scalar":
            self.scalar(value, atom, struct, path)
        elif atom.kind == "list":
            if not isinstance(value, list):
                self.mismatch(json_kind(value), atom, struct, path)
            elif atom.element is not None:
                for item in value:
                    self.value(item, atom.element, struct, path)
        elif not isinstance(value, dict):
            self.mismatch(json_kind(value), atom, struct, path)
        elif atom.go:  # a struct: each known field, named in the path
            for key, child in value.items():
                field = atom.fields.get(key)
                if field is not None:
                    self.value(child, field, atom.go.split(".")[-1], [*path, key])
        elif atom.element is not None:  # a map: keys are not part of Go's path
            for child in value.values():
                self.value(child, atom.element, struct, path)

    def scalar(self, value: Any, atom: Atom, struct: str, path: list[str]) -> None:
        special = _SPECIAL.get(atom.go)
        if special is not None:
            special(self, value, atom, struct, path)
        elif atom.go == "string":
            if not isinstance(value, str):
                self.mismatch(json_kind(value), atom, struct, path)
        elif atom.go == "bool":
            if not isinstance(value, bool):
                self.mismatch(json_kind(value), atom, struct, path)
        elif atom.go in _INT_RANGES:
            self.integer(value, atom, struct, path)
        elif atom.go == "float64" and (
            isinstance(value, bool) or not isinstance(value, int | float)
        ):
            self.mismatch(json_kind(value), atom, struct, path)

    def integer(self, value: Any, atom: Atom, struct: str, path: list[str]) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.mismatch(json_kind(value), atom, struct, path)
            return
        low, high = _INT_RANGES[atom.go]
        if isinstance(value, float) or not low <= value <= high:
            self.mismatch(f"number {_number_literal(value)}", atom, struct, path)

    def bytes_(self, value: Any, atom: Atom, struct: str, path: list[str]) -> None:
        if isinstance(value, str):
            offset = _base64_error(value)
            if offset is not None and self.saved is None:
                self.saved = f"illegal base64 data at input byte {offset}"
        elif isinstance(value, list):  # Go also decodes a list of bytes
            byte = Atom("scalar", go="uint8")
            for item in value:
                if isinstance(item, bool) or not isinstance(item, int) or not 0 <= item <= 255:
                    self.mismatch(_integer_mismatch(item), byte, struct, path)
        else:
            self.mismatch(json_kind(value), atom, struct, path)

    def quantity(self, value: Any, atom: Atom, struct: str, path: list[str]) -> None:
        text = _number_literal(value) if isinstance(value, int | float) else value
        if isinstance(value, bool) or not isinstance(text, str):
            raise _Fatal(_QUANTITY_FORMAT)
        match = _QUANTITY.match(text.strip())
        if match is None:
            raise _Fatal(_QUANTITY_FORMAT)
        suffix = match.group(2)
        if suffix not in _QUANTITY_SUFFIXES and not _DECIMAL_EXPONENT.match(suffix):
            raise _Fatal("unable to parse quantity's suffix")

    def int_or_string(self, value: Any, atom: Atom, struct: str, path: list[str]) -> None:
        if isinstance(value, str):
            return
        int32 = Atom("scalar", go="int32")
        inner = _Decoder()
        inner.integer(value, int32, struct, path)
        if inner.saved is not None:
            raise _Fatal(inner.saved)

    def time(self, value: Any, atom: Atom, struct: str, path: list[str]) -> None:
        if not isinstance(value, str):
            raise _Fatal(
                f"json: cannot unmarshal {json_kind(value)} into Go struct field "
                f"{struct}.{'.'.join(path)} of type string"
            )
        layout = _RFC3339_MICRO if atom.go == "v1.MicroTime" else _RFC3339
        problem = _time_error(value, layout)
        if problem is not None:
            raise _Fatal(problem)


def _integer_mismatch(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"number {_number_literal(value)}"
    return json_kind(value)


_SPECIAL = {
    "[]uint8": _Decoder.bytes_,
    "resource.Quantity": _Decoder.quantity,
    "intstr.IntOrString": _Decoder.int_or_string,
    "v1.Time": _Decoder.time,
    "v1.MicroTime": _Decoder.time,
}


def decode_error(obj: dict[str, Any], root: Atom, struct: str) -> str | None:
    """Go's error decoding ``obj`` into the struct ``root`` (named ``struct``), or None."""
    decoder = _Decoder()
    try:
        for key, child in obj.items():
            field = root.fields.get(key)
            if field is not None:
                decoder.value(child, field, struct, [key])
    except _Fatal as fatal:
        return str(fatal)
    return decoder.saved


def _base64_error(text: str) -> int | None:
    """The offset Go's ``base64.StdEncoding`` reports for ``text``, or None if it decodes."""
    data = text.encode()
    quantum_start = 0
    count = 0
    padded = False
    for i, byte in enumerate(data):
        if byte in b"\r\n":
            continue
        if padded:
            if byte != ord("="):
                return i
            count += 1
        elif byte == ord("="):
            if count % 4 < 2:
                return i
            padded = True
            count += 1
        elif byte not in _BASE64:
            return i
        else:
            if count % 4 == 0:
                quantum_start = i
            count += 1
    if count % 4 != 0:
        return quantum_start if not padded else len(data)
    return None


def _time_error(value: str, layout: str) -> str | None:
    """Go's ``time.Parse(layout, value)`` error for an RFC 3339 layout, or None."""
    rest = value
    digits = {"2006": 4, "01": 2, "02": 2, "15": 2, "04": 2, "05": 2}
    ranges = {"01": (1, 12, "month"), "02": (1, 31, "day"), "15": (0, 23, "hour"),
              "04": (0, 59, "minute"), "05": (0, 59, "second")}  # fmt: skip
    elements = ["2006", "-", "01", "-", "02", "T", "15", ":", "04", ":", "05"]
    if layout == _RFC3339_MICRO:
        elements.append(".000000")
    elements.append("Z07:00")
    prefix = f"parsing time {_quote(value)}"
    for element in elements:
        bad = f'{prefix} as {_quote(layout)}: cannot parse {_quote(rest)} as "{element}"'
        if element in digits:
            width = digits[element]
            chunk = rest[:width]
            if len(chunk) < width or not chunk.isascii() or not chunk.isdigit():
                return bad
            if element in ranges:
                low, high, name = ranges[element]
                if not low <= int(chunk) <= high:
                    return f"{prefix}: {name} out of range"
            rest = rest[width:]
            if element == "05" and layout == _RFC3339 and rest[:1] in (".", ","):
                fraction = len(rest[1:]) - len(rest[1:].lstrip("0123456789"))
                if fraction:
                    rest = rest[1 + fraction :]
        elif element == ".000000":
            if len(rest) < 7 or rest[0] != "." or not rest[1:7].isdigit():
                return bad
            rest = rest[7:]
        elif element == "Z07:00":
            if rest[:1] == "Z":
                rest = rest[1:]
            elif (
                len(rest) >= 6
                and rest[0] in "+-"
                and rest[3] == ":"
                and (rest[1:3] + rest[4:6]).isdigit()
            ):
                rest = rest[6:]
            else:
                return bad
        elif not rest.startswith(element):
            return bad
        else:
            rest = rest[len(element) :]
    if rest:
        return f"{prefix}: extra text: {_quote(rest)}"
    return None


def _quote(text: str) -> str:
    """Go's quoting in time errors (a double-quoted string, Go escapes)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
