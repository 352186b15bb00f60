"""``Cluster``: how the simulated control plane reads and writes objects, and records Events.

The real controllers talk to the API server through client-go; these run inside it, so
they go through the ``Engine`` (strategies, defaults, resourceVersions, watch events) and
never around it. Writes are "trusted" where the real component writes a subresource
this server does not expose (a scheduler's ``binding``).

Entry point: ``Cluster(engine, registry)``; ``record(obj, type, reason, message, ...)``
writes a ``v1`` Event as client-go's recorder does (``<name>.<nanoseconds in hex>``,
involvedObject, source, first/last timestamps, count); the same Event again (same
source, object, type, reason and message) raises the recorded one's ``count`` and
``lastTimestamp`` instead, as its ``EventCorrelator`` does. Both go through
``admission`` as the component's user when a webhook or policy wants Events: then they
are written a moment later, as client-go's broadcaster writes them, never holding up
the caller.

These synchronous writes skip the admission webhooks and policies; a controller whose
writes must pass them uses ``requests.ControllerRequests`` over this ``Cluster``.

>>> # cluster.create("apps", "v1", "replicasets", "default", body)
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections import OrderedDict
from typing import Any

from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.controllers.admitting import Admitting, user_of
from kubeforge.apiserver.controllers.identities import signed_in
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry import deletion
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.options import PLAIN, TRUSTED, WriteOptions
from kubeforge.apiserver.registry.served import Registry, ServedResource
from kubeforge.apiserver.registry.system_metadata import format_time
from kubeforge.apiserver.registry.write_request import WriteRequest
from kubeforge.apiserver.storage.journal import ResourceKey
from kubeforge.apiserver.storage.sqlite import clone

__all__ = ["Cluster", "controller_of", "copy", "now_micro", "owner_reference"]

_EVENTS = ("", "events")
_EVENT_CACHE = 4096
"""Events remembered for counting (client-go's correlator keeps an LRU of 4096 too)."""
_event_writer = functools.lru_cache(maxsize=1024)(user_of)
"""Who writes a source's Events (``user_of``), worked out once per source."""


class Cluster:
    """Reads from storage, writes through the engine."""

    def __init__(self, engine: Engine, registry: Registry) -> None:
        self.engine = engine
        self.registry = registry
        self._recorded: OrderedDict[tuple[Any, ...], tuple[str, str]] = OrderedDict()
        self.admission: Admitting | None = None
        """The webhooks and policies around the controllers' writes (set by the server)."""
        self._sending: set[asyncio.Task[None]] = set()
        self._last_stamp = 0

    def wall_time(self) -> float:
        return self.engine.wall_clock()

    def now(self) -> str:
        return self.engine.now()

    def served(self, resource: ResourceKey) -> ServedResource:
        group, plural = resource
        found = self.registry.lookup(group, "v1", plural)
        assert found is not None, resource  # built-in kinds are always served
        return found

    # --- reads ------------------------------------------------------------------------------

    def get(self, resource: ResourceKey, namespace: str, name: str) -> dict[str, Any] | None:
        return self.engine.storage.get(resource, namespace, name)

    def list(self, resource: ResourceKey, namespace: str | None = None) -> list[dict[str, Any]]:
        return self.engine.storage.objects(resource, namespace)

    def has(self, resource: ResourceKey, namespace: str) -> bool:
        """Whether ``namespace`` holds any ``resource`` (cheaper than listing none: the
        control loops ask it of every pod write, and most namespaces have no owners)."""
        return self.engine.storage.count(resource, namespace) > 0

    # --- writes -----------------------------------------------------------------------------

    def create(self, resource: ResourceKey, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.engine.create(self.served(resource), namespace, body)

    def update(self, resource: ResourceKey, body: dict[str, Any]) -> dict[str, Any]:
        namespace, name = _ns_name(body)
        stored, _ = self.engine.update(self.served(resource), namespace, name, body, TRUSTED)
        return stored

    def update_status(self, resource: ResourceKey, body: dict[str, Any]) -> dict[str, Any]:
        namespace, name = _ns_name(body)
        stored, _ = self.engine.update(
            self.served(resource), namespace, name, body, TRUSTED, subresource="status"
        )
        return stored

    def bind(
        self, body: dict[str, Any], *, annotations: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """The scheduler's binding: ``spec.nodeName`` and the status (its ``PodScheduled``
        condition) of the pod ``body`` in one write, the Binding's ``annotations`` merged
        into the stored ones, the rest as stored."""
        namespace, name = _ns_name(body)
        meta = {k: v for k, v in body["metadata"].items() if k != "annotations"}
        if annotations:
            meta["annotations"] = annotations
        body = {**body, "metadata": meta}
        stored, _ = self.engine.update(
            self.served(("", "pods")), namespace, name, body, TRUSTED, subresource="binding"
        )
        return stored

    def write_status(
        self, resource: ResourceKey, obj: dict[str, Any], status: dict[str, Any]
    ) -> None:
        """Replace the latest ``obj``'s status with ``status`` (its conditions kept), unless
        it already is that: a controller's status write, skipped when nothing changed."""
        body = self.status_change(resource, obj, status)
        if body is not None:
            self.update_status(resource, body)

    def status_change(
        self, resource: ResourceKey, obj: dict[str, Any], status: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The body ``write_status`` writes, or None when the status already is that."""
        latest = self.get(resource, *_ns_name(obj)) or obj
        kept = {k: v for k, v in (latest.get("status") or {}).items() if k == "conditions"}
        if {**status, **kept} == (latest.get("status") or {}):
            return None
        body = copy(latest)
        body["status"] = {**status, **kept}
        return body

    def delete(
        self,
        resource: ResourceKey,
        namespace: str,
        name: str,
        *,
        uid: str = "",
        grace: int | None = None,
        propagation: str | None = None,
    ) -> bool:
        """Delete as a controller does (with a uid precondition); False if already gone."""
        options = deletion.DeleteOptions(
            grace_period_seconds=grace, precondition_uid=uid or None, propagation_policy=propagation
        )
        try:
            deletion.delete(self.engine, self.served(resource), namespace, name, options)
        except StatusError as error:
            if error.code in (404, 409):
                return False
            raise
        return True

    # --- events -----------------------------------------------------------------------------

    def record(
        self,
        obj: dict[str, Any],
        event_type: str,
        reason: str,
        message: str,
        *,
        component: str,
        host: str = "",
        field_path: str = "",
        action: str = "",
    ) -> None:
        """One Event about ``obj``, as the component's recorder writes it."""
        meta = obj["metadata"]
        namespace = meta.get("namespace") or "default"
        involved = {
            "kind": obj.get("kind"),
            "namespace": meta.get("namespace") or None,
            "name": meta["name"],
            "uid": meta.get("uid"),
            "apiVersion": obj.get("apiVersion"),
            "resourceVersion": meta.get("resourceVersion"),
            "fieldPath": field_path or None,
        }
        now = self.now()
        event: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{meta['name']}.{self._stamp():x}", "namespace": namespace},
            "involvedObject": {k: v for k, v in involved.items() if v},
            "reason": reason,
            "message": message,
            "source": {"component": component, **({"host": host} if host else {})},
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "type": event_type,
            "reportingComponent": component,
            "reportingInstance": host,
        }
        if action:
            event["action"] = action
        identity = ("kind", "namespace", "name", "fieldPath", "uid", "apiVersion")
        key = (component, host, *(involved[k] for k in identity), event_type, reason, message)
        if self._count_again(key, now):
            return
        if self._admitted("CREATE", key, namespace, event):
            return
        # A terminating namespace refuses Events; the real recorder drops them too.
        with contextlib.suppress(StatusError):
            self._remember(key, self.create(_EVENTS, namespace, event))

    def _stamp(self) -> int:
        """An Event's name suffix: client-go's recorder names an Event ``<object>.<the
        time in nanoseconds, hex>``; two Events in the same nanosecond get one apart."""
        self._last_stamp = max(time.time_ns(), self._last_stamp + 1)
        return self._last_stamp

    def _admitted(
        self, operation: str, key: tuple[Any, ...], namespace: str, event: dict[str, Any]
    ) -> bool:
        """Whether the Event write goes through admission (then it is sent a moment later,
        in a task of its own, as client-go's broadcaster sends it)."""
        user, served = _event_writer(key[0], key[1]), self.served(_EVENTS)
        if self.admission is None or not self.admission.wants(user, served, operation, ""):
            return False
        user = signed_in(self.engine, user)  # its uid and credential id, for the review
        task = asyncio.ensure_future(self._send(operation, key, namespace, event, user))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)
        return True

    async def _send(
        self,
        operation: str,
        key: tuple[Any, ...],
        namespace: str,
        event: dict[str, Any],
        user: UserInfo,
    ) -> None:
        """An Event written through admission (a refused one is dropped, as client-go's
        broadcaster drops it after its retries)."""
        admission, served, engine = self.admission, self.served(_EVENTS), self.engine
        assert admission is not None
        name = event["metadata"]["name"]

        def run(dry_run: bool) -> dict[str, Any]:
            if operation == "CREATE":
                return engine.create(served, namespace, event, WriteOptions(dry_run=dry_run))
            options = WriteOptions(dry_run=dry_run, trusted=True)
            return engine.update(served, namespace, name, event, options)[0]

        options = PLAIN if operation == "CREATE" else TRUSTED
        write = WriteRequest(user, served, operation, namespace, name, run=run, options=options)
        with contextlib.suppress(StatusError):
            self._remember(key, await admission.write(write))

    def _remember(self, key: tuple[Any, ...], created: dict[str, Any]) -> None:
        meta = created["metadata"]
        self._recorded[key] = (meta.get("namespace") or "", meta["name"])
        while len(self._recorded) > _EVENT_CACHE:
            self._recorded.popitem(last=False)

    def _count_again(self, key: tuple[Any, ...], now: str) -> bool:
        """``eventObserve``: an Event seen before is counted on its first record."""
        seen = self._recorded.get(key)
        existing = self.get(_EVENTS, *seen) if seen is not None else None
        if existing is None:
            return False
        body = copy(existing)
        body["count"] = int(body.get("count") or 1) + 1
        body["lastTimestamp"] = now
        if not self._admitted("UPDATE", key, body["metadata"].get("namespace") or "", body):
            with contextlib.suppress(StatusError):
                self.update(_EVENTS, body)
        self._recorded.move_to_end(key)
        return True


def owner_reference(owner: dict[str, Any]) -> dict[str, Any]:
    """The controller reference a workload controller puts on what it creates."""
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def controller_of(obj: dict[str, Any]) -> dict[str, Any] | None:
    for ref in obj["metadata"].get("ownerReferences") or []:
        if isinstance(ref, dict) and ref.get("controller"):
            return ref
    return None


def now_micro(seconds: float | None = None) -> str:
    """A MicroTime, as Lease renewTime and Event eventTime carry."""
    value = time.time() if seconds is None else seconds
    return format_time(value).replace("Z", f".{int(value % 1 * 1_000_000):06d}Z")


def copy(obj: dict[str, Any]) -> dict[str, Any]:
    return clone(obj)


def _ns_name(body: dict[str, Any]) -> tuple[str, str]:
    meta = body["metadata"]
    return meta.get("namespace") or "", meta["name"]
