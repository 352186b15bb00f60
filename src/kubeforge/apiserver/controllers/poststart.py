"""The objects kube-apiserver keeps by itself, run as its post-start hooks run them.

A fresh 1.32 API server writes, through its loopback client, as ``system:apiserver``
(groups ``system:authenticated`` and ``system:masters``, a uid of its own each start:
``genericapiserver``'s loopback token), so admission webhooks and policies see these
writes as any client's: the system namespaces (``systemnamespaces``), the ``kubernetes``
Service with its Endpoints and EndpointSlice (``apiservice``), the API Priority and
Fairness bootstrap configuration (``apf_producer``) and its FlowSchemas' ``Dangling``
conditions (``apf_status``), ``kube-system/extension-apiserver-authentication``, the
apiserver identity Lease and the legacy token tracking ConfigMap (``identity``). Each
keeper does one ``sync`` at start, then one every ``interval`` seconds; a sync that must
wait for a webhook goes on in a task of its own, and the keeper skips its beats until
it is done. This runs in every mode (``--no-simulate-node`` too): these are the API
server's own, not kube-controller-manager's. It does not enforce API Priority and
Fairness: requests are never queued or refused by its configuration.

Entry point: ``PostStartHooks(cluster, serving, interval=None)`` with ``start()`` and
``stop()``; ``interval`` overrides every keeper's period (tests).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import uuid
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from kubeforge.apiserver.authn.authenticator import AUTHENTICATED, MASTERS, UserInfo
from kubeforge.apiserver.controllers.apf_producer import APFConfigProducer
from kubeforge.apiserver.controllers.apf_status import DanglingConditions
from kubeforge.apiserver.controllers.apiservice import KubernetesService
from kubeforge.apiserver.controllers.cluster import Cluster
from kubeforge.apiserver.controllers.eager import run_eagerly
from kubeforge.apiserver.controllers.identity import (
    ClientCAPublisher,
    IdentityLease,
    LegacyTokenTracking,
)
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.controllers.systemnamespaces import SystemNamespaces

__all__ = ["Keeper", "PostStartHooks", "Serving", "loopback_user"]

log = logging.getLogger("kubeforge.apiserver.controllers")


def loopback_user() -> UserInfo:
    """Who the API server's own writes come from (a new uid each start, as 1.32's)."""
    return UserInfo("system:apiserver", str(uuid.uuid4()), (AUTHENTICATED, MASTERS))


def advertised_address() -> str:
    """What kube-apiserver advertises when bound to 127.0.0.1 with no ``--advertise-address``
    (``ResolveBindAddress``: a loopback bind address means the host's default-route
    interface, ``ChooseHostInterface``); 127.0.0.1 when the host has no such route, which
    the Endpoints' validation then refuses, as it refuses a real server's."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("8.8.8.8", 53))  # a route lookup only: UDP sends nothing here
            address = str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"
    ip = ipaddress.ip_address(address)
    special = ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast
    return "127.0.0.1" if special else address


@dataclass(frozen=True)
class Serving:
    """Where this server is reached (``address``: what it advertises; empty: worked out as
    ``advertised_address``) and what it trusts."""

    port: int
    address: str = ""
    ca_pem: str = ""


class Keeper(Protocol):
    interval: float

    def sync(self) -> Coroutine[Any, Any, None]: ...


class PostStartHooks:
    """Runs each keeper now and then every ``interval`` seconds until ``stop()``."""

    def __init__(self, cluster: Cluster, serving: Serving, interval: float | None = None) -> None:
        api = ControllerRequests(cluster, loopback_user())
        self.keepers: list[Keeper] = [SystemNamespaces(api), APFConfigProducer(api)]
        if serving.port:  # not served (embedded): no Service can point at it
            address = serving.address or advertised_address()
            self.keepers.append(KubernetesService(api, address, serving.port))
        self.keepers += [
            ClientCAPublisher(api, serving.ca_pem),
            IdentityLease(api),
            LegacyTokenTracking(api),
        ]
        self.dangling = DanglingConditions(api)
        self._interval = interval
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._busy: dict[int, asyncio.Task[None]] = {}

    def start(self) -> None:
        for index in range(len(self.keepers)):
            self._beat(index)
        self.dangling.start()

    def stop(self) -> None:
        self.dangling.stop()
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for task in list(self._busy.values()):
            task.cancel()

    def _beat(self, index: int) -> None:
        keeper = self.keepers[index]
        if index not in self._busy:  # the last sync still waits for admission: skip
            try:
                ran = run_eagerly(keeper.sync())
            except Exception:  # a keeper's failure never stops the server; next beat
                log.exception("%s: sync failed", type(keeper).__name__)
            else:
                if isinstance(ran, asyncio.Task):
                    self._busy[index] = ran
                    ran.add_done_callback(lambda _: self._busy.pop(index, None))
        period = self._interval if self._interval is not None else keeper.interval
        self._timers[index] = asyncio.get_running_loop().call_later(period, self._beat, index)
