"""RBAC escalation prevention, as kube-apiserver's policy-based RBAC storage does it
(``kubernetes/pkg/registry/rbac/{clusterrole,role,rolebinding,clusterrolebinding}/
policybased`` and ``pkg/registry/rbac/escalation_check.go``, 1.32).

Entry point: ``check_escalation(authorizer, engine, user, served, obj, old)``, run by
the admission chain for users outside ``system:masters`` under ``--authorization
RBAC`` (the real ``EscalationAllowed`` lets that group through):

* A Role or ClusterRole needs the ``escalate`` verb on it, or every permission it
  grants. A ClusterRole with an ``aggregationRule`` (on update: before or after) also
  needs cluster-admin's permissions (``*`` on ``*.*`` and every non-resource URL):
  "must have cluster-admin privileges to use the aggregationRule", since the rule
  gathers whatever the selected roles hold, now and later.
* A RoleBinding or ClusterRoleBinding needs the ``bind`` verb on the role it names,
  or every permission of that role. A role that does not exist (yet) answers its own
  404, as ``GetRoleReferenceRules`` does, so nobody binds a name that someone with
  more rights fills later.
* An update that changes only ownerReferences, finalizers or managedFields (what the
  garbage collector writes) is not checked (``IsOnlyMutatingGCFields``).
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.authn.authenticator import UserInfo
from kubeforge.apiserver.authz.attributes import Attributes
from kubeforge.apiserver.authz.rbac import Authorizer, aggregated_rules
from kubeforge.apiserver.authz.rules import compact, uncovered
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.registry.engine import Engine
from kubeforge.apiserver.registry.served import ServedResource
from kubeforge.core.status import failure

__all__ = ["ROLE_KINDS", "check_escalation"]

_RBAC = "rbac.authorization.k8s.io"
ROLE_KINDS = {"roles": "Role", "clusterroles": "ClusterRole"}
_FULL_AUTHORITY = [
    {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
    {"verbs": ["*"], "nonResourceURLs": ["*"]},
]
# What the garbage collector may change without an escalation check.
_GC_FIELDS = ("ownerReferences", "finalizers", "managedFields", "resourceVersion", "generation")


def check_escalation(
    authorizer: Authorizer,
    engine: Engine,
    user: UserInfo,
    served: ServedResource,
    obj: dict[str, Any],
    old: dict[str, Any] | None,
) -> None:
    """Raise the real 403 (or the role's 404) when ``obj`` would grant ``user`` more."""
    if old is not None and _only_gc_fields(obj, old):
        return
    info = served.info
    meta = obj.get("metadata") or {}
    namespace = str(meta.get("namespace") or "") if info.namespaced else ""
    name = str(meta.get("name") or "")
    if info.plural in ROLE_KINDS:
        escalate = Attributes(
            "escalate", api_group=_RBAC, resource=info.plural, namespace=namespace, name=name
        )
        if authorizer.authorize(user, escalate).allowed:
            return
        granted = [r for r in obj.get("rules") or [] if isinstance(r, dict)]
        _confirm_held(authorizer, user, served, namespace, name, granted)
        if _aggregates(obj) or (old is not None and _aggregates(old)):
            owned, _ = authorizer.rules_for(user, namespace)
            if uncovered(owned, _FULL_AUTHORITY):
                detail = "must have cluster-admin privileges to use the aggregationRule"
                raise _forbidden(served, name, detail)
        return
    ref = obj.get("roleRef") or {}
    kind, role = str(ref.get("kind") or ""), str(ref.get("name") or "")
    plural = "roles" if kind == "Role" else "clusterroles"
    bind = Attributes("bind", api_group=_RBAC, resource=plural, namespace=namespace, name=role)
    if authorizer.authorize(user, bind).allowed:
        return
    granted = _role_rules(engine, plural, namespace, role)
    _confirm_held(authorizer, user, served, namespace, name, granted)


def _confirm_held(
    authorizer: Authorizer,
    user: UserInfo,
    served: ServedResource,
    namespace: str,
    name: str,
    granted: list[dict[str, Any]],
) -> None:
    """``ConfirmNoEscalation``: every rule granted must be covered by the user's own."""
    owned, errors = authorizer.rules_for(user, namespace)
    missing = uncovered(owned, granted)
    if not missing:
        return
    groups = "[" + " ".join(f'"{g}"' for g in user.groups) + "]"
    detail = (
        f'user "{user.name}" (groups={groups}) is attempting to grant RBAC permissions not '
        "currently held:\n" + "\n".join(compact(rule) for rule in missing)
    )
    if errors:
        detail += "; RBAC: " + ", ".join(errors)
    raise _forbidden(served, name, detail)


def _forbidden(served: ServedResource, name: str, detail: str) -> StatusError:
    plural = served.info.plural
    message = f'{plural}.{_RBAC} "{name}" is forbidden: {detail}'
    return StatusError(
        failure(403, "Forbidden", message, {"name": name, "group": _RBAC, "kind": plural})
    )


def _role_rules(engine: Engine, plural: str, namespace: str, name: str) -> list[dict[str, Any]]:
    """The rules of the role a binding names; its 404 when it does not exist."""
    storage = engine.storage
    where = namespace if plural == "roles" else ""
    if storage.get((_RBAC, plural), where, name) is None:
        served = engine.registry.lookup(_RBAC, "v1", plural)
        assert served is not None  # built-in
        raise failures.not_found(served.info, name)
    if plural == "roles":
        role = storage.get((_RBAC, "roles"), namespace, name) or {}
        return [r for r in role.get("rules") or [] if isinstance(r, dict)]
    stored = {o["metadata"]["name"]: o for o in storage.objects((_RBAC, "clusterroles"))}
    return aggregated_rules(stored, name)


def _aggregates(obj: dict[str, Any]) -> bool:
    rule = obj.get("aggregationRule")
    return isinstance(rule, dict) and bool(rule.get("clusterRoleSelectors"))


def _only_gc_fields(obj: dict[str, Any], old: dict[str, Any]) -> bool:
    def without_gc_fields(value: dict[str, Any]) -> dict[str, Any]:
        meta = {k: v for k, v in (value.get("metadata") or {}).items() if k not in _GC_FIELDS}
        return {**value, "metadata": meta}

    return without_gc_fields(obj) == without_gc_fields(old)
