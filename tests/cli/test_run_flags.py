"""``kubeforge run``'s manager flags (kubebuilder's), checked up front and used for real."""

from __future__ import annotations

import json
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import click
import pytest

from kubeforge.cli.run import default_leader_election_id, parse_duration, run_command
from kubeforge.webhook.certs import ServingCert

CONTROLLER = """
import logging

from kubeforge import Builder
from kubeforge.models.core_v1 import Namespace

log = logging.getLogger("heartbeat")


def setup(mgr):
    async def reconcile(request):
        log.warning("saw %s", request.name)

    Builder(mgr).named("heartbeat").for_(Namespace).complete(reconcile)
"""


def kubeforge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kubeforge.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fetch(url: str) -> tuple[int, str] | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()
    except OSError:
        return None


def stopped_cleanly(process: subprocess.Popen[bytes]) -> bool:
    """SIGTERM, then the exit status of a graceful shutdown (0)."""
    process.send_signal(signal.SIGTERM)
    return process.wait(30) == 0


def reap(process: subprocess.Popen[bytes]) -> None:
    """Kill ``process`` if a failed assertion left it running."""
    if process.poll() is None:
        process.kill()
        process.wait()


def poll(url: str, expected: tuple[int, str] | None = (200, "ok")) -> tuple[int, str]:
    """Fetch ``url`` until it answers (and with ``expected``, if given); up to 30 s."""
    answer = None
    for _ in range(600):
        answer = fetch(url)
        if answer is not None and (expected is None or answer == expected):
            return answer
        time.sleep(0.05)
    raise AssertionError(f"{url} never answered {expected}: {answer}")


@pytest.mark.parametrize(
    ("flag", "value", "complaint"),
    [
        ("--metrics-bind-address", "8080", "has no port"),
        ("--health-probe-bind-address", ":probe", "not a number"),
        ("--leader-elect-lease-duration", "fifteen", "not a duration"),
    ],
)
def test_malformed_flags_are_usage_errors_naming_the_flag(
    tmp_path: Path, flag: str, value: str, complaint: str
):
    target = tmp_path / "controllers.py"
    target.write_text("def setup(manager):\n    pass\n")
    result = kubeforge("run", str(target), flag, value)
    assert result.returncode == 2
    assert flag in result.stderr and complaint in result.stderr
    assert "Traceback" not in result.stderr


def test_leader_election_timings_client_go_would_reject_are_usage_errors(tmp_path: Path):
    target = tmp_path / "controllers.py"
    target.write_text("def setup(manager):\n    pass\n")
    args = ["--leader-elect", "--leader-elect-renew-deadline", "20s"]
    result = kubeforge("run", str(target), *args)
    assert result.returncode == 2
    assert "longer than the renew deadline" in result.stderr


def test_the_defaults_are_kubebuilders_and_controller_runtimes():
    context = click.Context(run_command)
    defaults = {param.name: param.get_default(context) for param in run_command.params}
    assert defaults["metrics_bind_address"] == ":8080"
    assert defaults["health_probe_bind_address"] == ":8081"
    assert not defaults["leader_elect"]
    assert defaults["leader_election_id"] is None  # then derived from the target
    assert defaults["leader_election_namespace"] is None  # then the kubeconfig's namespace
    timings = ("lease_duration", "renew_deadline", "retry_period")
    assert [defaults[f"leader_elect_{name}"] for name in timings] == ["15s", "10s", "2s"]


def test_durations_are_spelled_as_in_go_or_as_seconds():
    assert parse_duration("15s") == 15
    assert parse_duration("1m30s") == 90
    assert parse_duration("250ms") == 0.25
    assert parse_duration("1h") == 3600
    assert parse_duration("2.5") == 2.5
    for bad in ("", "s", "1x", "5s3", "-1s"):
        with pytest.raises(ValueError, match="not a duration"):
            parse_duration(bad)


def test_the_default_lease_name_comes_from_the_target():
    assert default_leader_election_id("examples/podtoip/") == "podtoip-leader"
    assert default_leader_election_id("./ops/heartbeat.py") == "heartbeat-leader"
    assert default_leader_election_id("my_operator.main") == "my-operator-main-leader"
    # a project directory: the Lease its deployed manager elects on (manager.yaml's flag)
    frigate = Path(__file__).resolve().parents[2] / "examples" / "frigate"
    assert default_leader_election_id(str(frigate)) == "frigate.example.com"
    assert (
        "--leader-election-id=frigate.example.com"
        in (frigate / "config/manager/manager.yaml").read_text()
    )


def test_run_serves_metrics_and_probes_and_logs_json_with_the_reconcile_context(
    tmp_path: Path, kube_apiserver: Any
):
    target = tmp_path / "heartbeat.py"
    target.write_text(CONTROLLER)
    metrics, probes = free_port(), free_port()
    output = tmp_path / "run.out"
    command = [
        sys.executable, "-m", "kubeforge.cli", "run", str(target),
        "--kubeconfig", str(kube_apiserver.kubeconfig),
        "--metrics-bind-address", f"127.0.0.1:{metrics}",
        "--health-probe-bind-address", f":{probes}",  # a bare port: loopback off-cluster
        "--log-format", "json",
    ]  # fmt: skip
    with output.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        poll(f"http://127.0.0.1:{probes}/readyz")
        assert poll(f"http://127.0.0.1:{probes}/healthz") == (200, "ok")
        _, text = poll(f"http://127.0.0.1:{metrics}/metrics", expected=None)
        assert 'controller_runtime_reconcile_total{controller="heartbeat",result="success"}' in text
        assert 'workqueue_depth{controller="heartbeat",name="heartbeat"}' in text
        for _ in range(600):
            if '"msg":"saw ' in output.read_text():
                break
            time.sleep(0.05)
        assert stopped_cleanly(process)
    finally:
        reap(process)
    entries = [json.loads(line) for line in output.read_text().splitlines() if line.strip()]
    saw = next(entry for entry in entries if entry["msg"].startswith("saw "))
    assert saw["logger"] == "heartbeat" and saw["level"] == "warning"
    assert saw["controller"] == "heartbeat" and saw["namespace"] == ""  # cluster-scoped
    assert saw["msg"] == f"saw {saw['name']}"
    assert len(saw["reconcileID"]) == 36  # a UUID


def test_zero_disables_the_metrics_server(tmp_path: Path, kube_apiserver: Any):
    target = tmp_path / "heartbeat.py"
    target.write_text(CONTROLLER)
    metrics, probes = free_port(), free_port()
    command = [
        sys.executable, "-m", "kubeforge.cli", "run", str(target),
        "--kubeconfig", str(kube_apiserver.kubeconfig),
        "--metrics-bind-address", "0",
        "--health-probe-bind-address", f"127.0.0.1:{probes}",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        poll(f"http://127.0.0.1:{probes}/readyz")
        assert fetch(f"http://127.0.0.1:{metrics}/metrics") is None  # nothing listens
        assert stopped_cleanly(process)
    finally:
        reap(process)


def test_a_taken_port_is_one_readable_error(tmp_path: Path, kube_apiserver: Any):
    target = tmp_path / "controllers.py"
    target.write_text("def setup(manager):\n    pass\n")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = kubeforge(
            "run", str(target), "--kubeconfig", str(kube_apiserver.kubeconfig),
            "--metrics-bind-address", f"127.0.0.1:{port}", "--health-probe-bind-address", "0",
        )  # fmt: skip
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and str(port) in lines[0]


def test_metrics_secure_serves_https_with_the_given_certificate_to_authorized_callers_only(
    tmp_path: Path, kube_apiserver: Any
):
    target = tmp_path / "heartbeat.py"
    target.write_text(CONTROLLER)
    certs = tmp_path / "certs"
    ServingCert.generate(["127.0.0.1"]).write(certs)
    metrics, probes = free_port(), free_port()
    command = [
        sys.executable, "-m", "kubeforge.cli", "run", str(target),
        "--kubeconfig", str(kube_apiserver.kubeconfig),
        "--metrics-bind-address", f"127.0.0.1:{metrics}", "--metrics-secure",
        "--metrics-cert-path", str(certs),
        "--health-probe-bind-address", f"127.0.0.1:{probes}",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    trusted = ssl.create_default_context(cafile=str(certs / "ca.crt"))
    url = f"https://127.0.0.1:{metrics}/metrics"
    try:
        poll(f"http://127.0.0.1:{probes}/readyz")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=5, context=trusted)
        assert (refused.value.code, refused.value.read()) == (401, b"Unauthorized\n")
        # the server's admin token: authenticated by TokenReview, allowed by its RBAC
        request = urllib.request.Request(
            url, headers={"Authorization": f"Bearer {kube_apiserver.token}"}
        )
        with urllib.request.urlopen(request, timeout=5, context=trusted) as answer:
            assert answer.status == 200
            assert b"controller_runtime_reconcile_total" in answer.read()
        assert stopped_cleanly(process)
    finally:
        reap(process)
