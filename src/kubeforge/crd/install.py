"""Install CustomResourceDefinitions and wait until the server serves them.

Entry point: ``install_crds(client, manifests)``. A CRD that exists already is
replaced (keeping its resourceVersion), so installing twice is harmless; each
one is then polled until its ``Established`` condition is ``True``, which is
when its resources can be used (what ``kubectl wait --for condition=Established``
checks).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from kubeforge.client import Client
from kubeforge.core import errors
from kubeforge.core.resource import ResourceInfo

__all__ = ["CRD_INFO", "install_crds", "load_manifests"]

CRD_INFO = ResourceInfo(
    group="apiextensions.k8s.io",
    version="v1",
    kind="CustomResourceDefinition",
    plural="customresourcedefinitions",
    namespaced=False,
    short_names=("crd", "crds"),
    singular="customresourcedefinition",
)


def load_manifests(path: str | Path) -> list[dict[str, Any]]:
    """Every YAML document in ``path`` (a file, or a directory of YAML files), in order."""
    root = Path(path)
    files = (
        sorted(p for p in root.iterdir() if p.suffix in {".yaml", ".yml"})
        if root.is_dir()
        else [root]
    )
    documents: list[dict[str, Any]] = []
    for file in files:
        try:
            loaded = list(yaml.safe_load_all(file.read_text()))
        except yaml.YAMLError as exc:
            raise errors.ConfigError(f"{file}: not valid YAML ({exc})") from exc
        documents.extend(doc for doc in loaded if isinstance(doc, dict))
    return documents


async def install_crds(
    client: Client, manifests: Iterable[dict[str, Any]], *, timeout: float = 30.0
) -> list[str]:
    """Create or replace each CRD, then wait until all are Established; returns their names."""
    crds = client.dynamic(CRD_INFO)
    names: list[str] = []
    for manifest in manifests:
        if manifest.get("kind") != "CustomResourceDefinition":
            continue
        name = str(manifest["metadata"]["name"])
        try:
            await crds.create(manifest)
        except errors.AlreadyExists:
            current = await crds.get(name)
            updated = {**manifest, "metadata": {**manifest["metadata"]}}
            updated["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            await crds.replace(updated)
        names.append(name)
    async with asyncio.timeout(timeout):
        for name in names:
            while not _established(await crds.get(name)):
                await asyncio.sleep(0.05)
    return names


def _established(crd: dict[str, Any]) -> bool:
    conditions = crd.get("status", {}).get("conditions") or []
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)
