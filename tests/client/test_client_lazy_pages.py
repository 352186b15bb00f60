"""``Api.list_lazily``: the same page as ``list()``, its items decoded one at a time.

Against the real local API server, for the typed, dynamic and metadata-only faces.
"""

from __future__ import annotations

from kubeforge.client import Client
from kubeforge.core.meta import ObjectMeta
from kubeforge.models import ConfigMap


async def _three_config_maps(client: Client, namespace: str) -> None:
    cms = client.api(ConfigMap, namespace=namespace)
    for name in ("a", "b", "c"):
        await cms.create(ConfigMap(metadata=ObjectMeta(name=name), data={"k": name}))


async def test_a_lazy_page_holds_what_the_eager_page_holds(client: Client, namespace: str) -> None:
    await _three_config_maps(client, namespace)
    cms = client.api(ConfigMap, namespace=namespace)
    eager = await cms.list(limit=2)
    lazy = await cms.list_lazily(limit=2)
    assert (lazy.resource_version, lazy.continue_) == (eager.resource_version, eager.continue_)
    items = list(lazy.items)
    assert items == eager.items
    assert all(isinstance(item, ConfigMap) for item in items)
    assert [(i.kind, i.api_version) for i in items] == [("ConfigMap", "v1")] * 2
    assert list(lazy.items) == []  # read once: nothing is kept behind the iteration
    assert [cm.metadata.name for cm in items] == ["a", "b"]
    rest = await cms.list_lazily(continue_=lazy.continue_)
    # The namespace's kube-root-ca.crt sorts after "c", if its publisher was there first.
    assert [cm.metadata.name for cm in rest.items][:1] == ["c"]


async def test_dynamic_and_metadata_faces_page_lazily_too(client: Client, namespace: str) -> None:
    await _three_config_maps(client, namespace)
    dynamic = client.dynamic(ConfigMap.info, namespace)
    eager = await dynamic.list()
    lazy = await dynamic.list_lazily()
    assert list(lazy.items) == eager.items
    metadata = client.metadata(ConfigMap, namespace)
    names = [(m.kind, m.metadata.name) for m in (await metadata.list_lazily()).items]
    assert names == [("ConfigMap", m.metadata.name) for m in (await metadata.list()).items]
    assert ("ConfigMap", "b") in names
