"""Kubernetes' format library: ``format.dns1123Label()``, ``format.named("uuid")`` ... and
``<format>.validate(value)``, which is ``optional.none()`` when the value is valid and
``optional.of([problems])`` otherwise, with apimachinery's messages.

Entry point: ``FUNCTIONS``; ``NamedFormat``.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.cel.lib_net import parse_url
from kubeforge.apiserver.cel.lib_time import parse_timestamp
from kubeforge.apiserver.cel.values import NONE, EvalError, Optional
from kubeforge.core.names import (
    dns1035_label,
    dns1123_label,
    dns1123_subdomain,
    label_value,
    qualified_name,
)

__all__ = ["FORMATS", "FUNCTIONS", "NamedFormat"]

_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")


def _prefix(check: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """A name prefix (``generateName``): a trailing ``-`` is allowed."""
    return lambda value: check(value[:-1] + "a" if value.endswith("-") else value)


def _uri(value: str) -> list[str]:
    try:
        parse_url(value)
    except EvalError as error:
        return [str(error).removeprefix("URL parse error during conversion from string: ")]
    return []


def _byte(value: str) -> list[str]:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return ["invalid base64"]
    return []


def _date(value: str) -> list[str]:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return ["invalid date"]
    try:
        parse_timestamp(value + "T00:00:00Z")
    except EvalError:
        return ["invalid date"]
    return []


def _datetime(value: str) -> list[str]:
    try:
        parse_timestamp(value)
    except EvalError:
        return ["invalid datetime"]
    return []


FORMATS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": dns1123_label,
    "dns1123Subdomain": dns1123_subdomain,
    "dns1035Label": dns1035_label,
    "qualifiedName": qualified_name,
    "dns1123LabelPrefix": _prefix(dns1123_label),
    "dns1123SubdomainPrefix": _prefix(dns1123_subdomain),
    "dns1035LabelPrefix": _prefix(dns1035_label),
    "labelValue": label_value,
    "uri": _uri,
    "uuid": lambda value: [] if _UUID.match(value) else ["does not match the UUID format"],
    "byte": _byte,
    "date": _date,
    "datetime": _datetime,
}


class NamedFormat:
    cel_type_name = "kubernetes.NamedFormat"
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def cel_equal(self, other: Any) -> bool:
        return isinstance(other, NamedFormat) and other.name == self.name

    def cel_validate(self, value: str) -> Optional:
        problems = FORMATS[self.name](value)
        return Optional(list(problems), True) if problems else NONE


def _named(name: str) -> Optional:
    return Optional(NamedFormat(name), True) if name in FORMATS else NONE


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "format.named": _named,
    **{f"format.{name}": (lambda n=name: NamedFormat(n)) for name in FORMATS},
}
