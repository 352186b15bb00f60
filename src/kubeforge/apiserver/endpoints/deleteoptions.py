"""``DeleteOptions`` of a DELETE request: its body (JSON, YAML or protobuf) and its query.

Entry point: ``parse_options(request)``, for a single DELETE and a collection's. Invalid
options are a 422 ``Invalid`` on ``DeleteOptions.meta.k8s.io`` (an unknown propagation
policy, or one set together with ``orphanDependents``), as the real server answers.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from kubeforge.apiserver import failures
from kubeforge.apiserver.endpoints.bodies import (
    body_content_type,
    decode_body,
    dry_run_requested,
    read_body,
)
from kubeforge.apiserver.endpoints.protobody import PROTOBUF, decode_protobuf
from kubeforge.apiserver.meta.queryparams import parse_bool
from kubeforge.apiserver.protobuf.wire import UnsupportedKind
from kubeforge.apiserver.registry.deletion import DeleteOptions

__all__ = ["parse_options"]

_NOT_DELETE_OPTIONS = "the body of a delete must be a DeleteOptions object"
_POLICIES = ("Orphan", "Background", "Foreground")
_SUPPORTED = ("Foreground", "Background", "Orphan", "nil")
_BOTH_SET = "orphanDependents and deletionPropagation cannot be both set"


async def parse_options(request: web.Request) -> DeleteOptions:
    """``DeleteOptions`` from the body (JSON, YAML or protobuf) and the query string."""
    body = _options_body(await read_body(request), body_content_type(request))
    query = request.query
    body_dry_run = body.get("dryRun") or []
    if not isinstance(body_dry_run, list):
        raise failures.bad_request("DeleteOptions.dryRun must be a list of strings")
    options = DeleteOptions(dry_run=dry_run_requested(request) or bool(body_dry_run))
    grace = body.get("gracePeriodSeconds", query.get("gracePeriodSeconds"))
    if grace is not None:
        try:
            options.grace_period_seconds = int(grace)
        except (TypeError, ValueError):
            raise failures.bad_request(f"invalid gracePeriodSeconds: {grace}") from None
    policy = body.get("propagationPolicy", query.get("propagationPolicy"))
    orphan = body.get("orphanDependents", query.get("orphanDependents"))
    errors = _propagation_errors(policy, orphan) + _dry_run_errors(body_dry_run)
    if errors:
        raise failures.invalid("DeleteOptions", "meta.k8s.io", "", errors)
    options.propagation_policy = policy
    if orphan is not None:
        options.orphan_dependents = orphan if isinstance(orphan, bool) else parse_bool(str(orphan))
    preconditions = body.get("preconditions") or {}
    if isinstance(preconditions, dict):
        options.precondition_uid = preconditions.get("uid")
        options.precondition_rv = preconditions.get("resourceVersion")
    return options


def _options_body(raw: bytes, content_type: str) -> dict[str, Any]:
    """The DeleteOptions a DELETE's body holds; none for an empty body."""
    if content_type == PROTOBUF and raw:  # kubectl drain and delete send protobuf
        try:
            body = decode_protobuf(raw, "v1", "DeleteOptions")
        except UnsupportedKind as error:
            raise failures.bad_request(str(error)) from None
        if body.pop("kind", "DeleteOptions") != "DeleteOptions":
            raise failures.bad_request(_NOT_DELETE_OPTIONS)
        return body
    if not raw.strip():
        return {}
    decoded = decode_body(raw, content_type)
    if not isinstance(decoded, dict):
        raise failures.bad_request(_NOT_DELETE_OPTIONS)
    return decoded


def _propagation_errors(policy: Any, orphan: Any) -> list[failures.FieldError]:
    """ValidateDeleteOptions' two rules on propagation; both are reported when both fail."""
    errors: list[failures.FieldError] = []
    if policy is not None and orphan is not None:
        errors.append(failures.FieldError("Invalid", "propagationPolicy", _BOTH_SET, policy))
    if policy is not None and policy not in _POLICIES:
        errors.append(failures.FieldError.not_supported("propagationPolicy", policy, _SUPPORTED))
    return errors


def _dry_run_errors(dry_run: list[Any]) -> list[failures.FieldError]:
    return [
        failures.FieldError.not_supported("dryRun", value, ("All",))
        for value in dry_run
        if value != "All"
    ]
