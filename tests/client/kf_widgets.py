"""Test helper: a small custom resource (typed class + CRD manifest) to exercise the client."""

from __future__ import annotations

from typing import Any

import msgspec

from kubeforge.core.meta import Model
from kubeforge.core.resource import Resource, ResourceInfo

GROUP = "client.kubeforge.test"


class WidgetSpec(Model):
    size: int = 0
    color: str | None = None


class WidgetStatus(Model):
    phase: str = ""


class Widget(Resource):
    info = ResourceInfo(
        group=GROUP,
        version="v1",
        kind="Widget",
        plural="widgets",
        namespaced=True,
        short_names=("wdg",),
        singular="widget",
    )
    spec: WidgetSpec = msgspec.field(default_factory=WidgetSpec)
    status: WidgetStatus | None = None


def crd_manifest(
    group: str, kind: str, plural: str, *, short_names: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A namespaced CRD with one served version, a status subresource and an open schema."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {
                "kind": kind,
                "plural": plural,
                "singular": kind.lower(),
                "listKind": f"{kind}List",
                "shortNames": list(short_names),
            },
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "x-kubernetes-preserve-unknown-fields": True,
                                },
                                "status": {
                                    "type": "object",
                                    "x-kubernetes-preserve-unknown-fields": True,
                                },
                            },
                        }
                    },
                }
            ],
        },
    }
