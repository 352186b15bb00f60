"""What a DaemonSet puts on a node, and on which nodes it should run (``daemon/util``, 1.32).

A daemon pod is the template with the ``controller-revision-hash`` and
``pod-template-generation`` labels, a required node affinity on ``metadata.name`` for
its node (``ReplaceDaemonSetPodNodeNameNodeAffinity``; the scheduler binds it) and the
tolerations every daemon pod gets (``AddOrUpdateDaemonPodTolerations``): NoExecute for
``not-ready`` and ``unreachable``, NoSchedule for ``disk-pressure``, ``memory-pressure``,
``pid-pressure`` and ``unschedulable``, and ``network-unavailable`` with host networking.

A node should run the pod if its nodeSelector, affinity and taints admit it, and an
existing pod should keep running unless an untolerated NoExecute taint or the selector
says otherwise (``NodeShouldRunDaemonPod``).

Entry points: ``daemon_pod(ds, node, pod_hash)``, ``placement(ds, node)`` -> ``(should_run,
should_continue_running)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers.cluster import copy
from kubeforge.apiserver.controllers.replicaset import pod_from_template
from kubeforge.apiserver.controllers.revisions import REVISION_LABEL
from kubeforge.apiserver.controllers.scheduling import matches_node_affinity, tolerates

__all__ = ["GENERATION_LABEL", "daemon_pod", "placement"]

GENERATION_LABEL = "pod-template-generation"
_ALWAYS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
_HOST_NETWORK = ("node.kubernetes.io/network-unavailable", "NoSchedule")


def _with_tolerations(spec: dict[str, Any]) -> None:
    wanted = [*_ALWAYS, *([_HOST_NETWORK] if spec.get("hostNetwork") else [])]
    tolerations = [t for t in spec.get("tolerations") or [] if isinstance(t, dict)]
    for key, effect in wanted:
        tolerations = [t for t in tolerations if (t.get("key"), t.get("effect")) != (key, effect)]
        tolerations.append({"key": key, "operator": "Exists", "effect": effect})
    spec["tolerations"] = tolerations


def _pinned_to(spec: dict[str, Any], node_name: str) -> None:
    field = {"key": "metadata.name", "operator": "In", "values": [node_name]}
    affinity = spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
    required = affinity.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    terms = required.get("nodeSelectorTerms") or [{}]
    # the node's name replaces whatever other fields a term matched, as the real one does
    required["nodeSelectorTerms"] = [{**term, "matchFields": [field]} for term in terms]


def _template_spec(ds: dict[str, Any]) -> dict[str, Any]:
    spec = copy(((ds.get("spec") or {}).get("template") or {}).get("spec") or {})
    _with_tolerations(spec)
    return spec


def daemon_pod(ds: dict[str, Any], node_name: str, pod_hash: str) -> dict[str, Any]:
    """The pod ``ds`` runs on ``node_name``, made from its current template."""
    template = copy((ds.get("spec") or {}).get("template") or {})
    template["spec"] = _template_spec(ds)
    _pinned_to(template["spec"], node_name)
    pod = pod_from_template(ds, template)
    pod["metadata"]["labels"].update(
        {REVISION_LABEL: pod_hash, GENERATION_LABEL: str(ds["metadata"].get("generation") or 1)}
    )
    return pod


def placement(ds: dict[str, Any], node: dict[str, Any]) -> tuple[bool, bool]:
    """``(should_run, should_continue_running)`` for ``ds`` on ``node``."""
    spec = _template_spec(ds)
    name = node["metadata"]["name"]
    if spec.get("nodeName") not in (None, "", name) or not matches_node_affinity(spec, node):
        return False, False
    run, keep = True, True
    for taint in (node.get("spec") or {}).get("taints") or []:
        effect = taint.get("effect")
        if effect not in ("NoSchedule", "NoExecute") or tolerates(spec, taint):
            continue
        run = False
        if effect == "NoExecute":
            keep = False
    return run, keep
