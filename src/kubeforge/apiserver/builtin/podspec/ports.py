"""Port numbers, port names and protocols (``validateContainerPorts`` and the
``IsValidPortName`` / ``IsValidPortNum`` rules of apimachinery's ``util/validation``).

Entry points: ``container_ports(ports, path)``, ``port_num_or_name(value, path)``,
``protocol_errors(value, path)``.
"""

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.failures import FieldError

__all__ = [
    "PORT_RANGE",
    "container_ports",
    "port_name_errors",
    "port_num_or_name",
    "protocol_errors",
]

PORT_RANGE = "must be between 1 and 65535, inclusive"
_PROTOCOLS = ("SCTP", "TCP", "UDP")  # sorted, as sets.List gives them
_CHARSET = re.compile(r"[-a-z0-9]+")


def port_name_errors(name: str) -> list[str]:
    """``IsValidPortName``: an IANA_SVC_NAME."""
    errors = []
    if len(name) > 15:
        errors.append("must be no more than 15 characters")
    if not _CHARSET.fullmatch(name):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search(r"[a-z]", name):
        errors.append("must contain at least one letter (a-z)")
    if "--" in name:
        errors.append("must not contain consecutive hyphens (-)")
    if name.startswith("-") or name.endswith("-"):
        errors.append("must not begin or end with a hyphen (-)")
    return errors


def _valid_number(value: Any) -> bool:
    return isinstance(value, int) and 1 <= value <= 65535


def port_num_or_name(value: Any, path: str) -> list[FieldError]:
    """``ValidatePortNumOrName``: an IntOrString naming or numbering a port."""
    if isinstance(value, str):
        return [FieldError.invalid(path, value, msg) for msg in port_name_errors(value)]
    if _valid_number(value):
        return []
    return [FieldError.invalid(path, value if value is not None else 0, PORT_RANGE)]


def protocol_errors(value: Any, path: str) -> list[FieldError]:
    """A port's protocol: required, and one of TCP, UDP and SCTP."""
    if not value:
        return [FieldError.required(path)]
    if value not in _PROTOCOLS:
        return [FieldError.not_supported(path, value, _PROTOCOLS)]
    return []


def container_ports(ports: list[Any], path: str) -> list[FieldError]:
    """Each port's name (valid, unique), containerPort, hostPort and protocol."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        if not isinstance(port, dict):
            continue
        at = f"{path}[{i}]"
        name = port.get("name") or ""
        if name:
            messages = port_name_errors(name)
            errors += [FieldError.invalid(f"{at}.name", name, msg) for msg in messages]
            if not messages and name in names:
                errors.append(FieldError.duplicate(f"{at}.name", name))
            names.add(name)
        number = port.get("containerPort") or 0
        if number == 0:
            errors.append(FieldError.required(f"{at}.containerPort"))
        elif not _valid_number(number):
            errors.append(FieldError.invalid(f"{at}.containerPort", number, PORT_RANGE))
        host = port.get("hostPort") or 0
        if host != 0 and not _valid_number(host):
            errors.append(FieldError.invalid(f"{at}.hostPort", host, PORT_RANGE))
        errors += protocol_errors(port.get("protocol"), f"{at}.protocol")
    return errors
