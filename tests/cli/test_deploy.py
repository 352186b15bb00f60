"""``kubeforge deploy`` / ``undeploy``: what config/default renders, and applying it.

The rendering is checked against ``kubectl kustomize`` (kustomize itself), and the
manifests against the local API server with ``kubectl apply --dry-run=server``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubeforge import Client, load_config
from kubeforge.cli._kustomize import parse_image
from kubeforge.testing import LocalApiServer

from .kf_cli import FRIGATE_API, kubeforge, new_project, one_line_error

IMAGE = "registry.example.com:5000/fleet/frigate:v1.2.3"


def kubectl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["kubectl", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def documents(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


def test_dry_run_prints_what_kubectl_kustomize_renders_with_the_image_set(
    tmp_path: Path,
) -> None:
    project = new_project(tmp_path, *FRIGATE_API)

    printed = kubeforge("deploy", "--image", IMAGE, "--dry-run", cwd=project)
    # what `kustomize edit set image controller=IMAGE` writes, then kustomize's own rendering
    manager = project / "config/manager/kustomization.yaml"
    body = yaml.safe_load(manager.read_text())
    body["images"] = [parse_image(IMAGE)]
    manager.write_text(yaml.safe_dump(body))
    kustomized = kubectl("kustomize", str(project / "config/default"))

    assert printed.code == 0, printed
    assert kustomized.returncode == 0, kustomized.stderr
    assert documents(printed.stdout) == documents(kustomized.stdout)
    kinds = [d["kind"] for d in documents(printed.stdout)]
    assert kinds == [
        "Namespace",
        "CustomResourceDefinition",
        "ServiceAccount",
        "Role",
        "ClusterRole",
        "ClusterRole",
        "ClusterRole",
        "RoleBinding",
        "ClusterRoleBinding",
        "ClusterRoleBinding",
        "Service",
        "Deployment",
    ]
    deployment = documents(printed.stdout)[-1]
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == IMAGE


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        # no tag keeps the manifest's tag (latest), as `kustomize edit set image` does
        ("frigate", "frigate:latest"),
        ("frigate:v1", "frigate:v1"),
        ("localhost:5000/frigate", "localhost:5000/frigate:latest"),
        ("ghcr.io/a/b@sha256:0123", "ghcr.io/a/b@sha256:0123"),
    ],
)
def test_the_image_reference_ends_up_in_the_deployment(
    tmp_path: Path, reference: str, expected: str
) -> None:
    project = new_project(tmp_path)
    printed = kubeforge("deploy", "--image", reference, "--dry-run", cwd=project)
    deployment = documents(printed.stdout)[-1]
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == expected


def test_the_deploy_manifests_pass_a_server_side_dry_run_where_the_kinds_are_served(
    tmp_path: Path, kube_apiserver: LocalApiServer
) -> None:
    project = new_project(tmp_path, *FRIGATE_API, name="dryrun")
    config = ["--kubeconfig", str(kube_apiserver.kubeconfig)]
    objects = documents(kubeforge("deploy", "--image", IMAGE, "--dry-run", cwd=project).stdout)
    served = asyncio.run(_served_kinds(kube_apiserver))
    # A server-side dry run stores nothing, so the namespace must exist for real first,
    # on a real cluster as here.
    assert kubectl(*config, "create", "namespace", "dryrun-system").returncode == 0

    checked = []
    for obj in objects:
        if (obj["apiVersion"], obj["kind"]) not in served:
            continue  # not served by the local server yet: nothing to check it against
        result = kubectl(*config, "apply", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(obj))
        assert result.returncode == 0, (obj["kind"], result.stderr)
        assert "(server dry run)" in result.stdout
        checked.append(obj["kind"])
    assert {"Namespace", "CustomResourceDefinition", "Service"} <= set(checked)


async def _served_kinds(server: LocalApiServer) -> set[tuple[str, str]]:
    async with Client(load_config(server.kubeconfig)) as client:
        return {(info.api_version, info.kind) for info in await client.discovery.resources()}


def test_deploy_applies_in_order_waits_for_the_crds_and_undeploy_removes_it_all(
    tmp_path: Path, kube_apiserver: LocalApiServer
) -> None:
    project = new_project(tmp_path, *FRIGATE_API, name="fleet")
    overlay = project / "config/default/kustomization.yaml"
    # The user trims their overlay to what this server serves (no Deployments or RBAC yet).
    (project / "config/default/namespace.yaml").write_text(
        yaml.safe_dump(documents((project / "config/manager/manager.yaml").read_text())[0])
    )
    overlay.write_text("resources:\n  - ../crd\n  - namespace.yaml\n  - metrics_service.yaml\n")
    config = ["--kubeconfig", str(kube_apiserver.kubeconfig)]
    _rename_group(project, "deploy.g2.example.com")

    first = kubeforge("deploy", "--image", IMAGE, *config, cwd=project)
    again = kubeforge("deploy", "--image", IMAGE, *config, cwd=project)

    assert first.code == 0, first
    assert first.stdout.splitlines() == [
        "namespace/fleet-system created",
        "customresourcedefinition.apiextensions.k8s.io/frigates.ship.deploy.g2.example.com created",
        "service/fleet-controller-manager-metrics-service created",
    ]
    assert again.code == 0, again
    assert all(line.endswith(" unchanged") for line in again.stdout.splitlines()), again.stdout
    service = json.loads(
        kubectl(
            *config,
            "get",
            "service",
            "-n",
            "fleet-system",
            "-o",
            "json",
            "fleet-controller-manager-metrics-service",
        ).stdout
    )
    assert service["spec"]["ports"][0]["port"] == 8443  # HTTPS: the manager runs --metrics-secure

    removed = kubeforge("undeploy", *config, cwd=project)

    assert removed.code == 0, removed
    assert sorted(removed.stdout.splitlines()) == [
        "customresourcedefinition.apiextensions.k8s.io/frigates.ship.deploy.g2.example.com deleted",
        "namespace/fleet-system deleted",
        "service/fleet-controller-manager-metrics-service deleted",
    ]
    assert kubectl(*config, "get", "namespace", "fleet-system").returncode != 0


def test_a_kind_the_cluster_does_not_serve_is_named_in_one_line(
    tmp_path: Path, kube_apiserver: LocalApiServer
) -> None:
    project = new_project(tmp_path)
    (project / "config/default/widget.yaml").write_text(
        "apiVersion: widgets.example.com/v1\nkind: Widget\n"
        "metadata: {name: w, namespace: default}\n"
    )
    (project / "config/default/kustomization.yaml").write_text("resources:\n  - widget.yaml\n")

    outcome = kubeforge(
        "deploy", "--kubeconfig", str(kube_apiserver.kubeconfig), "--no-generate", cwd=project
    )

    one_line_error(outcome, 1, "widgets.example.com/v1 Widget")


def test_kustomize_features_kubeforge_does_not_render_are_refused_with_a_pointer(
    tmp_path: Path,
) -> None:
    project = new_project(tmp_path)
    kustomization = project / "config/default/kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + "namePrefix: fleet-\n")

    outcome = kubeforge("deploy", "--dry-run", cwd=project)

    one_line_error(outcome, 1, "namePrefix", "kubectl kustomize")


def _rename_group(project: Path, domain: str) -> None:
    """Give the project's kind a group of its own on the shared server."""
    types = project / project.name / "api/v1beta1/frigate_types.py"
    types.write_text(types.read_text().replace("ship.example.com", f"ship.{domain}"))
    controller = project / project.name / "controllers/frigate_controller.py"
    controller.write_text(controller.read_text().replace("ship.example.com", f"ship.{domain}"))
    for stale in (project / "config/crd/bases").glob("*.yaml"):
        stale.unlink()


def test_a_field_dropped_from_a_manifest_is_removed_and_kubectl_apply_agrees(
    tmp_path: Path, kube_apiserver: LocalApiServer
) -> None:
    project = new_project(tmp_path, name="lastapplied")
    config = ["--kubeconfig", str(kube_apiserver.kubeconfig)]
    overlay = project / "config/default"
    (overlay / "namespace.yaml").write_text(
        yaml.safe_dump(documents((project / "config/manager/manager.yaml").read_text())[0])
    )
    (overlay / "kustomization.yaml").write_text(
        "resources:\n  - namespace.yaml\n  - metrics_service.yaml\n"
    )
    service_file = overlay / "metrics_service.yaml"
    service = yaml.safe_load(service_file.read_text())
    service["metadata"]["labels"]["tier"] = "metrics"
    service_file.write_text(yaml.safe_dump(service))
    assert kubeforge("deploy", *config, cwd=project).code == 0

    del service["metadata"]["labels"]["tier"]
    service["metadata"]["labels"]["team"] = "fleet"
    service_file.write_text(yaml.safe_dump(service))
    redeployed = kubeforge("deploy", *config, cwd=project)

    assert redeployed.code == 0, redeployed
    assert "service/lastapplied-controller-manager-metrics-service configured" in (
        redeployed.stdout
    )
    live = json.loads(
        kubectl(
            *config,
            "get",
            "service",
            "-n",
            "lastapplied-system",
            "-o",
            "json",
            "lastapplied-controller-manager-metrics-service",
        ).stdout
    )
    assert "tier" not in live["metadata"]["labels"]
    assert live["metadata"]["labels"]["team"] == "fleet"
    assert live["spec"]["clusterIP"]  # the server's own fields are kept
    rendered = kubeforge("deploy", "--dry-run", cwd=project).stdout
    by_kubectl = kubectl(*config, "apply", "-f", "-", stdin=rendered)
    assert by_kubectl.returncode == 0, by_kubectl.stderr
    assert "last-applied-configuration" not in by_kubectl.stderr  # no "missing annotation"
    assert "unchanged" in by_kubectl.stdout
