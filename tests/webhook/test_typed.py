"""Typed defaulters and validators over HTTPS: the JSON patch, warnings, denials with field paths,
UPDATE with the old object, DELETE, undecodable objects, and the request's dryRun and userInfo."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson

from kubeforge.core.errors import ApiError
from kubeforge.webhook import (
    AdmissionRequest,
    Denied,
    FieldError,
    Invalid,
    TypeWebhooks,
    Warnings,
    mutate_path,
    validate_path,
)

from .kf_webhook import Ship, post, review, running_server, ship


class ShipDefaulter:
    def default(self, obj: Ship, request: AdmissionRequest) -> None:
        if not obj.spec.color:
            obj.spec.color = "grey"
        if request.dry_run:
            obj.metadata.labels = {"dry-run": "yes"}


class ShipValidator:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    async def validate_create(self, obj: Ship, request: AdmissionRequest) -> Warnings:
        self.calls.append(("create", request.user_info.username))
        if obj.spec.size > 10:
            raise Invalid(obj, [FieldError.invalid("spec.size", obj.spec.size, "at most 10")])
        return ["small ships sink"] if obj.spec.size < 2 else None

    async def validate_update(self, old: Ship, obj: Ship, request: AdmissionRequest) -> Warnings:
        self.calls.append(("update", (old.spec.size, obj.spec.size)))
        if obj.spec.size < old.spec.size:
            raise Denied("ships never shrink", warnings=["check your numbers"])
        return None

    def validate_delete(self, obj: Ship, request: AdmissionRequest) -> Warnings:
        self.calls.append(("delete", obj.spec.size))
        if obj.spec.size == 7:
            raise ApiError({"code": 409, "reason": "Conflict", "message": "ship 7 is at sea"})
        return None


def _patch(response: dict[str, Any]) -> Any:
    assert response["patchType"] == "JSONPatch"
    return orjson.loads(base64.b64decode(response["patch"]))


async def _admit(tmp_path: Path, body: dict[str, Any], path: str, hooks: Any) -> dict[str, Any]:
    async with running_server(tmp_path) as (server, cert):
        hooks.register(server)
        await server.start()
        status, answer = await post(server, cert, path, body)
    assert status == 200
    assert answer["response"]["uid"] == body["request"]["uid"]
    response: dict[str, Any] = answer["response"]
    return response


async def test_the_defaulter_s_changes_come_back_as_a_json_patch(tmp_path: Path) -> None:
    hooks = TypeWebhooks(Ship, defaulter=ShipDefaulter())
    # size: 0 and an unknown field: the model omits the first and keeps the second, and
    # neither may be removed by the patch.
    obj = ship(size=0, extra="kept")
    response = await _admit(tmp_path, review("CREATE", obj), mutate_path(Ship.info), hooks)
    assert response["allowed"] is True
    assert _patch(response) == [{"op": "add", "path": "/spec/color", "value": "grey"}]


async def test_dry_run_reaches_the_defaulter_and_no_change_means_no_patch(tmp_path: Path) -> None:
    hooks = TypeWebhooks(Ship, defaulter=ShipDefaulter())
    body = review("UPDATE", ship(color="red"), ship(color="red"), dry_run=True)
    response = await _admit(tmp_path, body, mutate_path(Ship.info), hooks)
    labels = {"op": "add", "path": "/metadata/labels", "value": {"dry-run": "yes"}}
    assert _patch(response) == [labels]
    response = await _admit(
        tmp_path, review("UPDATE", ship(color="red")), mutate_path(Ship.info), hooks
    )
    assert response == {"uid": response["uid"], "allowed": True}


async def test_deletes_are_not_defaulted(tmp_path: Path) -> None:
    hooks = TypeWebhooks(Ship, defaulter=ShipDefaulter())
    response = await _admit(tmp_path, review("DELETE", None, ship()), mutate_path(Ship.info), hooks)
    assert response["allowed"] is True
    assert "patch" not in response


async def test_a_valid_create_passes_with_the_validator_s_warnings(tmp_path: Path) -> None:
    validator = ShipValidator()
    hooks = TypeWebhooks(Ship, validator=validator)
    body = review("CREATE", ship(size=1))
    response = await _admit(tmp_path, body, validate_path(Ship.info), hooks)
    assert response["allowed"] is True
    assert response["warnings"] == ["small ships sink"]
    assert validator.calls == [("create", "alice")]


async def test_an_invalid_field_is_a_422_with_its_path(tmp_path: Path) -> None:
    hooks = TypeWebhooks(Ship, validator=ShipValidator())
    response = await _admit(
        tmp_path, review("CREATE", ship(size=11)), validate_path(Ship.info), hooks
    )
    assert response["allowed"] is False
    assert response["status"] == {
        "metadata": {},
        "code": 422,
        "reason": "Invalid",
        "message": (
            'Ship.fleet.example.com "s" is invalid: spec.size: Invalid value: 11: at most 10'
        ),
        "details": {
            "name": "s",
            "group": "fleet.example.com",
            "kind": "Ship",
            "causes": [
                {
                    "reason": "FieldValueInvalid",
                    "message": "Invalid value: 11: at most 10",
                    "field": "spec.size",
                }
            ],
        },
    }


async def test_update_gets_the_old_object_and_a_denial_keeps_its_warnings(tmp_path: Path) -> None:
    validator = ShipValidator()
    hooks = TypeWebhooks(Ship, validator=validator)
    body = review("UPDATE", ship(size=2), ship(size=5))
    response = await _admit(tmp_path, body, validate_path(Ship.info), hooks)
    assert validator.calls == [("update", (5, 2))]
    assert response["allowed"] is False
    assert response["status"]["message"] == "ships never shrink"
    assert response["status"]["code"] == 403
    assert response["warnings"] == ["check your numbers"]


async def test_delete_validates_the_object_being_deleted(tmp_path: Path) -> None:
    validator = ShipValidator()
    hooks = TypeWebhooks(Ship, validator=validator)
    body = review("DELETE", None, ship(size=7))
    response = await _admit(tmp_path, body, validate_path(Ship.info), hooks)
    assert validator.calls == [("delete", 7)]
    # An ApiError is passed on with its own Status (controller-runtime's APIStatus errors).
    assert response["status"]["code"] == 409
    assert response["status"]["reason"] == "Conflict"
    assert response["status"]["message"] == "ship 7 is at sea"


async def test_an_object_that_does_not_fit_the_model_is_a_400(tmp_path: Path) -> None:
    hooks = TypeWebhooks(Ship, validator=ShipValidator())
    body = review("CREATE", ship(size="huge"))
    response = await _admit(tmp_path, body, validate_path(Ship.info), hooks)
    assert response["allowed"] is False
    assert response["status"]["code"] == 400
    assert "cannot decode object as Ship" in response["status"]["message"]
    assert "$.spec.size" in response["status"]["message"]


def test_field_errors_read_like_apimachinery_s() -> None:
    errors = [
        FieldError.required("spec.name"),
        FieldError.forbidden("spec.secret", "may not be set"),
        FieldError.not_supported("spec.mode", "fast", ["slow", "safe"]),
        FieldError.invalid("spec.label", "a b", "no spaces"),
    ]
    denial = Invalid(("fleet.example.com", "Ship", "s"), errors)
    assert denial.message == (
        'Ship.fleet.example.com "s" is invalid: [spec.name: Required value, '
        "spec.secret: Forbidden: may not be set, "
        'spec.mode: Unsupported value: "fast": supported values: "slow", "safe", '
        'spec.label: Invalid value: "a b": no spaces]'
    )
    reasons = [c["reason"] for c in denial.status()["details"]["causes"]]
    assert reasons == [
        "FieldValueRequired",
        "FieldValueForbidden",
        "FieldValueNotSupported",
        "FieldValueInvalid",
    ]
