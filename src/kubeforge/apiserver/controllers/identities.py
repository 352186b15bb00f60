"""Who a kube-controller-manager controller is once its token is authenticated.

With ``--use-service-account-credentials`` (as kubeadm runs it) kube-controller-manager
1.32 gives each controller a client of its own (``clientbuilder``'s dynamic builder):
it gets or creates the controller's ServiceAccount in kube-system, then asks the
TokenRequest API for a bound token of that account, bound to no object. The server
authenticates such a token (``pkg/serviceaccount/claims.go``, ``ServiceAccountInfo.
UserInfo`` in k8s.io/apiserver) as the account's name and groups, the account's ``uid``,
and one extra, ``authentication.kubernetes.io/credential-id: ["JTI=<the token's jti>"]``
(no pod or node keys: the token is bound to neither). So webhooks and
ValidatingAdmissionPolicies see that ``request.userInfo`` here too; the jti is one per
controller for the server's life (the real one changes when the token is renewed, about
every 48 minutes). Users that are not kube-system ServiceAccounts (the scheduler, a
kubelet: client certificates) carry no uid and no extra, as on a real cluster.

Entry point: ``signed_in(engine, user)``, which also creates the ServiceAccount when it
is missing, as the client builder does when the controller starts.
"""

from __future__ import annotations

import contextlib
import uuid
import weakref

from kubeforge.apiserver.authn.authenticator import UserInfo, split_service_account
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.engine import Engine

__all__ = ["CREDENTIAL_ID", "signed_in"]

CREDENTIAL_ID = "authentication.kubernetes.io/credential-id"
"""``user.CredentialIDKey``: the extra key naming the credential a request used."""
_ACCOUNTS = ("", "serviceaccounts")
_SYSTEM = "kube-system"

# Per server (an Engine is a dataclass, so not hashable: keyed by id, dropped with it).
_known: dict[int, dict[str, UserInfo]] = {}


def _users_of(engine: Engine) -> dict[str, UserInfo]:
    known = _known.get(id(engine))
    if known is None:
        known = _known[id(engine)] = {}
        weakref.finalize(engine, _known.pop, id(engine), None)
    return known


def signed_in(engine: Engine, user: UserInfo) -> UserInfo:
    """``user`` as its credential authenticates: a kube-system ServiceAccount with its uid
    and its token's credential id; any other user as it is."""
    known = _users_of(engine)
    found = known.get(user.name)
    if found is not None:
        return found
    account = split_service_account(user.name)
    if account is None or account[0] != _SYSTEM or user.uid:
        known[user.name] = user  # a certificate's user: as it is
        return user
    uid = _account_uid(engine, account[1])
    if not uid:
        return user  # kube-system is gone or refuses writes: no token could be had either
    extra: dict[str, tuple[str, ...]] = {CREDENTIAL_ID: (f"JTI={uuid.uuid4()}",)}
    found = known[user.name] = UserInfo(user.name, uid=uid, groups=user.groups, extra=extra)
    return found


def _account_uid(engine: Engine, name: str) -> str:
    """The uid of kube-system's ServiceAccount ``name``, created first when missing
    (``getOrCreateServiceAccount``)."""
    stored = engine.storage.get(_ACCOUNTS, _SYSTEM, name)
    if stored is None:
        served = engine.registry.lookup("", "v1", "serviceaccounts")
        assert served is not None  # built-in
        body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}}
        with contextlib.suppress(StatusError):
            stored = engine.create(served, _SYSTEM, body)
    return str(stored["metadata"]["uid"]) if stored is not None else ""
