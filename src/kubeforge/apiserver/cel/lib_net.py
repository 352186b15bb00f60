"""Kubernetes' IP, CIDR and URL libraries: ``ip()``, ``isIP``, ``ip.isCanonical``,
``cidr()``, ``isCIDR``, ``url()``, ``isURL`` and their methods.

Parsing follows Go's ``net/netip`` (no zones, no IPv4-mapped IPv6, no leading zeros)
with Kubernetes' error messages; ``isGlobalUnicast`` is Go's definition (private
ranges count as global unicast). A CIDR keeps the address as written
(``cidr("10.0.0.1/8").ip()`` is ``10.0.0.1``; ``masked()`` clears the host bits).
URLs are checked like Go's ``url.ParseRequestURI`` (absolute URL or absolute path).

Entry point: ``FUNCTIONS``; ``IP``, ``CIDR``, ``URL``.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from kubeforge.apiserver.cel.netparse import addr_error
from kubeforge.apiserver.cel.values import EvalError

__all__ = ["CIDR", "FUNCTIONS", "IP", "URL"]

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class IP:
    cel_type_name = "net.IP"
    __slots__ = ("address",)

    def __init__(self, address: Address) -> None:
        self.address = address

    def cel_equal(self, other: Any) -> bool:
        return isinstance(other, IP) and self.address == other.address

    def cel_string(self) -> str:
        return str(self.address)

    def cel_family(self) -> int:
        return self.address.version

    def cel_isUnspecified(self) -> bool:
        return self.address.is_unspecified

    def cel_isLoopback(self) -> bool:
        return self.address.is_loopback

    def cel_isLinkLocalMulticast(self) -> bool:
        net = "224.0.0.0/24" if self.address.version == 4 else "ff02::/16"
        return self.address in ipaddress.ip_network(net)

    def cel_isLinkLocalUnicast(self) -> bool:
        net = "169.254.0.0/16" if self.address.version == 4 else "fe80::/10"
        return self.address in ipaddress.ip_network(net)

    def cel_isGlobalUnicast(self) -> bool:
        a = self.address
        if a.version == 4 and a == ipaddress.IPv4Address("255.255.255.255"):
            return False
        return not (
            a.is_unspecified or a.is_loopback or a.is_multicast or self.cel_isLinkLocalUnicast()
        )


class CIDR:
    cel_type_name = "net.CIDR"
    __slots__ = ("address", "prefix")

    def __init__(self, address: Address, prefix: int) -> None:
        self.address = address
        self.prefix = prefix

    @property
    def network(self) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
        return ipaddress.ip_network(f"{self.address}/{self.prefix}", strict=False)

    def cel_equal(self, other: Any) -> bool:
        return isinstance(other, CIDR) and (self.address, self.prefix) == (
            other.address,
            other.prefix,
        )

    def cel_string(self) -> str:
        return f"{self.address}/{self.prefix}"

    def cel_ip(self) -> IP:
        return IP(self.address)

    def cel_masked(self) -> CIDR:
        return CIDR(self.network.network_address, self.prefix)

    def cel_prefixLength(self) -> int:
        return self.prefix

    def cel_containsIP(self, other: Any) -> bool:
        address = parse_ip(other).address if isinstance(other, str) else other.address
        return address.version == self.address.version and address in self.network

    def cel_containsCIDR(self, other: Any) -> bool:
        inner = parse_cidr(other) if isinstance(other, str) else other
        return (
            inner.address.version == self.address.version
            and inner.prefix >= self.prefix
            and inner.address in self.network
        )


def _address(text: str) -> Address:
    if "%" in text:
        raise EvalError(f'IP address "{text}" with zone value is not allowed')
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        reason = addr_error(text) or f'ParseAddr("{text}"): unable to parse IP'
        raise EvalError(
            f'IP Address "{text}" parse error during conversion from string: {reason}'
        ) from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise EvalError(f'IPv4-mapped IPv6 address "{text}" is not allowed')
    return address


def parse_ip(text: str) -> IP:
    return IP(_address(text))


_CIDR_ERROR = "network address parse error during conversion from string: "


def parse_cidr(text: str) -> CIDR:
    """Go's ``netip.ParsePrefix``; its error is wrapped twice, as Kubernetes' library does."""
    address_text, slash, bits = text.rpartition("/") if "/" in text else (text, "", "")
    if not slash:
        raise EvalError(f"{_CIDR_ERROR * 2}netip.ParsePrefix(\"{text}\"): no '/'")
    if "%" in address_text:
        raise EvalError(
            f'{_CIDR_ERROR * 2}netip.ParsePrefix("{text}"): '
            "IPv6 zones cannot be present in a prefix"
        )
    try:
        address = ipaddress.ip_address(address_text)
    except ValueError:
        reason = addr_error(address_text) or f'ParseAddr("{address_text}"): unable to parse IP'
        raise EvalError(f'{_CIDR_ERROR * 2}netip.ParsePrefix("{text}"): {reason}') from None
    if not re.fullmatch(r"0|[1-9][0-9]{0,2}", bits) or int(bits) > address.max_prefixlen:
        reason = f'bad bits after slash: "{bits}"'
        if re.fullmatch(r"[0-9]+", bits) and not bits.startswith("0"):
            reason = "prefix length out of range"
        raise EvalError(f'{_CIDR_ERROR * 2}netip.ParsePrefix("{text}"): {reason}')
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise EvalError(f'IPv4-mapped IPv6 address "{text}" is not allowed')
    return CIDR(address, int(bits))


def _succeeds(parse: Callable[[str], Any]) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        try:
            parse(text)
        except EvalError:
            return False
        return True

    return check


def _is_canonical(text: str) -> bool:
    return str(parse_ip(text).address) == text


class URL:
    cel_type_name = "kubernetes.URL"
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def cel_equal(self, other: Any) -> bool:
        return isinstance(other, URL) and self.text == other.text

    def cel_size(self) -> int:
        return len(self.text)

    def cel_getScheme(self) -> str:
        return urlsplit(self.text).scheme

    def cel_getHost(self) -> str:
        netloc = urlsplit(self.text).netloc
        return netloc.rsplit("@", 1)[-1]

    def cel_getHostname(self) -> str:
        host = self.cel_getHost()
        if host.startswith("["):
            return host[1 : host.index("]")]
        return host.rsplit(":", 1)[0] if ":" in host else host

    def cel_getPort(self) -> str:
        host = self.cel_getHost()
        tail = host[host.index("]") + 1 :] if host.startswith("[") else host
        return tail.rsplit(":", 1)[1] if ":" in tail else ""

    def cel_getEscapedPath(self) -> str:
        # Go's URL.EscapedPath: the path with what may not stand in one percent-encoded
        return quote(urlsplit(self.text).path, safe="/:@!$&'()*+,;=-._~%")

    def cel_getQuery(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.text).query, keep_blank_values=True)


def parse_url(text: str) -> URL:
    """Go's ``url.ParseRequestURI``: an absolute URL or an absolute path, a numeric port."""
    prefix = f'URL parse error during conversion from string: parse "{text}": '
    if not (text.startswith("/") or re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", text)):
        raise EvalError(prefix + "invalid URI for request")
    netloc = urlsplit(text).netloc.rsplit("@", 1)[-1]
    host_port = netloc[netloc.index("]") + 1 :] if netloc.startswith("[") else netloc
    if ":" in host_port:
        port = host_port.split(":", 1)[1]
        if not re.fullmatch(r"[0-9]*", port):
            raise EvalError(prefix + f'invalid port ":{port}" after host')
    return URL(text)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "ip": lambda value: value.cel_ip() if isinstance(value, CIDR) else parse_ip(value),
    "isIP": _succeeds(parse_ip),
    "ip.isCanonical": _is_canonical,
    "cidr": parse_cidr,
    "isCIDR": _succeeds(parse_cidr),
    "url": parse_url,
    "isURL": _succeeds(parse_url),
}
