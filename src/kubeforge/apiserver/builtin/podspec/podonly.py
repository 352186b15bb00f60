"""The rules a Pod gets and a pod template does not (kubernetes 1.32's
``validatePodMetadataAndSpec`` beyond ``ValidatePodSpec``, and ``ValidatePodCreate``):
images without surrounding whitespace, no service-account token projection without a
service account, and, on create, no ephemeral containers and no ``nodeName`` while
scheduling gates remain. A Deployment may hold such a template; its pods are refused.

A template instead may never hold ephemeral containers (``ValidatePodTemplateSpec``).

Entry points: ``pod_only(spec)``, ``pod_create_only(spec)``, ``template_only(spec)``.

>>> [str(e) for e in pod_only({"containers": [{"image": "nginx "}]})]
['spec.containers[0].image: Invalid value: "nginx ": must not have leading or trailing whitespace']
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.affinity import dict_items
from kubeforge.apiserver.builtin.podspec.ephemeral import ephemeral_on_create
from kubeforge.apiserver.failures import FieldError

__all__ = ["pod_create_only", "pod_only", "template_only"]

_NO_ACCOUNT = "must not be specified when serviceAccountName is not set"


def _token_projections(spec: dict[str, Any]) -> list[FieldError]:
    if spec.get("serviceAccountName"):
        return []
    errors = []
    for vi, volume in dict_items(spec.get("volumes")):
        projected = volume.get("projected")
        sources = projected.get("sources") if isinstance(projected, dict) else None
        for si, source in dict_items(sources):
            if source.get("serviceAccountToken") is not None:
                at = f"spec.volumes[{vi}].projected.sources[{si}].serviceAccountToken"
                errors.append(FieldError.forbidden(at, _NO_ACCOUNT))
    return errors


def pod_only(spec: dict[str, Any]) -> list[FieldError]:
    """What ``validatePodMetadataAndSpec`` adds for a Pod, on create and update alike."""
    errors = _token_projections(spec)
    for key in ("containers", "initContainers"):
        for i, container in dict_items(spec.get(key)):
            image = str(container.get("image") or "")
            if image.strip() != image:
                detail = "must not have leading or trailing whitespace"
                errors.append(FieldError.invalid(f"spec.{key}[{i}].image", image, detail))
    return errors


def pod_create_only(spec: dict[str, Any]) -> list[FieldError]:
    """What ``ValidatePodCreate`` adds: no ephemeral containers, no node while gated."""
    errors = ephemeral_on_create(spec)
    if spec.get("nodeName") and spec.get("schedulingGates"):
        detail = "cannot be set until all schedulingGates have been cleared"
        errors.append(FieldError.forbidden("spec.nodeName", detail))
    return errors


def template_only(spec: dict[str, Any]) -> list[FieldError]:
    if spec.get("ephemeralContainers"):
        detail = "ephemeral containers not allowed in pod template"
        return [FieldError.forbidden("spec.ephemeralContainers", detail)]
    return []
