"""Point a cluster at webhooks served on this machine: ``install_local_webhooks``.

Entry point: ``install_local_webhooks(client, webhooks, base_url=..., ca_bundle=...)``
creates (or replaces) a Mutating- and a ValidatingWebhookConfiguration whose
webhooks call ``base_url`` directly (``clientConfig.url``, trusting ``ca_bundle``),
and sets ``spec.conversion`` of the CRD of every kind with a conversion to call
``base_url/convert``: what envtest's ``WebhookInstallOptions`` does for Go tests,
and what cert-manager's CA injection and a Service do in a cluster.
``uninstall_local_webhooks`` deletes the configurations again (the CRDs keep their
conversion until they are replaced). ``local_webhooks(server, config, cert)`` does
both around a block, for the webhooks registered on a server, and
``local_serving()`` makes the certificate and options for such a server: what the
pytest fixtures and ``kubeforge run --local-webhooks`` use.

Example::

    cert = ServingCert.generate(["127.0.0.1"])
    ...
    names = await install_local_webhooks(
        client, [webhooks], base_url="https://127.0.0.1:9443", ca_bundle=cert.ca_bundle
    )
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from kubeforge.client import Client
from kubeforge.config import ClientConfig
from kubeforge.core import errors
from kubeforge.core.resource import ResourceInfo
from kubeforge.webhook.certs import ServingCert
from kubeforge.webhook.conversion import CONVERT_PATH
from kubeforge.webhook.declare import (
    TypeWebhooks,
    configurations,
    conversion_spec,
    url_client_config,
)
from kubeforge.webhook.server import WebhookServer, WebhookServerOptions

__all__ = [
    "install_local_webhooks",
    "local_serving",
    "local_webhooks",
    "uninstall_local_webhooks",
]


@contextmanager
def local_serving() -> Iterator[tuple[WebhookServerOptions, ServingCert]]:
    """Options serving on a free port of 127.0.0.1 with a certificate generated for it
    (in a temporary directory, removed at the end), and that certificate."""
    with tempfile.TemporaryDirectory(prefix="kubeforge-webhook-") as cert_dir:
        cert = ServingCert.generate(["127.0.0.1", "localhost"])
        cert.write(Path(cert_dir))
        yield WebhookServerOptions(port=0, host="127.0.0.1", cert_dir=cert_dir), cert


_GROUP = "admissionregistration.k8s.io"
_INFOS = {
    "MutatingWebhookConfiguration": ResourceInfo(
        _GROUP, "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", False
    ),
    "ValidatingWebhookConfiguration": ResourceInfo(
        _GROUP, "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", False
    ),
}
_CRD = ResourceInfo(
    "apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", False
)


async def install_local_webhooks(
    client: Client,
    webhooks: Iterable[TypeWebhooks[Any]],
    *,
    base_url: str,
    ca_bundle: str,
    name_prefix: str = "kubeforge-local-",
) -> list[str]:
    """Install the configurations and CRD conversions; returns the configurations' names.

    A CRD that does not exist yet is an error (``errors.NotFound``): install CRDs first.
    """
    hooks = list(webhooks)

    def client_config(path: str) -> dict[str, Any]:
        return url_client_config(base_url, path, ca_bundle)

    names: list[str] = []
    for obj in configurations(hooks, client_config, name_prefix=name_prefix):
        await _create_or_replace(client, _INFOS[obj["kind"]], obj)
        names.append(obj["metadata"]["name"])
    crds = client.dynamic(_CRD)
    for hook in hooks:
        if hook.conversion is None:
            continue
        spec = conversion_spec(client_config(CONVERT_PATH))
        await crds.patch(
            f"{hook.info.plural}.{hook.info.group}",
            {"spec": {"conversion": spec}},
            patch_type="merge",
        )
    return names


async def uninstall_local_webhooks(
    client: Client,
    webhooks: Iterable[TypeWebhooks[Any]] = (),
    *,
    name_prefix: str = "kubeforge-local-",
) -> None:
    """Delete the configurations ``install_local_webhooks`` made with ``name_prefix`` and
    set the conversion of ``webhooks``' CRDs back to ``None`` (nothing would answer it)."""
    crds = client.dynamic(_CRD)
    for hook in webhooks:
        if hook.conversion is not None:
            with contextlib.suppress(errors.NotFound):
                await crds.patch(
                    f"{hook.info.plural}.{hook.info.group}",
                    {"spec": {"conversion": {"strategy": "None", "webhook": None}}},
                    patch_type="merge",
                )
    for info in _INFOS.values():
        for suffix in ("mutating-webhook-configuration", "validating-webhook-configuration"):
            with contextlib.suppress(errors.NotFound):
                await client.dynamic(info).delete(f"{name_prefix}{suffix}")


@asynccontextmanager
async def local_webhooks(
    server: WebhookServer,
    config: ClientConfig,
    cert: ServingCert,
    *,
    name_prefix: str = "kubeforge-local-",
) -> AsyncIterator[list[str]]:
    """Start ``server`` (serving ``cert``) and point the cluster at its webhooks meanwhile.

    The server must listen where the API server can reach it over ``127.0.0.1`` (the
    address ``cert`` must cover); it keeps running after the block (its manager stops it).
    """
    await server.start()
    declared = [d for d in server.declarations if isinstance(d, TypeWebhooks)]
    async with Client(config) as client:
        names = await install_local_webhooks(
            client,
            declared,
            base_url=f"https://127.0.0.1:{server.port}",
            ca_bundle=cert.ca_bundle,
            name_prefix=name_prefix,
        )
        try:
            yield names
        finally:
            await uninstall_local_webhooks(client, declared, name_prefix=name_prefix)


async def _create_or_replace(client: Client, info: ResourceInfo, obj: dict[str, Any]) -> None:
    api = client.dynamic(info)
    try:
        await api.create(obj)
    except errors.AlreadyExists:
        current = await api.get(obj["metadata"]["name"])
        replacement = {**obj, "metadata": {**obj["metadata"]}}
        replacement["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        await api.replace(replacement)
