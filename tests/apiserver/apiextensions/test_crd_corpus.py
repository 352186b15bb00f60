"""Real-world CRDs on the local server: each is accepted (all of its CEL rules compile within
the cost budgets, as on a 1.32 server), their published examples are accepted, and
objects that break a rule are refused with the rule's message.

The CRDs (Gateway API, Argo CD, cert-manager, Prometheus operator) and where they come
from are listed in ``crd_corpus/SOURCES.md``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kf_http import Api, open_api

from kubeforge.testing import LocalApiServer

CORPUS = Path(__file__).parent / "crd_corpus"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


CRDS = [doc for path in sorted(CORPUS.glob("*/*.yaml")) for doc in _documents(path)]
VALID = [
    doc
    for path in sorted((CORPUS / "gateway-api" / "valid").glob("*.yaml"))
    for doc in _documents(path)
    if doc["kind"] != "Namespace"
] + yaml.safe_load((CORPUS / "valid.yaml").read_text())
INVALID = yaml.safe_load((CORPUS / "invalid.yaml").read_text())
KINDS = {(c["spec"]["group"], c["spec"]["names"]["kind"]): c for c in CRDS}


@pytest.fixture(scope="module")
def installed() -> set[str]:
    return set()


@pytest.fixture(scope="module")
def corpus_server() -> Iterator[LocalApiServer]:
    """A server of the corpus's own: these CRDs stay out of the shared server's documents."""
    with LocalApiServer(simulate_node=False) as server:
        yield server


@pytest.fixture
async def api(corpus_server: LocalApiServer) -> AsyncIterator[Api]:
    session = await open_api(corpus_server)
    async with session:
        yield Api(corpus_server, session)


async def _install(api: Api, group: str, kind: str, installed: set[str]) -> dict[str, Any]:
    crd = KINDS[(group, kind)]
    name = crd["metadata"]["name"]
    if name not in installed:
        reply = await api.post(CRD_PATH, crd)
        assert reply.status in (201, 409), reply.body
        for _ in range(50):
            got = await api.get(f"{CRD_PATH}/{name}")
            conditions = {c["type"]: c["status"] for c in got.body["status"].get("conditions", [])}
            if conditions.get("Established") == "True":
                break
            await asyncio.sleep(0.1)
        installed.add(name)
    return crd


def _path(crd: dict[str, Any], obj: dict[str, Any], namespace: str) -> str:
    plural = crd["spec"]["names"]["plural"]
    base = f"/apis/{obj['apiVersion']}"
    if crd["spec"]["scope"] == "Namespaced":
        return f"{base}/namespaces/{namespace}/{plural}"
    return f"{base}/{plural}"


@pytest.mark.parametrize("crd", CRDS, ids=[c["metadata"]["name"] for c in CRDS])
async def test_every_crd_is_accepted(api: Api, crd: dict[str, Any], installed: set[str]) -> None:
    await _install(api, crd["spec"]["group"], crd["spec"]["names"]["kind"], installed)
    served = await api.get(f"{CRD_PATH}/{crd['metadata']['name']}")
    assert served.status == 200


def _group_kind(obj: dict[str, Any]) -> tuple[str, str]:
    return obj["apiVersion"].rsplit("/", 1)[0], obj["kind"]


@pytest.mark.parametrize("obj", VALID, ids=[f"{o['kind']}-{o['metadata']['name']}" for o in VALID])
async def test_published_examples_are_accepted(
    api: Api, namespace: str, obj: dict[str, Any], installed: set[str]
) -> None:
    crd = await _install(api, *_group_kind(obj), installed)
    meta = {k: v for k, v in obj["metadata"].items() if k != "namespace"}
    if crd["spec"]["scope"] == "Cluster":  # the examples reuse names; the server is shared
        meta["name"] = f"{meta['name']}-{namespace}"
    sent = {**obj, "metadata": meta}
    reply = await api.post(_path(crd, sent, namespace), sent)
    assert reply.status == 201, reply.body.get("message")


@pytest.mark.parametrize("case", INVALID, ids=[c["name"] for c in INVALID])
async def test_objects_breaking_a_rule_are_refused_with_its_message(
    api: Api, namespace: str, case: dict[str, Any], installed: set[str]
) -> None:
    obj = case["object"]
    crd = await _install(api, *_group_kind(obj), installed)
    reply = await api.post(_path(crd, obj, namespace), obj)
    assert reply.status == 422, reply.body
    assert reply.body["reason"] == "Invalid"
    for expected in case["errors"]:
        assert expected in reply.body["message"]
