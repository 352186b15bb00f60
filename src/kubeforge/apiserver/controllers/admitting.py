"""Who the simulated control plane's components are, and the admission they write through.

kube-controller-manager (``--use-service-account-credentials``, as kubeadm runs it)
writes as one ServiceAccount per controller (``system:serviceaccount:kube-system:
replicaset-controller``, ...; the names of 1.32's ``controller_policy.go``), the
scheduler as ``system:kube-scheduler``, a kubelet as ``system:node:<name>``.
``Admitting`` is what the server hands the control plane so those writes pass the
admission webhooks and ValidatingAdmissionPolicies as any client's do (the compiled-in
plugins run inside the store for every write already).

Entry points: ``controller_user(account)``, ``user_of(component, host)`` (who writes a
component's Events), the ``Admitting`` protocol (``admission.chain.Admission`` is one).

>>> controller_user("job-controller").name
'system:serviceaccount:kube-system:job-controller'
>>> user_of("daemonset-controller").name
'system:serviceaccount:kube-system:daemon-set-controller'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from kubeforge.apiserver.authn.authenticator import (
    AUTHENTICATED,
    UserInfo,
    service_account_user,
)
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.write_request import WriteRequest

__all__ = ["SCHEDULER", "Admitting", "controller_user", "node_user", "user_of"]

_SYSTEM = "kube-system"

# The Event source components whose ServiceAccount is named otherwise (controller_policy.go).
_ACCOUNTS = {
    "daemonset-controller": "daemon-set-controller",
    "persistentvolume-controller": "persistent-volume-binder",
    "endpoints-controller": "endpoint-controller",
}
SCHEDULER = UserInfo("system:kube-scheduler", groups=(AUTHENTICATED,))


def controller_user(account: str) -> UserInfo:
    """The user a kube-controller-manager controller writes as (its ServiceAccount)."""
    return service_account_user(_SYSTEM, account)


def node_user(node: str) -> UserInfo:
    return UserInfo(f"system:node:{node}", groups=("system:nodes", AUTHENTICATED))


def user_of(component: str, host: str = "") -> UserInfo:
    """Who writes the Events of an Event source ``component`` (on ``host``)."""
    if component == "kubelet":
        return node_user(host)
    if component == "default-scheduler":
        return SCHEDULER
    return controller_user(_ACCOUNTS.get(component, component))


class Admitting(Protocol):
    """The webhooks and policies around a write (``admission.chain.Admission``)."""

    def wants(
        self,
        user: UserInfo,
        served: ServedResource,
        operation: str,
        subresource: str,
        *,
        control_plane: bool = False,
    ) -> bool:
        """Whether anything may need to see such a write (False: write it directly)."""

    async def write(self, write: WriteRequest) -> dict[str, Any]:
        """``write.run`` with admission around it (raises when refused)."""

    async def delete(self, write: WriteRequest) -> None:
        """Admit the DELETE of one object (raises when refused)."""

    async def admit_object(
        self,
        write: WriteRequest,
        obj: dict[str, Any],
        object_kind: tuple[str, str, str],
        check: Callable[[dict[str, Any]], None],
    ) -> dict[str, Any]:
        """Admit a CREATE of a subresource whose body is another kind (a ``Binding``);
        returns the body as the mutating webhooks left it (raises when refused)."""
