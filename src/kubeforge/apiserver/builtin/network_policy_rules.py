"""NetworkPolicies as 1.32 defaults and validates them (networking/v1 ``SetDefaults_*``,
``ValidateNetworkPolicySpec``): policyTypes from the rules given, ports' protocol TCP;
ports and end ports, peers (exactly one kind, an ipBlock alone), CIDRs and their
exceptions, and the policy types.

Entry points: ``default_network_policy``, ``network_policy_errors``.

>>> [str(e) for e in network_policy_errors({"spec": {"ingress": [{"from": [{}]}]}}, None)]
['spec.ingress[0].from[0]: Required value: must specify a peer']
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.netparse import sloppy_network
from kubeforge.apiserver.builtin.podspec.affinity import dict_items
from kubeforge.apiserver.builtin.podspec.ports import PORT_RANGE, port_name_errors
from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.apiserver.meta.labelselector import validate_selector

__all__ = ["default_network_policy", "network_policy_errors"]

_PROTOCOLS = ("TCP", "UDP", "SCTP")  # Go lists them so, unsorted
_TYPES = ("Ingress", "Egress")
_DIRECTIONS = (("ingress", "from"), ("egress", "to"))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def default_network_policy(spec: dict[str, Any]) -> None:
    """``SetDefaults_NetworkPolicy`` and ``SetDefaults_NetworkPolicyPort``."""
    if not spec.get("policyTypes"):
        spec["policyTypes"] = ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]
    for direction, _ in _DIRECTIONS:
        for _, rule in dict_items(spec.get(direction)):
            for _, port in dict_items(rule.get("ports")):
                port.setdefault("protocol", "TCP")


def _port_errors(port: dict[str, Any], at: str) -> list[FieldError]:
    errors: list[FieldError] = []
    protocol = port.get("protocol")
    if protocol is not None and protocol not in _PROTOCOLS:
        errors.append(FieldError.not_supported(f"{at}.protocol", protocol, _PROTOCOLS))
    number, end = port.get("port"), port.get("endPort")
    if isinstance(number, int):
        if not 1 <= number <= 65535:
            errors.append(FieldError.invalid(f"{at}.port", number, PORT_RANGE))
        if end is not None:
            if end < number:
                detail = "must be greater than or equal to `port`"
                errors.append(FieldError.invalid(f"{at}.endPort", end, detail))
            if not 1 <= end <= 65535:
                errors.append(FieldError.invalid(f"{at}.endPort", end, PORT_RANGE))
    elif isinstance(number, str):
        if end is not None:
            detail = "may not be specified when `port` is non-numeric"
            errors.append(FieldError.invalid(f"{at}.endPort", end, detail))
        errors += [FieldError.invalid(f"{at}.port", number, m) for m in port_name_errors(number)]
    elif end is not None:
        detail = "may not be specified when `port` is not specified"
        errors.append(FieldError.invalid(f"{at}.endPort", end, detail))
    return errors


def _ip_block(block: dict[str, Any], at: str) -> list[FieldError]:
    cidr = str(block.get("cidr") or "")
    if not cidr:
        return [FieldError.required(f"{at}.cidr")]
    network = sloppy_network(cidr)
    if network is None:
        return [FieldError.invalid(f"{at}.cidr", cidr, "not a valid CIDR")]
    errors: list[FieldError] = []
    excepts = block.get("except")
    for i, text in enumerate(excepts if isinstance(excepts, list) else ()):
        where = f"{at}.except[{i}]"
        inner = sloppy_network(str(text))
        if inner is None:
            return [*errors, FieldError.invalid(where, text, "not a valid CIDR")]
        strict = inner.version == network.version and inner.network_address in network
        if not strict or network.prefixlen >= inner.prefixlen:
            errors.append(FieldError.invalid(where, text, "must be a strict subset of `cidr`"))
    return errors


def _peer_errors(peer: dict[str, Any], at: str, values: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    count = 0
    for key in ("podSelector", "namespaceSelector"):
        if peer.get(key) is not None:
            count += 1
            errors += validate_selector(peer[key], f"{at}.{key}", check_values=values)
    block = peer.get("ipBlock")
    if block is not None:
        count += 1
        errors += _ip_block(_dict(block), f"{at}.ipBlock")
    if count == 0:
        errors.append(FieldError.required(at, "must specify a peer"))
    elif count > 1 and block is not None:
        errors.append(FieldError.forbidden(at, "may not specify both ipBlock and another peer"))
    return errors


def network_policy_errors(policy: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """``ValidateNetworkPolicySpec``; an update may keep a pod selector with values 1.32
    refuses if the stored policy had one."""
    spec = _dict(policy.get("spec"))
    lenient = old is not None and bool(
        validate_selector(_dict(old.get("spec")).get("podSelector"), "", check_values=True)
    )
    errors = validate_selector(
        spec.get("podSelector") or {}, "spec.podSelector", check_values=not lenient
    )
    for direction, peers in _DIRECTIONS:
        for i, rule in dict_items(spec.get(direction)):
            at = f"spec.{direction}[{i}]"
            for j, port in dict_items(rule.get("ports")):
                errors += _port_errors(port, f"{at}.ports[{j}]")
            for j, peer in dict_items(rule.get(peers)):
                errors += _peer_errors(peer, f"{at}.{peers}[{j}]", not lenient)
    types = spec.get("policyTypes")
    types = types if isinstance(types, list) else []
    if len(types) > len(_TYPES):
        shown = GoValue("[]networking.PolicyType{" + ", ".join(f'"{t}"' for t in types) + "}")
        detail = "may not specify more than two policyTypes"
        return [*errors, FieldError.invalid("spec.policyTypes", shown, detail)]
    for i, kind in enumerate(types):
        if kind not in _TYPES:
            errors.append(FieldError.not_supported(f"spec.policyTypes[{i}]", kind, _TYPES))
    return errors
