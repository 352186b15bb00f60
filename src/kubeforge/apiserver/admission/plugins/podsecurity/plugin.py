"""``PodSecurity`` (plugin/pkg/admission/security/podsecurity with
k8s.io/pod-security-admission ``admission``, 1.32), a validating plugin run on every
create and update of pods, pod controllers and namespaces:

- a pod (its ``ephemeralcontainers`` too; not ``status``, ``binding``, ``eviction``, ...)
  is refused with 403 when its namespace's enforce level forbids it, else warned of
  what the warn level forbids; an update that changes no image and adds or removes no
  container is not evaluated;
- a pod controller's template (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
  CronJob, ReplicationController, PodTemplate) is warned of, never refused;
- a namespace's ``pod-security.kubernetes.io/*`` labels must parse (422 otherwise, on an
  update only when they changed), and making its enforce level stricter warns about the
  existing pods the new level would refuse.

This server has no exemptions (none are configured by default) and no audit log: the
audit annotations a real server records on the request's audit event
(``pod-security.kubernetes.io/audit-violations``, ``.../error``) are logged, as JSON, to
the ``kubeforge.apiserver.audit`` logger (the server's log).

Entry point: ``PodSecurityPlugin``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from kubeforge.apiserver import failures
from kubeforge.apiserver.admission.plugins.base import Plugin, forbid, object_name
from kubeforge.apiserver.admission.plugins.podsecurity.evaluation import (
    POD_CONTROLLERS,
    Decision,
    evaluate_pod,
    namespace_warnings,
    pod_template,
    significant_pod_update,
)
from kubeforge.apiserver.admission.plugins.podsecurity.levels import (
    PREFIX,
    PRIVILEGED,
    Policy,
    compare_levels,
    policy_from_labels,
)
from kubeforge.apiserver.admission.plugins.podsecurity.spec import mapping
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.registry.admit import Attempt

__all__ = ["PodSecurityPlugin"]

audit_log = logging.getLogger("kubeforge.apiserver.audit")

_PODS = ("", "pods")
_NAMESPACES = ("", "namespaces")
# Pod subresources that cannot change what the policy sees (ignoredPodSubresources).
_IGNORED_POD_SUBRESOURCES = frozenset(
    {"exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status"}
)


def _labels(obj: dict[str, Any] | None) -> dict[str, str]:
    labels = mapping(mapping((obj or {}).get("metadata")).get("labels"))
    return {str(k): str(v) for k, v in labels.items()}


def _error_key(errors: list[FieldError]) -> list[tuple[str, str, Any]]:
    return [(e.field, e.detail, e.value) for e in errors]


class PodSecurityPlugin(Plugin):
    name = "PodSecurity"
    resources = frozenset({_NAMESPACES, _PODS}) | POD_CONTROLLERS

    def validate(self, attempt: Attempt) -> None:
        info = attempt.served.info
        resource = (info.group, info.plural)
        if resource == _NAMESPACES:
            self._namespace(attempt)
        elif resource == _PODS:
            self._pod(attempt)
        elif resource in POD_CONTROLLERS and not attempt.subresource:
            self._controller(attempt, resource)

    def _namespace_policy(self, namespace: str) -> tuple[Policy, list[FieldError]]:
        # A missing namespace reads as unlabelled: the store refuses writes into one first.
        return policy_from_labels(_labels(self.storage.get(_NAMESPACES, "", namespace)))

    def _pod(self, attempt: Attempt) -> None:
        if attempt.subresource in _IGNORED_POD_SUBRESOURCES:
            return
        policy, errors = self._namespace_policy(attempt.namespace)
        if not errors and policy.fully_privileged:
            return
        if attempt.old is not None and not significant_pod_update(attempt.obj, attempt.old):
            return
        meta, spec = mapping(attempt.obj.get("metadata")), mapping(attempt.obj.get("spec"))
        self._apply(attempt, evaluate_pod(policy, errors, meta, spec, enforce=True))

    def _controller(self, attempt: Attempt, resource: tuple[str, str]) -> None:
        policy, errors = self._namespace_policy(attempt.namespace)
        if not errors and policy.warn.level == policy.audit.level == PRIVILEGED:
            return
        template = pod_template(resource, attempt.obj)
        if template is not None:
            self._apply(attempt, evaluate_pod(policy, errors, *template, enforce=False))

    def _namespace(self, attempt: Attempt) -> None:
        if attempt.subresource:
            return
        policy, errors = policy_from_labels(_labels(attempt.obj))
        if attempt.old is None:
            if errors:
                raise self._invalid(attempt, errors)
            return
        old_policy, old_errors = policy_from_labels(_labels(attempt.old))
        if errors and (not old_errors or _error_key(errors) != _error_key(old_errors)):
            raise self._invalid(attempt, errors)
        new, old = policy.enforce, old_policy.enforce
        if new == old or new.level == PRIVILEGED:
            return
        if new.version == old.version and compare_levels(new.level, old.level) < 1:
            return  # relaxed, or no stricter
        name = object_name(attempt.obj)
        pods = self.storage.objects(("", "pods"), name)
        attempt.options.warn(namespace_warnings(name, pods, new))

    @staticmethod
    def _invalid(attempt: Attempt, errors: list[FieldError]) -> failures.StatusError:
        return failures.invalid("Namespace", "", object_name(attempt.obj), errors)

    @staticmethod
    def _apply(attempt: Attempt, decision: Decision) -> None:
        if decision.audit.keys() - {"enforce-policy"}:
            annotations = {PREFIX + k: v for k, v in sorted(decision.audit.items())}
            audit_log.info(
                "%s %s %s/%s annotations=%s",
                attempt.operation,
                attempt.served.info.group_resource,
                attempt.namespace,
                object_name(attempt.obj),
                json.dumps(annotations),
            )
        if decision.denial:
            raise forbid(attempt, decision.denial)
        attempt.options.warn(decision.warnings)
