"""Names: JSON wire names to Python attribute names, and schema names to class names.

See ``attribute_name()`` for the entry point. The Python name is snake_case that
reads naturally (``podIP`` -> ``pod_ip``, ``hostIPs`` -> ``host_ips``,
``$ref`` -> ``ref``); ``wire_name_override()`` then says whether msgspec's
``rename="camel"`` would give back the wire name by itself, or the field needs an
explicit ``msgspec.field(name=...)``. It asks msgspec rather than re-implementing
its rule, so the two can never disagree.
"""

from __future__ import annotations

import keyword
import re
from functools import cache

import msgspec

__all__ = ["attribute_name", "class_name", "wire_name_override"]

# One word of a camelCase or kebab-case name. Order matters: an upper-case run that
# ends in a plural "s" ("IPs", "CIDRs") is one word, then a plain upper-case run
# ("IP", "URL" before "Config"), then a capitalised or lower-case word. Digits stay
# with the word before them ("fieldsV1", "ipv4").
_WORD = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+[0-9]*(?![a-z])|[A-Z]?[a-z]+[0-9]*|[0-9]+")


def attribute_name(wire: str, *, reserved: frozenset[str] = frozenset()) -> str:
    """The Python attribute for JSON property ``wire``.

    Keywords get a trailing underscore (``continue_``, ``not_``), and so does any
    name in ``reserved``: names the class body itself needs, such as the builtins
    its annotations use. (Other builtins such as ``type`` are safe as attributes and
    stay as every Kubernetes client spells them.)

    >>> attribute_name("podIP"), attribute_name("hostIPs"), attribute_name("x-kubernetes-list-type")
    ('pod_ip', 'host_ips', 'x_kubernetes_list_type')
    >>> attribute_name("$ref"), attribute_name("continue"), attribute_name("fieldsV1")
    ('ref', 'continue_', 'fields_v1')
    """
    words = _WORD.findall(wire)
    if not words:
        raise ValueError(f"cannot derive a Python name from property {wire!r}")
    name = "_".join(word.lower() for word in words)
    if name[0].isdigit():
        name = f"f_{name}"
    # Soft keywords (match, case, type) are valid attribute names, so only hard ones count.
    if keyword.iskeyword(name) or name in reserved:
        return f"{name}_"
    return name


@cache
def _camel(name: str) -> str:
    """The wire name msgspec's ``rename="camel"`` gives attribute ``name``."""
    probe = msgspec.defstruct("_Probe", [(name, int)], rename="camel")
    return msgspec.structs.fields(probe)[0].encode_name


def wire_name_override(attribute: str, wire: str) -> str | None:
    """``wire`` when camel-casing ``attribute`` would not produce it, else ``None``.

    >>> wire_name_override("pod_ip", "podIP"), wire_name_override("node_name", "nodeName")
    ('podIP', None)
    """
    return None if _camel(attribute) == wire else wire


def class_name(*parts: str) -> str:
    """A PascalCase class name from schema words (``("widget", "spec")`` -> ``WidgetSpec``).

    Parts that are already PascalCase keep their inner capitals (``IPBlock`` stays).
    """
    out = []
    for part in parts:
        for word in _WORD.findall(part):
            out.append(word[0].upper() + word[1:])
    if not out:
        raise ValueError(f"cannot derive a class name from {parts!r}")
    name = "".join(out)
    return f"T{name}" if name[0].isdigit() else name
