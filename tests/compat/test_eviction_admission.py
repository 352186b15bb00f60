"""An eviction posted with kubectl goes through the validating webhooks registered for
``pods/eviction``, as on a 1.32 server: the webhook sees a policy/v1 Eviction and its
denial is what kubectl prints; the pod stays."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from kubeforge.apiserver.server.tls import Credentials

from .kf_kubectl import Kubectl

pytestmark = pytest.mark.kubectl


class _Denier(BaseHTTPRequestHandler):
    """Answers every AdmissionReview with a denial and keeps the requests it saw."""

    seen: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append(review["request"])
        status = {"code": 403, "message": "no evictions during the freeze"}
        response = {"uid": review["request"]["uid"], "allowed": False, "status": status}
        body = json.dumps(
            {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:  # keep the test output quiet
        pass


@pytest.fixture
def denier(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """An HTTPS webhook on a free port: (url, caBundle)."""
    credentials = Credentials.load_or_create(tmp_path / "webhook-tls")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Denier)
    server.socket = credentials.ssl_context().wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"https://127.0.0.1:{server.server_address[1]}/validate"
        yield url, base64.b64encode(credentials.ca_pem).decode()
    finally:
        server.shutdown()
        server.server_close()


def test_kubectl_gets_the_webhooks_denial_of_an_eviction(
    kubectl: Kubectl, denier: tuple[str, str]
) -> None:
    url, ca_bundle = denier
    name = f"deny-evictions-{kubectl.namespace}"
    hook = {
        "name": "deny.example.com",
        "clientConfig": {"url": url, "caBundle": ca_bundle},
        "rules": [
            {
                "operations": ["CREATE"],
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["pods/eviction"],
            }
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
        # The compat server is shared: only this test's namespace is concerned.
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": kubectl.namespace}},
    }
    config = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": name},
        "webhooks": [hook],
    }
    kubectl.run("create", "-f", "-", stdin=json.dumps(config), namespaced=False)
    try:
        kubectl.run("run", "web", "--image=nginx")
        eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "web"}}
        path = f"/api/v1/namespaces/{kubectl.namespace}/pods/web/eviction"
        error = kubectl.fails(
            "create", "--raw", path, "-f", "-", stdin=json.dumps(eviction), namespaced=False
        )
        assert (
            'admission webhook "deny.example.com" denied the request: '
            "no evictions during the freeze" in error
        )
        kubectl.run("get", "pod", "web")
    finally:
        kubectl.run("delete", "validatingwebhookconfiguration", name, namespaced=False)
    request = _Denier.seen[-1]
    assert request["kind"] == {"group": "policy", "version": "v1", "kind": "Eviction"}
    assert request["resource"] == {"group": "", "version": "v1", "resource": "pods"}
    assert request["subResource"] == "eviction"
    assert request["namespace"] == kubectl.namespace
