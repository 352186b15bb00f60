"""A Service's addresses: cluster IPs, IP families, external IPs and source ranges.

Written from kubernetes 1.32 ``pkg/apis/core/validation``
(``ValidateServiceClusterIPsRelatedFields``, ``validateUpgradeDowngradeClusterIPs`` and
``...IPFamilies``, ``ValidateNonSpecialIP``, apimachinery's ``IsValidIP``/``IsValidCIDR``) and
``pkg/api/service/warnings.go`` (the warnings a valid but non-canonical address earns), with
their field paths and words. Addresses are parsed as Go's ``ParseIPSloppy`` does
(``podspec.dns.sloppy_ip``).

Entry points: ``cluster_ip_fields(spec)``, ``cluster_ip_updates(new, old)``,
``non_special_ip(value, path)``, ``cidr_errors(value, path)``, ``ip_warning(value, path)``,
``cidr_warning(value, path)``, ``go_strings(values, type_name)``.

>>> [str(e) for e in cluster_ip_fields({"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.2"]})]
['spec.clusterIPs: Invalid value: []string{"10.0.0.2"}: first value must match `clusterIP`']
"""

from __future__ import annotations

import ipaddress
from typing import Any

from kubeforge.apiserver.builtin.podspec.dns import ip_errors, sloppy_ip
from kubeforge.apiserver.failures import FieldError, GoValue

__all__ = [
    "cidr_errors",
    "cidr_warning",
    "cluster_ip_fields",
    "cluster_ip_updates",
    "go_strings",
    "ip_warning",
    "is_headless",
    "non_special_ip",
]

_FAMILIES = ("IPv4", "IPv6")
_POLICIES = ("PreferDualStack", "RequireDualStack", "SingleStack")
_IPS = "spec.clusterIPs"
_NOT_A_CIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def go_strings(values: Any, type_name: str = "string") -> GoValue:
    """``%#v`` of a Go slice of strings (``[]string{"a"}``, ``[]core.IPFamily(nil)``)."""
    if not values:
        return GoValue(f"[]{type_name}(nil)" if values is None else f"[]{type_name}{{}}")
    return GoValue(f"[]{type_name}{{" + ", ".join(GoValue.quote(str(v)) for v in values) + "}")


def _policy(spec: dict[str, Any]) -> Any:
    """``spec.ipFamilyPolicy`` as a field error shows the Go pointer (nil: ``null``)."""
    return spec.get("ipFamilyPolicy")


def is_headless(spec: dict[str, Any]) -> bool:
    """validation's ``isHeadlessService``: exactly ``clusterIPs: ["None"]``."""
    ips = spec.get("clusterIPs") or []
    return len(ips) == 1 and ips[0] == "None"


def _families(spec: dict[str, Any]) -> list[FieldError]:
    errors, seen = [], set()
    for i, family in enumerate(spec.get("ipFamilies") or []):
        if family not in _FAMILIES:
            errors.append(FieldError.not_supported(f"spec.ipFamilies[{i}]", family, _FAMILIES))
        if family in seen:  # also keeps a dual-stack list to one of each family
            errors.append(FieldError.duplicate(f"spec.ipFamilies[{i}]", family))
        seen.add(family)
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in _POLICIES:
        errors.append(FieldError.not_supported("spec.ipFamilyPolicy", policy, _POLICIES))
    return errors


def _synced(spec: dict[str, Any]) -> list[FieldError]:
    """``clusterIP`` and ``clusterIPs[0]`` say the same (the strategy keeps them so)."""
    ip, ips = spec.get("clusterIP") or "", spec.get("clusterIPs") or []
    if ip:
        if not ips:
            return [FieldError.required(_IPS)]
        if ips[0] != ip:
            return [FieldError.invalid(_IPS, go_strings(ips), "first value must match `clusterIP`")]
    elif ips:
        detail = "must be empty when `clusterIP` is not specified"
        return [FieldError.invalid(_IPS, go_strings(ips), detail)]
    return []


def _dual_stack(ips: list[Any]) -> bool:
    parsed = [sloppy_ip(str(ip)) for ip in ips]
    return len(parsed) == 2 and {p.version for p in parsed if p is not None} == {4, 6}


def cluster_ip_fields(spec: dict[str, Any]) -> list[FieldError]:
    """``ValidateServiceClusterIPsRelatedFields``: clusterIP(s), ipFamilies and ipFamilyPolicy
    agree (an ExternalName Service has none, which is checked elsewhere)."""
    if spec.get("type") == "ExternalName":
        return []
    errors = _synced(spec) + _families(spec)
    ips = spec.get("clusterIPs") or []
    invalid = False
    for i, ip in enumerate(ips):
        if i == 0 and ip == "None":
            if len(ips) > 1:
                invalid = True
                detail = "'None' must be the first and only value"
                errors.append(FieldError.invalid(_IPS, go_strings(ips), detail))
            continue
        bad = ip_errors(ip, f"{_IPS}[{i}]")
        invalid = invalid or bool(bad)
        errors += bad
    if len(ips) > 2:
        errors.append(FieldError.invalid(_IPS, go_strings(ips), "may only hold up to 2 values"))
    if invalid:  # further checks would only repeat these
        return errors
    if len(ips) > 1 and not _dual_stack(ips):
        detail = "may specify no more than one IP for each IP family"
        errors.append(FieldError.invalid(_IPS, go_strings(ips), detail))
    families = spec.get("ipFamilies") or []
    if not is_headless(spec):
        for i, (ip, family) in enumerate(zip(ips, families, strict=False)):
            v6 = getattr(sloppy_ip(str(ip)), "version", 4) == 6
            if (family == "IPv4" and v6) or (family == "IPv6" and not v6):
                expected = "an IPv4" if family == "IPv4" else "an IPv6"
                detail = f"expected {expected} value as indicated by `ipFamilies[{i}]`"
                errors.append(FieldError.invalid(f"{_IPS}[{i}]", ip, detail))
    return errors


def _changed_ips(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``validateUpgradeDowngradeClusterIPs``: the primary cluster IP never changes."""
    before, after = old.get("clusterIPs") or [], new.get("clusterIPs") or []
    if is_headless(old) and is_headless(new):
        return []
    shown, errors = go_strings(new.get("clusterIPs")), []
    if len(before) == len(after):
        for i, ip in enumerate(before):
            if ip != after[i]:
                errors.append(FieldError.invalid(f"{_IPS}[{i}]", shown, "may not change once set"))
    elif len(before) > len(after):
        if not after:
            errors.append(
                FieldError.invalid(f"{_IPS}[0]", shown, "primary clusterIP can not be unset")
            )
        elif after[0] != before[0]:
            errors.append(FieldError.invalid(f"{_IPS}[0]", shown, "may not change once set"))
        if len(after) == 1 and new.get("ipFamilyPolicy") != "SingleStack":
            detail = "must be set to 'SingleStack' when releasing the secondary clusterIP"
            errors.append(FieldError.invalid("spec.ipFamilyPolicy", _policy(new), detail))
    elif before and after[0] != before[0]:
        errors.append(FieldError.invalid(f"{_IPS}[0]", shown, "may not change once set"))
    return errors


def _changed_families(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``validateUpgradeDowngradeIPFamilies``: the primary family never changes (sic: some of
    Go's errors show the cluster IPs as the value)."""
    if is_headless(old) or is_headless(new):
        return []
    before, after = old.get("ipFamilies") or [], new.get("ipFamilies") or []
    path, errors = "spec.ipFamilies[0]", []
    families, ips = (
        go_strings(new.get("ipFamilies"), "core.IPFamily"),
        go_strings(new.get("clusterIPs")),
    )
    if len(before) == len(after):
        errors += [
            FieldError.invalid(path, families, "may not change once set")
            for i, family in enumerate(before)
            if family != after[i]
        ]
    elif len(before) > len(after):
        if not new.get("clusterIPs"):
            errors.append(FieldError.invalid(path, families, "primary ipFamily can not be unset"))
        if after and after[0] != before[0]:
            errors.append(FieldError.invalid(path, ips, "may not change once set"))
        if len(after) == 1 and new.get("ipFamilyPolicy") != "SingleStack":
            detail = "must be set to 'SingleStack' when releasing the secondary ipFamily"
            errors.append(FieldError.invalid("spec.ipFamilyPolicy", _policy(new), detail))
    elif before and after and after[0] != before[0]:
        errors.append(FieldError.invalid(path, ips, "may not change once set"))
    return errors


def cluster_ip_updates(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """What an update may not do to the addresses (nothing is checked to or from ExternalName)."""
    if "ExternalName" in (new.get("type"), old.get("type")):
        return []
    return _changed_ips(new, old) + _changed_families(new, old)


def _special(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[str]:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # Go sees a v4-in-v6 address as the IPv4 address
    problems = []
    if ip.is_unspecified:
        problems.append("unspecified")
    if ip.is_loopback:
        problems.append("may not be in the loopback range (127.0.0.0/8, ::1/128)")
    if ip.is_link_local:
        problems.append("may not be in the link-local range (169.254.0.0/16, fe80::/10)")
    if ip in ipaddress.ip_network("224.0.0.0/24") or (
        ip.version == 6 and ip.packed[0] == 0xFF and ip.packed[1] & 0x0F == 0x02
    ):
        problems.append("may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")
    return problems


def non_special_ip(value: Any, path: str) -> list[FieldError]:
    """``ValidateNonSpecialIP``: no unspecified, loopback or link-local address."""
    text = str(value if value is not None else "")
    ip = sloppy_ip(text)
    if ip is None:
        return [FieldError.invalid(path, text, "must be a valid IP address")]
    return [
        FieldError.invalid(
            path, text, f"may not be unspecified ({text})" if problem == "unspecified" else problem
        )
        for problem in _special(ip)
    ]


def _sloppy_cidr(value: str) -> bool:
    address, slash, bits = value.partition("/")
    ip = sloppy_ip(address)
    if not slash or ip is None or not bits.isascii() or not bits.isdigit():
        return False
    return int(bits) <= (32 if ip.version == 4 else 128)


def cidr_errors(value: Any, path: str) -> list[FieldError]:
    """apimachinery's ``IsValidCIDR`` (parsed as ``ParseCIDRSloppy``)."""
    text = str(value if value is not None else "")
    return [] if _sloppy_cidr(text) else [FieldError.invalid(path, text, _NOT_A_CIDR)]


def _ipv4_problem(text: str) -> str:
    """Go's ``parseIPv4`` (strict: no leading zeros), its first complaint or ''."""
    value, digits, dots = 0, 0, 0
    for i, char in enumerate(text):
        if char.isascii() and char.isdigit():
            if digits == 1 and value == 0:
                return "IPv4 field has octet with leading zero"
            value, digits = value * 10 + int(char), digits + 1
            if value > 255:
                return "IPv4 field has value >255"
        elif char == ".":
            if i in (0, len(text) - 1) or text[i - 1] == ".":
                return f"IPv4 field must have at least one digit (at {GoValue.quote(text[i:])})"
            if dots == 3:
                return "IPv4 address too long"
            value, digits, dots = 0, 0, dots + 1
        else:
            return f"unexpected character (at {GoValue.quote(text[i:])})"
    return "IPv4 address too short" if dots < 3 else ""


def _addr_problem(text: str) -> str:
    """Why Go's strict ``netip.ParseAddr`` refuses ``text`` ('' if it takes it): it decides by
    the first of '.', ':' or '%' it meets. IPv6 complaints are summed up in one phrase."""
    first = next((char for char in text if char in ".:%"), "")
    if first == ".":
        return _ipv4_problem(text)
    if first == ":":
        return "" if sloppy_ip(text) is not None else "unable to parse IP"
    return "missing IPv6 address" if first == "%" else "unable to parse IP"


def _canonical(ip: ipaddress.IPv6Address) -> str:
    """RFC 5952 text, as Go's ``netip.Addr.String`` writes an IPv6 address."""
    if ip.ipv4_mapped is not None:
        return f"::ffff:{ip.ipv4_mapped}"
    return ip.compressed


def ip_warning(value: str, path: str) -> list[str]:
    """``getWarningsForIP``: an address Go's strict parser refuses, or IPv6 text that is not
    RFC 5952's (which makes controllers fight over it)."""
    problem = _addr_problem(value)
    if problem:
        return [
            f"{path}: IP address was accepted, but will be invalid in a future Kubernetes "
            f"release: ParseAddr({GoValue.quote(value)}): {problem}"
        ]
    ip = sloppy_ip(value)
    if isinstance(ip, ipaddress.IPv6Address) and _canonical(ip) != value:
        return [
            f"{path}: IPv6 address {GoValue.quote(value)} is not in RFC 5952 canonical format "
            f"({GoValue.quote(_canonical(ip))}), which may cause controller apply-loops"
        ]
    return []


def cidr_warning(value: str, path: str) -> list[str]:
    """``getWarningsForCIDR``: what ``netip.ParsePrefix`` refuses, or an IPv6 prefix in other
    than canonical text."""
    address, _, bits = value.rpartition("/")
    head = f"{path}: IP prefix was accepted, but will be invalid in a future Kubernetes release: "
    quoted = f"netip.ParsePrefix({GoValue.quote(value)}): "
    problem = _addr_problem(address)
    if problem:
        return [f"{head}{quoted}ParseAddr({GoValue.quote(address)}): {problem}"]
    if not bits.isdigit() or (len(bits) > 1 and bits[0] == "0"):
        return [f"{head}{quoted}bad bits after slash: {GoValue.quote(bits)}"]
    ip = sloppy_ip(address)
    if isinstance(ip, ipaddress.IPv6Address) and f"{_canonical(ip)}/{int(bits)}" != value:
        canonical = f"{_canonical(ip)}/{int(bits)}"
        return [
            f"{path}: IPv6 prefix {GoValue.quote(value)} is not in RFC 5952 canonical format "
            f"({GoValue.quote(canonical)}), which may cause controller apply-loops"
        ]
    return []
