"""Addresses and CIDRs read as Go's ``netutils.ParseIPSloppy``/``ParseCIDRSloppy`` read them:
like Python's ``ipaddress``, except that IPv4 parts may have leading zeros (``010.0.0.1``),
which stored objects from before Go 1.17 may hold.

Entry points: ``sloppy_ip``, ``sloppy_network``.

>>> sloppy_ip("010.0.0.1"), sloppy_ip("shop.example.com")
(True, False)
>>> str(sloppy_network("010.1.0.0/16"))
'10.1.0.0/16'
"""

from __future__ import annotations

import ipaddress
import re

__all__ = ["sloppy_ip", "sloppy_network"]

_DOTTED = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}")


def _unpadded(address: str) -> str | None:
    """``address`` without IPv4 leading zeros; None for an IPv4 part over 255."""
    if not _DOTTED.fullmatch(address):
        return address
    parts = [int(part) for part in address.split(".")]
    return ".".join(map(str, parts)) if all(part <= 255 for part in parts) else None


def sloppy_ip(text: str) -> bool:
    """Whether ``text`` is an IP address."""
    address = _unpadded(text)
    try:
        ipaddress.ip_address(address or "")
    except ValueError:
        return False
    return True


def sloppy_network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """The network ``text`` (``address/bits``) names, host bits cleared; None if not a CIDR."""
    address, slash, bits = text.partition("/")
    unpadded = _unpadded(address)
    if not slash or not bits.isdigit() or unpadded is None:
        return None
    try:
        return ipaddress.ip_network(f"{unpadded}/{int(bits)}", strict=False)
    except ValueError:
        return None
