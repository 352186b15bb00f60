"""A scaffolded project tests its manager under exactly its generated RBAC.

The user's controller gains an ``owns(ConfigMap)`` and nothing else: the project's
own ``pytest`` fails with the 403 the API server would give the deployed manager,
and passes once ``kubeforge generate`` derived the missing permission.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from kubeforge.testing import LocalApiServer

from .kf_cli import BIN, FRIGATE, FRIGATE_API, kubeforge_process
from .test_check_rbac import own_config_maps


def project_tests(project: Path, *only: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *only],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=180,
        env={"PYTHONPATH": str(project), "PATH": str(BIN), "PYTHONDONTWRITEBYTECODE": "1"},
    )


def scaffolded(root: Path) -> Path:
    """``kubeforge init`` and ``create api`` for the Frigate, as real processes."""
    project = root / "frigate"
    project.mkdir()
    for step in (("init", "--domain", "example.com"), ("create", "api", *FRIGATE_API)):
        assert kubeforge_process(*step, cwd=project).returncode == 0
    return project


def test_an_undeclared_owned_kind_fails_the_project_s_tests_until_generate(
    tmp_path: Path,
) -> None:
    project = scaffolded(tmp_path)
    own_config_maps(project)

    refused = project_tests(project)

    assert refused.returncode == 1, refused.stdout[-3000:]
    assert "PermissionMissing" in refused.stdout
    assert (
        'configmaps is forbidden: User "system:serviceaccount:frigate-system:'
        'frigate-controller-manager" cannot list resource "configmaps" in API group "" '
        "at the cluster scope"
    ) in refused.stdout

    assert kubeforge_process("generate", cwd=project).returncode == 0
    passed = project_tests(project)

    assert passed.returncode == 0, passed.stdout[-3000:] + passed.stderr[-3000:]


def run_as_generated_rbac(target: str, server: LocalApiServer, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable, "-m", "kubeforge.cli", "run", target, "--as-generated-rbac",
            "--kubeconfig", str(server.kubeconfig),
            "--metrics-bind-address", "0", "--health-probe-bind-address", "0",
            # the example's webhooks, served with a generated certificate
            "--local-webhooks", "--webhook-port", "0",
        ],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip


def stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=60)
    return output


def test_run_as_generated_rbac_is_refused_what_config_rbac_lacks(
    tmp_path: Path, kube_apiserver_factory: Callable[..., LocalApiServer]
) -> None:
    server = kube_apiserver_factory(authorization="RBAC")
    project = scaffolded(tmp_path)
    own_config_maps(project)

    manager = run_as_generated_rbac(".", server, project)
    try:
        assert manager.stdout is not None
        for line in manager.stdout:  # the manager retries, logging each refusal
            if "forbidden" in line:
                break
    finally:
        output = stop(manager)
    assert (
        'User "system:serviceaccount:frigate-system:frigate-controller-manager" '
        'cannot list resource "configmaps"'
    ) in line, line + output


def test_run_as_generated_rbac_reconciles_with_what_config_rbac_grants(
    tmp_path: Path, kube_apiserver_factory: Callable[..., LocalApiServer]
) -> None:
    server = kube_apiserver_factory(authorization="RBAC")
    manager = run_as_generated_rbac(str(FRIGATE), server, tmp_path)

    def kubectl(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["kubectl", "--kubeconfig", str(server.kubeconfig), *args],
            capture_output=True, text=True, timeout=90,
        )  # fmt: skip

    try:
        sample = str(FRIGATE / "config/samples/ship_v1beta1_frigate.yaml")
        deadline = time.monotonic() + 60
        while kubectl("apply", "-f", sample).returncode != 0:  # until the CRD is installed
            assert time.monotonic() < deadline and manager.poll() is None
            time.sleep(0.2)
        waited = kubectl(
            "wait", "--for=jsonpath={.status.created}=true", "frigate/frigate-sample",
            "--timeout=60s",
        )  # fmt: skip
    finally:
        output = stop(manager)
    assert waited.returncode == 0, waited.stderr + output
    assert "forbidden" not in output


def test_a_namespaced_operator_gets_roles_only_and_runs_under_them(tmp_path: Path) -> None:
    project = scaffolded(tmp_path)
    own_config_maps(project)
    package = project / "frigate/__init__.py"
    package.write_text(
        package.read_text() + "\nfrom kubeforge.cache import CacheOptions\n\n"
        'cache_options = CacheOptions(default_namespaces=["fleet-a"])\n'
    )

    assert kubeforge_process("generate", cwd=project).returncode == 0

    roles = list(yaml.safe_load_all((project / "config/rbac/role.yaml").read_text()))
    assert [(r["kind"], r["metadata"].get("namespace")) for r in roles] == [("Role", "fleet-a")]
    granted = {res for rule in roles[0]["rules"] for res in rule["resources"]}
    assert {"configmaps", "frigates", "frigates/status", "frigates/finalizers"} <= granted
    bindings = list(yaml.safe_load_all((project / "config/rbac/role_binding.yaml").read_text()))
    assert [(b["kind"], b["metadata"]["namespace"]) for b in bindings] == [
        ("RoleBinding", "fleet-a")
    ]
    assert kubeforge_process("check", "rbac", cwd=project).returncode == 0
    # The manager runs with no cluster-wide permission. (The scaffold's per-kind tests
    # create objects in namespaces of their own, which this cache does not hold.)
    passed = project_tests(project, "tests/test_manager.py")
    assert passed.returncode == 0, passed.stdout[-3000:] + passed.stderr[-3000:]


def test_a_status_write_without_permission_fails_until_the_controller_says_it_writes_status(
    tmp_path: Path,
) -> None:
    project = scaffolded(tmp_path)
    controller = project / "frigate/controllers/frigate_controller.py"
    status_rule = (
        "    Rule(\n"
        '        groups=["ship.example.com"],\n'
        '        resources=["frigates/status"],\n'
        '        verbs=["get", "update", "patch"],\n'
        "    ),\n"
    )
    source = controller.read_text()
    assert status_rule in source
    controller.write_text(
        source.replace(status_rule, "").replace(
            "        # TODO(user): your logic here\n",
            "        await frigates.replace_status(frigate)\n",
        )
    )
    assert kubeforge_process("generate", cwd=project).returncode == 0

    refused = project_tests(project)

    assert refused.returncode == 1, refused.stdout[-3000:]
    assert 'cannot update resource "frigates/status" in API group "ship.example.com"' in (
        refused.stdout
    )

    controller.write_text(
        controller.read_text().replace(".for_(Frigate)", ".for_(Frigate, writes_status=True)")
    )
    assert kubeforge_process("generate", cwd=project).returncode == 0
    passed = project_tests(project)
    assert passed.returncode == 0, passed.stdout[-3000:] + passed.stderr[-3000:]
