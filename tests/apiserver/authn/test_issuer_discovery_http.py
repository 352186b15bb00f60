"""Service-account issuer discovery, TokenRequest and TokenReview over raw HTTP, on a
server of this module's own that authorizes with RBAC, as a 1.32 server answers them
(``pkg/routes/openidmetadata.go``, ``storage/token.go``, ``tokenreview/storage.go``)."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import jwt
import pytest
from kf_http import Api, open_api

from kubeforge.apiserver.authn.authenticator import user_token
from kubeforge.testing import LocalApiServer

pytestmark = pytest.mark.live

API = "https://kubernetes.default.svc.cluster.local"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
DISCOVERY = "system:service-account-issuer-discovery"


@pytest.fixture
async def ns(admin: Api) -> str:
    return await admin.create_namespace("issuer")


async def _account_token(api: Api, ns: str, name: str = "bot", **spec: Any) -> dict[str, Any]:
    await api.post(f"/api/v1/namespaces/{ns}/serviceaccounts", {"metadata": {"name": name}})
    reply = await api.post(f"/api/v1/namespaces/{ns}/serviceaccounts/{name}/token", {"spec": spec})
    assert reply.status == 201, reply.body
    issued: dict[str, Any] = reply.body
    return issued


async def _get_as(api: Api, path: str, token: str | None) -> tuple[int, bytes, Any]:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    async with api.session.get(api.server.url + path, headers=headers) as response:
        return response.status, await response.read(), response.headers


async def test_both_documents_are_served_as_the_real_routes_serve_them(admin: Api) -> None:
    status, raw, headers = await _get_as(
        admin, "/.well-known/openid-configuration", admin.server.token
    )
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert headers["Cache-Control"] == "public, max-age=3600"
    config = json.loads(raw)
    assert list(config) == [
        "issuer",
        "jwks_uri",
        "response_types_supported",
        "subject_types_supported",
        "id_token_signing_alg_values_supported",
    ]
    assert config["issuer"] == API
    assert config["jwks_uri"] == f"{admin.server.url}/openid/v1/jwks"
    assert config["response_types_supported"] == ["id_token"]
    assert config["subject_types_supported"] == ["public"]
    assert config["id_token_signing_alg_values_supported"] == ["RS256"]
    status, raw, headers = await _get_as(admin, "/openid/v1/jwks", admin.server.token)
    assert status == 200
    assert headers["Content-Type"] == "application/jwk-set+json"
    assert headers["Cache-Control"] == "public, max-age=3600"
    (key,) = json.loads(raw)["keys"]
    assert (key["kty"], key["alg"], key["use"], key["e"]) == ("RSA", "RS256", "sig", "AQAB")


async def test_service_accounts_may_read_them_and_others_need_a_binding(
    admin: Api, ns: str
) -> None:
    role = (await admin.get(f"{RBAC}/clusterroles/{DISCOVERY}")).body
    assert role["rules"] == [
        {
            "nonResourceURLs": [
                "/.well-known/openid-configuration",
                "/.well-known/openid-configuration/",
                "/openid/v1/jwks",
                "/openid/v1/jwks/",
            ],
            "verbs": ["get"],
        }
    ]
    binding = (await admin.get(f"{RBAC}/clusterrolebindings/{DISCOVERY}")).body
    assert binding["subjects"] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:serviceaccounts"}
    ]
    account = (await _account_token(admin, ns))["status"]["token"]
    for path in ("/.well-known/openid-configuration", "/openid/v1/jwks"):
        assert (await _get_as(admin, path, account))[0] == 200
        assert (await _get_as(admin, path, None))[0] == 401
        status, raw, _ = await _get_as(admin, path, user_token(admin.server.token, "jane"))
        assert status == 403
        assert json.loads(raw)["message"] == (f'forbidden: User "jane" cannot get path "{path}"')


async def test_a_token_request_answers_as_token_rest_create(admin: Api, ns: str) -> None:
    issued = await _account_token(admin, ns)
    assert issued["metadata"]["name"] == "bot"
    assert issued["metadata"]["namespace"] == ns
    created = issued["metadata"]["creationTimestamp"]
    assert created is not None
    assert issued["spec"] == {"audiences": [API], "expirationSeconds": 3600}
    claims = jwt.decode(issued["status"]["token"], options={"verify_signature": False})
    assert claims["iat"] == claims["nbf"] == claims["exp"] - 3600
    base = f"/api/v1/namespaces/{ns}/serviceaccounts/bot/token"
    for seconds, words in (
        (0, "may not specify a duration less than 10 minutes"),
        ((1 << 32) + 1, "may not specify a duration larger than 2^32 seconds"),
    ):
        reply = await admin.post(base, {"spec": {"expirationSeconds": seconds}})
        assert reply.status == 422
        assert reply.body["message"] == (
            f'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: '
            f"Invalid value: {seconds}: {words}"
        )
    other = await admin.post(base, {"metadata": {"name": "someone"}, "spec": {}})
    assert other.status == 422
    assert other.body["details"]["causes"][0] == {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "someone": must match the service account name if specified',
        "field": "metadata.name",
    }


async def test_token_reviews_answer_with_the_authenticators_reasons(admin: Api, ns: str) -> None:
    token = (await _account_token(admin, ns, audiences=["vault"]))["status"]["token"]
    good = await admin.post(REVIEWS, {"spec": {"token": token, "audiences": ["vault", "x"]}})
    assert good.status == 201
    status = good.body["status"]
    assert status["authenticated"] is True
    assert status["audiences"] == ["vault"]
    assert status["user"]["username"] == f"system:serviceaccount:{ns}:bot"
    assert status["user"]["extra"]["authentication.kubernetes.io/credential-id"][0].startswith(
        "JTI="
    )
    wrong = await admin.post(REVIEWS, {"spec": {"token": token}})
    assert wrong.body["status"] == {
        "user": {},
        "error": f'token audiences ["vault"] is invalid for the target audiences ["{API}"]',
    }
    await admin.delete(f"/api/v1/namespaces/{ns}/serviceaccounts/bot")
    gone = await admin.post(REVIEWS, {"spec": {"token": token, "audiences": ["vault"]}})
    assert gone.body["status"] == {"user": {}, "error": 'serviceaccounts "bot" not found'}
    junk = await admin.post(REVIEWS, {"spec": {"token": "junk"}})
    assert junk.body["status"] == {"user": {}, "error": "invalid bearer token"}
    empty = await admin.post(REVIEWS, {"spec": {}})
    assert empty.status == 400
    assert empty.body["message"] == "token is required for TokenReview in authentication"


async def test_tokens_issued_before_a_restart_stay_valid(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with LocalApiServer(data_dir=data, simulate_node=False) as server:
        async with await open_api(server) as session:
            api = Api(server, session)
            issued = await _account_token(api, "default")
            keys_before = (await api.get("/openid/v1/jwks")).body
        assert stat.S_IMODE((data / "sa.key").stat().st_mode) == 0o600
        server.restart()
        async with await open_api(server) as session:
            api = Api(server, session)
            assert (await api.get("/openid/v1/jwks")).body == keys_before
            token = issued["status"]["token"]
            review = await api.post(REVIEWS, {"spec": {"token": token}})
            assert review.body["status"]["authenticated"] is True
            whoami = await api.request(
                "POST",
                "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                {},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert whoami.status == 201
