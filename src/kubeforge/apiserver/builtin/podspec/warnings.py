"""The warnings a kubernetes 1.32 server returns for a pod or a pod template it accepts
(``GetWarningsForPod`` and ``GetWarningsForPodTemplate``, ``pkg/api/pod/warnings.go``), in
Go's order: deprecated node labels in the node selector, node affinity and topology spread
constraints (and a spread constraint with a null selector); the annotations it no longer
acts on; deprecated volume plugins (and an ephemeral volume's claim storage that is not whole bytes); projected paths that clash with a service account
token; duplicate host aliases and image pull secrets; overhead that is not whole bytes;
the containers' own (``container_warnings``); a negative termination grace period; and
pod (anti-)affinity terms with a null selector. (A pod's AppArmor annotations are warned
of while they are synced to fields, by ``prepare.apparmor_version_skew``.)

Go walks maps in random order; this walks them in the order they were sent.

Entry points: ``pod_warnings(metadata, spec, base)`` (``base``: ``""`` for a pod, else
the template's path such as ``spec.template``) and ``dns_label_warning(name, used_in)``.

>>> pod_warnings({}, {"terminationGracePeriodSeconds": -1}, "spec.template")
['spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1']
"""  # noqa: E501

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.affinity import dict_items
from kubeforge.apiserver.builtin.podspec.annotations import SECCOMP_POD
from kubeforge.apiserver.builtin.podspec.container_warnings import (
    SECCOMP_MESSAGE,
    at,
    claim_spec_warnings,
    container_warnings,
    fractional_bytes,
    port_warnings,
)
from kubeforge.apiserver.failures import go_quote
from kubeforge.core.names import dns1123_label

__all__ = ["deprecated_node_label", "dns_label_warning", "node_term_warnings", "pod_warnings"]

_DEPRECATED_ANNOTATIONS = (
    (
        "scheduler.alpha.kubernetes.io/critical-pod",
        'non-functional in v1.16+; use the "priorityClassName" field instead',
    ),
    (
        "security.alpha.kubernetes.io/sysctls",
        'non-functional in v1.11+; use the "sysctls" field instead',
    ),
    (
        "security.alpha.kubernetes.io/unsafe-sysctls",
        'non-functional in v1.11+; use the "sysctls" field instead',
    ),
)
# pkg/api/node: node labels with a newer name (or none).
_DEPRECATED_NODE_LABELS = {
    "beta.kubernetes.io/arch": 'deprecated since v1.14; use "kubernetes.io/arch" instead',
    "beta.kubernetes.io/os": 'deprecated since v1.14; use "kubernetes.io/os" instead',
    "failure-domain.beta.kubernetes.io/region": (
        'deprecated since v1.17; use "topology.kubernetes.io/region" instead'
    ),
    "failure-domain.beta.kubernetes.io/zone": (
        'deprecated since v1.17; use "topology.kubernetes.io/zone" instead'
    ),
    "beta.kubernetes.io/instance-type": (
        'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead'
    ),
    "app.kubernetes.io/created-by": "deprecated since v1.9",
    "scheduler.alpha.kubernetes.io/preferAvoidPods": (
        "deprecated since v1.22; use Taints and Tolerations instead"
    ),
    "node-role.kubernetes.io/master": 'use "node-role.kubernetes.io/control-plane" instead',
}
_PHOTON = "deprecated in v1.11, non-functional in v1.16+"
# Volume plugins in Go's order, by their JSON name and the name Go's path gives them.
_DEPRECATED_VOLUMES = (
    ("photonPersistentDisk", "photonPersistentDisk", _PHOTON),
    ("gitRepo", "gitRepo", "deprecated in v1.11"),
    ("scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storageos", "storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("ephemeral", "ephemeral", ""),  # not deprecated: its claim template's warnings go here
    ("cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"),
)  # fmt: skip
_NULL_SELECTOR = "a null labelSelector results in matching no pod"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def deprecated_node_label(key: Any) -> str | None:
    """``GetNodeLabelDeprecatedMessage``: why ``key`` is deprecated, if it is."""
    return _DEPRECATED_NODE_LABELS.get(key) if isinstance(key, str) else None


def dns_label_warning(name: str, used_in: str) -> list[str]:
    """A strategy's ``metadata.name`` warning when the name is no DNS label; ``used_in``
    is how the kind's strategy words it (``"the Pod's hostname"``, ``"Pod names and
    hostnames"``). Go prints the messages as a ``%v`` slice."""
    messages = dns1123_label(name)
    if not messages:
        return []
    return [
        f"metadata.name: this is used in {used_in}, which can result in surprising behavior; "
        f"a DNS label is recommended: [{' '.join(messages)}]"
    ]


def node_term_warnings(term: Any, path: str) -> list[str]:
    """``GetWarningsForNodeSelectorTerm``: deprecated keys of its match expressions."""
    warnings = []
    for i, expression in dict_items(_dict(term).get("matchExpressions")):
        key = expression.get("key")
        if isinstance(key, str) and key in _DEPRECATED_NODE_LABELS:
            message = _DEPRECATED_NODE_LABELS[key]
            warnings.append(f"{path}.matchExpressions[{i}].key: {key} is {message}")
    return warnings


def _node_warnings(spec: dict[str, Any], base: str) -> list[str]:
    warnings = [
        f"{at(base, 'spec.nodeSelector')}[{key}]: {_DEPRECATED_NODE_LABELS[key]}"
        for key in _dict(spec.get("nodeSelector"))
        if key in _DEPRECATED_NODE_LABELS
    ]
    node = _dict(_dict(spec.get("affinity")).get("nodeAffinity"))
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        terms = at(
            base, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        )
        for i, term in dict_items(required.get("nodeSelectorTerms")):
            warnings += node_term_warnings(term, f"{terms}.nodeSelectorTerms[{i}]")
    preferred = at(
        base, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    )
    for i, term in dict_items(node.get("preferredDuringSchedulingIgnoredDuringExecution")):
        warnings += node_term_warnings(term.get("preference"), f"{preferred}[{i}].preference")
    for i, constraint in dict_items(spec.get("topologySpreadConstraints")):
        path = f"{at(base, 'spec.topologySpreadConstraints')}[{i}]"
        key = constraint.get("topologyKey")
        if isinstance(key, str) and key in _DEPRECATED_NODE_LABELS:
            warnings.append(f"{path}.topologyKey: {key} is {_DEPRECATED_NODE_LABELS[key]}")
        if constraint.get("labelSelector") is None:
            warnings.append(f"{path}.labelSelector: {_NULL_SELECTOR}")
    return warnings


def _volume_warnings(spec: dict[str, Any], base: str) -> list[str]:
    warnings = []
    volumes = dict_items(spec.get("volumes"))
    for i, volume in volumes:
        for key, go_name, message in _DEPRECATED_VOLUMES:
            if volume.get(key) is None:
                continue
            path = f"{at(base, 'spec.volumes')}[{i}].{go_name}"
            if message:
                warnings.append(f"{path}: {message}")
            else:
                claim = _dict(_dict(volume[key]).get("volumeClaimTemplate")).get("spec")
                warnings += claim_spec_warnings(claim, f"{path}.volumeClaimTemplate.spec")
    token_paths = {
        _dict(source.get("serviceAccountToken")).get("path")
        for _, volume in volumes
        for _, source in dict_items(_dict(volume.get("projected")).get("sources"))
        if source.get("serviceAccountToken") is not None
    }
    if token_paths:
        for i, volume in volumes:
            sources = at(base, f"spec.volumes[{i}].projected.sources")
            for _, source in dict_items(_dict(volume.get("projected")).get("sources")):
                warnings += _projected_clashes(source, sources, token_paths)
    return warnings


def _projected_clashes(source: dict[str, Any], sources: str, token_paths: set[Any]) -> list[str]:
    """A projected source's items at a path a service account token is also written to."""
    clash = "has duplicated path with ServiceAccountToken"
    found = []
    for key, go_name in (("configMap", "configMap"), ("secret", "secrets")):
        for j, item in dict_items(_dict(source.get(key)).get("items")):
            if item.get("path") in token_paths:
                path = go_quote(str(item.get("path")))
                found.append(f"{sources}.{go_name}[{j}]: {clash} {path}")
    for j, item in dict_items(_dict(source.get("downwardAPI")).get("items")):
        if item.get("path") in token_paths:
            found.append(f"{sources}.downwardAPI[{j}]: {clash} {go_quote(str(item.get('path')))}")
    bundle = source.get("clusterTrustBundle")
    if isinstance(bundle, dict) and bundle.get("path") in token_paths:
        found.append(f"{sources}.ClusterTrustBundle: {clash} {go_quote(str(bundle['path']))}")
    return found


def _duplicate_warnings(spec: dict[str, Any], base: str) -> list[str]:
    """Host aliases of one IP and image pull secrets of one name (or of none)."""
    warnings = []
    aliases, secrets = dict_items(spec.get("hostAliases")), dict_items(spec.get("imagePullSecrets"))
    seen: set[str] = set()
    for i, alias in aliases if len(aliases) > 1 else ():
        ip = str(alias.get("ip") or "")
        if ip in seen:
            warnings.append(f"{at(base, 'spec.hostAliases')}[{i}].ip: duplicate ip {go_quote(ip)}")
        seen.add(ip)
    seen = set()
    for i, secret in secrets if len(secrets) > 1 else ():
        name = str(secret.get("name") or "")
        if name in seen:
            path = f"{at(base, 'spec.imagePullSecrets')}[{i}].name"
            warnings.append(f"{path}: duplicate name {go_quote(name)}")
        seen.add(name)
    for i, secret in secrets:
        if not secret.get("name"):
            path = f"{at(base, 'spec.imagePullSecrets')}[{i}].name"
            warnings.append(f'{path}: invalid empty name ""')
    return warnings


def _affinity_term_warnings(spec: dict[str, Any], base: str) -> list[str]:
    warnings = []
    affinity = _dict(spec.get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = _dict(affinity.get(kind))
        required = at(base, f"spec.affinity.{kind}.requiredDuringSchedulingIgnoredDuringExecution")
        for i, term in dict_items(terms.get("requiredDuringSchedulingIgnoredDuringExecution")):
            if term.get("labelSelector") is None:
                warnings.append(f"{required}[{i}].labelSelector: {_NULL_SELECTOR}")
        preferred = at(
            base, f"spec.affinity.{kind}.preferredDuringSchedulingIgnoredDuringExecution"
        )
        for i, term in dict_items(terms.get("preferredDuringSchedulingIgnoredDuringExecution")):
            if _dict(term.get("podAffinityTerm")).get("labelSelector") is None:
                path = f"{preferred}[{i}].podAffinityTerm.labelSelector"
                warnings.append(f"{path}: {_NULL_SELECTOR}")
    return warnings


def pod_warnings(metadata: Any, spec: Any, base: str) -> list[str]:
    """What ``GetWarningsForPod`` (``base`` empty) or ``GetWarningsForPodTemplate`` says."""
    if not isinstance(spec, dict):
        return []
    annotations = _dict(_dict(metadata).get("annotations"))
    meta_at = at(base, "metadata.annotations")
    warnings = _node_warnings(spec, base)
    warnings += [
        f"{meta_at}[{key}]: {text}" for key, text in _DEPRECATED_ANNOTATIONS if key in annotations
    ]
    warnings += _volume_warnings(spec, base) + _duplicate_warnings(spec, base)
    overhead = spec.get("overhead")
    for resource in ("memory", "ephemeral-storage"):
        warnings += fractional_bytes(overhead, resource, at(base, "spec.overhead"))
    if (
        SECCOMP_POD in annotations
        and _dict(spec.get("securityContext")).get("seccompProfile") is None
    ):
        warnings.append(f"{meta_at}[{SECCOMP_POD}]: {SECCOMP_MESSAGE}")
    warnings += container_warnings(annotations, spec, base) + port_warnings(spec, base)
    grace = spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and grace < 0:
        warnings.append(
            f"{at(base, 'spec.terminationGracePeriodSeconds')}: must be >= 0; "
            "negative values are invalid and will be treated as 1"
        )
    return warnings + _affinity_term_warnings(spec, base)
