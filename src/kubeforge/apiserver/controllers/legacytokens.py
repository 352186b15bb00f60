"""Tokens for ``kubernetes.io/service-account-token`` Secrets, as kube-controller-manager's
token controller writes them (``pkg/controller/serviceaccount/tokens_controller.go``, 1.32).

A Secret of that type names its account in the ``kubernetes.io/service-account.name``
annotation. When the account exists (with the uid of ``kubernetes.io/service-account.uid``
when that is set), the Secret gets ``data.token`` (a legacy token, ``authn.legacy``),
``data["ca.crt"]`` (the server's CA) and ``data.namespace``, and the uid annotation;
a token already there is kept. When the account is missing, or was recreated with
another uid, the Secret is deleted, and deleting an account deletes its token Secrets.

Entry points: ``LegacyTokens(engine, registry, key, ca_pem)`` with ``start()``/``stop()``
(``key`` returns the signing key, read on first use), and ``stamp_last_used``, the
authenticator's ``kubernetes.io/legacy-token-last-used`` label on a used token's Secret.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import time
from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.authn.legacy import LAST_USED_LABEL, legacy_claims
from kubeforge.apiserver.authn.signing import SigningKey
from kubeforge.apiserver.controllers.cluster import Cluster, copy
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


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


class LegacyTokens:
    """Fills token Secrets and removes those whose account is gone."""

    def __init__(
        self, engine: Engine, registry: Registry, key: Callable[[], SigningKey], ca_pem: str
    ) -> None:
        self._cluster = Cluster(engine, registry)
        self._key = key
        self._ca = ca_pem
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: set[tuple[str, str]] = set()
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

    def _schedule(self, namespace: str, name: str) -> None:
        # Never write from inside a storage listener: run once the current write is done.
        if (namespace, name) not in self._pending and self._loop is not None:
            self._pending.add((namespace, name))
            self._loop.call_soon(self._sync, namespace, name)

    def _sync(self, namespace: str, name: str) -> None:
        self._pending.discard((namespace, name))
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
                self._cluster.delete(_SECRETS, namespace, name, uid=meta["uid"])
            elif not meta.get("deletionTimestamp"):
                self._fill(secret, account)
        except StatusError:
            return  # raced with a client; its write brings the Secret back here

    def _fill(self, secret: dict[str, Any], account: dict[str, Any]) -> None:
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
        self._cluster.update(_SECRETS, body)


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
