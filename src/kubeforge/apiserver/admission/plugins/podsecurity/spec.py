"""What every Pod Security check is made of: the check and result types, the walk over a
pod spec's containers, and the wording helpers the checks share (k8s.io/pod-security-admission
``policy/checks.go``, ``visitor.go``, ``helpers.go``, 1.32).

A check reads the pod's metadata and spec as JSON dicts (a pod's, or a pod template's);
an absent field and ``null`` both stand for Go's nil.

Entry points: ``Check``, ``VersionedCheck``, ``CheckResult``, ``containers``.

>>> join_quote(["a", "b"]), pluralize("container", "containers", 2)
('"a", "b"', 'containers')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ALLOWED",
    "Check",
    "CheckFn",
    "CheckResult",
    "Json",
    "VersionedCheck",
    "containers",
    "forbidden",
    "go_quote",
    "join_quote",
    "mapping",
    "name_of",
    "pluralize",
    "pod_security_context",
    "security_context",
    "setters",
    "since_v1_0",
]

Json = dict[str, Any]


@dataclass(frozen=True)
class CheckResult:
    """Whether one check allows the pod; if not, the short reason (always shown) and the
    detail (shown in parentheses after it, when not empty)."""

    allowed: bool
    reason: str = ""
    detail: str = ""


ALLOWED = CheckResult(True)

CheckFn = Callable[[Json, Json], CheckResult]
"""A check of one policy version: (pod metadata, pod spec) -> result."""


@dataclass(frozen=True)
class VersionedCheck:
    """A check's rule from policy version ``v1.<minimum>`` on; ``overrides`` names the
    baseline checks this restricted rule replaces at the restricted level."""

    minimum: int
    check: CheckFn
    overrides: tuple[str, ...] = ()


@dataclass(frozen=True)
class Check:
    id: str
    level: str  # baseline or restricted
    versions: tuple[VersionedCheck, ...]


def since_v1_0(check_id: str, level: str, check: CheckFn) -> Check:
    """A check with one rule for every policy version."""
    return Check(check_id, level, (VersionedCheck(0, check),))


def forbidden(reason: str, detail: str = "") -> CheckResult:
    return CheckResult(False, reason, detail)


def mapping(value: Any) -> Json:
    """``value`` if it is an object, else an empty one (Go's nil struct pointer)."""
    return value if isinstance(value, dict) else {}


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def containers(spec: Json) -> Iterator[Json]:
    """Init containers, containers, then ephemeral containers, as ``visitContainers``."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in _items(spec.get(key)):
            if isinstance(container, dict):
                yield container


def security_context(container: Json) -> Json:
    return mapping(container.get("securityContext"))


def pod_security_context(spec: Json) -> Json:
    return mapping(spec.get("securityContext"))


def name_of(container: Json) -> str:
    return str(container.get("name") or "")


def join_quote(items: list[str]) -> str:
    return ", ".join(f'"{item}"' for item in items)


def pluralize(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def setters(pod_is_bad: bool, bad_containers: list[str]) -> str:
    """``pod``, ``container "a"``, ``containers "a", "b"``, joined by `` and ``: who set a
    forbidden value, as most checks word it."""
    parts = ["pod"] if pod_is_bad else []
    if bad_containers:
        noun = pluralize("container", "containers", len(bad_containers))
        parts.append(f"{noun} {join_quote(bad_containers)}")
    return " and ".join(parts)


_ESCAPES = {"\a": r"\a", "\b": r"\b", "\f": r"\f", "\n": r"\n", "\r": r"\r", "\t": r"\t",
            "\v": r"\v", "\\": "\\\\", '"': '\\"'}  # fmt: skip


def go_quote(text: str) -> str:
    """Go's ``%q`` of a string (``strconv.Quote``): double-quoted, with Go's escapes."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'
