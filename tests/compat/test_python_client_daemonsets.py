"""DaemonSets through the official ``kubernetes`` package: the typed status a 1.32
daemonset controller writes, the pod it pins to the node (node affinity on
``metadata.name``, the daemon tolerations) and a rolling update to a new revision."""

from __future__ import annotations

from typing import Any

from kubernetes import client as k8s

from .kf_kubectl import until

_DAEMON_TOLERATIONS = {
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
}


def _daemon_set(name: str, image: str) -> k8s.V1DaemonSet:
    labels = {"app": name}
    return k8s.V1DaemonSet(
        metadata=k8s.V1ObjectMeta(name=name),
        spec=k8s.V1DaemonSetSpec(
            selector=k8s.V1LabelSelector(match_labels=labels),
            template=k8s.V1PodTemplateSpec(
                metadata=k8s.V1ObjectMeta(labels=labels),
                spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="agent", image=image)]),
            ),
        ),
    )


def _settled(ds: Any, generation: int) -> bool:
    status = ds.status
    return bool(
        status.observed_generation == generation
        and status.desired_number_scheduled == 1
        and status.updated_number_scheduled == 1
        and status.number_available == 1
    )


def test_a_daemon_set_runs_on_the_node_and_rolls_to_a_new_image(
    api_client: Any, namespace: str
) -> None:
    apps, core = k8s.AppsV1Api(api_client), k8s.CoreV1Api(api_client)
    apps.create_namespaced_daemon_set(namespace, _daemon_set("agent", "busybox:1.36"))
    ready = until(
        lambda: apps.read_namespaced_daemon_set_status("agent", namespace),
        lambda d: _settled(d, 1),
    )
    assert (ready.status.current_number_scheduled, ready.status.number_ready) == (1, 1)
    assert ready.status.number_misscheduled == 0
    (pod,) = core.list_namespaced_pod(namespace, label_selector="app=agent").items
    assert pod.spec.node_name == "kubeforge-node-0"
    term = pod.spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution
    (field,) = term.node_selector_terms[0].match_fields
    assert (field.key, field.operator, field.values) == (
        "metadata.name",
        "In",
        ["kubeforge-node-0"],
    )
    assert {(t.key, t.effect) for t in pod.spec.tolerations} >= _DAEMON_TOLERATIONS
    first_hash = pod.metadata.labels["controller-revision-hash"]

    image = {
        "spec": {"template": {"spec": {"containers": [{"name": "agent", "image": "busybox:1.37"}]}}}
    }
    apps.patch_namespaced_daemon_set("agent", namespace, image)
    until(
        lambda: apps.read_namespaced_daemon_set_status("agent", namespace), lambda d: _settled(d, 2)
    )
    (pod,) = until(
        lambda: [
            p
            for p in core.list_namespaced_pod(namespace, label_selector="app=agent").items
            if not p.metadata.deletion_timestamp
        ],
        lambda pods: len(pods) == 1 and pods[0].spec.containers[0].image == "busybox:1.37",
    )
    assert pod.metadata.labels["controller-revision-hash"] != first_hash
    revisions = apps.list_namespaced_controller_revision(namespace).items
    assert sorted(r.revision for r in revisions) == [1, 2]
    assert {r.metadata.owner_references[0].name for r in revisions} == {"agent"}
