"""A deprecated CRD version warns on every answer, as the real server does."""

from __future__ import annotations

from typing import Any

from kf_http import Api

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
SCHEMA = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}


def _crd(plural: str, kind: str, alpha: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.deprecation.example.com"},
        "spec": {
            "group": "deprecation.example.com",
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": plural[:-1], "kind": kind},
            "versions": [
                {"name": "v1", "served": True, "storage": True, "schema": SCHEMA},
                {"name": "v1alpha1", "served": True, "storage": False, "schema": SCHEMA, **alpha},
            ],
        },
    }


def _warnings(headers: Any) -> list[str]:
    return list(headers.getall("Warning", []))


async def test_requests_to_a_deprecated_version_name_the_version_to_use(
    api: Api, namespace: str
) -> None:
    assert (await api.post(CRDS, _crd("relics", "Relic", {"deprecated": True}))).status == 201
    old = f"/apis/deprecation.example.com/v1alpha1/namespaces/{namespace}/relics"
    new = f"/apis/deprecation.example.com/v1/namespaces/{namespace}/relics"

    body = {
        "apiVersion": "deprecation.example.com/v1alpha1",
        "kind": "Relic",
        "metadata": {"name": "r"},
    }
    created = await api.post(old, body)
    listed = await api.get(old)
    current = await api.get(new)

    expected = [
        '299 - "deprecation.example.com/v1alpha1 Relic is deprecated; '
        'use deprecation.example.com/v1 Relic"'
    ]
    assert created.status == 201 and _warnings(created.headers) == expected
    assert _warnings(listed.headers) == expected
    assert current.status == 200 and _warnings(current.headers) == []


async def test_a_version_s_own_deprecation_warning_replaces_the_default(
    api: Api, namespace: str
) -> None:
    alpha = {"deprecated": True, "deprecationWarning": "fossils moved to v1"}
    assert (await api.post(CRDS, _crd("fossils", "Fossil", alpha))).status == 201
    reply = await api.get(f"/apis/deprecation.example.com/v1alpha1/namespaces/{namespace}/fossils")
    assert _warnings(reply.headers) == ['299 - "fossils moved to v1"']
