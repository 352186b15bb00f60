"""Admission around the REST writes: RBAC escalation prevention and admission webhooks.

The engine is synchronous and a webhook call is not, so a write that needs admission is
done in two steps: the write is first computed without storing it (the engine's dry
run: defaults, the patch applied, validation), the result goes to the mutating
webhooks, then to the escalation check and the validating webhooks, and only then is
it stored, by repeating the write (or, when a webhook patched the object, by writing
the patched object with the same resourceVersion precondition). Writes that no
webhook and no check is interested in go straight to the engine, at no extra cost.

Differences from the real server, all on the edge: validation runs before the
mutating webhooks as well as after them (an invalid object a webhook would have
repaired is refused), and a created object's ``uid`` seen by the webhooks is not the
one stored. The simulated control plane's writes come here too, as their components'
users (``controllers/requests.py``); the few that do not are listed in
docs/local-server.md.

RBAC escalation prevention (``--authorization RBAC`` only) is ``escalation``'s:
roles need the permissions they grant (or ``escalate``), an aggregationRule
cluster-admin's, bindings the permissions of a role that exists (or ``bind``).

Entry point: ``Admission.write`` and ``Admission.delete``, called by the handlers and the
control plane with a ``registry.write_request.WriteRequest``; ``Admission.admit_object``
for a subresource whose body is another kind (an eviction, a binding).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from kubeforge.apiserver.admission.escalation import ROLE_KINDS, check_escalation
from kubeforge.apiserver.admission.policies import ValidatingPolicies
from kubeforge.apiserver.admission.request import AdmissionRequest
from kubeforge.apiserver.admission.webhooks import Webhooks
from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.authz.rbac import RBAC, Authorizer
from kubeforge.apiserver.registry import deletion
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.apiserver.registry.write_request import WriteRequest

__all__ = ["Admission"]

_RBAC = "rbac.authorization.k8s.io"
_BINDINGS = ("rolebindings", "clusterrolebindings")


class Admission:
    """What runs between a decoded write and its storage."""

    def __init__(
        self,
        engine: Engine,
        authorizer: Authorizer,
        webhooks: Webhooks,
        policies: ValidatingPolicies | None = None,
    ) -> None:
        self._engine = engine
        self._authorizer = authorizer
        self._webhooks = webhooks
        self._policies = policies

    def _request(self, write: WriteRequest, operation: str = "") -> AdmissionRequest:
        info = write.served.info
        return AdmissionRequest(
            operation=operation or write.operation,
            group=info.group,
            version=info.version,
            kind=info.kind,
            resource=info.plural,
            subresource=write.subresource,
            namespace=write.namespace,
            name=write.name,
            namespaced=info.namespaced,
            user=write.user.to_dict(),
            dry_run=write.dry_run,
            options=write.sent_options,
        )

    def _guards_escalation(self, user: UserInfo, served: ServedResource) -> bool:
        info = served.info
        return (
            isinstance(self._authorizer, RBAC)
            and not user.privileged
            and info.group == _RBAC
            and (info.plural in ROLE_KINDS or info.plural in _BINDINGS)
        )

    def _configured_policies(self) -> ValidatingPolicies | None:
        policies = self._policies
        return policies if policies is not None and policies.configured else None

    def wants(
        self,
        user: UserInfo,
        served: ServedResource,
        operation: str,
        subresource: str,
        *,
        control_plane: bool = False,
    ) -> bool:
        """Whether a write of ``served`` by ``user`` may need admission (False: nothing
        could match it, so it may go straight to the store)."""
        if not control_plane and self._guards_escalation(user, served):
            return True
        policies = self._configured_policies()
        if not self._webhooks.configured and policies is None:
            return False
        info = served.info
        req = AdmissionRequest(
            operation, info.group, info.version, info.kind, info.plural, subresource,
            "", "", info.namespaced, user.to_dict(),
        )  # fmt: skip
        return self._webhooks.may_match(req) or (policies is not None and policies.applies(req))

    async def write(self, write: WriteRequest) -> dict[str, Any]:
        """Run ``write.run`` (a CREATE or UPDATE, patches included) with admission around
        it; ``write.options`` are those of the final write when a webhook changed the
        object."""
        run = write.run
        assert run is not None  # a create, update or patch
        dry_run, served = write.dry_run, write.served
        guarded = not write.control_plane and self._guards_escalation(write.user, served)
        policies = self._configured_policies()
        if not guarded and not self._webhooks.configured and policies is None:
            return run(dry_run)  # the usual case: no webhooks, policies or escalation check
        req = self._request(write)
        hooked = self._webhooks.may_match(req)
        policed = policies is not None and policies.applies(req)
        if not hooked and not guarded and not policed:
            return run(dry_run)
        old = None
        if write.operation == "UPDATE":
            stored = self._engine.storage.get(served.storage_key, write.namespace, write.name)
            old = self._engine.view(served, stored) if stored is not None else None
        candidate = run(True)
        if old is None and req.operation != "CREATE":
            req = self._request(write, "CREATE")  # an update that creates (Leases, Events)
        req = _named(req, candidate)
        final = candidate
        warnings = write.warnings
        if hooked:
            mutated = await self._webhooks.mutate(req, candidate, old, warnings)
            final = mutated if mutated is not None else candidate
        if guarded:
            check_escalation(self._authorizer, self._engine, write.user, served, final, old)
        if policed and policies is not None:  # the policy plugin runs before validating webhooks
            policies.validate(req, final, old, warnings)
        if hooked:
            await self._webhooks.validate(req, final, old, warnings)
        generated = req.operation == "CREATE" and req.name != write.name
        if final is candidate and not generated:
            return run(dry_run)
        # Store what admission saw: the patched object, and the name generateName gave it.
        if write.subresource == "finalize":  # its storage takes only spec.finalizers
            return deletion.finalize_namespace(self._engine, write.name, final, dry_run=dry_run)
        if req.operation == "CREATE":
            created = dataclasses.replace(write.options, dry_run=dry_run, warnings=warnings)
            return self._engine.create(served, write.namespace, final, created)
        updated = dataclasses.replace(write.options, dry_run=dry_run)
        obj, _ = self._engine.update(
            served, write.namespace, write.name, final, updated, subresource=write.subresource
        )
        return obj

    async def admit_object(
        self,
        write: WriteRequest,
        obj: dict[str, Any],
        object_kind: tuple[str, str, str],
        check: Callable[[dict[str, Any]], None],
    ) -> dict[str, Any]:
        """Admission of a CREATE whose object is not the resource's own kind (an Eviction
        posted to ``pods/eviction``, a Binding to ``pods/binding``): the mutating webhooks,
        then ``check`` (the REST handler's own checks of the mutated object), then
        policies and validating webhooks; returns the object as the mutating webhooks
        left it."""
        policies = self._configured_policies()
        req = dataclasses.replace(self._request(write, "CREATE"), object_kind=object_kind)
        hooked = self._webhooks.configured and self._webhooks.may_match(req)
        warnings = write.warnings
        if hooked:
            obj = await self._webhooks.mutate(req, obj, None, warnings) or obj
        check(obj)
        if policies is not None:
            policies.validate(req, obj, None, warnings)
        if hooked:
            await self._webhooks.validate(req, obj, None, warnings)
        return obj

    async def delete(self, write: WriteRequest) -> None:
        """Admit the DELETE of one object (webhooks and policies see it as ``oldObject``)."""
        policies = self._configured_policies()
        if not self._webhooks.configured and policies is None:
            return
        req = self._request(write, "DELETE")
        hooked = self._webhooks.may_match(req)
        if not hooked and (policies is None or not policies.applies(req)):
            return
        served = write.served
        stored = self._engine.storage.get(served.storage_key, write.namespace, write.name)
        if stored is None:
            return  # the delete itself answers 404
        old = self._engine.view(served, stored)
        warnings = write.warnings
        if hooked:
            await self._webhooks.mutate(req, None, old, warnings)
        if policies is not None:
            policies.validate(req, None, old, warnings)
        if hooked:
            await self._webhooks.validate(req, None, old, warnings)


def _named(req: AdmissionRequest, candidate: dict[str, Any]) -> AdmissionRequest:
    """The request with the object's final name (generateName is resolved by now)."""
    name = str((candidate.get("metadata") or {}).get("name") or "")
    return req if name == req.name else dataclasses.replace(req, name=name)
