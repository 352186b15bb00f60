"""The strategy of a CRD's custom resources: schema, CEL rules, selectable fields, and
the CRD's defaults applied on read.

Entry point: ``CustomResourceStrategy``, built by ``crds.CRDController`` for each served
version of an accepted CRD (``read_defaults(group, versions)`` prepares the defaults
every version's strategy shares).
"""

from __future__ import annotations

from typing import Any, Protocol

from kubeforge.apiserver import failures
from kubeforge.apiserver.apiextensions import schema
from kubeforge.apiserver.apiextensions.conversion_webhook import (
    ConversionFailed,
    WebhookConverter,
)
from kubeforge.apiserver.apiextensions.defaulting import ReadDefaulter
from kubeforge.apiserver.cel.crd_validator import Validator
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.registry import conversions
from kubeforge.apiserver.registry.scale import ScalePaths
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.strategy import Strategy, nested_str
from kubeforge.core.status import failure

__all__ = ["CRDLifecycle", "CustomResourceStrategy", "read_defaults"]


class CRDLifecycle(Protocol):
    """What a custom resource's rules ask of the CRD's lifecycle (``crds.CRDController``)."""

    def terminating(self, crd_name: str) -> bool:
        """The CRD is being deleted: its custom resources may not be created."""

    def maybe_finish(self, crd_name: str) -> None:
        """A custom resource of a deleted CRD is gone: remove the CRD when it was the last."""


_NOT_CHECKED = (
    "some validation rules were not checked because the object was invalid; "
    "correct the existing errors to complete validation"
)


def read_defaults(group: str, versions: list[dict[str, Any]]) -> dict[str, ReadDefaulter]:
    """Each version's defaults by apiVersion; served or not, a version may be the one
    objects were stored at."""
    found: dict[str, ReadDefaulter] = {}
    for version in versions:
        schema_ = ((version.get("schema") or {}).get("openAPIV3Schema")) if version else None
        defaulter = ReadDefaulter.of(schema_)
        if defaulter is not None:
            found[f"{group}/{version.get('name')}"] = defaulter
    return found


class CustomResourceStrategy(Strategy):
    """Rules for objects of one served version of a CRD (``apiext`` customresource strategy)."""

    has_generation = True
    allow_unconditional_update = False

    def __init__(
        self,
        served: ServedResource,
        version: dict[str, Any],
        controller: CRDLifecycle,
        read_defaults: dict[str, ReadDefaulter] | None = None,
        converter: WebhookConverter | None = None,
    ) -> None:
        super().__init__(served)
        self._converter = converter
        self.converts_by_webhook = converter is not None
        self._read_defaults = read_defaults or {}
        """apiVersion -> that version's defaults: objects are defaulted with the schema
        of the version they are stored at, as the real storage decoder does."""
        self.status_subresource = "status" in (version.get("subresources") or {})
        self.scale_paths = ScalePaths.from_version(version)
        self._controller = controller
        self._selectable = tuple(
            str(f.get("jsonPath", "")).lstrip(".")
            for f in version.get("selectableFields") or []
            if isinstance(f, dict)
        )
        rules = Validator(served.schema) if served.schema is not None else None
        self._rules = rules if rules is not None and rules.any else None
        self._warnings: list[str] = []

    def supported_fields(self) -> frozenset[str]:
        base = (
            ("metadata.name", "metadata.namespace")
            if self.served.info.namespaced
            else ("metadata.name",)
        )
        return frozenset((*base, *self._selectable))

    def field_set(self, obj: dict[str, Any]) -> dict[str, str]:
        fields = super().field_set(obj)
        for path in self._selectable:
            fields[path] = nested_str(obj, path)
        return fields

    def on_read(self, obj: dict[str, Any]) -> dict[str, Any]:
        if not self._read_defaults:
            return obj  # no version declares a default: the common case costs one test
        defaulter = self._read_defaults.get(str(obj.get("apiVersion")))
        return obj if defaulter is None else defaulter.apply(obj)

    def normalize(self, obj: dict[str, Any]) -> list[str]:
        if self.served.schema is None:
            return []
        dropped = schema.prune(obj, self.served.schema)
        schema.apply_defaults(obj, self.served.schema)
        return dropped

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return self._validate(obj, None)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self._validate(new, old)

    def _validate(self, new: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
        """Schema errors, then the CEL rules (``oldSelf`` is the stored object), unless a
        value has the wrong type: then, as the real strategy does, no rule runs."""
        self._warnings = []
        if self.served.schema is None:
            return []
        errors = schema.validate(new, self.served.schema)
        if self._rules is None:
            return errors
        if any(error.kind == "TypeInvalid" for error in errors):
            # Kubernetes reports this with a nil value, which Go prints as "null".
            return [*errors, FieldError("Invalid", "<nil>", _NOT_CHECKED, "null")]
        rule_errors, self._warnings = self._rules.validate(new, old)
        return errors + rule_errors

    def convert(self, objs: list[dict[str, Any]], api_version: str) -> list[dict[str, Any]]:
        """Through the CRD's conversion webhook when it has one (a failure is the 500 the
        real server answers, with the webhook's error as the whole message); a request
        awaits the webhook (see ``registry.conversions``), never the event loop."""
        if self._converter is None:
            return super().convert(objs, api_version)
        ready = conversions.prepared(objs, api_version, self._convert_awaited)
        if ready is not None:
            return ready
        # No request to wait in (a built-in controller's write): the call blocks.
        try:
            return self._converter.convert(objs, api_version)
        except ConversionFailed as error:
            raise failures.StatusError(failure(500, "", str(error))) from None

    async def _convert_awaited(
        self, objs: list[dict[str, Any]], api_version: str
    ) -> list[dict[str, Any]]:
        assert self._converter is not None
        try:
            return await self._converter.convert_async(objs, api_version)
        except ConversionFailed as error:
            raise failures.StatusError(failure(500, "", str(error))) from None

    def take_warnings(self) -> list[str]:
        """Warnings of the last validation: rules that failed on values an update kept."""
        warnings, self._warnings = self._warnings, []
        return warnings

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self._controller.terminating(self.served.crd_name):
            raise failures.method_not_allowed(
                self.served.info,
                "create not allowed while custom resource definition is terminating",
            )
        super().prepare_for_create(obj)

    def committed(self, obj: dict[str, Any], gone: bool) -> None:
        if gone:
            self._controller.maybe_finish(self.served.crd_name)
