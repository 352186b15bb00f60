"""Query parameters and bodies of the write verbs: ``dryRun``, ``fieldManager``,
``fieldValidation``, ``force``, patch content types and ``DeleteOptions``.

Entry points: ``write_params()``, ``patch_content_type()``, ``delete_body()``;
``Preconditions`` is the public face of delete preconditions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kubeforge.client._codec import encode
from kubeforge.client.requester import ParamValue

__all__ = [
    "FieldValidation",
    "PatchType",
    "Preconditions",
    "PropagationPolicy",
    "delete_body",
    "patch_content_type",
    "write_params",
]

PatchType = Literal["merge", "json", "strategic", "apply"]
PropagationPolicy = Literal["Orphan", "Background", "Foreground"]
FieldValidation = Literal["Ignore", "Warn", "Strict"]

_PATCH_CONTENT_TYPES: dict[str, str] = {
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    # JSON is YAML, so an apply body is sent as JSON under the YAML media type, as
    # client-go's typed apply does.
    "apply": "application/apply-patch+yaml",
}


@dataclass(frozen=True, slots=True)
class Preconditions:
    """Delete only if the object still has this ``uid`` and/or ``resource_version``
    (else ``Conflict``): guards against deleting a re-created or changed object."""

    uid: str | None = None
    resource_version: str | None = None


def write_params(
    *,
    dry_run: bool = False,
    field_manager: str | None = None,
    field_validation: FieldValidation | None = None,
    force: bool | None = None,
) -> dict[str, ParamValue]:
    params: dict[str, ParamValue] = {}
    if dry_run:
        params["dryRun"] = "All"
    if field_manager:
        params["fieldManager"] = field_manager
    if field_validation:
        if field_validation not in ("Ignore", "Warn", "Strict"):
            raise ValueError(
                f"field_validation must be Ignore, Warn or Strict, not {field_validation!r}"
            )
        params["fieldValidation"] = field_validation
    if force is not None:
        params["force"] = force
    return params


def patch_content_type(patch_type: str) -> str:
    content_type = _PATCH_CONTENT_TYPES.get(patch_type)
    if content_type is None:
        raise ValueError(f"unknown patch_type {patch_type!r}: use merge, json, strategic or apply")
    return content_type


def delete_body(
    *,
    grace_period_seconds: int | None = None,
    propagation_policy: PropagationPolicy | None = None,
    preconditions: Preconditions | None = None,
    dry_run: bool = False,
) -> bytes | None:
    """A ``DeleteOptions`` body, or ``None`` when every option is left at its default.

    Sent as a body rather than query parameters because preconditions exist only there
    (kubectl and client-go send a body too).
    """
    options: dict[str, Any] = {}
    if grace_period_seconds is not None:
        options["gracePeriodSeconds"] = grace_period_seconds
    if propagation_policy is not None:
        if propagation_policy not in ("Orphan", "Background", "Foreground"):
            raise ValueError(
                f"propagation_policy must be Orphan, Background or Foreground, "
                f"not {propagation_policy!r}"
            )
        options["propagationPolicy"] = propagation_policy
    if preconditions is not None:
        given = {}
        if preconditions.uid is not None:
            given["uid"] = preconditions.uid
        if preconditions.resource_version is not None:
            given["resourceVersion"] = preconditions.resource_version
        if given:
            options["preconditions"] = given
    if dry_run:
        options["dryRun"] = ["All"]
    if not options:
        return None
    return encode({"kind": "DeleteOptions", "apiVersion": "v1", **options})
