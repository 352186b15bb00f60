"""``batch/v1`` CronJobs: defaults, validation and warnings, as 1.32's cronjob strategy.

``SetDefaults_CronJob`` (``concurrencyPolicy`` Allow, also when empty; ``suspend`` false;
history limits 3 and 1), the job template's pod defaults and pod failure policy pattern
status (True); the rules are ``cronjob_rules``'. A ``/status`` write is not validated
(the status strategy checks nothing); an update whose schedule names ``TZ`` is warned.

Entry point: ``CronJobStrategy`` (listed in ``kinds``).
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.batch.cronjob_rules import cronjob_errors
from kubeforge.apiserver.builtin.batch.jobdefaults import default_template
from kubeforge.apiserver.builtin.core.pods_services import PodStrategy
from kubeforge.apiserver.builtin.generic import CatalogStrategy, spec_of
from kubeforge.apiserver.builtin.podspec.template_warnings import (
    job_create_warnings,
    job_update_warnings,
)
from kubeforge.apiserver.failures import FieldError
from kubeforge.apiserver.registry.served import ServedResource

__all__ = ["CronJobStrategy"]

_JOB_SPEC = ("spec", "jobTemplate", "spec")
_TZ_WARNING = (
    "cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see "
    "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details"
)


class CronJobStrategy(CatalogStrategy):
    """``pkg/registry/batch/cronjob``'s strategy and status strategy."""

    def __init__(self, served: ServedResource) -> None:
        super().__init__(served)
        self._pods = PodStrategy(served)

    def default(self, obj: dict[str, Any]) -> None:
        spec = spec_of(obj)
        if spec is None:
            spec = obj["spec"] = {}  # Go's empty CronJobSpec, refused field by field
        if not spec.get("concurrencyPolicy"):
            spec["concurrencyPolicy"] = "Allow"
        if spec.get("suspend") is None:
            spec["suspend"] = False
        if spec.get("successfulJobsHistoryLimit") is None:
            spec["successfulJobsHistoryLimit"] = 3
        if spec.get("failedJobsHistoryLimit") is None:
            spec["failedJobsHistoryLimit"] = 1
        if not isinstance(spec.get("jobTemplate"), dict):
            spec["jobTemplate"] = {}
        if not isinstance(spec["jobTemplate"].get("spec"), dict):
            spec["jobTemplate"]["spec"] = {}
        default_template(spec["jobTemplate"]["spec"])

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return job_create_warnings(obj, _JOB_SPEC)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        warnings = job_update_warnings(new, old, _JOB_SPEC)
        if "TZ" in str((spec_of(new) or {}).get("schedule") or ""):
            warnings.append(_TZ_WARNING)
        return warnings

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return cronjob_errors(self._pods, obj, None)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        if (new.get("status") or {}) != (old.get("status") or {}):
            # Only /status changes the status (a main write keeps the stored one), and
            # cronJobStatusStrategy validates nothing.
            return []
        return cronjob_errors(self._pods, new, old)
