"""Liveness, readiness and startup probes and lifecycle hooks (``validateProbe``,
``validateHandler``, ``validateLifecycle`` of kubernetes 1.32's core validation).

A probe has exactly one handler (exec, httpGet, tcpSocket, grpc); its counters are
non-negative; liveness and startup probes need ``successThreshold`` 1. The server has
already defaulted the counters (``SetDefaults_Probe``), so a missing one is its default.

Entry points: ``container_probes(container, path)``, ``lifecycle(value, path)``.
"""

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.builtin.podspec.ports import PORT_RANGE, port_num_or_name
from kubeforge.apiserver.failures import FieldError
from kubeforge.core.names import regex_error

__all__ = ["PROBE_DEFAULTS", "container_probes", "lifecycle"]

PROBE_DEFAULTS = {"timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1,
                  "failureThreshold": 3}  # fmt: skip
_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_HOOK_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
_COUNTERS = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold",
             "failureThreshold")  # fmt: skip
_NEGATIVE = "must be greater than or equal to 0"
_HEADER = re.compile(r"[-A-Za-z0-9]+", re.ASCII)
_HEADER_NAME = regex_error(
    "a valid HTTP header must consist of alphanumeric characters or '-'",
    _HEADER.pattern,
    "X-Header-Name",
)


def _http_headers(handler: dict[str, Any], path: str) -> list[FieldError]:
    """``IsHTTPHeaderName`` of each header, reported at the list's path."""
    return [
        FieldError.invalid(path, name, _HEADER_NAME)
        for header in handler.get("httpHeaders") or []
        if isinstance(header, dict) and not _HEADER.fullmatch(name := str(header.get("name") or ""))
    ]


def _sleep(seconds: Any, grace: int | None, path: str) -> list[FieldError]:
    """1.32's ``validateSleepAction`` (PodLifecycleSleepActionAllowZero is alpha, off)."""
    if grace is None or not isinstance(seconds, int) or 0 < seconds <= grace:
        return []
    detail = (
        f"must be greater than 0 and less than terminationGracePeriodSeconds ({grace}). "
        "Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep."
    )
    return [FieldError.invalid(path, seconds, detail)]


def _handler_body(kind: str, handler: Any, path: str, grace: int | None) -> list[FieldError]:
    if not isinstance(handler, dict):
        return []
    if kind == "exec" and not handler.get("command"):
        return [FieldError.required(f"{path}.command")]
    if kind == "httpGet":
        errors = port_num_or_name(handler.get("port"), f"{path}.port")
        scheme = handler.get("scheme", "HTTP")
        if scheme not in ("HTTP", "HTTPS"):
            errors.append(FieldError.not_supported(f"{path}.scheme", scheme, ("HTTP", "HTTPS")))
        return errors + _http_headers(handler, f"{path}.httpHeaders")
    if kind == "tcpSocket":
        return port_num_or_name(handler.get("port"), f"{path}.port")
    if kind == "grpc":
        port = handler.get("port")
        if not isinstance(port, int) or not 1 <= port <= 65535:
            return [FieldError.invalid(f"{path}.port", port, PORT_RANGE)]
    if kind == "sleep":
        return _sleep(handler.get("seconds"), grace, path)
    return []


def _handler(
    value: dict[str, Any], kinds: tuple[str, ...], path: str, grace: int | None = None
) -> list[FieldError]:
    errors: list[FieldError] = []
    found = 0
    for kind in kinds:
        if value.get(kind) is None:
            continue
        if found:
            errors.append(
                FieldError.forbidden(f"{path}.{kind}", "may not specify more than 1 handler type")
            )
            continue
        found += 1
        errors += _handler_body(kind, value[kind], f"{path}.{kind}", grace)
    if not found:
        errors.append(FieldError.required(path, "must specify a handler type"))
    return errors


def _probe(probe: dict[str, Any], path: str) -> list[FieldError]:
    errors = _handler(probe, _PROBE_HANDLERS, path)
    for counter in _COUNTERS:
        value = probe.get(counter, PROBE_DEFAULTS.get(counter, 0))
        if isinstance(value, int) and value < 0:
            errors.append(FieldError.invalid(f"{path}.{counter}", value, _NEGATIVE))
    grace = probe.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and grace <= 0:
        errors.append(
            FieldError.invalid(
                f"{path}.terminationGracePeriodSeconds", grace, "must be greater than 0"
            )
        )
    return errors


def container_probes(container: dict[str, Any], path: str) -> list[FieldError]:
    """The three probes of one regular container, in the order the real server checks them."""
    errors: list[FieldError] = []
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = container.get(key)
        if not isinstance(probe, dict):
            continue
        at = f"{path}.{key}"
        errors += _probe(probe, at)
        threshold = probe.get("successThreshold", 1)
        if key != "readinessProbe" and threshold != 1:
            errors.append(FieldError.invalid(f"{at}.successThreshold", threshold, "must be 1"))
        grace = probe.get("terminationGracePeriodSeconds")
        if key == "readinessProbe" and grace is not None:
            errors.append(
                FieldError.invalid(
                    f"{at}.terminationGracePeriodSeconds",
                    grace,
                    "must not be set for readinessProbes",
                )
            )
    return errors


def lifecycle(value: Any, path: str, grace: Any = None) -> list[FieldError]:
    """``postStart`` and ``preStop``: one handler each (``sleep`` allowed, ``grpc`` not);
    ``grace`` is the pod's ``terminationGracePeriodSeconds``, the longest sleep."""
    if not isinstance(value, dict):
        return []
    errors: list[FieldError] = []
    for hook in ("postStart", "preStop"):
        handler = value.get(hook)
        if isinstance(handler, dict):
            limit = grace if isinstance(grace, int) else None
            errors += _handler(handler, _HOOK_HANDLERS, f"{path}.{hook}", limit)
    return errors
