"""Reading the cells of a row: safe steps into an object, and the shared workload columns.

A row function reads objects that validation may never have seen (a status written by a
client, a field of the wrong type), so every step here tolerates a missing or mistyped
value and yields what the real printers show for it (``<none>``, ``<unset>``, ``0``).
The per-kind row functions that use these live with their kinds, under ``builtin``.

Entry points: ``dict_at(obj, *keys)``, ``name_of(obj)``, ``created(obj, now)``,
``template_containers(pod_spec)``.

>>> dict_at({"spec": {"template": {"spec": {}}}}, "spec", "template"), dict_at({}, "status")
({'spec': {}}, {})
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubeforge.apiserver.printers.columns import age, column

__all__ = [
    "CONTAINERS_COLUMN",
    "IMAGES_COLUMN",
    "NONE",
    "SELECTOR_COLUMN",
    "UNSET",
    "bool_ptr",
    "created",
    "dict_at",
    "integer",
    "list_at",
    "name_of",
    "template_containers",
    "true_conditions",
]

NONE, UNSET = "<none>", "<unset>"

CONTAINERS_COLUMN = column(
    "Containers", "string", "Names of each container in the template.", priority=1
)
IMAGES_COLUMN = column(
    "Images", "string", "Images referenced by each container in the template.", priority=1
)
SELECTOR_COLUMN = column("Selector", "string", "The label selector of the pods.", priority=1)


def dict_at(obj: Any, *keys: str) -> dict[str, Any]:
    """``obj[k1][k2]...`` when every step is a dict, else ``{}``."""
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if isinstance(obj, dict) else {}


def list_at(obj: Any, *keys: str) -> list[Any]:
    """``obj[k1]...[kn]`` when it is a list (and every step before it a dict), else ``[]``."""
    *parents, last = keys
    value = dict_at(obj, *parents).get(last)
    return value if isinstance(value, list) else []


def name_of(obj: dict[str, Any]) -> str:
    return str(dict_at(obj, "metadata").get("name") or "")


def created(obj: dict[str, Any], now: datetime) -> str:
    """The ``Age`` cell: time since ``metadata.creationTimestamp``."""
    return age(dict_at(obj, "metadata").get("creationTimestamp"), now)


def integer(value: Any) -> int:
    """An int field as printed: ``0`` when unset or not an int."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def bool_ptr(value: Any) -> str:
    """An optional bool as printed: ``True``/``False``, ``<unset>`` when absent."""
    if not isinstance(value, bool):
        return UNSET
    return "True" if value else "False"


def true_conditions(obj: dict[str, Any]) -> set[str]:
    """The types of the object's status conditions whose status is ``True``."""
    return {
        str(c.get("type"))
        for c in dict_at(obj, "status").get("conditions") or []
        if isinstance(c, dict) and c.get("status") == "True"
    }


def template_containers(pod_spec: dict[str, Any]) -> tuple[str, str]:
    """The ``Containers`` and ``Images`` cells of a pod spec: comma-joined, in order."""
    containers = [c for c in pod_spec.get("containers") or [] if isinstance(c, dict)]
    names = ",".join(str(c.get("name") or "") for c in containers)
    return names, ",".join(str(c.get("image") or "") for c in containers)
