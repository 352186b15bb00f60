"""Service-account issuer discovery: ``/.well-known/openid-configuration`` and
``/openid/v1/jwks``, as ``kubernetes/pkg/routes/openidmetadata.go`` and
``pkg/serviceaccount/openidmetadata.go`` (1.32) serve them.

The configuration names the issuer, the JWKS's URL, ``response_types_supported:
["id_token"]``, ``subject_types_supported: ["public"]`` and the signing algorithms of
the served keys; it is ``application/json``. The key set is
``application/jwk-set+json``. Both are cacheable for an hour (``Cache-Control: public,
max-age=3600``), the keys getter's maximum age. An OIDC consumer (Vault, a cloud's
workload identity, PyJWT) verifies service-account tokens with them.

Reading them is a non-resource ``get``: allowed to every service account by the
``system:service-account-issuer-discovery`` binding (``authz.bootstrap``), as on a real
cluster, and to nobody unauthenticated unless someone binds the role to
``system:unauthenticated``.

``jwks_uri`` is ``https://<external address>/openid/v1/jwks``, the real default without
``--service-account-jwks-uri``; a server listening on 127.0.0.1 only is reached at the
address its clients use, so that is the request's host.

Entry point: ``add_routes(app, authenticator)``.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from kubeforge.apiserver.authn.authenticator import Authenticator

__all__ = ["CONFIG_PATH", "JWKS_PATH", "add_routes"]

CONFIG_PATH = "/.well-known/openid-configuration"
JWKS_PATH = "/openid/v1/jwks"
_MAX_AGE = 3600  # staticPublicKeysGetter.GetCacheAgeMaxSeconds


def _respond(body: Any, content_type: str) -> web.Response:
    # Go's json.Marshal: struct fields in declaration order, no spaces, no newline.
    return web.Response(
        body=json.dumps(body, separators=(",", ":")).encode(),
        headers={"Content-Type": content_type, "Cache-Control": f"public, max-age={_MAX_AGE}"},
    )


class _Discovery:
    def __init__(self, authenticator: Authenticator) -> None:
        self.authenticator = authenticator

    async def configuration(self, request: web.Request) -> web.Response:
        key = self.authenticator.signing.jwk()
        body = {
            "issuer": self.authenticator.issuer,
            "jwks_uri": f"https://{request.host}{JWKS_PATH}",
            "response_types_supported": ["id_token"],  # Kubernetes only produces ID tokens
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": [key["alg"]],
        }
        return _respond(body, "application/json")

    async def keys(self, request: web.Request) -> web.Response:
        return _respond({"keys": [self.authenticator.signing.jwk()]}, "application/jwk-set+json")


def add_routes(app: web.Application, authenticator: Authenticator) -> None:
    """Mount both documents (GET; access is checked before, like any request's)."""
    discovery = _Discovery(authenticator)
    app.router.add_get(CONFIG_PATH, discovery.configuration)
    app.router.add_get(JWKS_PATH, discovery.keys)
