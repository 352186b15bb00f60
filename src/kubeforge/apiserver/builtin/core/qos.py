"""A pod's quality-of-service class, as 1.32's ``ComputePodQOS`` gives it when the pod is
created (``status.qosClass``): ``BestEffort`` when no container asks for or caps cpu or
memory, ``Guaranteed`` when every container caps both and the pod's requests equal its
limits, else ``Burstable``. Init containers count; zero amounts do not.

Entry point: ``pod_qos_class(spec)``.

>>> capped = {"cpu": "1", "memory": "1Gi"}
>>> pod_qos_class({"containers": [{"resources": {"limits": capped, "requests": capped}}]})
'Guaranteed'
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kubeforge.apiserver.builtin.podspec.resources import quantity_value

__all__ = ["pod_qos_class"]

_QOS_RESOURCES = ("cpu", "memory")


def _positive(amounts: Any) -> dict[str, Fraction]:
    found = {}
    for name in _QOS_RESOURCES:
        value = quantity_value(amounts.get(name)) if isinstance(amounts, dict) else None
        if value is not None and value > 0:
            found[name] = value
    return found


def pod_qos_class(spec: dict[str, Any]) -> str:
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    for key in ("containers", "initContainers"):
        for container in spec.get(key) or []:
            resources = (container.get("resources") if isinstance(container, dict) else None) or {}
            asked, capped = _positive(resources.get("requests")), _positive(resources.get("limits"))
            for name, value in asked.items():
                requests[name] = requests.get(name, Fraction(0)) + value
            for name, value in capped.items():
                limits[name] = limits.get(name, Fraction(0)) + value
            guaranteed = guaranteed and len(capped) == len(_QOS_RESOURCES)
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(limits.get(n) == v for n, v in requests.items()):
        return "Guaranteed" if len(requests) == len(limits) else "Burstable"
    return "Burstable"
