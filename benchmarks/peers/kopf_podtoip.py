"""PodToIp written idiomatically with kopf: ``kopf run --standalone -A kopf_podtoip.py``.

The same behaviour as ``examples/podtoip``: one PodToIp per pod with an IP, named
after the pod, owned by it (``kopf.adopt``), following IP changes, and deleted
when the pod is deleted or starts deleting. kopf ships no API client; its own
documentation pairs it with the official ``kubernetes`` package in synchronous
handlers (which kopf runs in its thread pool), so this does too. Pods are watched
with ``@kopf.on.event`` (kopf's handler for objects an operator does not own:
no finalizers or annotations are written onto pods), and the PodToIps it made
are kept in a ``@kopf.index`` so an unchanged pod costs no request.
"""

from __future__ import annotations

import logging
from typing import Any

import kopf
import kubernetes

GROUP, VERSION, PLURAL = "example.com", "v1", "podtoips"

_api: kubernetes.client.CustomObjectsApi | None = None


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_: Any) -> None:
    global _api
    # PodToIp keeps its own log; posting every handler message as a Kubernetes Event
    # would add writes kubeforge's version does not make.
    settings.posting.enabled = False
    settings.posting.level = logging.WARNING
    kubernetes.config.load_kube_config()
    _api = kubernetes.client.CustomObjectsApi()


@kopf.index(GROUP, VERSION, PLURAL)
def podtoip_addresses(
    namespace: str, name: str, spec: kopf.Spec, **_: Any
) -> dict[tuple[str, str], str]:
    return {(namespace, name): spec.get("podAddress", "")}


@kopf.on.event("", "v1", "pods")
def mirror_pod(
    event: kopf.RawEvent,
    body: kopf.Body,
    namespace: str,
    name: str,
    status: kopf.Status,
    meta: kopf.Meta,
    podtoip_addresses: kopf.Index[tuple[str, str], str],
    logger: kopf.Logger,
    **_: Any,
) -> None:
    assert _api is not None
    ip = status.get("podIP")
    have = list(podtoip_addresses.get((namespace, name), []))
    if event["type"] == "DELETED" or meta.get("deletionTimestamp") or not ip:
        if have:
            try:
                _api.delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, name)
                logger.info("deleted podtoip %s/%s", namespace, name)
            except kubernetes.client.ApiException as err:
                if err.status != 404:
                    raise
        return
    if have == [ip]:
        return
    podtoip: dict[str, Any] = {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "PodToIp",
        "metadata": {"name": name},
        "spec": {"podName": name, "podAddress": ip},
    }
    kopf.adopt(podtoip, owner=body)
    if not have:
        try:
            _api.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, podtoip)
            logger.info("created podtoip %s/%s -> %s", namespace, name, ip)
            return
        except kubernetes.client.ApiException as err:
            if err.status != 409:
                raise
    _api.patch_namespaced_custom_object(
        GROUP, VERSION, namespace, PLURAL, name, {"spec": podtoip["spec"]}
    )
    logger.info("updated podtoip %s/%s -> %s", namespace, name, ip)
