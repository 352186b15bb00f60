"""Secret-based service-account tokens over raw HTTP: filled in by the token controller
and checked by the legacy authenticator as 1.32 does (``tokens_controller.go``,
``pkg/serviceaccount/legacy.go``), verifiable against the served JWKS."""

from __future__ import annotations

import asyncio
import base64
import time
from typing import Any

import jwt
import pytest
from kf_http import Api

pytestmark = pytest.mark.live

API = "https://kubernetes.default.svc.cluster.local"
REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"


async def _until(api: Api, path: str, check: Any) -> Any:
    for _ in range(400):  # a bound on the wait, not a timing check
        reply = await api.get(path)
        if check(reply):
            return reply
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} never got there: {reply.status} {reply.body}")


async def _token_secret(api: Api, namespace: str) -> tuple[dict[str, Any], str]:
    await api.post(f"/api/v1/namespaces/{namespace}/serviceaccounts", {"metadata": {"name": "bot"}})
    secret = {
        "metadata": {
            "name": "bot-token",
            "annotations": {"kubernetes.io/service-account.name": "bot"},
        },
        "type": "kubernetes.io/service-account-token",
    }
    assert (await api.post(f"/api/v1/namespaces/{namespace}/secrets", secret)).status == 201
    path = f"/api/v1/namespaces/{namespace}/secrets/bot-token"
    filled = await _until(api, path, lambda r: "token" in (r.body.get("data") or {}))
    return filled.body, base64.b64decode(filled.body["data"]["token"]).decode()


async def test_a_token_secret_is_filled_with_a_legacy_token(api: Api, namespace: str) -> None:
    secret, token = await _token_secret(api, namespace)
    account = (await api.get(f"/api/v1/namespaces/{namespace}/serviceaccounts/bot")).body
    data = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert data["namespace"] == namespace
    assert data["ca.crt"] == api.server.ca_file.read_text()
    assert (
        secret["metadata"]["annotations"]["kubernetes.io/service-account.uid"]
        == (account["metadata"]["uid"])
    )
    (key,) = (await api.get("/openid/v1/jwks")).body["keys"]
    claims = jwt.decode(token, jwt.PyJWK(key).key, algorithms=["RS256"])
    assert claims == {
        "iss": "kubernetes/serviceaccount",
        "kubernetes.io/serviceaccount/namespace": namespace,
        "kubernetes.io/serviceaccount/secret.name": "bot-token",
        "kubernetes.io/serviceaccount/service-account.name": "bot",
        "kubernetes.io/serviceaccount/service-account.uid": account["metadata"]["uid"],
        "sub": f"system:serviceaccount:{namespace}:bot",
    }


async def test_a_legacy_token_authenticates_and_stamps_its_secret(api: Api, namespace: str) -> None:
    _, token = await _token_secret(api, namespace)
    whoami = await api.request(
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        {},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert whoami.status == 201
    assert whoami.body["status"]["userInfo"]["username"] == f"system:serviceaccount:{namespace}:bot"
    path = f"/api/v1/namespaces/{namespace}/secrets/bot-token"
    stamped = (await api.get(path)).body["metadata"]["labels"]
    assert stamped == {
        "kubernetes.io/legacy-token-last-used": time.strftime("%Y-%m-%d", time.gmtime())
    }
    review = await api.post(REVIEWS, {"spec": {"token": token}})
    assert review.body["status"]["authenticated"] is True
    assert review.body["status"]["audiences"] == [API]
    other = await api.post(REVIEWS, {"spec": {"token": token, "audiences": ["vault"]}})
    assert other.body["status"]["error"] == (
        f'token audiences ["{API}"] is invalid for the target audiences ["vault"]'
    )


async def test_a_legacy_token_is_refused_as_its_secret_changes(api: Api, namespace: str) -> None:
    _, token = await _token_secret(api, namespace)
    path = f"/api/v1/namespaces/{namespace}/secrets/bot-token"
    marked = {"metadata": {"labels": {"kubernetes.io/legacy-token-invalid-since": "2024-01-01"}}}
    await api.patch(path, marked, "application/merge-patch+json")
    review = await api.post(REVIEWS, {"spec": {"token": token}})
    assert review.body["status"]["error"] == (
        f"the token in secret {namespace}/bot-token for service account {namespace}/bot has been "
        "marked invalid. Use tokens from the TokenRequest API or manually created secret-based "
        "tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret "
        "to temporarily allow use of this token"
    )
    other = base64.b64encode(b"something else").decode()
    await api.patch(path, {"data": {"token": other}}, "application/merge-patch+json")
    review = await api.post(REVIEWS, {"spec": {"token": token}})
    assert review.body["status"]["error"] == "Token does not match server's copy"
    await api.delete(f"/api/v1/namespaces/{namespace}/serviceaccounts/bot")
    await _until(api, path, lambda r: r.status == 404)  # the controller removes its tokens
    review = await api.post(REVIEWS, {"spec": {"token": token}})
    assert review.body["status"] == {"user": {}, "error": "Token has been invalidated"}
