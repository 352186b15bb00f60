"""The JSONPath subset used by CRD printer columns."""

from __future__ import annotations

from typing import Any

import pytest

from kubeforge.apiserver.printers.jsonpath import JsonPathError, find

DOC: dict[str, Any] = {
    "metadata": {"name": "w", "labels": {"app.kubernetes.io/name": "web", "tier": "front"}},
    "spec": {"replicas": 3, "ports": [{"port": 80}, {"port": 443}, {"port": 8080}]},
    "status": {
        "conditions": [
            {"type": "Synced", "status": "True", "age": 5},
            {"type": "Ready", "status": "False", "age": 9},
        ],
    },
}


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (".spec.replicas", [3]),
        ("{.spec.replicas}", [3]),
        ("$.spec.replicas", [3]),
        (".metadata.labels['app.kubernetes.io/name']", ["web"]),
        ('.metadata.labels["tier"]', ["front"]),
        (".spec.ports[0].port", [80]),
        (".spec.ports[-1].port", [8080]),
        (".spec.ports[1:].port", [443, 8080]),
        (".spec.ports[*].port", [80, 443, 8080]),
        (".spec.ports.*.port", [80, 443, 8080]),
        ('.status.conditions[?(@.type=="Ready")].status', ["False"]),
        (".status.conditions[?(@.type!='Ready')].type", ["Synced"]),
        (".status.conditions[?(@.age > 6)].type", ["Ready"]),
        (".status.conditions[?(@.status)].type", ["Synced", "Ready"]),
        (".spec.ports[7].port", []),
        (".spec.nothing.deeper", []),
        (".spec.replicas.deeper", []),
    ],
)
def test_expressions_select_what_kubectl_would(expression: str, expected: list[Any]) -> None:
    assert find(expression, DOC) == expected


@pytest.mark.parametrize("expression", ["..name", ".spec[?(@.x ~ 1)]", ".spec[abc]", ".spec!"])
def test_unsupported_or_malformed_expressions_raise(expression: str) -> None:
    with pytest.raises(JsonPathError):
        find(expression, DOC)
