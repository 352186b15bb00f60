"""PodToIp written with the official ``kubernetes`` package: ``python official_podtoip.py``.

The shape client-go users know, with what the package offers: two
``kubernetes.informer.SharedInformer`` caches (pods, and the PodToIps), event
handlers that put the pod's key on a de-duplicating work queue, and two worker
threads that reconcile a key from the caches (create, update or delete its
PodToIp). A failed key is retried with exponential backoff. The package has no
work queue, so a minimal one is here; its informer has no "has synced", so a
create that finds the object already there (409) simply retries the key later.

The informer needs list results with ``.items``, which ``CustomObjectsApi`` (dicts)
lacks: ``_dict_list_func`` wraps its list call, keeping the docstring the
package's ``Watch`` reads to decide how to decode events.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import kubernetes
from kubernetes.informer import ADDED, DELETED, MODIFIED, SharedInformer

GROUP, VERSION, PLURAL = "example.com", "v1", "podtoips"
WORKERS = 2

log = logging.getLogger("podtoip")


class CacheBehind(Exception):
    """The server has a PodToIp our cache does not know yet."""


class WorkQueue:
    """Keys waiting to be reconciled; a key is queued once and handled by one worker at a time."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._queue: list[str] = []
        self._dirty: set[str] = set()
        self._processing: set[str] = set()
        self._failures: dict[str, int] = {}

    def add(self, key: str) -> None:
        with self._cond:
            if key in self._dirty:
                return
            self._dirty.add(key)
            if key not in self._processing:
                self._queue.append(key)
                self._cond.notify()

    def add_after_failure(self, key: str) -> None:
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        timer = threading.Timer(min(0.005 * 2**failures, 30.0), self.add, (key,))
        timer.daemon = True
        timer.start()

    def forget(self, key: str) -> None:
        self._failures.pop(key, None)

    def get(self) -> str:
        with self._cond:
            while not self._queue:
                self._cond.wait()
            key = self._queue.pop(0)
            self._dirty.discard(key)
            self._processing.add(key)
            return key

    def done(self, key: str) -> None:
        with self._cond:
            self._processing.discard(key)
            if key in self._dirty:
                self._queue.append(key)
                self._cond.notify()


def _dict_list_func(api: kubernetes.client.CustomObjectsApi) -> Callable[..., Any]:
    def list_podtoips(**kwargs: Any) -> Any:
        result = api.list_cluster_custom_object(GROUP, VERSION, PLURAL, **kwargs)
        if kwargs.get("watch"):
            return result
        return SimpleNamespace(
            items=result["items"],
            metadata=SimpleNamespace(resource_version=result["metadata"]["resourceVersion"]),
        )

    list_podtoips.__doc__ = api.list_cluster_custom_object.__doc__
    return list_podtoips


def _key(obj: Any) -> str:
    if isinstance(obj, dict):
        return f"{obj['metadata']['namespace']}/{obj['metadata']['name']}"
    return f"{obj.metadata.namespace}/{obj.metadata.name}"


class PodToIpController:
    def __init__(self) -> None:
        self.core = kubernetes.client.CoreV1Api()
        self.custom = kubernetes.client.CustomObjectsApi()
        self.pods = SharedInformer(self.core.list_pod_for_all_namespaces)
        self.podtoips = SharedInformer(_dict_list_func(self.custom))
        self.queue = WorkQueue()
        for informer in (self.pods, self.podtoips):
            for event in (ADDED, MODIFIED, DELETED):
                informer.add_event_handler(event, self._enqueue)

    def _enqueue(self, obj: Any) -> None:
        self.queue.add(_key(obj))

    def run(self) -> None:
        self.pods.start()
        self.podtoips.start()
        for _ in range(WORKERS):
            threading.Thread(target=self._work, daemon=True).start()

    def _work(self) -> None:
        while True:
            key = self.queue.get()
            try:
                self.reconcile(key)
                self.queue.forget(key)
            except CacheBehind:
                self.queue.add_after_failure(key)
            except kubernetes.client.ApiException as err:
                log.warning("reconciling %s failed (%s); retrying", key, err.status)
                self.queue.add_after_failure(key)
            finally:
                self.queue.done(key)

    def reconcile(self, key: str) -> None:
        namespace, name = key.split("/", 1)
        pod = self.pods.cache.get_by_key(key)
        current = self.podtoips.cache.get_by_key(key)
        ip = pod.status.pod_ip if pod is not None and pod.status is not None else None
        if pod is None or pod.metadata.deletion_timestamp or not ip:
            if current is not None:
                try:
                    self.custom.delete_namespaced_custom_object(
                        GROUP, VERSION, namespace, PLURAL, name
                    )
                    log.info("deleted podtoip %s", key)
                except kubernetes.client.ApiException as err:
                    if err.status != 404:
                        raise
            return
        owner = {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": name,
            "uid": pod.metadata.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
        spec = {"podName": name, "podAddress": ip}
        if current is None:
            body = {
                "apiVersion": f"{GROUP}/{VERSION}",
                "kind": "PodToIp",
                "metadata": {"name": name, "namespace": namespace, "ownerReferences": [owner]},
                "spec": spec,
            }
            try:
                self.custom.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, body)
                log.info("created podtoip %s -> %s", key, ip)
            except kubernetes.client.ApiException as err:
                if err.status != 409:
                    raise
                raise CacheBehind(key) from err  # look again once the cache has caught up
            return
        if current.get("spec") != spec or current["metadata"].get("ownerReferences") != [owner]:
            updated = {**current, "spec": spec}
            updated["metadata"] = {**current["metadata"], "ownerReferences": [owner]}
            # The cached resourceVersion makes a stale update fail with 409 and retry.
            self.custom.replace_namespaced_custom_object(
                GROUP, VERSION, namespace, PLURAL, name, updated
            )
            log.info("updated podtoip %s -> %s", key, ip)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kubeconfig", default=None)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    kubernetes.config.load_kube_config(config_file=args.kubeconfig)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    PodToIpController().run()
    stop.wait()  # the informer and worker threads are daemons: they end with the process


if __name__ == "__main__":
    main()
