"""Fixtures for client tests: a client on the session's local API server, a fresh
namespace per test, the Widget CRD, and TLS material generated on the fly."""

from __future__ import annotations

import uuid

import pytest
from kf_tls import TlsMaterial, make_tls_material
from kf_widgets import GROUP, crd_manifest

from kubeforge.client import Client
from kubeforge.core.errors import AlreadyExists
from kubeforge.core.meta import ObjectMeta
from kubeforge.models import CustomResourceDefinition, Namespace


@pytest.fixture(scope="session")
def tls_material() -> TlsMaterial:
    return make_tls_material()


@pytest.fixture
async def namespace(client: Client) -> str:
    """A namespace of the test's own on the shared server."""
    name = f"client-{uuid.uuid4().hex[:10]}"
    await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=name)))
    return name


@pytest.fixture
async def widget_crd(client: Client) -> None:
    """The Widget CRD, installed once per server (later tests find it already there)."""
    crds = client.dynamic(CustomResourceDefinition.info)
    try:
        await crds.create(crd_manifest(GROUP, "Widget", "widgets", short_names=("wdg",)))
    except AlreadyExists:
        return
