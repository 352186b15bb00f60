"""``kubeforge run TARGET --local-webhooks``: the manager process serves its webhooks to the
local API server with a generated certificate, installs the configurations while it runs and
removes them when it stops."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compat.kf_kubectl import Kubectl
from kubeforge.crd import generate_crd
from kubeforge.testing import LocalApiServer

from .kf_boats import Barge

pytestmark = pytest.mark.kubectl

TARGET = Path(__file__).parent / "kf_boats.py"
VALIDATING = "validatingwebhookconfiguration/kubeforge-local-validating-webhook-configuration"


def _run(server: LocalApiServer, *flags: str) -> list[str]:
    return [
        sys.executable, "-m", "kubeforge.cli", "run", str(TARGET),
        "--kubeconfig", str(server.kubeconfig),
        "--metrics-bind-address", "0",
        "--health-probe-bind-address", "0",
        "--webhook-port", "0",
        *flags,
    ]  # fmt: skip


def _wait_for(kubectl: Kubectl, *args: str, present: bool) -> None:
    for _ in range(600):
        found = kubectl.complete(*args, namespaced=False).returncode == 0
        if found == present:
            return
        time.sleep(0.05)
    raise AssertionError(f"{args} never became {'present' if present else 'absent'}")


def test_run_serves_and_installs_the_webhooks_until_it_stops(
    kube_apiserver: LocalApiServer, tmp_path: Path
) -> None:
    kubectl = Kubectl(kube_apiserver.kubeconfig, tmp_path / "cache", "default")
    kubectl.run("apply", "-f", "-", stdin=json.dumps(generate_crd(Barge)), namespaced=False)
    kubectl.run(
        "wait", "--for=condition=Established", "crd/barges.harbor.example.com", namespaced=False
    )
    command = _run(kube_apiserver, "--local-webhooks")
    log = tmp_path / "run.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_for(kubectl, "get", VALIDATING, present=True)
        boat = {
            "apiVersion": "harbor.example.com/v1",
            "kind": "Barge",
            "metadata": {"name": "cli-boat"},
            "spec": {"length": 99},
        }
        stderr = kubectl.fails("create", "-f", "-", stdin=json.dumps(boat))
        assert "spec.length: Invalid value: 99: at most 30" in stderr, log.read_text()
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0, log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    _wait_for(kubectl, "get", VALIDATING, present=False)


def test_run_without_a_certificate_says_where_it_looked_in_one_line(
    kube_apiserver: LocalApiServer, tmp_path: Path
) -> None:
    command = _run(kube_apiserver, "--webhook-cert-dir", str(tmp_path))
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"Error: the webhook server has no {tmp_path / 'tls.crt'}: serving webhooks needs "
        f"tls.crt and tls.key in {tmp_path} (give --webhook-cert-dir, or --local-webhooks to "
        "generate one)"
    ]
