"""Every failure the local server can answer, as a ``StatusError`` carrying a Kubernetes ``Status``.

Handlers raise; the error middleware in ``server.app`` turns the exception into a JSON
response whose HTTP code equals ``status.code``. Messages and ``details`` follow
apimachinery's ``pkg/api/errors`` builders so clients can key on ``reason``.
Entry points: the builder functions (``not_found``, ``conflict``, ``invalid`` ...).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from kubeforge.core.resource import ResourceInfo
from kubeforge.core.status import failure

__all__ = [
    "OPTIMISTIC_LOCK_MESSAGE",
    "FieldError",
    "GoValue",
    "StatusError",
    "already_exists",
    "bad_request",
    "conflict",
    "expired",
    "forbidden",
    "go_quote",
    "internal_error",
    "invalid",
    "method_not_allowed",
    "not_found",
    "resource_not_found",
    "too_large",
    "unauthorized",
    "unsupported_media_type",
]

OPTIMISTIC_LOCK_MESSAGE = (
    "the object has been modified; please apply your changes to the latest version and try again"
)


class StatusError(Exception):
    """Raised anywhere in the server; answered as ``status`` with HTTP ``status["code"]``."""

    def __init__(self, status: dict[str, Any]) -> None:
        super().__init__(status.get("message", ""))
        self.status = status
        self.code = int(status["code"])


def _details(info: ResourceInfo, name: str, **extra: Any) -> dict[str, Any]:
    # details.kind is the *resource* (plural) for NotFound/AlreadyExists/Conflict.
    details: dict[str, Any] = {"name": name}
    if info.group:
        details["group"] = info.group
    details["kind"] = info.plural
    details.update(extra)
    return details


def not_found(info: ResourceInfo, name: str) -> StatusError:
    return StatusError(
        failure(404, "NotFound", f'{info.group_resource} "{name}" not found', _details(info, name))
    )


def resource_not_found() -> StatusError:
    """Unknown group, version, resource or path."""
    status = failure(404, "NotFound", "the server could not find the requested resource")
    status["details"] = {}
    return StatusError(status)


def already_exists(info: ResourceInfo, name: str) -> StatusError:
    message = f'{info.group_resource} "{name}" already exists'
    return StatusError(failure(409, "AlreadyExists", message, _details(info, name)))


def conflict(
    info: ResourceInfo, name: str, detail: str = OPTIMISTIC_LOCK_MESSAGE, *, kind: str = ""
) -> StatusError:
    message = f'Operation cannot be fulfilled on {info.group_resource} "{name}": {detail}'
    details = _details(info, name)
    if kind:  # preconditions report the Kind, not the resource (rest/delete.go quirk)
        details["kind"] = kind
    return StatusError(failure(409, "Conflict", message, details))


def forbidden(info: ResourceInfo, name: str, detail: str, **extra: Any) -> StatusError:
    target = f'{info.group_resource} "{name}"' if name else info.group_resource
    message = f"{target} is forbidden: {detail}"
    return StatusError(failure(403, "Forbidden", message, _details(info, name, **extra)))


def bad_request(message: str) -> StatusError:
    return StatusError(failure(400, "BadRequest", message))


def unauthorized() -> StatusError:
    return StatusError(failure(401, "Unauthorized", "Unauthorized"))


def method_not_allowed(info: ResourceInfo | None, message: str) -> StatusError:
    details: dict[str, Any] = {}
    if info is not None:
        if info.group:
            details["group"] = info.group
        details["kind"] = info.plural
    return StatusError(failure(405, "MethodNotAllowed", message, details or None))


def unsupported_media_type(content_type: str, accepted: tuple[str, ...]) -> StatusError:
    message = (
        "the body of the request was in an unknown format - accepted media types include: "
        + ", ".join(accepted)
    )
    del content_type  # the real message does not echo the rejected type
    return StatusError(failure(415, "UnsupportedMediaType", message))


def patch_not_applicable(library_message: str) -> StatusError:
    """A JSON patch that does not apply (a failed ``test``, a missing path): patch.go
    answers ``NewGenericServerResponse(422, ...)``, whose message is generic and whose
    one cause carries the json-patch library's text."""
    message = "the server rejected our request due to an error in our request"
    cause = {"reason": "UnexpectedServerResponse", "message": library_message}
    return StatusError(failure(422, "Invalid", message, {"causes": [cause]}))


def too_large(limit: int) -> StatusError:
    message = f"Request entity too large: limit is {limit}"
    return StatusError(failure(413, "RequestEntityTooLarge", message))


def expired(message: str) -> StatusError:
    return StatusError(failure(410, "Expired", message))


def internal_error(message: str) -> StatusError:
    message = f"Internal error occurred: {message}"
    status = failure(500, "InternalError", message, {"causes": [{"message": message}]})
    return StatusError(status)


class GoValue:
    """A value whose Go rendering is already known (a struct printed with ``%#v``)."""

    def __init__(self, text: str) -> None:
        self.text = text

    @staticmethod
    def quote(text: str) -> str:
        """A Go double-quoted string literal, as ``%#v`` prints a string field."""
        return orjson.dumps(text).decode()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GoValue) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return self.text


def go_quote(value: Any) -> str:
    """Render a value the way Go's ``%#v``-ish field errors show it (strings quoted)."""
    if isinstance(value, GoValue):
        return value.text
    if isinstance(value, str):
        return orjson.dumps(value).decode()
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


_NO_VALUE = object()

_REASONS = {
    "Invalid": "FieldValueInvalid",
    "Required": "FieldValueRequired",
    "Forbidden": "FieldValueForbidden",
    "NotSupported": "FieldValueNotSupported",
    "NotFound": "FieldValueNotFound",
    "Duplicate": "FieldValueDuplicate",
    "TooLong": "FieldValueTooLong",
    "TooMany": "FieldValueTooMany",
    "TypeInvalid": "FieldValueTypeInvalid",
}


@dataclass(frozen=True)
class FieldError:
    """One validation problem, shaped like apimachinery's ``field.Error``.

    Build one with the constructor named after apimachinery's (``field.NotSupported`` is
    ``FieldError.not_supported``), which words the detail as Kubernetes does:

    >>> str(FieldError.not_supported("spec.scope", "World", ("Cluster", "Namespaced")))
    'spec.scope: Unsupported value: "World": supported values: "Cluster", "Namespaced"'
    >>> str(FieldError.required("spec.selector"))
    'spec.selector: Required value'
    """

    kind: str  # Invalid Required Forbidden NotSupported NotFound Duplicate TooLong TooMany
    field: str  # ... or TypeInvalid
    detail: str = ""
    value: Any = _NO_VALUE

    @classmethod
    def not_supported(cls, field: str, value: Any, supported: Iterable[Any]) -> FieldError:
        """``field.NotSupported``: ``value`` is not one of ``supported`` (each shown as
        ``go_quote`` shows it: strings quoted)."""
        quoted = ", ".join(go_quote(item) for item in supported)
        return cls("NotSupported", field, f"supported values: {quoted}" if quoted else "", value)

    @classmethod
    def required(cls, field: str, detail: str = "") -> FieldError:
        """``field.Required``: the field is missing or empty."""
        return cls("Required", field, detail)

    @classmethod
    def invalid(cls, field: str, value: Any, detail: str) -> FieldError:
        """``field.Invalid``: the value is malformed; ``detail`` says how."""
        return cls("Invalid", field, detail, value)

    @classmethod
    def duplicate(cls, field: str, value: Any) -> FieldError:
        """``field.Duplicate``: the value appears more than once where it must be unique."""
        return cls("Duplicate", field, value=value)

    @classmethod
    def not_found(cls, field: str, value: Any) -> FieldError:
        """``field.NotFound``: the value refers to something that does not exist."""
        return cls("NotFound", field, value=value)

    @classmethod
    def forbidden(cls, field: str, detail: str) -> FieldError:
        """``field.Forbidden``: the field may not be set (here, now, or by this user)."""
        return cls("Forbidden", field, detail)

    @classmethod
    def too_long(cls, field: str, value: Any, max_length: int) -> FieldError:
        """``field.TooLong``: longer than ``max_length`` bytes."""
        unit = "byte" if max_length == 1 else "bytes"
        return cls("TooLong", field, f"may not be more than {max_length} {unit}", value)

    def body(self) -> str:
        if self.kind == "Required":
            head = "Required value"
        elif self.kind == "Forbidden":
            head = "Forbidden"
        elif self.kind == "NotSupported":
            head = f"Unsupported value: {go_quote(self.value)}"
        elif self.kind == "NotFound":
            head = f"Not found: {go_quote(self.value)}"
        elif self.kind == "Duplicate":
            head = f"Duplicate value: {go_quote(self.value)}"
        elif self.kind == "TooLong":
            head = "Too long"
        elif self.kind == "TooMany":
            head = f"Too many: {go_quote(self.value)}"
        elif self.kind == "TypeInvalid":
            head = f"Invalid value: {go_quote(self.value)}"
        else:
            head = "Invalid value"
            if self.value is not _NO_VALUE:
                head += f": {go_quote(self.value)}"
        return f"{head}: {self.detail}" if self.detail else head

    def cause(self) -> dict[str, Any]:
        return {"reason": _REASONS[self.kind], "message": self.body(), "field": self.field}

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


def invalid(kind: str, group: str, name: str, errors: list[FieldError]) -> StatusError:
    """422 Invalid; ``details.kind`` is the Kind here (unlike NotFound, which uses the resource)."""
    qualified = f"{kind}.{group}" if group else kind
    # The message names each distinct error once (ErrorList.ToAggregate); causes keep all.
    texts = list(dict.fromkeys(map(str, errors)))
    text = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    details: dict[str, Any] = {"name": name}
    if group:
        details["group"] = group
    details["kind"] = kind
    details["causes"] = [error.cause() for error in errors]
    return StatusError(failure(422, "Invalid", f'{qualified} "{name}" is invalid: {text}', details))
