"""A controller's writes as the API requests they are in a real cluster: through admission.

Each write goes through ``cluster.admission`` (the webhooks and policies, see
``admitting``) as the controller's user, and waits for the webhooks without blocking the
event loop. The common case stays as cheap as before: when no webhook or policy could
match a write (``Admitting.wants``, a synchronous look at their rules), it goes straight
to the store and the coroutine never waits. A write that does wait runs admission in a
task of its own: the sync may be running eagerly, outside any task (``eager``), and the
webhook client's timeouts need one.

Entry point: ``ControllerRequests(cluster, user)``: ``await create``, ``update``,
``update_status``, ``write_status``, ``delete``, ``bind``, the ``Cluster`` writes of the
same names, ``apply`` (a forced server-side apply) and ``finalize`` (a namespace's
``/finalize``). A kube-system ServiceAccount
user writes as its bound token authenticates (``identities.signed_in``: uid, credential
id).
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.controllers.admitting import Admitting
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.identities import signed_in
from kubeforge.apiserver.fieldmanager.apply import server_side_apply
from kubeforge.apiserver.registry import deletion
from kubeforge.apiserver.registry.options import TRUSTED, WriteOptions
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.write_request import WriteRequest
from kubeforge.apiserver.storage.journal import ResourceKey

__all__ = ["ControllerRequests"]

_PODS = ("", "pods")
_NAMESPACES = ("", "namespaces")
_TRUSTED_DRY_RUN = WriteOptions(dry_run=True, trusted=True)
_BINDING = ("", "v1", "Binding")


def _no_check(binding: dict[str, Any]) -> None:
    """The binding storage's own checks come with the write (``Cluster.bind``)."""


class ControllerRequests:
    """One component's writes, as ``user``, through ``cluster.admission`` when it wants them."""

    def __init__(self, cluster: Cluster, user: UserInfo) -> None:
        self.cluster = cluster
        self.user = signed_in(cluster.engine, user)

    def _admitting(self, served: ServedResource, operation: str, sub: str) -> Admitting | None:
        admission = self.cluster.admission
        if admission is None or not admission.wants(
            self.user, served, operation, sub, control_plane=True
        ):
            return None
        return admission

    def admitted(self, resource: ResourceKey, operation: str, subresource: str = "") -> bool:
        """Whether such a write waits for admission (False: it is written directly)."""
        return self._admitting(self.cluster.served(resource), operation, subresource) is not None

    def _request(
        self, served: ServedResource, operation: str, where: tuple[str, str], **more: Any
    ) -> WriteRequest:
        namespace, name = where
        return WriteRequest(
            self.user, served, operation, namespace, name, control_plane=True, **more
        )

    async def create(
        self, resource: ResourceKey, namespace: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        served = self.cluster.served(resource)
        admission = self._admitting(served, "CREATE", "")
        if admission is None:
            return self.cluster.create(resource, namespace, body)
        engine = self.cluster.engine

        def run(dry_run: bool) -> dict[str, Any]:
            return engine.create(served, namespace, body, WriteOptions(dry_run=dry_run))

        where = (namespace, str(body["metadata"].get("name") or ""))
        write = self._request(served, "CREATE", where, run=run)
        return await asyncio.ensure_future(admission.write(write))

    async def update(self, resource: ResourceKey, body: dict[str, Any]) -> dict[str, Any]:
        return await self.update_object(self.cluster.served(resource), body)

    async def update_status(self, resource: ResourceKey, body: dict[str, Any]) -> dict[str, Any]:
        return await self.update_object(self.cluster.served(resource), body, "status")

    async def update_object(
        self, served: ServedResource, body: dict[str, Any], subresource: str = ""
    ) -> dict[str, Any]:
        """A trusted update of any served kind (``Cluster.update``'s rules) as a request."""
        engine = self.cluster.engine
        namespace = body["metadata"].get("namespace") or ""
        name = body["metadata"]["name"]

        def run(dry_run: bool) -> dict[str, Any]:
            options = TRUSTED if not dry_run else _TRUSTED_DRY_RUN
            return engine.update(served, namespace, name, body, options, subresource=subresource)[0]

        admission = self._admitting(served, "UPDATE", subresource)
        if admission is None:
            return run(False)
        write = self._request(
            served, "UPDATE", (namespace, name), subresource=subresource, run=run, options=TRUSTED
        )
        return await asyncio.ensure_future(admission.write(write))

    async def apply(
        self, resource: ResourceKey, namespace: str, config: dict[str, Any], manager: str
    ) -> dict[str, Any]:
        """A forced server-side apply of ``config`` as ``manager`` (client-go's ``Apply``
        with ``ApplyOptions{FieldManager: manager, Force: true}``): admission sees an
        UPDATE (a CREATE when absent) whose options name the manager."""
        served = self.cluster.served(resource)
        engine, name = self.cluster.engine, config["metadata"]["name"]
        raw = orjson.dumps(config)

        def run(dry_run: bool) -> dict[str, Any]:
            options = WriteOptions(dry_run=dry_run, field_manager=manager, force=True)
            return server_side_apply(engine, served, namespace, name, raw, options)[0]

        exists = engine.storage.get(served.storage_key, namespace, name) is not None
        operation = "UPDATE" if exists else "CREATE"
        admission = self._admitting(served, operation, "")
        if admission is None:
            return run(False)
        sent = {"fieldManager": manager}
        write = self._request(served, operation, (namespace, name), run=run, sent_options=sent)
        return await asyncio.ensure_future(admission.write(write))

    async def finalize(self, body: dict[str, Any]) -> dict[str, Any]:
        """``PUT namespaces/<name>/finalize`` (the namespace controller's ``Finalize``):
        only ``spec.finalizers`` changes; admission sees an UPDATE of ``namespaces/
        finalize``."""
        engine, name = self.cluster.engine, body["metadata"]["name"]

        def run(dry_run: bool) -> dict[str, Any]:
            return deletion.finalize_namespace(engine, name, body, dry_run=dry_run)

        served = self.cluster.served(_NAMESPACES)
        admission = self._admitting(served, "UPDATE", "finalize")
        if admission is None:
            return run(False)
        write = self._request(served, "UPDATE", ("", name), subresource="finalize", run=run)
        return await asyncio.ensure_future(admission.write(write))

    async def write_status(
        self, resource: ResourceKey, obj: dict[str, Any], status: dict[str, Any]
    ) -> None:
        """``Cluster.write_status`` as a request: skipped when nothing changed."""
        body = self.cluster.status_change(resource, obj, status)
        if body is not None:
            await self.update_status(resource, body)

    async def delete(
        self,
        resource: ResourceKey,
        namespace: str,
        name: str,
        *,
        uid: str = "",
        grace: int | None = None,
        propagation: str | None = None,
    ) -> bool:
        """``Cluster.delete`` as a request: admitted first (its DeleteOptions as the
        review's ``options``); False if already gone."""
        options = deletion.DeleteOptions(
            grace_period_seconds=grace, precondition_uid=uid or None, propagation_policy=propagation
        )
        await self.admit_delete(self.cluster.served(resource), namespace, name, options)
        return self.cluster.delete(
            resource, namespace, name, uid=uid, grace=grace, propagation=propagation
        )

    async def bind(self, body: dict[str, Any]) -> dict[str, Any]:
        """``Cluster.bind`` as the scheduler's request: a CREATE of ``pods/binding`` whose
        object is the ``Binding`` kube-scheduler's DefaultBinder posts (the pod's name,
        namespace and uid, target the Node ``spec.nodeName``). The annotations a mutating
        webhook gives the Binding are merged into the pod's, as the binding storage does
        (``BindingREST.Create``: ``setPodHostAndAnnotations``, ``setPodNodeAndMetadata``
        in later releases)."""
        served = self.cluster.served(_PODS)
        admission = self._admitting(served, "CREATE", "binding")
        if admission is None:
            return self.cluster.bind(body)
        meta = body["metadata"]
        namespace, name = meta.get("namespace") or "", meta["name"]
        binding = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": name, "namespace": namespace, "uid": meta.get("uid")},
            "target": {"kind": "Node", "name": body["spec"]["nodeName"]},
        }
        write = self._request(served, "CREATE", (namespace, name), subresource="binding")
        admitted = await asyncio.ensure_future(
            admission.admit_object(write, binding, _BINDING, _no_check)
        )
        node = (admitted.get("target") or {}).get("name") or body["spec"]["nodeName"]
        annotations = (admitted.get("metadata") or {}).get("annotations") or {}
        bound = {**body, "spec": {**body["spec"], "nodeName": node}}
        return self.cluster.bind(bound, annotations=annotations)

    async def admit_delete(
        self,
        served: ServedResource,
        namespace: str,
        name: str,
        options: deletion.DeleteOptions | None = None,
    ) -> None:
        """Admission of a DELETE of any served kind, before the caller deletes."""
        admission = self._admitting(served, "DELETE", "")
        if admission is not None:
            sent = options.sent() if options is not None else None
            write = self._request(served, "DELETE", (namespace, name), sent_options=sent)
            await asyncio.ensure_future(admission.delete(write))
