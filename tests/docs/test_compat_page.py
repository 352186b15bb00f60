"""docs/local-server.md's compatibility section says what the server really does: its two
lists of admission plugins are the defaults the server runs and the ones it only names,
and a server started with the flags behaves as the page says."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import time
from pathlib import Path

from kubeforge.apiserver.admission.plugins import (
    DEFAULT_ENABLED,
    IMPLEMENTED,
    RUN_ELSEWHERE,
    enabled_plugins,
)
from kubeforge.testing import LocalApiServer

PAGE = Path(__file__).resolve().parents[2] / "docs" / "local-server.md"


def _listed(marker: str) -> set[str]:
    text = PAGE.read_text()
    start = text.index(f"<!-- admission-plugins: {marker} -->")
    block = text[start : text.index("<!-- end -->", start)]
    items = re.split(r"\n- ", block)[1:]
    return {
        name for item in items for name in re.findall(r"`([A-Z][A-Za-z]+)`", item.split(":")[0])
    }


def test_the_page_lists_exactly_the_default_plugins_that_run() -> None:
    running = set(IMPLEMENTED) | RUN_ELSEWHERE
    defaults = enabled_plugins((), ())
    assert defaults == DEFAULT_ENABLED
    assert _listed("run") == defaults & running
    assert _listed("not run") == defaults - running


def _pod_volumes(server: LocalApiServer) -> list[object]:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    done = subprocess.run(
        ["kubectl", f"--kubeconfig={server.kubeconfig}", "create", "-f", "-", "-o", "json"],
        input=json.dumps(pod),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    volumes: list[object] = json.loads(done.stdout)["spec"].get("volumes", [])
    return volumes


def test_the_flags_switch_plugins_and_refuse_unknown_names() -> None:
    with LocalApiServer(extra_args=["--disable-admission-plugins=ServiceAccount"]) as server:
        assert _pod_volumes(server) == []
    with LocalApiServer() as server:
        assert len(_pod_volumes(server)) == 1
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kubeforge.apiserver",
            "--in-memory",
            "--port=0",
            "--enable-admission-plugins=Sometimes",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert 'enable-admission-plugins plugin "Sometimes" is unknown' in done.stderr


def _kubectl(server: LocalApiServer, *args: str) -> str:
    done = subprocess.run(
        ["kubectl", f"--kubeconfig={server.kubeconfig}", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_the_token_and_root_ca_line_holds() -> None:
    text = PAGE.read_text()
    start = text.index("<!-- tokens -->")
    block = text[start : text.index("<!-- end -->", start)]
    (algorithm,) = re.findall(r"signed `([A-Z0-9]+)`", block)
    with LocalApiServer() as server:
        _kubectl(server, "create", "serviceaccount", "robot")
        token = _kubectl(server, "create", "token", "robot").strip()
        header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
        keys = json.loads(_kubectl(server, "get", "--raw", "/openid/v1/jwks"))["keys"]
        assert header["alg"] == algorithm
        assert [k["kid"] for k in keys if k["alg"] == algorithm] == [header["kid"]]
        published = json.loads(
            _kubectl(server, "get", "configmap", "kube-root-ca.crt", "-o", "json")
        )
        assert published["data"]["ca.crt"] == server.ca_file.read_text()
        (legacy_issuer,) = re.findall(r"legacy token \(issuer\s+`([^`]+)`\)", block)
        secret = {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {
                "name": "robot-token",
                "namespace": "default",
                "annotations": {"kubernetes.io/service-account.name": "robot"},
            },
            "type": "kubernetes.io/service-account-token",
        }
        subprocess.run(
            ["kubectl", f"--kubeconfig={server.kubeconfig}", "create", "-f", "-"],
            input=json.dumps(secret),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        jsonpath = "-o=jsonpath={.data.token}"
        for _ in range(400):  # a bound on the wait for the token controller, not a timing
            filled = _kubectl(server, "get", "secret", "robot-token", jsonpath)
            if filled:
                break
            time.sleep(0.05)
        legacy = base64.b64decode(filled).decode()
        payload = legacy.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        assert claims["iss"] == legacy_issuer
