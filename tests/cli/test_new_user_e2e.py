"""A new user's first controller, end to end, every step a real process as in a shell.

``kubeforge init`` in an empty directory, ``create api`` for the seed's Frigate,
the fields and reconcile logic filled in by hand, ``generate``, ``install`` into a
local API server, ``run`` the manager, ``kubectl apply`` a Frigate, see
``status.created: true``, read the manager's ``/metrics``, stop it, ``uninstall``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

from kubeforge.testing import LocalApiServer

from .kf_cli import FRIGATE_API, kubeforge_process


def fill_in_the_frigate(project: Path) -> None:
    """The user's edits: spec.foo/spec.demo, status.created, and the reconcile logic."""
    types = project / "frigate/api/v1beta1/frigate_types.py"
    types.write_text(
        types.read_text()
        .replace(
            '    foo: str = ""\n',
            '    foo: str = ""\n    demo: str = ""\n    """Shown in the logs."""\n',
        )
        .replace(
            '    """The observed state of a Frigate: written by its controller only."""\n',
            '    """The observed state of a Frigate: written by its controller only."""\n\n'
            "    created: bool = False\n",
        )
    )
    controller = project / "frigate/controllers/frigate_controller.py"
    controller.write_text(
        controller.read_text().replace(
            "        # TODO(user): your logic here\n",
            "        if not frigate.status.created:\n"
            "            frigate.status.created = True\n"
            "            await frigates.replace_status(frigate)\n",
        )
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_new_user_goes_from_an_empty_directory_to_a_reconciled_frigate(
    tmp_path: Path, kube_apiserver_factory: Callable[..., LocalApiServer]
) -> None:
    server = kube_apiserver_factory()
    env = {"KUBECONFIG": str(server.kubeconfig), "PYTHONDONTWRITEBYTECODE": "1"}
    project = tmp_path / "frigate"
    project.mkdir()

    def step(*args: str) -> str:
        done = kubeforge_process(*args, cwd=project, env=env)
        assert done.returncode == 0, f"kubeforge {' '.join(args)}: {done.stderr}"
        return done.stdout

    def kubectl(*args: str) -> str:
        done = subprocess.run(
            ["kubectl", *args],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=90,
            env={**os.environ, **env},
        )
        assert done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
        return done.stdout

    step("init", "--domain", "example.com")
    step("create", "api", *FRIGATE_API)
    fill_in_the_frigate(project)
    step("generate")
    assert "created" in (project / "config/crd/bases/ship.example.com_frigates.yaml").read_text()
    assert "frigates.ship.example.com established" in step("install")

    metrics_port = free_port()
    manager = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kubeforge.cli",
            "run",
            "frigate",
            "--metrics-bind-address",
            f"127.0.0.1:{metrics_port}",
            "--health-probe-bind-address",
            "0",
        ],
        cwd=project,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        kubectl("apply", "-f", "config/samples/ship_v1beta1_frigate.yaml")
        kubectl(
            "wait",
            "--for=jsonpath={.status.created}=true",
            "frigate/frigate-sample",
            "--timeout=60s",
        )
        assert (
            kubectl("get", "frigate", "frigate-sample", "-o", "jsonpath={.status.created}")
            == "true"
        )
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as r:
            metrics = r.read().decode()
        assert (
            'controller_runtime_reconcile_total{controller="frigate",result="success"}' in metrics
        )
    finally:
        manager.send_signal(signal.SIGTERM)
        output, _ = manager.communicate(timeout=60)
    assert manager.returncode == 0, output

    step("uninstall")
    assert "frigates.ship.example.com" not in kubectl("get", "crd", "-o", "name")
