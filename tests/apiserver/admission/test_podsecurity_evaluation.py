"""PodSecurity's decisions, as ``admission.go`` (1.32) makes them: deny or warn a pod, audit
it, warn of a template, group a namespace's violating pods, and tell which pod updates
need a look at all."""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.apiserver.admission.plugins.podsecurity import evaluation
from kubeforge.apiserver.admission.plugins.podsecurity.evaluation import (
    evaluate_pod,
    namespace_warnings,
    pod_template,
    significant_pod_update,
)
from kubeforge.apiserver.admission.plugins.podsecurity.levels import (
    LATEST,
    LevelVersion,
    policy_from_labels,
)

P = "pod-security.kubernetes.io/"
HOST = {"hostNetwork": True, "containers": [{"name": "c", "image": "nginx"}]}
HOST_DETAIL = "host namespaces (hostNetwork=true)"


def _pod(name: str, spec: dict[str, Any], owner: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if owner:
        meta["ownerReferences"] = [{"uid": owner, "controller": True, "kind": "ReplicaSet"}]
    return {"metadata": meta, "spec": spec}


def test_enforce_denies_without_warning_and_audits() -> None:
    policy, errors = policy_from_labels({P + "enforce": "baseline", P + "audit": "restricted"})
    decision = evaluate_pod(policy, errors, {}, HOST, enforce=True)
    assert decision.denial == f'violates PodSecurity "baseline:latest": {HOST_DETAIL}'
    assert decision.warnings == []
    assert decision.audit["enforce-policy"] == "baseline:latest"
    assert decision.audit["audit-violations"].startswith(
        f'would violate PodSecurity "restricted:latest": {HOST_DETAIL}, allowPrivilegeEscalation'
    )


def test_templates_are_warned_never_denied() -> None:
    policy, errors = policy_from_labels({P + "enforce": "baseline", P + "enforce-version": "v1.30"})
    decision = evaluate_pod(policy, errors, {}, HOST, enforce=False)
    assert decision.denial == ""
    assert decision.warnings == [f'would violate PodSecurity "baseline:v1.30": {HOST_DETAIL}']
    assert "enforce-policy" not in decision.audit


def test_a_bad_label_is_recorded_and_fails_closed() -> None:
    policy, errors = policy_from_labels({P + "enforce": "strict"})
    decision = evaluate_pod(policy, errors, {}, {"containers": []}, enforce=True)
    assert decision.denial == ""  # nothing to violate: no container, no host access
    assert decision.audit["error"] == (
        f'Failed to parse policy: metadata.labels[{P}enforce]: Invalid value: "strict": '
        "must be one of privileged, baseline, restricted"
    )
    assert evaluate_pod(policy, errors, {}, HOST, enforce=True).denial.startswith(
        'violates PodSecurity "restricted:latest": host namespaces'
    )


def test_namespace_warnings_group_pods_by_their_reasons() -> None:
    privileged = {"containers": [{"name": "c", "securityContext": {"privileged": True}}]}
    pods = [
        _pod("web-b", HOST, owner="rs1"),
        _pod("web-a", HOST, owner="rs1"),
        _pod("lone", HOST),
        _pod("zz", privileged),
        _pod("aa", privileged),
        _pod("fine", {"containers": [{"name": "c"}]}),
        _pod("solo", {**HOST, **privileged}),
    ]
    warnings = namespace_warnings("team", pods, LevelVersion("baseline", LATEST))
    assert warnings == [
        'existing pods in namespace "team" violate the new PodSecurity enforce level '
        '"baseline:latest"',
        "aa (and 1 other pod): privileged",
        "lone (and 2 other pods): host namespaces",
        "solo: host namespaces, privileged",
    ]
    assert namespace_warnings("team", pods[5:6], LevelVersion("restricted", LATEST)) == [
        'existing pods in namespace "team" violate the new PodSecurity enforce level '
        '"restricted:latest"',
        "fine: allowPrivilegeEscalation != false, unrestricted capabilities, "
        "runAsNonRoot != true, seccompProfile",
    ]
    assert namespace_warnings("team", [], LevelVersion("restricted", LATEST)) == []


def test_only_images_and_container_counts_make_an_update_significant() -> None:
    old = {"spec": {"containers": [{"name": "c", "image": "a"}], "initContainers": []}}
    relabelled = {"metadata": {"labels": {"x": "y"}}, **old}
    assert not significant_pod_update(relabelled, old)
    assert significant_pod_update({"spec": {"containers": [{"name": "c", "image": "b"}]}}, old)
    two = {"spec": {"containers": [{"name": "c", "image": "a"}, {"name": "d", "image": "a"}]}}
    assert significant_pod_update(two, old)
    debug = {"name": "dbg", "image": "busybox"}
    debugged = {"spec": {**old["spec"], "ephemeralContainers": [debug]}}
    assert significant_pod_update(debugged, old)
    assert not significant_pod_update(debugged, debugged)
    # A security context changed without a new image is not looked at (Go's rule).
    hardened = {"spec": {"containers": [{"name": "c", "image": "a", "securityContext": {}}]}}
    assert not significant_pod_update(hardened, old)


def test_pod_templates_of_every_pod_controller() -> None:
    template = {"metadata": {"labels": {"a": "b"}}, "spec": HOST}
    spec_templated = [
        ("apps", "deployments"), ("apps", "replicasets"), ("apps", "statefulsets"),
        ("apps", "daemonsets"), ("batch", "jobs"), ("", "replicationcontrollers"),
    ]  # fmt: skip
    for resource in spec_templated:
        assert pod_template(resource, {"spec": {"template": template}}) == (
            template["metadata"],
            HOST,
        )
    cronjob = {"spec": {"jobTemplate": {"spec": {"template": template}}}}
    assert pod_template(("batch", "cronjobs"), cronjob) == (template["metadata"], HOST)
    assert pod_template(("", "podtemplates"), {"template": template}) == (
        template["metadata"],
        HOST,
    )
    assert pod_template(("", "replicationcontrollers"), {"spec": {}}) is None
    assert pod_template(("apps", "deployments"), {"spec": {}}) == ({}, {})


def test_only_so_many_pods_are_checked_one_per_controller_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(evaluation, "MAX_PODS_TO_CHECK", 2)
    pods = [_pod("r1", HOST, owner="rs"), _pod("r2", HOST, owner="rs"), _pod("solo", HOST)]
    assert namespace_warnings("team", pods, LevelVersion("baseline", LATEST)) == [
        "new PodSecurity enforce level only checked against the first 2 of 3 existing pods",
        'existing pods in namespace "team" violate the new PodSecurity enforce level '
        '"baseline:latest"',
        "r1 (and 1 other pod): host namespaces",  # r1 and solo: r2 waited behind them
    ]
