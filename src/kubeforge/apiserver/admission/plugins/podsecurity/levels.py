"""Pod Security levels, policy versions and the namespace labels that choose them
(k8s.io/pod-security-admission ``api``, 1.32).

A namespace's ``pod-security.kubernetes.io/<mode>`` label names a level (privileged,
baseline, restricted) for each mode (enforce, audit, warn); ``<mode>-version`` pins the
policy to a Kubernetes minor version (``v1.N``) or ``latest``. Unlabelled modes keep
the server's defaults: privileged, latest (kube-apiserver's defaults when no
AdmissionConfiguration names PodSecurity). A label that does not parse yields a field
error, and a policy that fails closed for enforce (restricted, latest) and open for
audit and warn (privileged), as ``PolicyToEvaluate`` does.

Entry point: ``policy_from_labels(labels)``.

>>> policy, errors = policy_from_labels({"pod-security.kubernetes.io/enforce": "baseline"})
>>> str(policy.enforce), str(policy.warn), errors
('baseline:latest', 'baseline:latest', [])
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kubeforge.apiserver.failures import FieldError

__all__ = [
    "BASELINE",
    "DEFAULT_POLICY",
    "LATEST",
    "PREFIX",
    "PRIVILEGED",
    "RESTRICTED",
    "LevelVersion",
    "Policy",
    "Version",
    "compare_levels",
    "policy_from_labels",
]

PRIVILEGED, BASELINE, RESTRICTED = "privileged", "baseline", "restricted"
_LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)
PREFIX = "pod-security.kubernetes.io/"
ENFORCE, AUDIT, WARN = PREFIX + "enforce", PREFIX + "audit", PREFIX + "warn"

_VERSION = re.compile(r"v1\.([0-9]|[1-9][0-9]*)")
_GO_INT_MAX = 2**63 - 1  # strconv.Atoi's bound on a 64-bit build
_LEVEL_ERROR = "must be one of " + ", ".join(_LEVELS)
_VERSION_ERROR = 'must be "latest" or "v1.x"'


@dataclass(frozen=True)
class Version:
    """A policy version: ``v1.<minor>``, or ``latest`` (``minor`` None), which is newer
    than every numbered version, future ones included."""

    minor: int | None

    @property
    def latest(self) -> bool:
        return self.minor is None

    def older(self, other: Version) -> bool:
        if self.minor is None:
            return False
        return other.minor is None or self.minor < other.minor

    def __str__(self) -> str:
        return "latest" if self.minor is None else f"v1.{self.minor}"


LATEST = Version(None)


@dataclass(frozen=True)
class LevelVersion:
    level: str
    version: Version

    def __str__(self) -> str:
        return f"{self.level}:{self.version}"


_PRIVILEGED_LATEST = LevelVersion(PRIVILEGED, LATEST)


@dataclass(frozen=True)
class Policy:
    """The level and version each mode evaluates."""

    enforce: LevelVersion = _PRIVILEGED_LATEST
    audit: LevelVersion = _PRIVILEGED_LATEST
    warn: LevelVersion = _PRIVILEGED_LATEST

    @property
    def fully_privileged(self) -> bool:
        return all(lv.level == PRIVILEGED for lv in (self.enforce, self.audit, self.warn))


DEFAULT_POLICY = Policy()


def compare_levels(a: str, b: str) -> int:
    """-1, 0 or 1 as level ``a`` is less strict than, as strict as, or stricter than ``b``."""
    if a == b:
        return 0
    if a == PRIVILEGED:
        return -1
    if a == RESTRICTED:
        return 1
    if b == PRIVILEGED:
        return 1
    return -1 if b == RESTRICTED else 0


def _parse_level(value: str) -> tuple[str, str | None]:
    return (value, None) if value in _LEVELS else (RESTRICTED, _LEVEL_ERROR)


def _parse_version(value: str) -> tuple[Version, str | None]:
    if value == "latest":
        return LATEST, None
    match = _VERSION.fullmatch(value)
    if match is None or int(match.group(1)) > _GO_INT_MAX:
        return LATEST, _VERSION_ERROR
    return Version(int(match.group(1))), None


def _level(labels: dict[str, str], key: str, errors: list[FieldError]) -> tuple[str | None, bool]:
    """The level a label names (None when absent), and whether it parsed."""
    if key not in labels:
        return None, False
    value = str(labels[key])
    level, error = _parse_level(value)
    if error is not None:
        errors.append(FieldError.invalid(f"metadata.labels[{key}]", value, error))
    return level, error is None


def _version(labels: dict[str, str], key: str, errors: list[FieldError]) -> Version | None:
    if key not in labels:
        return None
    value = str(labels[key])
    version, error = _parse_version(value)
    if error is not None:
        errors.append(FieldError.invalid(f"metadata.labels[{key}]", value, error))
    return version


def policy_from_labels(
    labels: dict[str, str] | None, defaults: Policy = DEFAULT_POLICY
) -> tuple[Policy, list[FieldError]]:
    """The policy a namespace's labels ask for, and a field error per bad label, in the
    order ``PolicyToEvaluate`` reads them. Warn follows a stricter explicit enforce
    level (and its version) when it is not set itself."""
    if not labels:
        return defaults, []
    errors: list[FieldError] = []
    enforce_level, enforce_ok = _level(labels, ENFORCE, errors)
    enforce = LevelVersion(
        enforce_level or defaults.enforce.level,
        _version(labels, ENFORCE + "-version", errors) or defaults.enforce.version,
    )
    audit_level, audit_ok = _level(labels, AUDIT, errors)
    audit = LevelVersion(
        (audit_level if audit_ok else PRIVILEGED) if audit_level else defaults.audit.level,
        _version(labels, AUDIT + "-version", errors) or defaults.audit.version,
    )
    warn_level, warn_ok = _level(labels, WARN, errors)
    warn_version = _version(labels, WARN + "-version", errors)
    warn = LevelVersion(
        (warn_level if warn_ok else PRIVILEGED) if warn_level else defaults.warn.level,
        warn_version or defaults.warn.version,
    )
    if warn_level is None and enforce_ok and compare_levels(enforce.level, warn.level) > 0:
        warn = LevelVersion(enforce.level, warn.version if warn_version else enforce.version)
    return Policy(enforce, audit, warn), errors
