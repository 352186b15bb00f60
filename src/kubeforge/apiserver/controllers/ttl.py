"""The TTL-after-finished controller: a finished Job goes ``ttlSecondsAfterFinished`` later.

A Job with ``Complete`` or ``Failed`` and a ``ttlSecondsAfterFinished`` is deleted (with
foreground propagation, so its pods go first) once that many seconds have passed since
it finished: its ``completionTime``, or the ``Failed`` condition's transition time.

Entry point: ``TTLAfterFinished(cluster)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers.job import finished
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key
from kubeforge.apiserver.controllers.ranking import parse_time

__all__ = ["TTLAfterFinished"]

_JOBS = ("batch", "jobs")


def _finished_at(job: dict[str, Any]) -> float | None:
    status = job.get("status") or {}
    if status.get("completionTime"):
        return parse_time(status["completionTime"])
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Failed" and condition.get("status") == "True":
            return parse_time(condition.get("lastTransitionTime"))
    return None


class TTLAfterFinished(ControllerLoop):
    resource = _JOBS
    account = "ttl-after-finished-controller"

    async def sync(self, key: Key) -> float | None:
        job = self.cluster.get(_JOBS, *key)
        if job is None or job["metadata"].get("deletionTimestamp") or not finished(job):
            return None
        ttl = (job.get("spec") or {}).get("ttlSecondsAfterFinished")
        ended = _finished_at(job)
        if ttl is None or ended is None:
            return None
        left = ended + int(ttl) - self.cluster.wall_time()
        if left > 0:
            return left
        meta = job["metadata"]
        await self.api.delete(_JOBS, *key, uid=meta["uid"], propagation="Foreground")
        return None
