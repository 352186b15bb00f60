"""The warnings a kubernetes 1.32 server returns for a workload's pod template: its
strategies' ``WarningsOnCreate`` (the name's, where the kind's pods are named after it,
then ``GetWarningsForPodTemplate``) and ``WarningsOnUpdate`` (the template's again, only
when the update moved the generation on, or for kinds without one, changed the template).

Entry points: ``template_create_warnings(obj, path, name_used_in)`` and
``template_update_warnings(new, old, path, changed)``; ``path`` is where the template is
(``("spec", "template")``). Jobs and CronJobs: ``job_create_warnings(obj, path)`` and
``job_update_warnings(new, old, path)`` (``WarningsForJobSpec``, pkg/api/job), ``path``
being where the Job spec is (``("spec",)``, a CronJob's ``("spec", "jobTemplate", "spec")``).

>>> template_create_warnings({"metadata": {"name": "web"}, "template": {"spec": {
...     "terminationGracePeriodSeconds": -5}}}, ("template",), None)
['template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1']
"""  # noqa: E501

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.podspec.warnings import dns_label_warning, pod_warnings

__all__ = [
    "POD_NAMES",
    "generation_moved",
    "job_create_warnings",
    "job_update_warnings",
    "template_create_warnings",
    "template_update_warnings",
]

POD_NAMES = "Pod names and hostnames"
"""How the strategies of kinds whose pods are named after them word the name warning."""


def _at_path(obj: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = obj
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _warnings(obj: dict[str, Any], path: tuple[str, ...]) -> list[str]:
    template = _at_path(obj, path)
    if not isinstance(template, dict):
        return []
    return pod_warnings(template.get("metadata"), template.get("spec"), ".".join(path))


def template_create_warnings(
    obj: dict[str, Any], path: tuple[str, ...], name_used_in: str | None
) -> list[str]:
    """A new workload's warnings; ``name_used_in`` words its name warning (None: none)."""
    warnings = []
    if name_used_in is not None:
        warnings = dns_label_warning(str(obj["metadata"].get("name") or ""), name_used_in)
    return warnings + _warnings(obj, path)


def generation_moved(new: dict[str, Any], old: dict[str, Any]) -> bool:
    return bool(new["metadata"].get("generation") != old["metadata"].get("generation"))


def template_update_warnings(
    new: dict[str, Any], old: dict[str, Any], path: tuple[str, ...], changed: bool
) -> list[str]:
    """An updated workload's template warnings, when ``changed`` (Go: generation moved)."""
    return _warnings(new, path) if changed else []


_INDEXED_TRACKING = (
    "In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher "
    "than 10^4, Kubernetes might not be able to track completedIndexes when a big number of "
    "indexes fail"
)


def _job_spec_warnings(obj: dict[str, Any], path: tuple[str, ...]) -> list[str]:
    spec = _at_path(obj, path)
    warnings = []
    if isinstance(spec, dict) and spec.get("completionMode") == "Indexed":
        completions, parallelism = spec.get("completions"), spec.get("parallelism")
        if (
            isinstance(completions, int)
            and isinstance(parallelism, int)
            and completions > 100_000
            and parallelism > 10_000
        ):
            warnings.append(f"{'.'.join(path)}: {_INDEXED_TRACKING}")
    return warnings + _warnings(obj, (*path, "template"))


def job_create_warnings(obj: dict[str, Any], path: tuple[str, ...]) -> list[str]:
    """A new Job's or CronJob's: its name's, then ``WarningsForJobSpec``."""
    name = str(obj["metadata"].get("name") or "")
    return dns_label_warning(name, POD_NAMES) + _job_spec_warnings(obj, path)


def job_update_warnings(
    new: dict[str, Any], old: dict[str, Any], path: tuple[str, ...]
) -> list[str]:
    """An updated Job's or CronJob's ``WarningsForJobSpec``, when its generation moved."""
    return _job_spec_warnings(new, path) if generation_moved(new, old) else []
