"""A pod's name resolution: ``dnsConfig`` (``validatePodDNSConfig``) and ``hostAliases``
(``ValidateHostAliases``) of kubernetes 1.32, and the IP address rule both use
(apimachinery's ``IsValidIP``, which parses as Go's ``ParseIPSloppy``: IPv4 parts may
have leading zeros, an IPv6 address no zone).

Search domains are checked strictly (RelaxedDNSSearchValidation is alpha, off, in 1.32).

Entry points: ``dns_config(spec, path)``, ``host_aliases(spec, path)``,
``ip_errors(value, path)``, ``sloppy_ip(value)``.

>>> [str(e) for e in dns_config({"dnsPolicy": "None"}, "spec")]
['spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None']
"""

from __future__ import annotations

import ipaddress
from typing import Any

from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.core.names import dns1123_subdomain

__all__ = ["dns_config", "host_aliases", "ip_errors", "sloppy_ip"]

_MAX_NAMESERVERS = 3
_MAX_SEARCHES = 32
_MAX_SEARCH_CHARS = 2048
_NOT_AN_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"


def _sloppy_ipv4(value: str) -> bool:
    parts = value.split(".")
    return len(parts) == 4 and all(p.isascii() and p.isdigit() and int(p) <= 255 for p in parts)


def sloppy_ip(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``value`` parsed as Go's ``ParseIPSloppy`` does (IPv4 parts may have leading zeros, an
    IPv6 address no zone), or None when it is no IP address."""
    if "." in value and ":" not in value:
        if not _sloppy_ipv4(value):
            return None
        return ipaddress.IPv4Address(".".join(str(int(p)) for p in value.split(".")))
    if "%" in value or not value.isascii():
        return None
    head, _, tail = value.rpartition(":")
    if "." in tail and not _sloppy_ipv4(tail):
        return None
    if "." in tail:  # an embedded IPv4 may have leading zeros in Go too
        value = f"{head}:{'.'.join(str(int(p)) for p in tail.split('.'))}"
    try:
        return ipaddress.IPv6Address(value)
    except ValueError:
        return None


def _is_ip(value: str) -> bool:
    return sloppy_ip(value) is not None


def ip_errors(value: Any, path: str) -> list[FieldError]:
    text = str(value if value is not None else "")
    return [] if _is_ip(text) else [FieldError.invalid(path, text, _NOT_AN_IP)]


def _go_strings(values: list[Any]) -> GoValue:
    """``%#v`` of a ``[]string``."""
    return GoValue("[]string{" + ", ".join(GoValue.quote(str(v)) for v in values) + "}")


def _searches(searches: list[Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if len(searches) > _MAX_SEARCHES:
        detail = f"must not have more than {_MAX_SEARCHES} search paths"
        errors.append(FieldError.invalid(path, _go_strings(searches), detail))
    if len(" ".join(str(s) for s in searches)) > _MAX_SEARCH_CHARS:
        detail = (
            f"must not have more than {_MAX_SEARCH_CHARS} characters (including spaces) "
            "in the search list"
        )
        errors.append(FieldError.invalid(path, _go_strings(searches), detail))
    for i, search in enumerate(searches):
        domain = str(search).removesuffix(".")
        errors += [FieldError.invalid(f"{path}[{i}]", domain, m) for m in dns1123_subdomain(domain)]
    return errors


def dns_config(spec: dict[str, Any], path: str) -> list[FieldError]:
    """``{path}.dnsConfig``; with ``dnsPolicy: None`` it and a nameserver are required."""
    config = spec.get("dnsConfig")
    at = f"{path}.dnsConfig"
    if spec.get("dnsPolicy") == "None":
        if not isinstance(config, dict):
            detail = "must provide `dnsConfig` when `dnsPolicy` is None"
            return [FieldError.required(at, detail)]
        if not config.get("nameservers"):
            detail = "must provide at least one DNS nameserver when `dnsPolicy` is None"
            return [FieldError.required(f"{at}.nameservers", detail)]
    if not isinstance(config, dict):
        return []
    errors: list[FieldError] = []
    nameservers = config.get("nameservers") or []
    if len(nameservers) > _MAX_NAMESERVERS:
        detail = f"must not have more than {_MAX_NAMESERVERS} nameservers"
        errors.append(FieldError.invalid(f"{at}.nameservers", _go_strings(nameservers), detail))
    for i, nameserver in enumerate(nameservers):
        errors += ip_errors(nameserver, f"{at}.nameservers[{i}]")
    errors += _searches(config.get("searches") or [], f"{at}.searches")
    for i, option in enumerate(config.get("options") or []):
        if isinstance(option, dict) and not option.get("name"):
            errors.append(FieldError.required(f"{at}.options[{i}]", "must not be empty"))
    return errors


def host_aliases(spec: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    aliases = spec.get("hostAliases")
    for i, alias in enumerate(aliases if isinstance(aliases, list) else ()):
        if not isinstance(alias, dict):
            continue
        at = f"{path}.hostAliases[{i}]"
        errors += ip_errors(alias.get("ip"), f"{at}.ip")
        for j, hostname in enumerate(alias.get("hostnames") or []):
            problems = dns1123_subdomain(str(hostname))
            errors += [FieldError.invalid(f"{at}.hostnames[{j}]", hostname, m) for m in problems]
    return errors
