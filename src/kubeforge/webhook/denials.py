"""How a webhook handler says no: ``Denied``, ``Invalid`` and ``FieldError``.

Raise ``Denied("why")`` for a plain refusal (``403 Forbidden``, what
controller-runtime's ``admission.Denied`` and a plain validator error give), or
``Invalid(obj, [FieldError.invalid("spec.replicas", 7, "must be odd")])`` for
apimachinery's ``422 Invalid`` with one cause per field, which kubectl prints as
``The Frigate "x" is invalid: spec.replicas: Invalid value: 7: must be odd``. Both
may carry ``warnings``. An ``ApiError`` from the client (say a failed lookup) is
passed on with its own Status, as controller-runtime passes an ``APIStatus`` error.
Any other exception is a bug in the handler: it becomes a ``500`` (see ``admission``).

The messages follow ``k8s.io/apimachinery/pkg/util/validation/field`` (``Error()``
and ``ErrorBody()``) and ``apierrors.NewInvalid``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from kubeforge.core.objects import name_of
from kubeforge.core.resource import Resource

__all__ = ["Denied", "FieldError", "Invalid"]


class Denied(Exception):
    """Refuse the request: ``allowed: false`` with this ``message`` (403 Forbidden by default)."""

    def __init__(
        self,
        message: str,
        *,
        code: int = 403,
        reason: str = "Forbidden",
        warnings: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.reason = reason
        self.warnings = list(warnings)

    def status(self) -> dict[str, Any]:
        """The ``result`` of the AdmissionResponse (a ``metav1.Status``)."""
        status: dict[str, Any] = {"metadata": {}, "code": self.code, "reason": self.reason}
        if self.message:
            status["message"] = self.message
        return status


@dataclass(frozen=True, slots=True)
class FieldError:
    """One invalid field, as apimachinery's ``field.Error``.

    ``type`` is the human form (``Invalid value``, ``Required value``, ...); ``field``
    the path (``spec.containers[0].image``); ``value`` the bad value, shown for the
    types that show one.
    """

    type: str
    field: str
    detail: str = ""
    value: Any = None

    @classmethod
    def invalid(cls, field: str, value: Any, detail: str) -> FieldError:
        return cls("Invalid value", field, detail, value)

    @classmethod
    def required(cls, field: str, detail: str = "") -> FieldError:
        return cls("Required value", field, detail)

    @classmethod
    def forbidden(cls, field: str, detail: str) -> FieldError:
        return cls("Forbidden", field, detail)

    @classmethod
    def not_supported(cls, field: str, value: Any, supported: Sequence[str]) -> FieldError:
        detail = "supported values: " + ", ".join(f'"{s}"' for s in supported)
        return cls("Unsupported value", field, detail, value)

    @property
    def cause_type(self) -> str:
        """``FieldValueInvalid``, ``FieldValueRequired``, ... (a ``metav1.CauseType``)."""
        return _CAUSES.get(self.type, "FieldValueInvalid")

    def body(self) -> str:
        """The message without the field (``ErrorBody()``)."""
        if self.type in ("Required value", "Forbidden", "Internal error"):
            text = self.type
        else:
            text = f"{self.type}: {_show(self.value)}"
        return f"{text}: {self.detail}" if self.detail else text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


_CAUSES = {
    "Invalid value": "FieldValueInvalid",
    "Required value": "FieldValueRequired",
    "Forbidden": "FieldValueForbidden",
    "Unsupported value": "FieldValueNotSupported",
    "Duplicate value": "FieldValueDuplicate",
    "Internal error": "InternalError",
}


def _show(value: Any) -> str:
    # Go's %#v-like rendering as apimachinery prints it: strings quoted, numbers bare.
    if isinstance(value, str):
        return orjson.dumps(value).decode()
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return str(value)
    return orjson.dumps(value, default=str).decode()


class Invalid(Denied):
    """``422 Invalid``: the object has invalid fields (``apierrors.NewInvalid``).

    ``obj`` is the object (typed or a dict) or ``(group, kind, name)``.
    """

    def __init__(
        self,
        obj: Resource | dict[str, Any] | tuple[str, str, str],
        errors: Sequence[FieldError],
        *,
        warnings: Sequence[str] = (),
    ) -> None:
        if not errors:
            raise ValueError("Invalid needs at least one FieldError")
        self.group, self.kind, self.name = _identify(obj)
        self.errors = list(errors)
        qualified = f"{self.kind}.{self.group}" if self.group else self.kind
        listed = (
            str(self.errors[0])
            if len(self.errors) == 1
            else ("[" + ", ".join(str(e) for e in self.errors) + "]")
        )
        message = f'{qualified} "{self.name}" is invalid: {listed}'
        super().__init__(message, code=422, reason="Invalid", warnings=warnings)

    def status(self) -> dict[str, Any]:
        status = super().status()
        details: dict[str, Any] = {"name": self.name, "group": self.group, "kind": self.kind}
        details["causes"] = [
            {"reason": e.cause_type, "message": e.body(), "field": e.field} for e in self.errors
        ]
        status["details"] = {k: v for k, v in details.items() if v}
        return status


def _identify(obj: Resource | dict[str, Any] | tuple[str, str, str]) -> tuple[str, str, str]:
    if isinstance(obj, tuple):
        return obj
    if isinstance(obj, Resource):
        api_version, kind = obj.api_version, obj.kind
    else:
        api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    group = api_version.rpartition("/")[0]
    return group, kind, name_of(obj) or ""
