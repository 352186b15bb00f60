"""The README's first command: the demo converges and exits 0 with --exit-when-converged,
its Deployment rolled out by the local server beside the PodToIps."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_demo_converges_and_exits_zero() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kubeforge.cli",
            "demo",
            "--pods",
            "4",
            "--exit-when-converged",
            "--timeout",
            "60",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "converged" in result.stdout
    assert "web-3" in result.stdout
    # the Deployment's three pods got PodToIps too, and its rollout completed
    assert result.stdout.count("│ rollout-") >= 4  # its ReplicaSet and its three pods
    assert "deployment/rollout, revision 1" in result.stdout
    assert "3/3 updated, 3 available (NewReplicaSetAvailable)" in result.stdout


def test_sigterm_stops_the_demo_and_its_embedded_server() -> None:
    demo = subprocess.Popen(
        [sys.executable, "-m", "kubeforge.cli", "demo", "--pods", "2", "--replicas", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=REPO,
    )
    try:
        assert demo.stdout is not None
        first = demo.stdout.readline()  # "local API server at https://127.0.0.1:PORT; try: ..."
        port = first.split("https://127.0.0.1:")[1].split(";")[0]
        kubeconfig = first.split("--kubeconfig")[1].split()[0]
        while True:  # steady state: all three pods have their PodToIp (bounded by the test timeout)
            names = subprocess.run(
                ["kubectl", "--kubeconfig", kubeconfig, "get", "ptp", "-o", "name"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.split()
            if len(names) == 3:  # two pods and the Deployment's one
                break
        demo.terminate()
        output, _ = demo.communicate(timeout=60)
    finally:
        if demo.poll() is None:  # a failed test must not leave the demo (and its server) behind
            demo.kill()
            demo.wait()
    assert demo.returncode == 0, first + output
    assert "Traceback" not in output
    with socket.socket() as probe:  # nothing listens on the server's port: it was stopped
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is fine
        probe.bind(("127.0.0.1", int(port)))
