"""Service-account tokens without a server: the signing key, its ``kid``, the claims, and
the validator's checks in the words of ``pkg/serviceaccount/claims.go`` (1.32)."""

from __future__ import annotations

import base64
import hashlib
import json
import stat
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization

from kubeforge.apiserver.authn.authenticator import Authenticator, user_token
from kubeforge.apiserver.authn.bound import BoundObjects, ObjectRef
from kubeforge.apiserver.authn.signing import KeyFile, SigningKey

SECRET = "server-token"
API = "https://kubernetes.default.svc.cluster.local"
NOW = int(time.time())  # real time, so PyJWT checks the times too


class World:
    """The objects a token depends on, and a clock."""

    def __init__(self) -> None:
        self.now = float(NOW)
        self.objects: dict[tuple[str, str, str], dict[str, Any]] = {
            ("serviceaccounts", "apps", "bot"): _obj("sa-1"),
            ("pods", "apps", "web-0"): _obj("pod-1"),
            ("secrets", "apps", "creds"): _obj("secret-1"),
            ("nodes", "", "node-0"): _obj("node-1"),
        }
        self.key = KeyFile(None)
        self.authn = Authenticator(
            SECRET,
            service_accounts=lambda ns, n: self.objects.get(("serviceaccounts", ns, n)),
            bound_objects=lambda r, ns, n: self.objects.get((r, ns, n)),
            clock=lambda: self.now,
            keys=self.key,
        )

    def token(self, audiences: tuple[str, ...] = (API,), **kwargs: Any) -> str:
        account = {"metadata": {"namespace": "apps", "name": "bot", "uid": "sa-1"}}
        token, issued = self.authn.service_account_token(
            account, audiences=audiences, expiration_seconds=600, **kwargs
        )
        assert issued == NOW
        return token

    def error(self, token: str, audiences: tuple[str, ...] = ()) -> str:
        outcome = self.authn.review(token, audiences)
        assert outcome.user is None
        return outcome.error


def _obj(uid: str, **meta: Any) -> dict[str, Any]:
    return {"metadata": {"uid": uid, **meta}}


def _segment(token: str, index: int) -> dict[str, Any]:
    part = token.split(".")[index]
    decoded: dict[str, Any] = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    return decoded


def test_the_kid_is_the_base64url_sha256_of_the_public_keys_der_as_go_derives_it() -> None:
    key = SigningKey.generate()
    pem = key.to_pem()
    public = serialization.load_pem_private_key(pem, password=None).public_key()
    der = public.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    expected = base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b"=").decode()
    assert key.kid == expected
    token = key.sign({"sub": "x"})
    assert _segment(token, 0) == {"alg": "RS256", "kid": expected}
    assert key.jwk()["kid"] == expected
    assert list(key.jwk()) == ["use", "kty", "kid", "alg", "n", "e"]


def test_a_token_carries_the_real_claims_and_verifies_with_pyjwt_against_the_jwk() -> None:
    world = World()
    pod = BoundObjects(pod=ObjectRef("web-0", "pod-1"), node=ObjectRef("node-0", "node-1"))
    token = world.token(bound_to=pod, warn_after_seconds=300)
    public = jwt.PyJWK(world.key.key.jwk()).key
    claims = jwt.decode(token, public, algorithms=["RS256"], audience=API, issuer=API)
    assert set(claims) == {"aud", "exp", "iat", "iss", "jti", "kubernetes.io", "nbf", "sub"}
    assert claims["aud"] == [API]
    assert (claims["iat"], claims["nbf"], claims["exp"]) == (NOW, NOW, NOW + 600)
    assert claims["sub"] == "system:serviceaccount:apps:bot"
    assert claims["kubernetes.io"] == {
        "namespace": "apps",
        "node": {"name": "node-0", "uid": "node-1"},
        "pod": {"name": "web-0", "uid": "pod-1"},
        "serviceaccount": {"name": "bot", "uid": "sa-1"},
        "warnafter": NOW + 300,
    }
    user = world.authn.authenticate_token(token)
    assert user is not None
    assert user.extra == {
        "authentication.kubernetes.io/pod-name": ("web-0",),
        "authentication.kubernetes.io/pod-uid": ("pod-1",),
        "authentication.kubernetes.io/node-name": ("node-0",),
        "authentication.kubernetes.io/node-uid": ("node-1",),
        "authentication.kubernetes.io/credential-id": ("JTI=" + claims["jti"],),
    }


def test_times_are_checked_with_a_minutes_leeway() -> None:
    world = World()
    token = world.token()
    world.now = NOW + 600 + 60  # at the leeway's edge: still good
    assert world.authn.authenticate_token(token) is not None
    world.now = NOW + 600 + 61
    assert world.error(token) == "service account token has expired"
    world.now = NOW - 61
    assert world.error(token) == "service account token is not valid yet"


def test_audiences_must_meet_the_targets_in_gos_words() -> None:
    world = World()
    token = world.token(("vault", "other"))
    assert world.error(token) == (
        f'token audiences ["vault" "other"] is invalid for the target audiences ["{API}"]'
    )
    outcome = world.authn.review(token, ("nope", "other", "vault"))
    assert outcome.audiences == ("other", "vault")


def test_a_deleted_or_recreated_account_voids_its_tokens() -> None:
    world = World()
    token = world.token()
    world.objects[("serviceaccounts", "apps", "bot")] = _obj("sa-2")
    assert world.error(token) == "service account UID (sa-2) does not match claim (sa-1)"
    del world.objects[("serviceaccounts", "apps", "bot")]
    assert world.error(token) == 'serviceaccounts "bot" not found'
    world.objects[("serviceaccounts", "apps", "bot")] = _obj(
        "sa-1",
        deletionTimestamp=datetime.fromtimestamp(NOW - 3600, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    assert world.error(token) == "service account apps/bot has been deleted"


@pytest.mark.parametrize(
    ("bound", "key", "label"),
    [
        (BoundObjects(pod=ObjectRef("web-0", "pod-1")), ("pods", "apps", "web-0"), "pod"),
        (
            BoundObjects(secret=ObjectRef("creds", "secret-1")),
            ("secrets", "apps", "creds"),
            "secret",
        ),
        (BoundObjects(node=ObjectRef("node-0", "node-1")), ("nodes", "", "node-0"), "node"),
    ],
)
def test_a_bound_objects_deletion_or_new_uid_voids_the_token(
    bound: BoundObjects, key: tuple[str, str, str], label: str
) -> None:
    world = World()
    token = world.token(bound_to=bound)
    assert world.authn.authenticate_token(token) is not None
    uid = world.objects[key]["metadata"]["uid"]
    world.objects[key] = _obj("new")
    assert world.error(token) == (
        f"{label} UID (new) does not match service account {label} ref claim ({uid})"
    )
    del world.objects[key]
    assert world.error(token) == "service account token has been invalidated"


def test_forged_and_foreign_tokens_are_refused_with_the_real_reasons() -> None:
    world = World()
    token = world.token()
    header, payload, _ = token.split(".")
    other = SigningKey.generate().sign(_segment(token, 1))
    assert world.error(other) == "invalid signature, no keys found"  # another key's kid
    forged = f"{header}.{payload}.{other.split('.')[2]}"
    assert world.error(forged) == "go-jose/go-jose: error in cryptographic primitive"
    assert world.error("not.a.jwt") == "invalid bearer token"


def test_user_tokens_stay_hmac_and_are_good_for_the_api_audience_only() -> None:
    world = World()
    token = user_token(SECRET, "jane", ("dev",))
    assert _segment(token, 0)["alg"] == "HS256"
    outcome = world.authn.review(token)
    assert outcome.user is not None
    assert outcome.user.groups == ("dev", "system:authenticated")
    assert outcome.audiences == (API,)
    assert world.error(token, ("vault",)) == "invalid bearer token"


def test_the_key_is_kept_in_its_file_with_mode_0600(tmp_path: Path) -> None:
    path = tmp_path / "sa.key"
    first = KeyFile(path)
    token = first.key.sign({"sub": "x"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = KeyFile(path).key  # as a restarted server reads it
    assert again.kid == first.key.kid
    assert again.verify(token) == {"sub": "x"}


def test_without_a_file_one_key_serves_the_whole_process() -> None:
    assert KeyFile(None).key is KeyFile(None).key


def test_minting_user_tokens_needs_no_cryptography() -> None:
    probe = (
        "import sys; from kubeforge.apiserver.authn.usertokens import user_token; "
        "user_token('s', 'u'); print('cryptography' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
