"""A kind with a defaulter and a validator, used through the fixture and ``kubeforge run``.

Loaded by ``kubeforge run tests/webhook/kf_boats.py --local-webhooks`` as a file, so it
imports nothing from the tests package.
"""

from __future__ import annotations

import msgspec

from kubeforge.core.meta import Model
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.runtime import Manager
from kubeforge.webhook import AdmissionRequest, FieldError, Invalid, TypeWebhooks, Warnings


class BargeSpec(Model):
    length: int = 0
    flag: str = ""


class Barge(Resource):
    info = ResourceInfo("harbor.example.com", "v1", "Barge", "barges")
    spec: BargeSpec = msgspec.field(default_factory=BargeSpec)


class BargeDefaulter:
    def default(self, obj: Barge, request: AdmissionRequest) -> None:
        obj.spec.flag = obj.spec.flag or "blue"
        obj.metadata.annotations = {
            **(obj.metadata.annotations or {}),
            "harbor.example.com/admitted-by": request.user_info.username,
            "harbor.example.com/dry-run": str(request.dry_run).lower(),
        }


class BargeValidator:
    async def validate_create(self, obj: Barge, request: AdmissionRequest) -> Warnings:
        if obj.spec.length > 30:
            raise Invalid(obj, [FieldError.invalid("spec.length", obj.spec.length, "at most 30")])
        return ["a barge this short may capsize"] if obj.spec.length < 3 else None

    async def validate_update(self, old: Barge, obj: Barge, request: AdmissionRequest) -> Warnings:
        if obj.spec.length != old.spec.length:
            raise Invalid(obj, [FieldError.forbidden("spec.length", "a barge keeps its length")])
        return None

    async def validate_delete(self, obj: Barge, request: AdmissionRequest) -> Warnings:
        if (obj.metadata.labels or {}).get("protected") == "true":
            raise Invalid(obj, [FieldError.forbidden("metadata.labels", "the barge is protected")])
        return None


WEBHOOKS = TypeWebhooks(
    Barge,
    defaulter=BargeDefaulter(),
    validator=BargeValidator(),
    validate_operations=("CREATE", "UPDATE", "DELETE"),
)


def setup(mgr: Manager) -> None:
    WEBHOOKS.complete(mgr)
