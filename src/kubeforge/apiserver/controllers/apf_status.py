"""The ``Dangling`` condition of every FlowSchema, as 1.32's APF config consumer writes it.

``k8s.io/apiserver`` ``pkg/util/flowcontrol/apf_controller.go`` (v0.32.0,
``presyncFlowSchemaStatus``): whenever the configuration changes, each FlowSchema whose
``Dangling`` condition is not what its priority level reference says gets one: ``False``
(reason ``Found``) when the PriorityLevelConfiguration it names exists, ``True`` (reason
``NotFound``) when it does not, with the time it was written and the consumer's words.
The other conditions are kept (it applies the one condition with server-side apply).
Only the status is written: requests are not classified, queued or refused by it.

Entry point: ``DanglingConditions(engine, registry, api)``, with ``start()``/``stop()``.
"""

from __future__ import annotations

from kubeforge.apiserver.controllers.cluster import copy
from kubeforge.apiserver.controllers.loop import StorageLoop
from kubeforge.apiserver.controllers.requests import ControllerRequests
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.storage.sqlite import Event

__all__ = ["DanglingConditions", "dangling_condition"]

_GROUP = "flowcontrol.apiserver.k8s.io"
_SCHEMAS = (_GROUP, "flowschemas")
_LEVELS = (_GROUP, "prioritylevelconfigurations")
_WATCHED = (_SCHEMAS, _LEVELS)


def dangling_condition(level: str, found: bool) -> dict[str, str]:
    """The condition's status, reason and message for a reference to ``level``."""
    if found:
        message = f'This FlowSchema references the PriorityLevelConfiguration object named "{level}" and it exists'  # noqa: E501
        return {"status": "False", "reason": "Found", "message": message}
    message = f'This FlowSchema references the PriorityLevelConfiguration object named "{level}" but there is no such object'  # noqa: E501
    return {"status": "True", "reason": "NotFound", "message": message}


class DanglingConditions(StorageLoop):
    """Rewrites the ``Dangling`` conditions after FlowSchema and level changes."""

    def __init__(self, api: ControllerRequests) -> None:
        super().__init__(api.cluster.engine, api.cluster.registry)
        self.api = api

    def wants(self, event: Event) -> bool:
        return event.resource in _WATCHED

    async def reconcile(self) -> None:
        cluster = self.api.cluster
        levels = {obj["metadata"]["name"] for obj in cluster.list(_LEVELS)}
        for schema in cluster.list(_SCHEMAS):
            level = str(
                ((schema.get("spec") or {}).get("priorityLevelConfiguration") or {}).get("name")
                or ""
            )
            wanted = dangling_condition(level, level in levels)
            status = schema.get("status") or {}
            conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
            current = next((c for c in conditions if c.get("type") == "Dangling"), {})
            if all(current.get(k) == v for k, v in wanted.items()):
                continue
            condition = {
                "type": "Dangling",
                "status": wanted["status"],
                "lastTransitionTime": cluster.now(),
                "reason": wanted["reason"],
                "message": wanted["message"],
            }
            kept = [c for c in conditions if c.get("type") != "Dangling"]
            body = copy(schema)
            body["status"] = {**status, "conditions": [*kept, condition]}
            try:
                await self.api.update_status(_SCHEMAS, body)
            except StatusError:
                continue  # deleted or changed meanwhile: its own event brings it back here
