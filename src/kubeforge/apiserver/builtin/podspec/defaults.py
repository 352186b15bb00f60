"""The defaults 1.32 gives every pod spec, a pod's or a pod template's.

``SetDefaults_PodSpec``, ``SetDefaults_Container``, ``SetDefaults_Probe`` and
``SetDefaults_HTTPGetAction``, ``SetDefaults_Volume`` (a volume naming no source is an
``emptyDir``) and its sources' defaults (file modes 0644, token projections valid an
hour, ``hostPath`` type unset, downward API field paths in ``v1``), and the ``+default``
markers of ``k8s.io/api/core/v1`` on volume sources (rbd, iscsi, azureDisk, scaleIO).
Pod-only defaults (requests from limits, service links, host ports) stay with the pod
strategy, as ``SetDefaults_Pod`` keeps them off templates.

Entry points: ``default_pod_spec(spec)``, ``default_container(container)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.env import default_env
from kubeforge.apiserver.builtin.podspec.probes import PROBE_DEFAULTS
from kubeforge.apiserver.builtin.podspec.volumes import VOLUME_SOURCES

__all__ = ["default_container", "default_pod_spec"]

_FILE_MODE = 0o644  # SecretVolumeSourceDefaultMode and its siblings
_MODE_SOURCES = ("secret", "configMap", "downwardAPI", "projected")
_TOKEN_SECONDS = 3600
# The +default markers of k8s.io/api/core/v1's volume sources, field by field.
_DECLARED: dict[str, dict[str, Any]] = {
    "rbd": {"pool": "rbd", "user": "admin", "keyring": "/etc/ceph/keyring"},
    "iscsi": {"iscsiInterface": "default"},
    "azureDisk": {"cachingMode": "ReadWrite", "fsType": "ext4", "readOnly": False,
                  "kind": "Shared"},
    "scaleIO": {"storageMode": "ThinProvisioned", "fsType": "xfs"},
}  # fmt: skip


def default_pod_spec(spec: dict[str, Any]) -> None:
    """``SetDefaults_PodSpec`` and the defaults of its containers and volumes."""
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    for key in ("containers", "initContainers"):
        for container in spec.get(key) or []:
            if isinstance(container, dict):
                default_container(container)
    for volume in spec.get("volumes") or []:
        if isinstance(volume, dict):
            _default_volume(volume)


def default_container(container: dict[str, Any]) -> None:
    """Defaults of one container (pods and pod templates alike)."""
    image = str(container.get("image") or "")
    tag = image.rsplit("/", 1)[-1]
    if "imagePullPolicy" not in container:
        latest = "@" not in tag and (":" not in tag or tag.endswith(":latest"))
        container["imagePullPolicy"] = "Always" if latest else "IfNotPresent"
    container.setdefault("terminationMessagePath", "/dev/termination-log")
    container.setdefault("terminationMessagePolicy", "File")
    container.setdefault("resources", {})
    default_env(container)
    for port in container.get("ports") or []:
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = container.get(key)
        if isinstance(probe, dict):
            _default_probe(probe)


def _default_probe(probe: dict[str, Any]) -> None:
    for counter, value in PROBE_DEFAULTS.items():
        probe.setdefault(counter, value)
    http = probe.get("httpGet")
    if isinstance(http, dict):
        http.setdefault("path", "/")
        http.setdefault("scheme", "HTTP")
    grpc = probe.get("grpc")
    if isinstance(grpc, dict):
        grpc.setdefault("service", "")  # +default="" on a pointer: it is written out


def _default_volume(volume: dict[str, Any]) -> None:
    if all(volume.get(source) is None for source in VOLUME_SOURCES):
        volume["emptyDir"] = {}
        return
    for source in _MODE_SOURCES:
        if isinstance(volume.get(source), dict):
            volume[source].setdefault("defaultMode", _FILE_MODE)
    host_path = volume.get("hostPath")
    if isinstance(host_path, dict):
        host_path.setdefault("type", "")
    _default_items(volume.get("downwardAPI"))
    projected = volume.get("projected")
    if isinstance(projected, dict):
        _default_projections(projected.get("sources"))
    for source, defaults in _DECLARED.items():
        if isinstance(volume.get(source), dict):
            for field, value in defaults.items():
                volume[source].setdefault(field, value)


def _default_projections(sources: Any) -> None:
    for projection in sources if isinstance(sources, list) else []:
        if not isinstance(projection, dict):
            continue
        token = projection.get("serviceAccountToken")
        if isinstance(token, dict):
            token.setdefault("expirationSeconds", _TOKEN_SECONDS)
        _default_items(projection.get("downwardAPI"))


def _default_items(downward: Any) -> None:
    """``SetDefaults_ObjectFieldSelector`` on each item's ``fieldRef``."""
    items: Any = downward.get("items") if isinstance(downward, dict) else None
    for item in items if isinstance(items, list) else []:
        field_ref = item.get("fieldRef") if isinstance(item, dict) else None
        if isinstance(field_ref, dict):
            field_ref.setdefault("apiVersion", "v1")
