"""Tokens for ``kubernetes.io/service-account-token`` Secrets, as kube-controller-manager's
token controller writes them (``pkg/controller/serviceaccount/tokens_controller.go``, 1.32).

A Secret of that type names its account in the ``kubernetes.io/service-account.name``
annotation. When the account exists (with the uid of ``kubernetes.io/service-account.uid``
when that is set), the Secret gets ``data.token`` (a legacy token, ``authn.legacy``),
``data["ca.crt"]`` (the server's CA) and ``data.namespace``, and the uid annotation;
a token already there is kept. When the account is missing, or was recreated with
another uid, the Secret is deleted, and deleting an account deletes its token Secrets.

Its writes (the Secret's update, its delete with a uid precondition) are requests of
``system:kube-controller-manager`` that admission webhooks and policies see (1.32's
``startServiceAccountTokenController`` gives it ``rootClientBuilder.ClientOrDie(
"tokens-controller")``); a refused one is tried again after its queue's back-off, ten
times at most (``MaxRetries``), then dropped until the Secret changes.

Entry points: ``LegacyTokens(cluster, key, ca_pem)`` with ``start()``/``stop()``
(``key`` returns the signing key, read on first use), and ``stamp_last_used``, the
authenticator's ``kubernetes.io/legacy-token-last-used`` label on a used token's Secret
(written directly: the real authenticator sends it through the loopback client).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import time
from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.authn.authenticator import AUTHENTICATED, UserInfo
from kubeforge.apiserver.authn.legacy import LAST_USED_LABEL, legacy_claims
from kubeforge.apiserver.authn.signing import SigningKey
from kubeforge.apiserver.controllers.cluster import Cluster, copy
from kubeforge.apiserver.controllers.eager import run_eagerly
from kubeforge.apiserver.controllers.podcontrol import Retries
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import Registry
from kubeforge.apiserver.storage.journal import Event

__all__ = ["LEGACY_TOKENS_CONTROLLER", "LegacyTokens", "stamp_last_used"]

LEGACY_TOKENS_CONTROLLER = "serviceaccount-token-controller"
_SECRETS = ("", "secrets")
_ACCOUNTS = ("", "serviceaccounts")
_TYPE = "kubernetes.io/service-account-token"
_NAME = "kubernetes.io/service-account.name"
_UID = "kubernetes.io/service-account.uid"
_MAX_RETRIES = 10  # TokensControllerOptions' MaxRetries default
CONTROLLER_MANAGER = UserInfo("system:kube-controller-manager", groups=(AUTHENTICATED,))
"""kube-controller-manager's own credential (kubeadm's client certificate): the token
controller is started with the root client builder, not a ServiceAccount of its own,
since it must run before any account has a token."""


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


class LegacyTokens:
    """Fills token Secrets and removes those whose account is gone."""

    def __init__(self, cluster: Cluster, key: Callable[[], SigningKey], ca_pem: str) -> None:
        self._cluster = cluster
        self._api = ControllerRequests(cluster, CONTROLLER_MANAGER)
        self._key = key
        self._ca = ca_pem
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: set[tuple[str, str]] = set()
        self._failures: dict[tuple[str, str], int] = {}
        self._retries = Retries()
        self._waiting: set[asyncio.Task[None]] = set()
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        storage = self._cluster.engine.storage
        self._unsubscribe = storage.subscribe(self._on_event, (_SECRETS, _ACCOUNTS))
        for secret in self._cluster.list(_SECRETS):
            if secret.get("type") == _TYPE:
                self._schedule(secret["metadata"]["namespace"], secret["metadata"]["name"])

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        for task in list(self._waiting):
            task.cancel()

    def _on_event(self, event: Event) -> None:
        meta = event.object["metadata"]
        if event.resource == _SECRETS and event.type != "DELETED":
            if event.object.get("type") == _TYPE:
                self._schedule(meta["namespace"], meta["name"])
        elif event.resource == _ACCOUNTS and event.type == "DELETED":
            for secret in self._cluster.list(_SECRETS, meta["namespace"]):
                annotations = secret["metadata"].get("annotations") or {}
                if secret.get("type") == _TYPE and annotations.get(_NAME) == meta["name"]:
                    self._schedule(meta["namespace"], secret["metadata"]["name"])

    def _schedule(self, namespace: str, name: str, delay: float = 0.0) -> None:
        # Never write from inside a storage listener: run once the current write is done.
        if (namespace, name) not in self._pending and self._loop is not None:
            self._pending.add((namespace, name))
            self._loop.call_later(delay, self._run, namespace, name)

    def _run(self, namespace: str, name: str) -> None:
        self._pending.discard((namespace, name))
        ran = run_eagerly(self._sync(namespace, name))
        if isinstance(ran, asyncio.Task):  # waiting on admission: keep it alive till done
            self._waiting.add(ran)
            ran.add_done_callback(self._waiting.discard)

    async def _sync(self, namespace: str, name: str) -> None:
        secret = self._cluster.get(_SECRETS, namespace, name)
        if secret is None or secret.get("type") != _TYPE:
            return
        meta = secret["metadata"]
        annotations = meta.get("annotations") or {}
        if not annotations.get(_NAME):
            return  # validation requires it; nothing names the account
        account = self._cluster.get(_ACCOUNTS, namespace, str(annotations[_NAME]))
        wanted_uid = annotations.get(_UID)
        try:
            if account is None or (wanted_uid and wanted_uid != account["metadata"]["uid"]):
                await self._api.delete(_SECRETS, namespace, name, uid=meta["uid"])
            elif not meta.get("deletionTimestamp"):
                await self._fill(secret, account)
        except StatusError as error:
            if error.code != 409:  # refused: the queue's back-off, at most _MAX_RETRIES times
                self._failed(namespace, name)
            return  # a conflict: raced with a client, whose write brings the Secret back
        self._failures.pop((namespace, name), None)
        self._retries.forget((namespace, name))

    def _failed(self, namespace: str, name: str) -> None:
        key = (namespace, name)
        failures = self._failures[key] = self._failures.get(key, 0) + 1
        if failures > _MAX_RETRIES:
            self._failures.pop(key, None)
            self._retries.forget(key)
            return
        self._schedule(namespace, name, self._retries.failed(key))

    async def _fill(self, secret: dict[str, Any], account: dict[str, Any]) -> None:
        data = dict(secret.get("data") or {})
        namespace = secret["metadata"]["namespace"]
        wanted = {"namespace": _b64(namespace)}
        if self._ca:
            wanted["ca.crt"] = _b64(self._ca)
        if not data.get("token"):
            token = self._key().sign(legacy_claims(account, secret["metadata"]["name"]))
            wanted["token"] = _b64(token)
        annotations = dict(secret["metadata"].get("annotations") or {})
        uid = account["metadata"]["uid"]
        if all(data.get(k) == v for k, v in wanted.items()) and annotations.get(_UID) == uid:
            return
        body = copy(secret)
        body["data"] = {**data, **wanted}
        body["metadata"]["annotations"] = {**annotations, _UID: uid}
        await self._api.update(_SECRETS, body)


def stamp_last_used(engine: Engine, registry: Registry, secret: dict[str, Any]) -> None:
    """Label a token Secret with the day its token was last used, at most once a day
    (the legacy authenticator's ``patchSecretWithLastUsedDate``; tomorrow's date, from a
    server ahead in time, is left alone)."""
    now = engine.wall_clock()
    today = time.strftime("%Y-%m-%d", time.gmtime(now))
    tomorrow = time.strftime("%Y-%m-%d", time.gmtime(now + 86400))
    labels = secret["metadata"].get("labels") or {}
    if labels.get(LAST_USED_LABEL) in (today, tomorrow):
        return
    cluster = Cluster(engine, registry)
    current = cluster.get(_SECRETS, secret["metadata"]["namespace"], secret["metadata"]["name"])
    if current is None or current["metadata"].get("uid") != secret["metadata"].get("uid"):
        return
    body = copy(current)
    body["metadata"]["labels"] = {
        **(current["metadata"].get("labels") or {}),
        LAST_USED_LABEL: today,
    }
    with contextlib.suppress(StatusError):  # bookkeeping: a conflict means someone else wrote
        cluster.update(_SECRETS, body)
