"""``kubeforge create webhook`` and the webhook manifests ``generate`` writes: the scaffold is
lint-clean, the manifests render alike with ``kubeforge deploy --dry-run`` and ``kubectl
kustomize``, and the Kubernetes objects among them are valid against the 1.32 schemas."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from kubeforge.cli.create_webhook import register_webhook

from .kf_cli import FRIGATE_API, kubeforge, new_project, one_line_error

KUBERNETES = "1.32.0"
V1 = ("--group", "ship", "--version", "v1", "--kind", "Frigate")


def documents(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Frigate v1beta1 with a defaulter and a validator, and v1 (stored) as the hub."""
    project = new_project(tmp_path, *FRIGATE_API)
    admission = kubeforge(
        "create", "webhook", *FRIGATE_API, "--defaulting", "--programmatic-validation", cwd=project
    )
    assert admission.code == 0, admission
    assert kubeforge("create", "api", *V1, "--no-controller", cwd=project).code == 0
    types = project / "frigate/api/v1/frigate_types.py"
    types.write_text(
        types.read_text().replace(
            "Subresources(status=True))", "Subresources(status=True), storage=True)"
        )
    )
    conversion = kubeforge("create", "webhook", *V1, "--conversion", cwd=project)
    assert conversion.code == 0, conversion
    return project


def test_the_scaffold_is_registered_and_lint_clean(project: Path) -> None:
    for path in (
        "frigate/webhooks/frigate_v1beta1_webhook.py",
        "frigate/webhooks/frigate_v1_webhook.py",
        "frigate/api/v1beta1/frigate_conversion.py",
        "tests/test_frigate_v1beta1_webhook.py",
        "tests/test_frigate_v1_webhook.py",
    ):
        assert (project / path).is_file(), path
    manager = (project / "frigate/manager.py").read_text()
    assert "from .webhooks import frigate_v1_webhook, frigate_v1beta1_webhook\n" in manager
    assert "    frigate_v1beta1_webhook.setup(mgr)\n    frigate_v1_webhook.setup(mgr)\n" in manager
    ruff = [sys.executable, "-m", "ruff"]
    for command in (["check", "."], ["format", "--check", "."]):
        done = subprocess.run([*ruff, *command], cwd=project, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_deploy_renders_what_kubectl_kustomize_renders(project: Path) -> None:
    printed = kubeforge("deploy", "--dry-run", cwd=project)
    kustomized = subprocess.run(
        ["kubectl", "kustomize", str(project / "config/default")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert printed.code == 0, printed
    assert kustomized.returncode == 0, kustomized.stderr
    assert documents(printed.stdout) == documents(kustomized.stdout)


def test_the_manifests_wire_cert_manager_the_service_and_the_conversion(project: Path) -> None:
    objects = {
        (o["kind"], o["metadata"]["name"]): o
        for o in documents(kubeforge("deploy", "--dry-run", cwd=project).stdout)
    }
    inject = {"cert-manager.io/inject-ca-from": "frigate-system/frigate-serving-cert"}
    mutating = objects["MutatingWebhookConfiguration", "frigate-mutating-webhook-configuration"]
    assert mutating["metadata"]["annotations"] == inject
    [hook] = mutating["webhooks"]
    assert hook["name"] == "mfrigate-v1beta1.kb.io"
    assert hook["clientConfig"] == {
        "service": {
            "name": "frigate-webhook-service",
            "namespace": "frigate-system",
            "path": "/mutate-ship-example-com-v1beta1-frigate",
        }
    }
    validating = objects[
        "ValidatingWebhookConfiguration", "frigate-validating-webhook-configuration"
    ]
    assert validating["webhooks"][0]["clientConfig"]["service"]["path"] == (
        "/validate-ship-example-com-v1beta1-frigate"
    )
    crd = objects["CustomResourceDefinition", "frigates.ship.example.com"]
    assert crd["metadata"]["annotations"] == inject
    assert crd["spec"]["conversion"] == {
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": {
                "service": {
                    "name": "frigate-webhook-service",
                    "namespace": "frigate-system",
                    "path": "/convert",
                }
            },
            "conversionReviewVersions": ["v1"],
        },
    }
    service = objects["Service", "frigate-webhook-service"]
    assert service["spec"]["ports"] == [{"port": 443, "protocol": "TCP", "targetPort": 9443}]
    certificate = objects["Certificate", "frigate-serving-cert"]
    assert certificate["spec"]["dnsNames"] == [
        "frigate-webhook-service.frigate-system.svc",
        "frigate-webhook-service.frigate-system.svc.cluster.local",
    ]
    assert certificate["spec"]["secretName"] == "webhook-server-cert"
    assert objects["Issuer", "frigate-selfsigned-issuer"]["spec"] == {"selfSigned": {}}
    pod = objects["Deployment", "frigate-controller-manager"]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert "--webhook-port=9443" in container["args"]
    assert "--webhook-cert-dir=/tmp/k8s-webhook-server/serving-certs" in container["args"]
    assert {"containerPort": 9443, "name": "webhook-server", "protocol": "TCP"} in container[
        "ports"
    ]
    assert container["volumeMounts"] == [
        {
            "mountPath": "/tmp/k8s-webhook-server/serving-certs",
            "name": "webhook-certs",
            "readOnly": True,
        }
    ]
    assert pod["volumes"] == [
        {"name": "webhook-certs", "secret": {"secretName": "webhook-server-cert"}}
    ]


def test_every_kubernetes_object_is_valid_for_1_32(project: Path) -> None:
    checked = []
    for obj in documents(kubeforge("deploy", "--dry-run", cwd=project).stdout):
        if obj["apiVersion"].startswith("cert-manager.io/"):
            continue  # cert-manager's own CRDs: not part of Kubernetes' schemas
        kubernetes_validate.validate(obj, KUBERNETES, strict=True)
        checked.append(obj["kind"])
    assert {
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "CustomResourceDefinition",
        "Deployment",
        "Service",
    } <= set(checked)


def test_generate_again_changes_nothing(project: Path) -> None:
    before = {p: p.read_bytes() for p in (project / "config").rglob("*") if p.is_file()}
    assert kubeforge("generate", cwd=project).code == 0
    after = {p: p.read_bytes() for p in (project / "config").rglob("*") if p.is_file()}
    assert after == before


def test_create_webhook_needs_something_to_create_and_a_known_kind(tmp_path: Path) -> None:
    project = new_project(tmp_path, *FRIGATE_API)
    one_line_error(
        kubeforge("create", "webhook", *FRIGATE_API, cwd=project), 2, "nothing to create"
    )
    unknown = kubeforge("create", "webhook", *V1, "--defaulting", cwd=project)
    one_line_error(unknown, 1, "is not a kind of this project", "kubeforge create api")
    lonely = kubeforge("create", "webhook", *FRIGATE_API, "--conversion", cwd=project)
    one_line_error(lonely, 1, "Frigate has no other version to convert")


def test_registering_a_webhook_keeps_the_imports_sorted() -> None:
    source = (
        "from kubeforge import Manager\n\n# kubeforge:scaffold:imports\n\n\n"
        "def setup(mgr: Manager) -> None:\n    # kubeforge:scaffold:controllers\n"
    )
    once = register_webhook(source, "boat_v1_webhook")
    assert "from .webhooks import boat_v1_webhook\n\n# kubeforge:scaffold:imports" in once
    twice = register_webhook(once, "ship_v1_webhook")
    assert "from .webhooks import boat_v1_webhook, ship_v1_webhook\n" in twice
    assert register_webhook(twice, "ship_v1_webhook") == twice
    assert twice.count("    ship_v1_webhook.setup(mgr)\n") == 1
    with pytest.raises(ValueError, match="kubeforge:scaffold:imports"):
        register_webhook("def setup(mgr): pass\n", "boat_v1_webhook")
