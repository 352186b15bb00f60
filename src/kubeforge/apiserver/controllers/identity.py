"""The kube-system objects every 1.32 API server writes about itself.

``extension-apiserver-authentication`` (``ClientCARegistrationHook``, written once at
start and put back at the next start): ``client-ca-file`` holds the CA this server
trusts, the one its kubeconfig carries. The ``requestheader-*`` keys are written only
by a server started with ``--requestheader-client-ca-file``; this one has no front-proxy
authenticator, so it writes none (an extension server reading them would trust a proxy
that nothing here accepts).

The identity Lease (``APIServerIdentity``, on by default since 1.26): named
``apiserver-<hash>`` (the first 16 bytes of the SHA-256 of the host name and
``kube-apiserver``, each with a 2-byte length, in unpadded lower-case base32), labels
``apiserver.kubernetes.io/identity=kube-apiserver`` and ``kubernetes.io/hostname``,
``holderIdentity`` ``<name>_<uuid>`` (a Lease found at start keeps its holder, as the
lease controller renews what it finds), ``leaseDurationSeconds`` 3600, ``renewTime``
renewed every 10 s; a deleted one is made again at the next renewal.

``kube-apiserver-legacy-service-account-token-tracking`` (``legacytokentracking``, on
since 1.28): ``since`` holds the UTC date (``2006-01-02``) the tracking began; a value
that is not such a date is replaced by today's, and a deleted ConfigMap is made again
at most once per 30 minutes (the controller's creation rate limit; the first creation
at start takes it).

Entry points: ``ClientCAPublisher(api, ca_pem)``, ``IdentityLease(api)``,
``LegacyTokenTracking(api)`` (``poststart`` keepers) and ``identity_lease_name(hostname)``.

>>> identity_lease_name("node-1").startswith("apiserver-")
True
"""

from __future__ import annotations

import base64
import hashlib
import socket
import struct
import time
import uuid
from typing import Any

from kubeforge.apiserver.controllers.cluster import copy, now_micro
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError

__all__ = [
    "CLIENT_CA_CONFIGMAP",
    "IDENTITY_LABEL",
    "TRACKING_CONFIGMAP",
    "ClientCAPublisher",
    "IdentityLease",
    "LegacyTokenTracking",
    "identity_lease_name",
]

CLIENT_CA_CONFIGMAP = "extension-apiserver-authentication"
TRACKING_CONFIGMAP = "kube-apiserver-legacy-service-account-token-tracking"
IDENTITY_LABEL = "apiserver.kubernetes.io/identity"
_SYSTEM = "kube-system"
_CONFIGMAPS = ("", "configmaps")
_LEASES = ("coordination.k8s.io", "leases")
_LEASE_SECONDS = 3600
_COMPONENT = "kube-apiserver"


def identity_lease_name(hostname: str) -> str:
    """``genericapiserver.NewConfig``'s ``APIServerID`` for ``hostname``."""
    data = b"".join(
        struct.pack(">H", len(part)) + part for part in (hostname.encode(), b"kube-apiserver")
    )
    digest = hashlib.sha256(data).digest()[:16]
    return "apiserver-" + base64.b32encode(digest).decode().rstrip("=").lower()


class ClientCAPublisher:
    """Writes ``kube-system/extension-apiserver-authentication`` until it once succeeds."""

    interval = 1.0  # the hook's retry period (for at most 30 s in 1.32)

    def __init__(self, api: ControllerRequests, ca_pem: str) -> None:
        self.api = api
        self.data = {"client-ca-file": ca_pem} if ca_pem else {}
        self.done = False

    async def sync(self) -> None:
        if self.done:
            return
        current = self.api.cluster.get(_CONFIGMAPS, _SYSTEM, CLIENT_CA_CONFIGMAP)
        try:
            if current is None:
                meta = {"name": CLIENT_CA_CONFIGMAP, "namespace": _SYSTEM}
                body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
                await self.api.create(_CONFIGMAPS, _SYSTEM, {**body, "data": dict(self.data)})
            else:
                await self.api.update(_CONFIGMAPS, {**copy(current), "data": dict(self.data)})
        except StatusError:
            return  # kube-system not there yet, or a race: tried again next second
        self.done = True


class IdentityLease:
    """Renews ``kube-system/apiserver-<hash>`` every 10 s."""

    interval = 10.0  # IdentityLeaseRenewIntervalPeriod

    def __init__(self, api: ControllerRequests, hostname: str | None = None) -> None:
        self.api = api
        self.hostname = hostname if hostname is not None else socket.gethostname()
        self.name = identity_lease_name(self.hostname)
        self.holder = f"{self.name}_{uuid.uuid4()}"

    async def sync(self) -> None:
        current = self.api.cluster.get(_LEASES, _SYSTEM, self.name)
        try:
            if current is None:
                await self.api.create(_LEASES, _SYSTEM, self._labelled(self._new()))
            else:
                lease = copy(current)
                lease["spec"] = {**(lease.get("spec") or {}), "renewTime": now_micro()}
                await self.api.update(_LEASES, self._labelled(lease))
        except StatusError:
            return  # a race with a client: the next renewal tries again

    def _new(self) -> dict[str, Any]:
        spec = {
            "holderIdentity": self.holder,
            "leaseDurationSeconds": _LEASE_SECONDS,
            "renewTime": now_micro(),
        }
        meta = {"name": self.name, "namespace": _SYSTEM}
        return {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": meta,
            "spec": spec,
        }

    def _labelled(self, lease: dict[str, Any]) -> dict[str, Any]:
        """``labelAPIServerHeartbeatFunc``: the identity and host name labels, every time."""
        labels = dict(lease["metadata"].get("labels") or {})
        labels[IDENTITY_LABEL] = _COMPONENT
        labels["kubernetes.io/hostname"] = self.hostname
        lease["metadata"]["labels"] = labels
        return lease


class LegacyTokenTracking:
    """Keeps ``since`` in ``kube-system/kube-apiserver-legacy-service-account-token-tracking``."""

    interval = 1.0  # the controller's worker period; the ConfigMap's events wake it sooner
    creation_period = 1800.0  # rate.Every(30 * time.Minute), a burst of one

    def __init__(self, api: ControllerRequests) -> None:
        self.api = api
        self._created_at: float | None = None

    async def sync(self) -> None:
        cluster = self.api.cluster
        current = cluster.get(_CONFIGMAPS, _SYSTEM, TRACKING_CONFIGMAP)
        now = cluster.wall_time()
        today = time.strftime("%Y-%m-%d", time.gmtime(now))
        try:
            if current is None:
                if self._created_at is not None and now - self._created_at < self.creation_period:
                    return
                meta = {"name": TRACKING_CONFIGMAP, "namespace": _SYSTEM}
                body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
                await self.api.create(_CONFIGMAPS, _SYSTEM, {**body, "data": {"since": today}})
                self._created_at = now
            elif not _is_date((current.get("data") or {}).get("since")):
                fixed = copy(current)
                fixed["data"] = {**(current.get("data") or {}), "since": today}
                await self.api.update(_CONFIGMAPS, fixed)
        except StatusError:
            return  # a race: the next pass looks again


def _is_date(value: Any) -> bool:
    """Whether Go's ``time.Parse("2006-01-02", value)`` reads it."""
    try:
        time.strptime(str(value), "%Y-%m-%d")
    except ValueError:
        return False
    return isinstance(value, str) and len(value) == 10
