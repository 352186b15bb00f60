"""The manifests a project's webhooks need in a cluster, laid out as kubebuilder lays them out.

Entry point: ``webhook_files(project, webhooks)``, the files (path -> text) that
``kubeforge generate`` writes for the ``TypeWebhooks`` declared under
``<package>/webhooks``, when there are any:

- ``config/webhook/``: ``manifests.yaml`` (the Mutating/ValidatingWebhookConfiguration,
  calling the webhook Service), ``service.yaml`` (port 443 to the manager's 9443) and
  their kustomization;
- ``config/certmanager/``: a self-signed ``Issuer`` and the serving ``Certificate``
  for the Service's DNS names, stored in the Secret ``webhook-server-cert``;
- ``config/crd/patches/webhook_in_<plural>.yaml`` for each kind with a conversion:
  ``spec.conversion`` calling ``/convert`` (``ConversionReview`` v1), listed under
  ``patches`` in ``config/crd/kustomization.yaml``;
- ``config/default/manager_webhook_patch.yaml``: the webhook port, the certificate
  Secret mounted at the default ``--webhook-cert-dir``, as a JSON 6902 patch of the
  manager Deployment; and the wiring of all of it in ``config/default/kustomization.yaml``.

The configurations and CRDs carry cert-manager's ``cert-manager.io/inject-ca-from``
annotation, so cert-manager fills in their ``caBundle``. kubebuilder writes
placeholders and lets kustomize ``replacements`` fill in the names; the names here
are known when the files are written, so they are written out, which any kustomize
and ``kubeforge deploy`` render alike.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import yaml

from kubeforge.cli._project import Project
from kubeforge.crd import render_yaml
from kubeforge.webhook import (
    DEFAULT_CERT_DIR,
    DEFAULT_PORT,
    TypeWebhooks,
    configurations,
    conversion_spec,
    service_client_config,
)

__all__ = ["webhook_files"]

_WEBHOOK = Path("config") / "webhook"
_CERTMANAGER = Path("config") / "certmanager"
_CRD = Path("config") / "crd"
_DEFAULT = Path("config") / "default"
_INJECT = "cert-manager.io/inject-ca-from"
_SECRET = "webhook-server-cert"
_CERT_DIR = "/tmp/k8s-webhook-server/serving-certs"  # controller-runtime's default on Linux


def webhook_files(project: Project, hooks: list[TypeWebhooks[Any]]) -> dict[Path, str]:
    """The webhook, cert-manager and conversion manifests and the kustomizations wiring
    them in (edited from the current files); ``{}`` without webhooks."""
    if not hooks:
        return {}
    files: dict[Path, str] = {
        _WEBHOOK / "manifests.yaml": render_yaml(_configurations(project, hooks)),
        _WEBHOOK / "service.yaml": render_yaml([_service(project)]),
        _WEBHOOK / "kustomization.yaml": _kustomization(["manifests.yaml", "service.yaml"]),
        _CERTMANAGER / "issuer.yaml": render_yaml([_issuer(project)]),
        _CERTMANAGER / "certificate.yaml": render_yaml([_certificate(project)]),
        _CERTMANAGER / "kustomization.yaml": _kustomization(["issuer.yaml", "certificate.yaml"]),
        _DEFAULT / "manager_webhook_patch.yaml": _manager_patch(project),
    }
    patches = []
    for hook in hooks:
        if hook.conversion is not None:
            name = f"webhook_in_{hook.info.plural}.yaml"
            files[_CRD / "patches" / name] = render_yaml([_conversion_patch(project, hook)])
            patches.append(f"patches/{name}")
    for relative, text in (_wire_crd_patches(project, patches), _wire_default(project)):
        if text is not None:
            files[relative] = text
    return files


# --- names --------------------------------------------------------------------------------------


def _service_name(project: Project) -> str:
    return f"{project.project_name}-webhook-service"


def _certificate_name(project: Project) -> str:
    return f"{project.project_name}-serving-cert"


def _labels(project: Project) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": project.project_name,
        "app.kubernetes.io/managed-by": "kubeforge",
    }


def _inject(project: Project) -> dict[str, str]:
    return {_INJECT: f"{project.namespace}/{_certificate_name(project)}"}


# --- objects ------------------------------------------------------------------------------------


def _configurations(project: Project, hooks: list[TypeWebhooks[Any]]) -> list[dict[str, Any]]:
    def client_config(path: str) -> dict[str, Any]:
        return service_client_config(_service_name(project), project.namespace, path)

    objects = configurations(hooks, client_config, name_prefix=f"{project.project_name}-")
    for obj in objects:
        obj["metadata"] = {
            **obj["metadata"],
            "labels": _labels(project),
            "annotations": _inject(project),
        }
    return objects


def _service(project: Project) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": _service_name(project),
            "namespace": project.namespace,
            "labels": _labels(project),
        },
        "spec": {
            "ports": [{"port": 443, "protocol": "TCP", "targetPort": DEFAULT_PORT}],
            "selector": {
                "app.kubernetes.io/name": project.project_name,
                "control-plane": "controller-manager",
            },
        },
    }


def _issuer(project: Project) -> dict[str, Any]:
    return {
        "apiVersion": "cert-manager.io/v1",
        "kind": "Issuer",
        "metadata": {
            "name": f"{project.project_name}-selfsigned-issuer",
            "namespace": project.namespace,
            "labels": _labels(project),
        },
        "spec": {"selfSigned": {}},
    }


def _certificate(project: Project) -> dict[str, Any]:
    service = f"{_service_name(project)}.{project.namespace}.svc"
    return {
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": {
            "name": _certificate_name(project),
            "namespace": project.namespace,
            "labels": _labels(project),
        },
        "spec": {
            "dnsNames": [service, f"{service}.cluster.local"],
            "issuerRef": {"kind": "Issuer", "name": f"{project.project_name}-selfsigned-issuer"},
            "secretName": _SECRET,
        },
    }


def _conversion_patch(project: Project, hook: TypeWebhooks[Any]) -> dict[str, Any]:
    client_config = service_client_config(_service_name(project), project.namespace, "/convert")
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": f"{hook.info.plural}.{hook.info.group}",
            "annotations": _inject(project),
        },
        "spec": {"conversion": conversion_spec(client_config)},
    }


def _manager_patch(project: Project) -> str:
    """JSON 6902 operations adding the webhook port and certificate to the manager's pod.

    A list a manifest does not have yet is added whole (``/-`` needs the list to exist).
    """
    container, pod = _manager_container(project)
    base = "/spec/template/spec"
    ops = [
        _append(container, "args", f"{base}/containers/0/args", f"--webhook-port={DEFAULT_PORT}"),
        _append(container, "args", f"{base}/containers/0/args", f"--webhook-cert-dir={_CERT_DIR}"),
        _append(
            container,
            "volumeMounts",
            f"{base}/containers/0/volumeMounts",
            {"mountPath": _CERT_DIR, "name": "webhook-certs", "readOnly": True},
        ),
        _append(
            container,
            "ports",
            f"{base}/containers/0/ports",
            {"containerPort": DEFAULT_PORT, "name": "webhook-server", "protocol": "TCP"},
        ),
        _append(
            pod,
            "volumes",
            f"{base}/volumes",
            {"name": "webhook-certs", "secret": {"secretName": _SECRET}},
        ),
    ]
    # Two args appended one after the other: the first creates the list when it was missing.
    if ops[0]["path"].endswith("/args"):
        ops[1] = {"op": "add", "path": f"{base}/containers/0/args/-", "value": ops[1]["value"]}
    header = (
        "# Written by `kubeforge generate`: the webhook server's port and the certificate\n"
        "# that cert-manager keeps in the Secret webhook-server-cert, mounted where the\n"
        f"# manager reads it (kubeforge run's default --webhook-cert-dir is {DEFAULT_CERT_DIR}).\n"
    )
    return header + yaml.safe_dump(ops, sort_keys=False)


def _append(owner: dict[str, Any], key: str, path: str, value: Any) -> dict[str, Any]:
    if isinstance(owner.get(key), list):
        return {"op": "add", "path": f"{path}/-", "value": value}
    return {"op": "add", "path": path, "value": [value]}


def _manager_container(project: Project) -> tuple[dict[str, Any], dict[str, Any]]:
    manifest = project.root / "config" / "manager" / "manager.yaml"
    documents = list(yaml.safe_load_all(manifest.read_text())) if manifest.is_file() else []
    for doc in documents:
        if isinstance(doc, dict) and doc.get("kind") == "Deployment":
            pod = ((doc.get("spec") or {}).get("template") or {}).get("spec") or {}
            containers = pod.get("containers") or [{}]
            return containers[0], pod
    return {}, {}


# --- kustomize wiring ---------------------------------------------------------------------------


def _kustomization(resources: list[str]) -> str:
    listed = "".join(f"  - {name}\n" for name in resources)
    return f"# Written by `kubeforge generate` from the project's webhooks.\nresources:\n{listed}"


def _wire_crd_patches(project: Project, patches: list[str]) -> tuple[Path, str | None]:
    return _edit_kustomization(
        project.root,
        _CRD / "kustomization.yaml",
        lambda body: _ensure_patches(body, [{"path": p} for p in patches]),
    )


def _wire_default(project: Project) -> tuple[Path, str | None]:
    def edit(body: dict[str, Any]) -> None:
        resources = body.setdefault("resources", [])
        for entry in ("../webhook", "../certmanager"):
            if entry not in resources:
                resources.append(entry)
        patch = {"path": "manager_webhook_patch.yaml", "target": {"kind": "Deployment"}}
        _ensure_patches(body, [patch])

    return _edit_kustomization(project.root, _DEFAULT / "kustomization.yaml", edit)


def _ensure_patches(body: dict[str, Any], wanted: list[dict[str, Any]]) -> None:
    if not wanted:
        return
    patches = body.setdefault("patches", [])
    known = {p.get("path") for p in patches if isinstance(p, dict)}
    patches.extend(p for p in wanted if p["path"] not in known)


def _edit_kustomization(root: Path, relative: Path, edit: Any) -> tuple[Path, str | None]:
    """``relative`` with ``edit`` applied to its body and its leading comment kept;
    ``None`` when it does not exist or ``edit`` changes nothing."""
    path = root / relative
    if not path.is_file():
        return relative, None
    text = path.read_text()
    body = yaml.safe_load(text) or {}
    before = yaml.safe_dump(body, sort_keys=False)
    edit(body)
    after = yaml.safe_dump(body, sort_keys=False)
    if after == before:
        return relative, None
    lines = text.splitlines()
    comment = "".join(f"{line}\n" for line in itertools.takewhile(_is_comment, lines))
    return relative, comment + after


def _is_comment(line: str) -> bool:
    return line.startswith("#")
