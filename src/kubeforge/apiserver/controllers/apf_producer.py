"""API Priority and Fairness' bootstrap configuration, kept as 1.32's config producer keeps it.

The ``priority-and-fairness-config-producer`` post-start hook (``pkg/registry/flowcontrol/
rest`` and ``ensurer``, 1.29+) runs at start and then every minute: the suggested
PriorityLevelConfigurations, the suggested FlowSchemas, the mandatory levels, the
mandatory schemas, then the removal of unwanted objects.

- A missing object is created (mandatory or suggested, every pass).
- A mandatory object's spec is put back whenever it differs from 1.32's after defaults
  (the ``exempt`` level's ``spec.exempt`` excepted), and its
  ``apf.kubernetes.io/autoupdate-spec`` annotation made ``"true"``.
- A suggested object is updated only while that annotation says true (any of Go's
  ``ParseBool`` spellings); without a readable one, only while ``generation`` is 1 (an
  object nobody edited); the annotation is then written as what was decided.
- An object not in the bootstrap configuration whose annotation says true is deleted.

Entry point: ``APFConfigProducer(api)``, a ``poststart`` keeper.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.builtin.flowcontrol_bootstrap import (
    AUTO_UPDATE,
    MANDATORY_LEVELS,
    MANDATORY_SCHEMAS,
    SUGGESTED_LEVELS,
    SUGGESTED_SCHEMAS,
)
from kubeforge.apiserver.builtin.flowcontrol_rules import (
    default_level,
    default_schema,
    semantic_form,
)
from kubeforge.apiserver.controllers.cluster import copy
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.storage.journal import ResourceKey

__all__ = ["APFConfigProducer", "parse_bool"]

_GROUP = "flowcontrol.apiserver.k8s.io"
_SCHEMAS: ResourceKey = (_GROUP, "flowschemas")
_LEVELS: ResourceKey = (_GROUP, "prioritylevelconfigurations")
_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def parse_bool(value: Any) -> bool | None:
    """Go's ``strconv.ParseBool``; None where it fails."""
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    return None


def _spec_equalish(
    resource: ResourceKey, bootstrap: dict[str, Any], current: dict[str, Any]
) -> bool:
    """``fsSpecEqualish`` / ``plcSpecEqualish``: the bootstrap spec, defaulted, against the
    stored one; the ``exempt`` level's concurrency fields are the operator's."""
    expected = copy(bootstrap)
    actual = current.get("spec") or {}
    if resource == _SCHEMAS:
        default_schema(expected)
    else:
        default_level(expected)
        if expected["metadata"]["name"] == "exempt":
            if not isinstance(actual.get("exempt"), dict):
                return False
            expected["spec"]["exempt"] = dict(actual["exempt"])
    return bool(semantic_form(expected["spec"]) == semantic_form(actual))


class APFConfigProducer:
    """Ensures the bootstrap FlowSchemas and PriorityLevelConfigurations."""

    interval = 60.0

    def __init__(self, api: ControllerRequests) -> None:
        self.api = api

    async def sync(self) -> None:
        passes = (
            (_LEVELS, SUGGESTED_LEVELS, False),
            (_SCHEMAS, SUGGESTED_SCHEMAS, False),
            (_LEVELS, MANDATORY_LEVELS, True),
            (_SCHEMAS, MANDATORY_SCHEMAS, True),
        )
        try:
            for resource, objects, mandatory in passes:
                for bootstrap in objects:
                    await self._ensure(resource, bootstrap, mandatory)
            await self._remove_unwanted(_SCHEMAS, (*MANDATORY_SCHEMAS, *SUGGESTED_SCHEMAS))
            await self._remove_unwanted(_LEVELS, (*MANDATORY_LEVELS, *SUGGESTED_LEVELS))
        except StatusError:
            return  # 1.32 stops the pass at the first failure and tries again next time

    async def _ensure(
        self, resource: ResourceKey, bootstrap: dict[str, Any], mandatory: bool
    ) -> None:
        name = bootstrap["metadata"]["name"]
        current = self.api.cluster.get(resource, "", name)
        if current is None:
            await self.api.create(resource, "", copy(bootstrap))
            return
        annotations = current["metadata"].get("annotations") or {}
        written = parse_bool(annotations.get(AUTO_UPDATE))
        auto = mandatory or (
            written if written is not None else current["metadata"].get("generation") == 1
        )
        fix_annotation = written is None or written != auto
        fix_spec = auto and not _spec_equalish(resource, bootstrap, current)
        if not (fix_annotation or fix_spec):
            return
        revised = copy(current)
        if fix_spec:
            revised["spec"] = copy(bootstrap)["spec"]
        if fix_annotation:
            revised["metadata"]["annotations"] = {
                **annotations,
                AUTO_UPDATE: "true" if auto else "false",
            }
        try:
            await self.api.update(resource, revised)
        except StatusError as error:
            if error.code != 409:  # a concurrent update: its spec is looked at next time
                raise

    async def _remove_unwanted(
        self, resource: ResourceKey, wanted: tuple[dict[str, Any], ...]
    ) -> None:
        names = {obj["metadata"]["name"] for obj in wanted}
        for obj in self.api.cluster.list(resource):
            meta = obj["metadata"]
            annotations = meta.get("annotations") or {}
            if meta["name"] in names or parse_bool(annotations.get(AUTO_UPDATE)) is not True:
                continue
            await self.api.delete(resource, "", meta["name"])
