"""The Job controller: pods until enough succeed, or the Job fails, in 1.32's terms.

Pods come from the template (``generateName: <job>-``; Indexed ones ``<job>-<i>-`` with
the ``batch.kubernetes.io/job-completion-index`` annotation and label, hostname and
``JOB_COMPLETION_INDEX``), each with the ``batch.kubernetes.io/job-tracking`` finalizer,
which comes off once the pod's end is counted in ``succeeded``/``failed``. Up to
``parallelism`` run at once (created in slow-start batches, ``FailedCreate`` when
refused), and after failures the next waits out the back-off (``job_backoff``: 10 s
doubling to 6 min; per index under ``backoffLimitPerIndex``, whose failed indexes go to
``status.failedIndexes``, failing the Job with ``FailedIndexes`` or
``MaxFailedIndexesExceeded``). Success (``completions`` reached, every index done, or a
``successPolicy`` rule) first sets ``SuccessCriteriaMet``; failure (``backoffLimit``,
``activeDeadlineSeconds``, a ``podFailurePolicy`` ``FailJob`` rule) first sets
``FailureTarget`` and deletes the running pods; ``Complete``/``Failed`` follow once no pod
runs, as with 1.32's JobManagedBy and JobPodReplacementPolicy. ``suspend`` deletes the
pods and sets ``Suspended``. Events: ``SuccessfulCreate``, ``Completed``, the failure
reason, ``Suspended``/``Resumed``.

Entry point: ``JobController(cluster)``.
"""

from __future__ import annotations

from typing import Any

from kubeforge.apiserver.controllers import job_rules as rules
from kubeforge.apiserver.controllers.cluster import Cluster, controller_of, copy
from kubeforge.apiserver.controllers.job_backoff import (
    DEFAULT_BACKOFF,
    BackoffStore,
    index_counts,
    index_wait,
    remaining,
)
from kubeforge.apiserver.controllers.job_pods import job_pod, last_failed_per_index
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, own_key
from kubeforge.apiserver.controllers.ownership import claim
from kubeforge.apiserver.controllers.podcontrol import Retries, create_pod, slow_start
from kubeforge.apiserver.controllers.ranking import is_active, is_ready, parse_time
from kubeforge.apiserver.storage.sqlite import ResourceKey

__all__ = ["JobController", "finished"]

_JOBS = ("batch", "jobs")
_PODS = ("", "pods")
_COMPONENT = "job-controller"


def finished(job: dict[str, Any]) -> str | None:
    """``Complete`` or ``Failed`` if the Job has that condition, else None."""
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return str(condition["type"])
    return None


def _phase(pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "Pending")


class JobController(ControllerLoop):
    resource = _JOBS
    account = _COMPONENT

    def __init__(self, cluster: Cluster, backoff: float = DEFAULT_BACKOFF) -> None:
        super().__init__(cluster)
        self._base = backoff
        self._backoff = BackoffStore()
        self._retries = Retries()

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {_JOBS: own_key, _PODS: lambda event: self.owned_keys(event.object, "Job")}

    async def sync(self, key: Key) -> float | None:
        job = self.cluster.get(_JOBS, *key)
        if job is None:
            await self._release_orphans(*key)
            return None
        if job["metadata"].get("deletionTimestamp") or finished(job):
            self._backoff.forget(job["metadata"]["uid"])
            return None
        spec = job.get("spec") or {}
        pods = await claim(self.api, _PODS, job, spec.get("selector") or {}, is_active)
        status = copy({"s": job.get("status") or {}})["s"]
        target = await self._account(job, pods, status)
        pods = [p for p in self.cluster.list(_PODS, key[0]) if _mine(p, job)]
        again = None
        if target is None:
            target = self._terminal(job, pods, status)
        if target is not None:
            await self._finish(job, pods, status, target)
        elif spec.get("suspend"):
            await self._suspend(job, pods, status)
        else:
            again = await self._progress(job, pods, status)
            pods = [p for p in self.cluster.list(_PODS, key[0]) if _mine(p, job)]
        await self._write(job, pods, status)
        return again

    # --- counting ---------------------------------------------------------------------------

    async def _account(
        self, job: dict[str, Any], pods: list[dict[str, Any]], status: dict[str, Any]
    ) -> tuple[str, str, str] | None:
        """Count finished (or deleted: they count as failed) pods still holding the tracking
        finalizer, then release them; feed the back-off record and, per index, the failed
        indexes; returns a FailJob rule's verdict."""
        verdict = None
        spec = job.get("spec") or {}
        indexed = spec.get("completionMode") == "Indexed"
        done = rules.parse_indexes(status.get("completedIndexes"))
        lost = rules.parse_indexes(status.get("failedIndexes"))
        succeeded: list[dict[str, Any]] = []
        failed: list[dict[str, Any]] = []
        for pod in pods:
            finalizers = pod["metadata"].get("finalizers") or []
            ended = _phase(pod) in ("Succeeded", "Failed") or pod["metadata"].get(
                "deletionTimestamp"
            )
            if not ended or rules.TRACKING_FINALIZER not in finalizers:
                continue
            index = rules.pod_index(pod)
            if _phase(pod) == "Succeeded":
                succeeded.append(pod)
                status["succeeded"] = int(status.get("succeeded") or 0) + 1
                if indexed and index is not None:
                    done.add(index)
            else:
                failed.append(pod)
                matched = rules.failure_rule(job, pod)
                if matched is None or matched[0] != "Ignore":
                    status["failed"] = int(status.get("failed") or 0) + 1
                if matched is not None and matched[0] == "FailJob":
                    verdict = ("Failed", "PodFailurePolicy", matched[1])
                if index is not None and rules.index_failed(job, pod, matched):
                    lost.add(index)
            body = copy(pod)
            body["metadata"]["finalizers"] = [
                f for f in finalizers if f != rules.TRACKING_FINALIZER
            ]
            await self.api.update(_PODS, body)
        self._backoff.update(job["metadata"]["uid"], succeeded, failed)
        if indexed:
            status["completedIndexes"] = rules.format_indexes(done)
        if indexed and spec.get("backoffLimitPerIndex") is not None:
            status["failedIndexes"] = rules.format_indexes(lost - done)
        return verdict

    def _terminal(
        self, job: dict[str, Any], pods: list[dict[str, Any]], status: dict[str, Any]
    ) -> tuple[str, str, str] | None:
        """``(Complete|Failed, reason, message)`` once the Job has succeeded or failed."""
        for condition in status.get("conditions") or []:
            if condition.get("type") in ("SuccessCriteriaMet", "FailureTarget"):
                kind = "Complete" if condition["type"] == "SuccessCriteriaMet" else "Failed"
                return kind, str(condition.get("reason")), str(condition.get("message"))
        spec = job.get("spec") or {}
        active = [p for p in pods if is_active(p)]
        limit = int(spec.get("backoffLimit", 6))
        if int(status.get("failed") or 0) > limit or rules.past_restart_limit(job, active):
            return "Failed", "BackoffLimitExceeded", rules.REASONS["BackoffLimitExceeded"]
        started = parse_time(status.get("startTime"))
        deadline = spec.get("activeDeadlineSeconds")
        running_for = self.cluster.wall_time() - started if started is not None else 0.0
        if deadline is not None and not spec.get("suspend") and running_for >= int(deadline):
            return "Failed", "DeadlineExceeded", rules.REASONS["DeadlineExceeded"]
        succeeded = int(status.get("succeeded") or 0)
        completions = spec.get("completions")
        if spec.get("completionMode") == "Indexed":
            done = rules.parse_indexes(status.get("completedIndexes"))
            lost = rules.index_verdict(job, done, rules.parse_indexes(status.get("failedIndexes")))
            if lost is not None:
                return "Failed", lost, rules.REASONS[lost]
            position = rules.success_rule(job, done)
            if position is not None:
                return "Complete", "SuccessPolicy", f"Matched rules at index {position}"
            reached = completions is not None and len(done) >= int(completions)
        elif completions is None:
            reached = succeeded > 0 and not active  # a work queue: one success, nothing left
        else:
            reached = succeeded >= int(completions)
        if reached:
            return "Complete", "CompletionsReached", rules.REASONS["CompletionsReached"]
        return None

    # --- acting -----------------------------------------------------------------------------

    async def _finish(
        self,
        job: dict[str, Any],
        pods: list[dict[str, Any]],
        status: dict[str, Any],
        target: tuple[str, str, str],
    ) -> None:
        kind, reason, message = target
        interim = "SuccessCriteriaMet" if kind == "Complete" else "FailureTarget"
        now = self.cluster.now()
        rules.set_condition(status, interim, reason, message, now)
        for pod in pods:
            if is_active(pod):
                meta = pod["metadata"]
                await self.api.delete(_PODS, meta["namespace"], meta["name"], uid=meta["uid"])
        if any(_phase(p) not in ("Succeeded", "Failed") for p in pods):
            return  # the terminal condition waits until no pod of the Job runs
        rules.set_condition(status, kind, reason, message, now)
        if kind == "Complete":
            status["completionTime"] = now
            self._event(job, "Normal", "Completed", "Job completed")
        else:
            self._event(job, "Warning", reason, message)

    async def _suspend(
        self, job: dict[str, Any], pods: list[dict[str, Any]], status: dict[str, Any]
    ) -> None:
        for pod in pods:
            if is_active(pod):
                meta = pod["metadata"]
                await self.api.delete(_PODS, meta["namespace"], meta["name"], uid=meta["uid"])
        if rules.condition(status, "Suspended").get("status") != "True":
            rules.set_condition(
                status, "Suspended", "JobSuspended", "Job suspended", self.cluster.now()
            )
            status.pop("startTime", None)
            self._event(job, "Normal", "Suspended", "Job suspended")

    async def _progress(
        self, job: dict[str, Any], pods: list[dict[str, Any]], status: dict[str, Any]
    ) -> float | None:
        spec = job.get("spec") or {}
        if rules.condition(status, "Suspended").get("status") == "True":
            rules.set_condition(
                status,
                "Suspended",
                "JobResumed",
                "Job resumed",
                self.cluster.now(),
                state="False",
            )
            self._event(job, "Normal", "Resumed", "Job resumed")
        status.setdefault("startTime", self.cluster.now())
        active = [p for p in pods if is_active(p)]
        active = await self._drop_failed_indexes(job, active, status)
        room = int(spec.get("parallelism", 1)) - len(active)
        if spec.get("podReplacementPolicy") == "Failed":
            room -= sum(1 for p in pods if _terminating(p))  # replaced once they have failed
        missing = self._missing(job, active, status)[: max(room, 0)]
        waits = [await self._create_missing(job, pods, missing)]
        deadline = spec.get("activeDeadlineSeconds")
        started = parse_time(status.get("startTime"))
        if deadline is not None and started is not None:
            waits.append(max(started + int(deadline) - self.cluster.wall_time(), 0.0))
        known = [w for w in waits if w is not None]
        return min(known) if known else None

    async def _drop_failed_indexes(
        self, job: dict[str, Any], active: list[dict[str, Any]], status: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """A failed index's pods still running are deleted (``backoffLimitPerIndex``)."""
        lost = rules.parse_indexes(status.get("failedIndexes"))
        kept = []
        for pod in active:
            if rules.pod_index(pod) in lost:
                meta = pod["metadata"]
                await self.api.delete(_PODS, meta["namespace"], meta["name"], uid=meta["uid"])
            else:
                kept.append(pod)
        return kept

    def _missing(
        self, job: dict[str, Any], active: list[dict[str, Any]], status: dict[str, Any]
    ) -> list[int | None]:
        spec = job.get("spec") or {}
        completions = spec.get("completions")
        if spec.get("completionMode") == "Indexed":
            taken = rules.parse_indexes(status.get("completedIndexes"))
            taken |= rules.parse_indexes(status.get("failedIndexes"))
            taken |= {i for p in active if (i := rules.pod_index(p)) is not None}
            return [i for i in range(int(completions or 0)) if i not in taken]
        succeeded = int(status.get("succeeded") or 0)
        if completions is None:
            wanted = int(spec.get("parallelism", 1)) if succeeded == 0 else 0
        else:
            wanted = int(completions) - succeeded
        return [None] * max(wanted - len(active), 0)

    async def _create_missing(
        self, job: dict[str, Any], pods: list[dict[str, Any]], missing: list[int | None]
    ) -> float | None:
        """Create the missing pods unless the Job (or, per index, the index) is backing
        off; seconds until the first back-off ends, if that held every create back."""
        if not missing:
            return None
        now = self.cluster.wall_time()
        counts: dict[int | None, tuple[int, int] | None] = dict.fromkeys(missing)
        if (job.get("spec") or {}).get("backoffLimitPerIndex") is None:
            record = self._backoff.record(job["metadata"]["uid"])
            delay = remaining(record.failures, record.last_failure, self._base, now)
            if delay > 0:
                return delay
        else:
            last = last_failed_per_index(pods)
            waits = {i: index_wait(last.get(i), self._base, now) for i in missing if i is not None}
            due = [i for i, wait in waits.items() if wait == 0]
            if not due:
                return min(waits.values())
            counts = {
                i: index_counts(last.get(i), rules.counts_as_failure(job, last.get(i))) for i in due
            }
        pending = iter(counts.items())
        _, refusal = await slow_start(len(counts), lambda: self._create(job, *next(pending)))
        uid = job["metadata"]["uid"]
        if refusal is None:
            self._retries.forget(uid)
            return None
        return self._retries.failed(uid)  # recorded as FailedCreate; the rate-limited requeue

    async def _create(
        self, job: dict[str, Any], index: int | None, counts: tuple[int, int] | None
    ) -> None:
        await create_pod(self.api, job, job_pod(job, index, counts), _COMPONENT)

    async def _release_orphans(self, namespace: str, name: str) -> None:
        """A deleted Job's pods lose the tracking finalizer, so they can go."""
        for pod in self.cluster.list(_PODS, namespace):
            ref = controller_of(pod)
            finalizers = pod["metadata"].get("finalizers") or []
            if (
                ref is not None
                and ref.get("kind") == "Job"
                and ref.get("name") == name
                and rules.TRACKING_FINALIZER in finalizers
            ):
                body = copy(pod)
                body["metadata"]["finalizers"] = [
                    f for f in finalizers if f != rules.TRACKING_FINALIZER
                ]
                await self.api.update(_PODS, body)

    async def _write(
        self, job: dict[str, Any], pods: list[dict[str, Any]], status: dict[str, Any]
    ) -> None:
        active = [p for p in pods if is_active(p)]
        status["active"] = len(active)
        status["ready"] = sum(is_ready(p) for p in active)
        status["terminating"] = sum(_terminating(p) for p in pods)
        status["uncountedTerminatedPods"] = {}
        for field in ("active", "succeeded", "failed"):
            if not status.get(field):
                status.pop(field, None)
        if status.get("completedIndexes") == "":
            status.pop("completedIndexes")
        if status != (job.get("status") or {}):
            current = self.cluster.get(_JOBS, job["metadata"]["namespace"], job["metadata"]["name"])
            if current is not None:
                body = copy(current)
                body["status"] = status
                await self.api.update_status(_JOBS, body)

    def _event(self, job: dict[str, Any], kind: str, reason: str, message: str) -> None:
        self.cluster.record(job, kind, reason, message, component=_COMPONENT)


def _mine(pod: dict[str, Any], job: dict[str, Any]) -> bool:
    ref = controller_of(pod)
    return ref is not None and ref.get("uid") == job["metadata"].get("uid")


def _terminating(pod: dict[str, Any]) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp")) and _phase(pod) not in (
        "Succeeded",
        "Failed",
    )
