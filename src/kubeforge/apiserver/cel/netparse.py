"""Go's ``net/netip`` parse errors, so a bad address is reported in Kubernetes' words.

``addr_error(text)`` is the message ``netip.ParseAddr(text)`` fails with (for example
``ParseAddr("1.2.3.4.5"): IPv4 address too long``), or None when Go would accept it.
Python's ``ipaddress`` decides validity; this module only names the reason.
"""

from __future__ import annotations

__all__ = ["addr_error"]


def addr_error(text: str) -> str | None:
    for ch in text:
        if ch == ".":
            return _wrap(text, *_ipv4(text))
        if ch == ":":
            return _wrap(text, *_ipv6(text))
        if ch == "%":
            return _wrap(text, "missing IPv6 address", "")
    return _wrap(text, "unable to parse IP", "")


def _wrap(text: str, message: str | None, at: str) -> str | None:
    if message is None:
        return None
    suffix = f' (at "{at}")' if at else ""
    return f'ParseAddr("{text}"): {message}{suffix}'


def _ipv4(text: str) -> tuple[str | None, str]:
    fields = 0
    value = digits = 0
    for i, ch in enumerate(text):
        if ch.isdigit() and ch.isascii():
            if digits == 1 and value == 0:
                return "IPv4 field has octet with leading zero", ""
            value = value * 10 + int(ch)
            digits += 1
            if value > 255:
                return "IPv4 field has value >255", ""
        elif ch == ".":
            if i == 0 or i == len(text) - 1 or text[i - 1] == ".":
                return "IPv4 field must have at least one digit", text[i:]
            if fields == 3:
                return "IPv4 address too long", ""
            fields += 1
            value = digits = 0
        else:
            return "unexpected character", text[i:]
    if fields < 3:
        return "IPv4 address too short", ""
    return None, ""


def _ipv6(text: str) -> tuple[str | None, str]:
    rest = text
    groups = 0
    ellipsis = False
    if rest.startswith("::"):
        ellipsis, rest = True, rest[2:]
    while rest:
        end = 0
        while end < len(rest) and end < 5 and rest[end] in "0123456789abcdefABCDEF":
            end += 1
        if end == 0:
            return "each colon-separated field must have at least one digit", rest
        if end > 4:
            return "IPv6 field has value >=2^16", rest
        if end < len(rest) and rest[end] == "." and (ellipsis or groups == 6) and groups <= 6:
            return (_ipv4(rest)[0] and "invalid IPv4 part") or None, ""
        groups += 1
        rest = rest[end:]
        if not rest:
            break
        if rest[0] != ":":
            return "unexpected character, want colon", rest
        if len(rest) == 1:
            return "colon must be followed by more characters", rest
        rest = rest[1:]
        if rest.startswith(":"):
            if ellipsis:
                return "multiple :: in address", rest
            ellipsis = True
            rest = rest[1:]
        if groups == 8:
            return "trailing garbage after address", rest
    if not ellipsis and groups < 8:
        return "address string too short", ""
    return None, ""
