"""Lists long enough to be streamed (chunked transfer encoding, see
``endpoints.listing_body``) read by the real clients: kubectl's tables, JSON and
pages, and the official ``kubernetes`` package's typed lists and pages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s

from kubeforge.apiserver.endpoints.listing_body import ITEMS_PER_CHUNK

from .kf_kubectl import Kubectl

COUNT = ITEMS_PER_CHUNK * 2 + 30
NAMES = [f"cm-{i:04d}" for i in range(COUNT)]


@pytest.fixture
def many(kubectl: Kubectl, namespace: str) -> str:
    """``namespace`` with ``COUNT`` ConfigMaps, made by one ``kubectl create`` of a List."""
    items = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": n}, "data": {"n": n}}
        for n in NAMES
    ]
    kubectl.run(
        "create", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
    )
    return namespace


def _made(names: list[str]) -> list[str]:
    return [name for name in names if name.startswith("cm-")]


def test_kubectl_prints_every_row_of_a_streamed_table(kubectl: Kubectl, many: str) -> None:
    lines = kubectl.run("get", "configmaps", "--chunk-size=0").splitlines()
    assert lines[0].split() == ["NAME", "DATA", "AGE"]
    assert _made([line.split()[0] for line in lines[1:]]) == NAMES


def test_kubectl_reads_a_streamed_json_list_whole_and_in_pages(kubectl: Kubectl, many: str) -> None:
    whole = json.loads(kubectl.run("get", "configmaps", "-o", "json", "--chunk-size=0"))
    assert _made([item["metadata"]["name"] for item in whole["items"]]) == NAMES
    paged = json.loads(kubectl.run("get", "configmaps", "-o", "json", "--chunk-size=150"))
    assert paged["items"] == whole["items"]


def test_the_official_client_reads_streamed_lists_and_pages(core_v1: Any, many: str) -> None:
    whole = core_v1.list_namespaced_config_map(many)
    assert isinstance(whole, k8s.V1ConfigMapList)
    assert _made([item.metadata.name for item in whole.items]) == NAMES
    assert whole.items[0].data == {"n": NAMES[0]}
    names: list[str] = []
    token = None
    while True:
        page = core_v1.list_namespaced_config_map(many, limit=ITEMS_PER_CHUNK + 10, _continue=token)
        names += [item.metadata.name for item in page.items]
        token = page.metadata._continue
        if not token:
            break
        assert page.metadata.remaining_item_count == len(whole.items) - len(names)
    assert names == [item.metadata.name for item in whole.items]
