"""PodSecurity's namespace labels read as kube-apiserver 1.32 reads them
(``PolicyToEvaluate``): defaults, warn following a stricter enforce, and bad values
failing closed for enforce and open for audit and warn, each with its field error."""

from __future__ import annotations

import pytest

from kubeforge.apiserver.admission.plugins.podsecurity.levels import (
    LATEST,
    Version,
    compare_levels,
    policy_from_labels,
)

P = "pod-security.kubernetes.io/"


def _modes(labels: dict[str, str]) -> tuple[str, str, str]:
    policy, _ = policy_from_labels(labels)
    return str(policy.enforce), str(policy.audit), str(policy.warn)


def test_unlabelled_namespaces_are_privileged_latest() -> None:
    assert _modes({}) == ("privileged:latest",) * 3
    assert _modes({"team": "a"}) == ("privileged:latest",) * 3


def test_each_mode_reads_its_level_and_version() -> None:
    labels = {
        P + "enforce": "baseline",
        P + "enforce-version": "v1.25",
        P + "audit": "restricted",
        P + "audit-version": "v1.0",
        P + "warn": "restricted",
        P + "warn-version": "latest",
    }
    assert _modes(labels) == ("baseline:v1.25", "restricted:v1.0", "restricted:latest")


def test_warn_follows_a_stricter_enforce_level_and_its_version() -> None:
    labels = {P + "enforce": "restricted", P + "enforce-version": "v1.30"}
    assert _modes(labels) == ("restricted:v1.30", "privileged:latest", "restricted:v1.30")
    labels[P + "warn-version"] = "v1.20"
    assert _modes(labels)[2] == "restricted:v1.20"
    labels[P + "warn"] = "baseline"
    assert _modes(labels)[2] == "baseline:v1.20"
    # A version alone does not make enforce stricter than warn.
    assert _modes({P + "enforce-version": "v1.30"})[2] == "privileged:latest"


def test_bad_values_fail_closed_for_enforce_and_open_for_audit_and_warn() -> None:
    labels = {P + "enforce": "strict", P + "audit": "loud", P + "warn": "maybe"}
    policy, errors = policy_from_labels(labels)
    assert (str(policy.enforce), str(policy.audit), str(policy.warn)) == (
        "restricted:latest",
        "privileged:latest",
        "privileged:latest",
    )
    assert [str(e) for e in errors] == [
        f'metadata.labels[{P}{mode}]: Invalid value: "{value}": '
        "must be one of privileged, baseline, restricted"
        for mode, value in (("enforce", "strict"), ("audit", "loud"), ("warn", "maybe"))
    ]


def test_a_bad_enforce_level_does_not_pull_warn_along() -> None:
    policy, errors = policy_from_labels({P + "enforce": "nope"})
    assert str(policy.warn) == "privileged:latest"
    assert len(errors) == 1


@pytest.mark.parametrize("value", ["v1", "1.30", "v2.0", "v1.05", "V1.3", "v1.", "v1.3a", ""])
def test_versions_must_be_latest_or_v1_x(value: str) -> None:
    policy, errors = policy_from_labels({P + "warn": "baseline", P + "warn-version": value})
    assert str(policy.warn) == "baseline:latest"
    assert [str(e) for e in errors] == [
        f'metadata.labels[{P}warn-version]: Invalid value: "{value}": must be "latest" or "v1.x"'
    ]


def test_a_version_beyond_a_go_int_is_refused() -> None:
    _, errors = policy_from_labels({P + "audit-version": "v1." + "9" * 30})
    assert len(errors) == 1
    policy, errors = policy_from_labels({P + "audit-version": "v1.9223372036854775807"})
    assert errors == []
    assert policy.audit.version == Version(2**63 - 1)


def test_latest_is_newer_than_every_version() -> None:
    assert Version(32).older(LATEST)
    assert not LATEST.older(Version(10**6))
    assert Version(3).older(Version(25))
    assert str(Version(0)) == "v1.0"


def test_levels_compare_by_strictness() -> None:
    assert compare_levels("restricted", "baseline") == 1
    assert compare_levels("baseline", "restricted") == -1
    assert compare_levels("privileged", "baseline") == -1
    assert compare_levels("baseline", "privileged") == 1
    assert compare_levels("baseline", "baseline") == 0
