"""Generated third-party models against the local API server: typed create, get, list, status."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from types import ModuleType

import pytest

from kubeforge.client import Client
from kubeforge.config import load_config
from kubeforge.crd import install_crds, load_manifests
from kubeforge.testing import LocalApiServer

from .conftest import CERTIFICATES, Load, one_version_crd

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def cert_server() -> Iterator[LocalApiServer]:
    """A private server with the cert-manager Certificate CRD fixture installed."""
    with LocalApiServer() as server:

        async def install() -> None:
            async with Client(load_config(server.kubeconfig)) as client:
                await install_crds(client, load_manifests(CERTIFICATES))

        asyncio.run(install())
        yield server


@pytest.fixture
async def client(cert_server: LocalApiServer) -> AsyncIterator[Client]:
    async with Client(load_config(cert_server.kubeconfig)) as client:
        yield client


@pytest.fixture
def certificates(generated: Load) -> ModuleType:
    return generated(CERTIFICATES.read_text())["certificate_v1"]


async def test_a_generated_model_is_a_typed_client_for_the_third_party_kind(
    client: Client, certificates: ModuleType
) -> None:
    model = certificates
    api = client.api(model.Certificate, namespace="default")
    cert = model.Certificate(
        metadata={"name": "web"},
        spec=model.CertificateSpec(
            secret_name="web-tls",
            issuer_ref=model.CertificateSpecIssuerRef(name="letsencrypt"),
            dns_names=["web.example.com"],
            private_key=model.CertificateSpecPrivateKey(algorithm="ECDSA", size=256),
        ),
    )
    created = await api.create(cert)
    assert created.spec.issuer_ref.kind == "Issuer"  # defaulted by the server from the schema
    assert created.spec.private_key.encoding == "PKCS1"

    page = await api.list()
    assert [c.metadata.name for c in page.items] == ["web"]

    created.status = model.CertificateStatus(
        conditions=[model.CertificateStatusConditionsItem(type="Ready", status="True")],
        revision=1,
    )
    updated = await api.replace_status(created)
    assert updated.status.conditions[0].status == "True"
    fetched = await api.get("web")
    assert fetched.status.revision == 1
    assert fetched.spec.secret_name == "web-tls"


TOKENS = one_version_crd(
    "auth.example.com",
    "Token",
    {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["iat", "name"],
                "properties": {
                    "iat": {"type": "integer"},
                    "name": {"type": "string"},
                    "ttl": {"type": "integer", "default": 3600},
                    "revoked": {"type": "boolean"},
                },
                "x-kubernetes-validations": [{"rule": "self.iat >= 0", "message": "iat is a time"}],
            }
        },
    },
)


async def test_a_required_zero_is_sent_and_a_schema_default_is_the_servers(
    client: Client, generated: Load
) -> None:
    await install_crds(client, [TOKENS])
    model = generated(TOKENS)["token_v1"]
    with pytest.raises(TypeError, match="Missing required argument 'iat'"):
        model.TokenSpec(name="x")
    api = client.api(model.Token, namespace="default")
    created = await api.create(
        model.Token(metadata={"name": "zero"}, spec=model.TokenSpec(iat=0, name="x", revoked=False))
    )
    # iat=0 reached the server (no 422 "Required value", and the CEL rule saw it) ...
    assert (created.spec.iat, created.spec.revoked) == (0, False)
    # ... and ttl, left unset, was filled in by the server from the schema's default.
    assert created.spec.ttl == 3600
    raw = await client.dynamic(model.Token.info, namespace="default").get("zero")
    assert raw["spec"] == {"iat": 0, "name": "x", "revoked": False, "ttl": 3600}
