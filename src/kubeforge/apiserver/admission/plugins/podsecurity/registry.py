"""Which checks a level and version run, and in what order, and how their results read
together (k8s.io/pod-security-admission ``policy/registry.go``, ``checks.go``, 1.32).

Every policy version from v1.0 to the newest any check names (v1.32) gets the rule
each check had then; ``latest``, and any newer version, evaluate that newest one.
Baseline runs the baseline checks; restricted runs them too, less those a restricted
check overrides, then its own; both in order of check ID (the order of the reasons in
every message).

Entry points: ``evaluate(level_version, meta, spec)`` and ``aggregate(results)``.

>>> from kubeforge.apiserver.admission.plugins.podsecurity.levels import LATEST, LevelVersion
>>> spec = {"containers": [{"name": "c", "securityContext": {"privileged": True}}]}
>>> aggregate(evaluate(LevelVersion("baseline", LATEST), {}, spec)).detail()
'privileged (container "c" must not set securityContext.privileged=true)'
"""

from __future__ import annotations

from dataclasses import dataclass

from kubeforge.apiserver.admission.plugins.podsecurity import (
    checks_host,
    checks_profiles,
    checks_restricted,
)
from kubeforge.apiserver.admission.plugins.podsecurity.levels import (
    BASELINE,
    PRIVILEGED,
    LevelVersion,
)
from kubeforge.apiserver.admission.plugins.podsecurity.spec import (
    Check,
    CheckFn,
    CheckResult,
    Json,
    VersionedCheck,
)

__all__ = ["CHECKS", "MAX_VERSION", "Aggregate", "aggregate", "evaluate"]

CHECKS: tuple[Check, ...] = (
    *checks_host.CHECKS,
    *checks_profiles.CHECKS,
    *checks_restricted.CHECKS,
)
MAX_VERSION = max(rule.minimum for check in CHECKS for rule in check.versions)
"""The newest policy version (minor) any check names: what ``latest`` evaluates."""


def _rules_at(checks: list[Check], minor: int) -> dict[str, VersionedCheck]:
    """Each check's rule in force at ``v1.<minor>`` (none before its first version)."""
    rules = {}
    for check in checks:
        current = [rule for rule in check.versions if rule.minimum <= minor]
        if current:
            rules[check.id] = current[-1]
    return rules


def _by_version() -> tuple[list[list[CheckFn]], list[list[CheckFn]]]:
    baseline = [c for c in CHECKS if c.level == BASELINE]
    restricted = [c for c in CHECKS if c.level != BASELINE]
    order = sorted(c.id for c in baseline) + sorted(c.id for c in restricted)
    baseline_fns, restricted_fns = [], []
    for minor in range(MAX_VERSION + 1):
        base_rules = _rules_at(baseline, minor)
        own_rules = _rules_at(restricted, minor)
        overridden = {check_id for rule in own_rules.values() for check_id in rule.overrides}
        all_rules = {k: v for k, v in base_rules.items() if k not in overridden} | own_rules
        baseline_fns.append([base_rules[i].check for i in order if i in base_rules])
        restricted_fns.append([all_rules[i].check for i in order if i in all_rules])
    return baseline_fns, restricted_fns


_BASELINE, _RESTRICTED = _by_version()


def evaluate(level_version: LevelVersion, meta: Json, spec: Json) -> list[CheckResult]:
    """Every check's result for a pod's (or pod template's) ``meta`` and ``spec``."""
    if level_version.level == PRIVILEGED:
        return []
    minor = level_version.version.minor
    minor = MAX_VERSION if minor is None else min(minor, MAX_VERSION)
    checks = _BASELINE[minor] if level_version.level == BASELINE else _RESTRICTED[minor]
    return [check(meta, spec) for check in checks]


@dataclass(frozen=True)
class Aggregate:
    """The forbidden results of one evaluation, in check order."""

    reasons: tuple[str, ...]
    details: tuple[str, ...]

    @property
    def allowed(self) -> bool:
        return not self.reasons

    def reason(self) -> str:
        """``host ports, privileged``: what a namespace's pods are warned of."""
        return ", ".join(self.reasons)

    def detail(self) -> str:
        """``hostPort (container "a" uses hostPort 80), privileged (...)``: what a pod is
        denied or warned with."""
        return ", ".join(
            f"{reason} ({detail})" if detail else reason
            for reason, detail in zip(self.reasons, self.details, strict=True)
        )


def aggregate(results: list[CheckResult]) -> Aggregate:
    failed = [r for r in results if not r.allowed]
    return Aggregate(
        tuple(r.reason or "unknown forbidden reason" for r in failed),
        tuple(r.detail for r in failed),
    )
