"""Service-account tokens as real clients get and check them: ``kubectl create token``
verified with PyJWT against ``kubectl get --raw /openid/v1/jwks`` (what an outside OIDC
consumer does), and the official client's TokenRequest bound to a pod and TokenReview."""

from __future__ import annotations

import json
from typing import Any

import jwt
import pytest
from kubernetes import client as k8s

from kubeforge.testing import LocalApiServer

from .kf_kubectl import Kubectl, until

pytestmark = pytest.mark.kubectl

API = "https://kubernetes.default.svc.cluster.local"
YEAR = 365 * 24 * 3600


def test_a_kubectl_token_verifies_against_the_served_key_set(
    kubectl: Kubectl, compat_server: LocalApiServer, namespace: str
) -> None:
    kubectl.run("create", "serviceaccount", "bot")
    token = kubectl.run("create", "token", "bot", "--audience", "vault", "--duration", "15m")
    config = json.loads(kubectl.run("get", "--raw", "/.well-known/openid-configuration"))
    assert config["jwks_uri"] == f"{compat_server.url}/openid/v1/jwks"
    keys = json.loads(kubectl.run("get", "--raw", "/openid/v1/jwks"))["keys"]
    header = jwt.get_unverified_header(token.strip())
    (key,) = [k for k in keys if k["kid"] == header["kid"]]
    claims = jwt.decode(
        token.strip(),
        jwt.PyJWK(key).key,
        algorithms=config["id_token_signing_alg_values_supported"],
        audience="vault",
        issuer=config["issuer"],
    )
    assert claims["sub"] == f"system:serviceaccount:{namespace}:bot"
    assert claims["exp"] - claims["iat"] == 15 * 60
    assert claims["kubernetes.io"]["namespace"] == namespace
    with pytest.raises(jwt.InvalidSignatureError):
        forged = token.strip()[:-4] + ("AAAA" if not token.strip().endswith("AAAA") else "BBBB")
        jwt.decode(forged, jwt.PyJWK(key).key, algorithms=["RS256"], audience="vault")


def _scheduled_pod(core: Any, namespace: str) -> Any:
    pod = k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name="worker"),
        spec=k8s.V1PodSpec(
            service_account_name="bot", containers=[k8s.V1Container(name="c", image="busybox")]
        ),
    )
    core.create_namespaced_pod(namespace, pod)
    return until(
        lambda: core.read_namespaced_pod("worker", namespace),
        lambda found: bool(found.spec.node_name),
    )


def test_the_official_client_binds_a_kubelet_token_to_a_pod_and_reviews_it(
    api_client: Any, namespace: str
) -> None:
    core, authn = k8s.CoreV1Api(api_client), k8s.AuthenticationV1Api(api_client)
    core.create_namespaced_service_account(
        namespace, k8s.V1ServiceAccount(metadata=k8s.V1ObjectMeta(name="bot"))
    )
    pod = _scheduled_pod(core, namespace)
    ref = k8s.V1BoundObjectReference(api_version="v1", kind="Pod", name="worker")
    request = k8s.AuthenticationV1TokenRequest(
        spec=k8s.V1TokenRequestSpec(audiences=[], expiration_seconds=3607, bound_object_ref=ref)
    )
    issued = core.create_namespaced_service_account_token("bot", namespace, request)
    lifetime = issued.status.expiration_timestamp - issued.metadata.creation_timestamp
    assert lifetime.total_seconds() == 3607  # what the kubelet is told
    claims = jwt.decode(issued.status.token, options={"verify_signature": False})
    assert claims["exp"] - claims["iat"] == YEAR  # what the token says: extended
    private = claims["kubernetes.io"]
    assert private["warnafter"] == claims["iat"] + 3607
    assert private["pod"] == {"name": "worker", "uid": pod.metadata.uid}
    assert private["node"]["name"] == pod.spec.node_name

    def review(token: str, audiences: list[str] | None = None) -> Any:
        spec = k8s.V1TokenReviewSpec(token=token, audiences=audiences)
        return authn.create_token_review(k8s.V1TokenReview(spec=spec)).status

    good = review(issued.status.token)
    assert good.authenticated is True
    assert good.audiences == [API]
    assert good.user.username == f"system:serviceaccount:{namespace}:bot"
    assert good.user.extra["authentication.kubernetes.io/pod-name"] == ["worker"]
    assert good.user.extra["authentication.kubernetes.io/node-name"] == [pod.spec.node_name]
    wrong = review(issued.status.token, ["vault"])
    assert not wrong.authenticated
    assert wrong.error == f'token audiences ["{API}"] is invalid for the target audiences ["vault"]'
    core.delete_namespaced_pod("worker", namespace, grace_period_seconds=0)
    # The pod goes once the kubelet has stopped it; a minute's leeway after its
    # deletion mark, or at once when it is gone, the token dies with it.
    gone = until(lambda: review(issued.status.token), lambda status: not status.authenticated)
    assert gone.error == "service account token has been invalidated"
