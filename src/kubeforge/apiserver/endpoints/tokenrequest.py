"""``POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token``: a TokenRequest, what
``kubectl create token`` and the kubelet send, answered as ``TokenREST.Create``
(``kubernetes/pkg/registry/core/serviceaccount/storage/token.go``, 1.32) answers it.

The steps, in the real order: a ``metadata.name``/``namespace`` in the body must match
the URL (422); the account must exist (its 404); ``spec.audiences`` defaults to the API
audiences and ``spec.expirationSeconds`` to an hour, then must lie between 10 minutes
and 2^32 seconds (422); ``spec.boundObjectRef`` names an existing Pod, Secret or Node
(``token_binding``). A pod-bound token of the kubelet's 3607 seconds for the API's own
audiences is signed to last a year with ``warnafter`` set, while the answer still says
3607 seconds (``--service-account-extend-token-expiration``, on by default).

Entry point: ``issue_token(engine, authenticator, namespace, name, body)``, the answer's body.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.authn.authenticator import Authenticator
from kubeforge.apiserver.authn.serviceaccount import EXTENDED_SECONDS, WARN_ONLY_SECONDS
from kubeforge.apiserver.endpoints.token_binding import resolve_bound_objects
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.registry.engine import Engine

__all__ = ["issue_token"]

_KIND = "TokenRequest"
_GROUP = "authentication.k8s.io"
_DEFAULT_SECONDS = 60 * 60  # SetDefaults_TokenRequestSpec
_MIN_SECONDS = 10 * 60
_MAX_SECONDS = 1 << 32


def _timestamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _check_names(meta: dict[str, Any], namespace: str, name: str) -> None:
    for field, expected, what in (
        ("name", name, "must match the service account name if specified"),
        ("namespace", namespace, "must match the service account namespace if specified"),
    ):
        given = meta.get(field)
        if given and given != expected:
            error = FieldError("Invalid", f"metadata.{field}", what, given)
            raise failures.invalid(_KIND, _GROUP, name, [error])


def _check_expiration(seconds: int) -> int:
    # Its type was checked with the body's (``reviews._REVIEW_FIELDS``: int64).
    errors = []
    if seconds < _MIN_SECONDS:
        errors.append("may not specify a duration less than 10 minutes")
    if seconds > _MAX_SECONDS:
        errors.append("may not specify a duration larger than 2^32 seconds")
    if errors:
        causes = [FieldError("Invalid", "spec.expirationSeconds", e, seconds) for e in errors]
        raise failures.invalid(_KIND, _GROUP, "", causes)
    return seconds


def issue_token(
    engine: Engine,
    authenticator: Authenticator,
    namespace: str,
    name: str,
    body: dict[str, Any],
) -> dict[str, Any]:
    """The TokenRequest with its ``status`` (token and expiry); raises ``StatusError``."""
    meta = dict(body.get("metadata") or {})
    _check_names(meta, namespace, name)
    served = engine.registry.lookup("", "v1", "serviceaccounts")
    assert served is not None  # built-in
    account = engine.get(served, namespace, name)  # its own 404
    spec = dict(body.get("spec") or {})
    audiences = tuple(str(a) for a in spec.get("audiences") or authenticator.api_audiences)
    given = spec.get("expirationSeconds")
    seconds = _check_expiration(_DEFAULT_SECONDS if given is None else int(given))
    bound = resolve_bound_objects(engine, namespace, name, spec.get("boundObjectRef"))
    signed_seconds, warn_after = seconds, 0
    if (
        bound is not None
        and bound.pod is not None
        and seconds == WARN_ONLY_SECONDS
        and set(audiences) <= set(authenticator.api_audiences)
    ):
        signed_seconds, warn_after = EXTENDED_SECONDS, seconds
    token, issued = authenticator.service_account_token(
        account,
        audiences=audiences,
        expiration_seconds=signed_seconds,
        warn_after_seconds=warn_after,
        bound_to=bound,
    )
    spec.update({"audiences": list(audiences), "expirationSeconds": seconds})
    meta.update({"name": name, "namespace": namespace, "creationTimestamp": _timestamp(issued)})
    return {
        "kind": _KIND,
        "apiVersion": f"{_GROUP}/v1",
        "metadata": meta,
        "spec": spec,
        "status": {"token": token, "expirationTimestamp": _timestamp(issued + seconds)},
    }
