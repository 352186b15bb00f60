"""One write as admission sees it: what is written, by whom, which operation, its options.

The HTTP handlers and the simulated control plane hand admission the same value, so a
webhook or a ValidatingAdmissionPolicy cannot tell a controller's request from a
client's. It lives below both (admission/ and controllers/ may each import the store;
controllers may not import admission).

Entry point: ``WriteRequest`` (``Admission.write``, ``delete`` and ``admit_object`` take
one) and ``Run``, the write itself; a kubelet's final delete of a pod, for example::

    WriteRequest(node_user("node-1"), pods, "DELETE", "default", "web-0",
                 sent_options={"gracePeriodSeconds": 0, "preconditions": {"uid": uid}})
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.registry.options import PLAIN, WriteOptions
from kubeforge.apiserver.registry.served import ServedResource

__all__ = ["Run", "WriteRequest"]

Run = Callable[[bool], dict[str, Any]]
"""Runs the write, as a dry run when given True; returns the resulting object."""


@dataclass(frozen=True, slots=True)
class WriteRequest:
    """A CREATE, UPDATE or DELETE of ``served`` named ``namespace``/``name`` by ``user``."""

    user: UserInfo
    served: ServedResource
    operation: str  # CREATE UPDATE DELETE
    namespace: str
    name: str
    subresource: str = ""
    run: Run | None = None
    """The write (a create, update or patch); ``None`` for a DELETE and for a subresource
    whose body is another kind (a Binding, an Eviction)."""
    dry_run: bool = False
    """The request's ``dryRun`` (webhooks are told of it)."""
    warnings: list[str] = field(default_factory=list)
    """Where the webhooks' and policies' warnings go (the answer's ``Warning`` headers)."""
    options: WriteOptions = PLAIN
    """The options of the final write when a webhook changed the object."""
    sent_options: Mapping[str, Any] | None = None
    """The ``CreateOptions``/``UpdateOptions``/``DeleteOptions`` the request carries, as
    the review's ``options`` shows them (``None``: none beyond their kind)."""
    control_plane: bool = False
    """A request of the simulated control plane. On a real cluster its components hold
    the ``system:controller:*`` roles this server does not bootstrap (it does not
    authorize them at all), which let the ClusterRole aggregator ``escalate``: so RBAC's
    escalation check lets these through, as it lets their real counterparts."""
