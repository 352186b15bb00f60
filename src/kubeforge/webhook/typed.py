"""Defaulting and validating webhooks written against typed objects: ``Defaulter``, ``Validator``.

Entry points: ``defaulting_handler(cls, defaulter)`` and
``validating_handler(cls, validator)`` make the ``AdmissionHandler`` of a kind
(``TypeWebhooks`` registers them). They follow controller-runtime's
``WithDefaulter``/``WithValidator``:

- The object (and the old one) is decoded with the model class the client uses
  (unknown fields kept); one that does not decode is answered with a ``400``.
- A defaulter changes the object in place; the response carries the JSON patch from
  the object as received to the defaulted one, without removals of fields the model
  merely omits (controller-runtime's ``dropSchemeRemovals``); unchanged, no patch.
  DELETE is allowed without calling it.
- A validator answers CREATE, UPDATE (with the old object) and DELETE (the object
  being deleted) with warnings (a list, or ``None``) or raises ``Denied``/``Invalid``;
  CONNECT is allowed.

Methods may be ``async`` or plain; each gets the ``AdmissionRequest`` too, for
``dry_run``, ``user_info``, the operation and the raw request.

Example::

    class FrigateDefaulter:
        def default(self, obj: Frigate, request: AdmissionRequest) -> None:
            obj.spec.foo = obj.spec.foo or "bar"
"""

from __future__ import annotations

import inspect
from typing import Any, Protocol, TypeVar

import msgspec

from kubeforge.core.meta import convert, to_builtins
from kubeforge.core.resource import Resource
from kubeforge.webhook.admission import AdmissionHandler, AdmissionRequest, AdmissionResponse
from kubeforge.webhook.jsonpatch import create_patch

__all__ = ["Defaulter", "Validator", "Warnings", "defaulting_handler", "validating_handler"]

T = TypeVar("T", bound=Resource)
T_contra = TypeVar("T_contra", bound=Resource, contravariant=True)

Warnings = list[str] | None
"""What a validator returns: warnings kubectl prints (``Warning: ...``), or ``None``."""


class Defaulter(Protocol[T_contra]):
    """Fills in defaults: changes ``obj`` in place (may be ``async``)."""

    def default(self, obj: T_contra, request: AdmissionRequest) -> Any: ...


class Validator(Protocol[T_contra]):
    """Accepts (returns warnings or ``None``) or refuses (raises ``Denied``/``Invalid``)."""

    def validate_create(self, obj: T_contra, request: AdmissionRequest) -> Any: ...

    def validate_update(self, old: T_contra, obj: T_contra, request: AdmissionRequest) -> Any: ...

    def validate_delete(self, obj: T_contra, request: AdmissionRequest) -> Any: ...


class _Undecodable(Exception):
    pass


def _decode(cls: type[T], data: dict[str, Any] | None, which: str) -> T:
    if not isinstance(data, dict):
        raise _Undecodable(f"there is no content to decode in {which}")
    try:
        return convert(data, cls)
    except msgspec.ValidationError as error:
        raise _Undecodable(f"cannot decode {which} as {cls.info.kind}: {error}") from None


async def _call(result: Any) -> Any:
    return await result if inspect.isawaitable(result) else result


def defaulting_handler(cls: type[T], defaulter: Defaulter[T]) -> AdmissionHandler:
    """The mutating handler that runs ``defaulter.default`` on decoded ``cls`` objects."""

    async def handle(request: AdmissionRequest) -> AdmissionResponse:
        if request.operation == "DELETE":
            return AdmissionResponse.allow()
        try:
            obj = _decode(cls, request.object, "object")
        except _Undecodable as error:
            return AdmissionResponse.errored(400, str(error))
        original = to_builtins(obj)
        await _call(defaulter.default(obj, request))
        defaulted = to_builtins(obj)
        if defaulted == original:
            return AdmissionResponse(True)
        raw = request.object
        patch = create_patch(raw, defaulted)
        # Fields the model leaves out when they hold their default would show up as
        # removals: only removals the defaulter itself made are kept.
        omitted = {op["path"] for op in create_patch(raw, original) if op["op"] == "remove"}
        patch = [op for op in patch if not (op["op"] == "remove" and op["path"] in omitted)]
        return AdmissionResponse.patched(patch)

    return handle


def validating_handler(cls: type[T], validator: Validator[T]) -> AdmissionHandler:
    """The validating handler that calls ``validator``'s method for the operation."""

    async def handle(request: AdmissionRequest) -> AdmissionResponse:
        try:
            warnings = await _validate(cls, validator, request)
        except _Undecodable as error:
            return AdmissionResponse.errored(400, str(error))
        return AdmissionResponse.allow(warnings=list(warnings or ()))

    return handle


async def _validate(cls: type[T], validator: Validator[T], request: AdmissionRequest) -> Warnings:
    operation = request.operation
    if operation == "CREATE":
        obj = _decode(cls, request.object, "object")
        return await _call(validator.validate_create(obj, request))  # type: ignore[no-any-return]
    if operation == "UPDATE":
        obj = _decode(cls, request.object, "object")
        old = _decode(cls, request.old_object, "oldObject")
        return await _call(validator.validate_update(old, obj, request))  # type: ignore[no-any-return]
    if operation == "DELETE":
        # The object being deleted comes as oldObject (kubernetes/kubernetes#76346).
        obj = _decode(cls, request.old_object, "oldObject")
        return await _call(validator.validate_delete(obj, request))  # type: ignore[no-any-return]
    if operation == "CONNECT":
        return None
    raise _Undecodable(f'unknown operation "{operation}"')
