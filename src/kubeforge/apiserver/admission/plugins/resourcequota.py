"""``ResourceQuota`` (k8s.io/apiserver ``admission/plugin/resourcequota``, 1.32): a write
in a namespace with quotas is charged against them and refused with 403 when it does
not fit (``exceeded quota: ...``, ``failed quota: ...: must specify ...``); an admitted
one is recorded at once in each quota's ``status.used``, as the plugin's optimistic
status update does, so two creates back to back cannot both take the last unit.

The usage itself is ``kubeforge.apiserver.quota``'s. Writes of subresources, of
cluster-scoped objects and dry runs are not charged, as there. A quota the controller
has not yet filled in (no ``status.hard``) limits nothing.

Entry point: ``ResourceQuotaPlugin``.
"""

from __future__ import annotations

import time
from typing import Any

from kubeforge.apiserver.admission.plugins.base import Plugin, forbid
from kubeforge.apiserver.quota.admit import Charge, QuotaDenied, check_request
from kubeforge.apiserver.quota.evaluators import evaluator_for
from kubeforge.apiserver.quota.quantity import equals, parse_list, render_list
from kubeforge.apiserver.registry.admit import Attempt
from kubeforge.apiserver.storage.sqlite import clone

__all__ = ["ResourceQuotaPlugin"]

_QUOTAS = ("", "resourcequotas")


class ResourceQuotaPlugin(Plugin):
    name = "ResourceQuota"

    def validate(self, attempt: Attempt) -> None:
        if attempt.subresource or not attempt.namespace:
            return
        quotas = self.storage.objects(_QUOTAS, attempt.namespace)
        if not quotas:
            return  # first: most namespaces have none, and an evaluator is made per call
        info = attempt.served.info
        evaluator = evaluator_for(info.group, info.plural)
        if evaluator is None or not evaluator.handles(attempt.operation):
            return
        try:
            charges = check_request(
                quotas, evaluator, attempt.operation, attempt.obj, attempt.old, time.time()
            )
        except QuotaDenied as denied:
            raise forbid(attempt, str(denied)) from None
        if not attempt.options.dry_run:
            for charge in charges:
                self._record(charge)

    def _record(self, charge: Charge) -> None:
        """Write the quota's new ``status.used`` (the plugin's ``UpdateQuotaStatus``).
        Straight to storage: the write is the server's own and the engine is in the
        middle of the write being admitted."""
        stored = self.storage.get(_QUOTAS, *_key(charge.quota))
        if stored is None or equals(
            parse_list((stored.get("status") or {}).get("used")), charge.used
        ):
            return
        updated = clone(stored)
        updated.setdefault("status", {})["used"] = render_list(charge.used)
        self.storage.update(_QUOTAS, updated, stored)


def _key(quota: dict[str, Any]) -> tuple[str, str]:
    meta = quota["metadata"]
    return str(meta.get("namespace") or ""), str(meta["name"])
