"""``format`` in CRD schemas: which formats are checked, and how, as kube-apiserver does.

Entry point: ``check(value, schema)`` returns the name of the format ``value`` fails
(as the schema spells it, for the message), or None.

What the real server does (v1.32): before validating, it blanks every format a CRD
schema may not use (apiextensions ``StripUnsupportedFormatsPostProcess``); what is
left is validated by kube-openapi's ``strfmt`` registry, and only for string values:

* ``type: string`` (or no type): bsonobjectid, uri, email, hostname, ipv4, ipv6,
  cidr, mac, uuid, uuid3, uuid4, uuid5, isbn, isbn10, isbn13, creditcard, ssn,
  hexcolor, rgbcolor, byte, password, date, duration, datetime. Names are compared
  with dashes removed, so ``date-time`` is ``datetime``. Anything else is ignored.
* ``type: integer`` with int32/int64, ``type: number`` with float/double: kept, but
  no string is ever checked against them and numbers are never range-checked;
  ``numeric_type_name`` covers the one visible effect (the type error names the
  format). Every other format is ignored.

Each checker reproduces the Go function kube-openapi registers (``net.ParseIP``,
``url.ParseRequestURI``, govalidator's regular expressions, ``time.Parse`` ...)
closely enough for the inputs clients send; ``email`` follows ``net/mail``'s
addr-spec grammar without its comment and obsolete forms.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Callable
from typing import Any

__all__ = ["check", "numeric_type_name"]

_A = re.ASCII


def _full(pattern: str, flags: int = _A) -> Callable[[str], bool]:
    compiled = re.compile(pattern, flags)
    return lambda value: compiled.fullmatch(value) is not None


def _ip(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``net.ParseIP``: no zones, no leading zeros in IPv4 parts (Go >= 1.17)."""
    if "%" in value:
        return None
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        return None


def _is_cidr(value: str) -> bool:
    address, slash, prefix = value.partition("/")
    ip = _ip(address)
    if not slash or ip is None or not re.fullmatch(r"[0-9]+", prefix, _A):
        return False
    bits = 128 if ":" in address else 32  # an IPv4-mapped IPv6 address has 128 bits
    return int(prefix) <= bits


def _is_mac(value: str) -> bool:
    """``net.ParseMAC``: 6, 8 or 20 octets as xx:xx.., xx-xx.. or xxxx.xxxx.."""
    if len(value) < 14:
        return False
    if value[2] in ":-":
        groups = value.split(value[2])
        width, octets = 2, len(groups)
    elif value[4] == ".":
        groups = value.split(".")
        width, octets = 4, 2 * len(groups)
    else:
        return False
    return octets in (6, 8, 20) and all(
        len(g) == width and re.fullmatch(r"[0-9a-fA-F]+", g, _A) for g in groups
    )


_SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+.\-]*", _A)
_BAD_ESCAPE = re.compile(r"%(?![0-9a-fA-F]{2})", _A)
_HOST_CHARS = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:\[\]<>\"%\u0080-\U0010ffff]*", _A)
# In a host, an escape must stand for a non-ASCII byte, or be "%25" (url.unescape).
_BAD_HOST_ESCAPE = re.compile(r"%(?!25|[89a-fA-F][0-9a-fA-F])", _A)


def _is_request_uri(value: str) -> bool:
    """``url.ParseRequestURI``: an absolute URI, or an absolute path."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        return False
    rest = value.split("?", 1)[0]
    scheme = ""
    head, colon, tail = rest.partition(":")
    if colon and _SCHEME.fullmatch(head):
        scheme, rest = head, tail
    elif colon and head == "":
        return False  # "missing protocol scheme"
    if not rest.startswith("/"):
        return bool(scheme)  # "mailto:x" is opaque; "x/y" is not a request URI
    path = rest
    if scheme and rest.startswith("//") and not rest.startswith("///"):
        authority, _, path = rest[2:].partition("/")
        host = authority.rpartition("@")[2]
        if host.startswith("["):
            end = host.find("]")
            if end < 0 or not _port_ok(host[end + 1 :]):
                return False
        elif ":" in host and not _port_ok(host[host.rindex(":") :]):
            return False
        if _BAD_HOST_ESCAPE.search(host) or not _HOST_CHARS.fullmatch(host):
            return False
    return _BAD_ESCAPE.search(path) is None


def _port_ok(port: str) -> bool:
    return port == "" or re.fullmatch(r":[0-9]*", port, _A) is not None


_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~\-\u0080-\U0010ffff]"
_DOT_ATOM = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
_QUOTED = r'"(?:[^"\\\r\n]|\\.)*"'
_ADDR_SPEC = rf"(?:{_DOT_ATOM}|{_QUOTED})@(?:{_DOT_ATOM}|\[[^\[\]\\]*\])"
_EMAIL = re.compile(
    rf"\s*(?:{_ADDR_SPEC}|(?:(?:{_DOT_ATOM}|{_QUOTED})(?:\s+(?:{_DOT_ATOM}|{_QUOTED}))*\s*)?"
    rf"<{_ADDR_SPEC}>)\s*"
)

# kube-openapi's HostnamePattern, written over a one-letter alphabet: "a" stands for
# an ASCII letter or digit, or any Unicode letter or symbol (Go's \p{L} and \p{S}).
_HOSTNAME = re.compile(
    r"a(?:(?:-?a{0,62})?)|(?:a(?:(?:[a-]{0,61}a)?)\.)+a(?:-?a){1,62}",
)


def _hostname_letter(c: str) -> str:
    if c in "-.":
        return c
    if "0" <= c <= "9" or unicodedata.category(c)[0] in "LS":
        return "a"
    return "!"


def _is_hostname(value: str) -> bool:
    if not _HOSTNAME.fullmatch("".join(_hostname_letter(c) for c in value)):
        return False
    encoded = value.encode()  # Go measures bytes
    return len(encoded) <= 255 and all(len(p) <= 63 for p in encoded.split(b"."))


def _is_date(value: str) -> bool:
    """``time.Parse("2006-01-02", ...)``: exact digits, a real calendar day."""
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value, _A):
        return False
    year, month, day = int(value[:4]), int(value[5:7]), int(value[8:])
    if not 1 <= month <= 12:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    return 1 <= day <= days


_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|[+-][0-9]{2}:[0-9]{2})", _A)


def _is_datetime(value: str) -> bool:
    """strfmt's ``IsDateTime``: split the lower-cased text at "t"; date, then time."""
    parts = value.lower().split("t")
    if len(value) < 4 or len(parts) < 2 or not _is_date(parts[0]):
        return False
    found = _TIME.fullmatch(parts[1])
    if found is None:
        return False
    return found[1] <= "23" and found[2] <= "59" and found[3] <= "59"


_GO_DURATION = re.compile(r"[-+]?(?:0|(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+)")
_UNIT_NANOS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
_SCALA_DURATION = re.compile(r"[\t\n\f\r ]*(?:[0-9]+[\t\n\f\r ]*[A-Za-zµ]+[\t\n\f\r ]*)+", _A)
_SCALA_PART = re.compile(r"([0-9]+)[\t\n\f\r ]*([A-Za-zµ]+)", _A)
_SCALA_UNITS = (
    ("ns", "nano"),
    ("us", "µs", "micro"),
    ("ms", "milli"),
    ("s", "sec"),
    ("m", "min"),
    ("h", "hr", "hour"),
    ("d", "day"),
    ("w", "wk", "week"),
)
_MAX_NANOS = 2**63 - 1


def _is_duration(value: str) -> bool:
    """strfmt's ``ParseDuration``: Go's ``time.ParseDuration``, else the Scala style
    ("3 days", "1 hour"), where any one known unit is enough."""
    if _GO_DURATION.fullmatch(value) and _go_duration_fits(value.lstrip("+-")):
        return True
    if not _SCALA_DURATION.fullmatch(value):
        return False
    known = False
    for digits, unit in _SCALA_PART.findall(value):
        if int(digits) > _MAX_NANOS:
            return False  # strconv.Atoi overflows
        unit = unit.lower()
        for variants in _SCALA_UNITS:
            if unit in variants or unit.startswith(variants[-1]):
                known = True
    return known


def _go_duration_fits(text: str) -> bool:
    total = 0.0
    for number, unit in re.findall(r"([0-9.]+)(ns|us|µs|μs|ms|s|m|h)", text):
        total += float(number) * _UNIT_NANOS[unit]
    return total <= _MAX_NANOS


def _isbn10(value: str) -> bool:
    digits = re.sub(r"[\t\n\f\r \-]+", "", value)
    if not re.fullmatch(r"[0-9]{9}X|[0-9]{10}", digits, _A):
        return False
    total = sum((i + 1) * int(d) for i, d in enumerate(digits[:9]))
    total += 100 if digits[9] == "X" else 10 * int(digits[9])
    return total % 11 == 0


def _isbn13(value: str) -> bool:
    digits = re.sub(r"[\t\n\f\r \-]+", "", value)
    if not re.fullmatch(r"[0-9]{13}", digits, _A):
        return False
    total = sum((3 if i % 2 else 1) * int(d) for i, d in enumerate(digits[:12]))
    return int(digits[12]) == (10 - total % 10) % 10


_CARD = re.compile(
    r"4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}"
    r"|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11}",
    _A,
)


def _is_credit_card(value: str) -> bool:
    digits = re.sub(r"[^0-9]+", "", value)
    if not _CARD.fullmatch(digits):
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        n = int(d) * (2 if i % 2 else 1)
        total += n - 9 if n >= 10 else n
    return total % 10 == 0


_OCTET = r"\s*(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])\s*"
_UUID = r"[0-9a-f]{8}-?[0-9a-f]{4}-?%s[0-9a-f]{3}-?%s[0-9a-f]{3}-?[0-9a-f]{12}"

_STRING_FORMATS: dict[str, Callable[[str], bool]] = {
    "bsonobjectid": _full(r"[0-9a-fA-F]{24}"),
    "uri": _is_request_uri,
    "email": lambda v: _EMAIL.fullmatch(v) is not None,
    "hostname": _is_hostname,
    "ipv4": lambda v: _ip(v) is not None and "." in v,
    "ipv6": lambda v: _ip(v) is not None and ":" in v,
    "cidr": _is_cidr,
    "mac": _is_mac,
    "uuid": _full(_UUID % ("[0-9a-f]", "[0-9a-f]"), _A | re.I),
    "uuid3": _full(_UUID % ("3", "[0-9a-f]"), _A | re.I),
    "uuid4": _full(_UUID % ("4", "[89ab]"), _A | re.I),
    "uuid5": _full(_UUID % ("5", "[89ab]"), _A | re.I),
    "isbn": lambda v: _isbn10(v) or _isbn13(v),
    "isbn10": _isbn10,
    "isbn13": _isbn13,
    "creditcard": _is_credit_card,
    "ssn": lambda v: (
        len(v) == 11 and re.fullmatch(r"[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}", v, _A) is not None
    ),
    "hexcolor": _full(r"#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})"),
    "rgbcolor": _full(rf"rgb\({_OCTET},{_OCTET},{_OCTET}\)"),
    "byte": _full(
        r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})"
    ),
    "password": lambda _: True,
    "date": _is_date,
    "duration": _is_duration,
    "datetime": _is_datetime,
}
_NUMERIC_FORMATS = {"integer": ("int32", "int64"), "number": ("float", "double")}


def check(value: Any, schema: dict[str, Any]) -> str | None:
    """The format ``value`` fails, as the schema spells it; None if it passes or the
    format is not one the server checks."""
    fmt = schema.get("format")
    if not fmt or not isinstance(value, str) or not isinstance(fmt, str):
        return None
    type_ = schema.get("type")
    if type_ not in (None, "", "string") and not schema.get("x-kubernetes-int-or-string"):
        return None
    checker = _STRING_FORMATS.get(fmt.replace("-", ""))
    if checker is None or checker(value):
        return None
    return fmt


def numeric_type_name(value: Any, schema: dict[str, Any]) -> tuple[str, str] | None:
    """For an integer or number schema with a kept format and a value that is neither a
    string nor an array of the wrong type: kube-openapi names the format, not the type,
    and Go's name of the value's kind (``spec.x in body must be of type int32: "float64"``).
    Returns ``(format, value kind)``; None when the usual type error applies."""
    fmt = schema.get("format")
    if fmt not in _NUMERIC_FORMATS.get(str(schema.get("type")), ()):
        return None
    if isinstance(value, str | list) or value is None:
        return None
    # What Go calls the decoded value: JSON numbers are int64 or float64, the rest unnamed.
    if isinstance(value, float):
        return str(fmt), "float64"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(fmt), "int64"
    return str(fmt), ""
