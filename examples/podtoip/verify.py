"""What "converged" means for PodToIp, shared by the demo and the end-to-end tests."""

from __future__ import annotations

from kubeforge.models.core_v1 import Pod

from .api import PodToIp
from .controller import desired_podtoip

__all__ = ["differences", "waiting_for_ip"]


def differences(pods: list[Pod], podtoips: list[PodToIp]) -> list[str]:
    """Every way the PodToIps differ from what the pods call for; empty when converged."""
    want = {}
    for pod in pods:
        desired = desired_podtoip(pod)
        if desired is not None:
            want[(desired.metadata.namespace, desired.metadata.name)] = desired
    have = {(p.metadata.namespace, p.metadata.name): p for p in podtoips}
    problems = [f"missing podtoip {ns}/{name}" for (ns, name) in want.keys() - have.keys()]
    problems += [f"orphaned podtoip {ns}/{name}" for (ns, name) in have.keys() - want.keys()]
    for key in want.keys() & have.keys():
        desired, actual = want[key], have[key]
        if actual.spec != desired.spec:
            problems.append(
                f"podtoip {key[0]}/{key[1]} has {actual.spec.pod_address!r}, "
                f"pod has {desired.spec.pod_address!r}"
            )
        if actual.metadata.owner_references != desired.metadata.owner_references:
            problems.append(f"podtoip {key[0]}/{key[1]} is not owned by its pod")
    return sorted(problems)


def waiting_for_ip(pods: list[Pod]) -> list[str]:
    """Live pods that have no IP yet (nothing to mirror until the node gives them one)."""
    return sorted(
        f"pod {p.metadata.namespace}/{p.metadata.name} has no IP yet"
        for p in pods
        if not p.metadata.deletion_timestamp and not (p.status and p.status.pod_ip)
    )
