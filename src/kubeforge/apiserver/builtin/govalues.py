"""How Go's ``%#v`` prints the values built-in kinds' field errors show: a
``map[string]string``, a ``metav1.LabelSelector`` and an ``intstr.IntOrString``.

``field.Error`` prints a value that is neither a simple type nor a ``fmt.Stringer`` with
``%#v``; these types are such values (their ``String`` methods need a pointer, and the
error holds the struct), so a 1.32 server shows them as Go source, and so does this one.
Entry points: ``go_string_map``, ``go_label_selector``, ``go_int_or_string``.

>>> go_int_or_string("25%")
intstr.IntOrString{Type:1, IntVal:0, StrVal:"25%"}
>>> go_string_map({"b": "2", "a": "1"})
map[string]string{"a":"1", "b":"2"}
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.failures import GoValue

__all__ = ["go_int_or_string", "go_label_selector", "go_string_map"]


def go_string_map(value: Any) -> GoValue:
    """Go's ``%#v`` of a ``map[string]string`` (keys sorted, as fmt prints maps)."""
    if value is None:
        return GoValue("map[string]string(nil)")
    pairs = sorted((value or {}).items())
    body = ", ".join(f"{GoValue.quote(str(k))}:{GoValue.quote(str(v))}" for k, v in pairs)
    return GoValue(f"map[string]string{{{body}}}")


def _go_strings(values: Any) -> str:
    if values is None:
        return "[]string(nil)"
    return "[]string{" + ", ".join(GoValue.quote(str(v)) for v in values) + "}"


def go_label_selector(selector: Any) -> GoValue | None:
    """Go's ``%#v`` of a ``metav1.LabelSelector`` (how field errors show a selector)."""
    if not isinstance(selector, dict):
        return None
    expressions = selector.get("matchExpressions")
    if expressions is None:
        shown = "[]v1.LabelSelectorRequirement(nil)"
    else:
        items = [
            f"v1.LabelSelectorRequirement{{Key:{GoValue.quote(str(e.get('key') or ''))}, "
            f"Operator:{GoValue.quote(str(e.get('operator') or ''))}, "
            f"Values:{_go_strings(e.get('values'))}}}"
            for e in expressions
            if isinstance(e, dict)
        ]
        shown = "[]v1.LabelSelectorRequirement{" + ", ".join(items) + "}"
    labels = go_string_map(selector.get("matchLabels")).text
    return GoValue(f"v1.LabelSelector{{MatchLabels:{labels}, MatchExpressions:{shown}}}")


def go_int_or_string(value: Any) -> GoValue:
    """Go's ``%#v`` of an ``intstr.IntOrString`` holding ``value`` (Type 0 an int, 1 a string)."""
    if isinstance(value, str):
        return GoValue(f"intstr.IntOrString{{Type:1, IntVal:0, StrVal:{GoValue.quote(value)}}}")
    number = value if isinstance(value, int) and not isinstance(value, bool) else 0
    return GoValue(f'intstr.IntOrString{{Type:0, IntVal:{number}, StrVal:""}}')
