"""The Job controller: pods until enough succeed, or the Job fails, in 1.32's terms.

Pods come from the template (``generateName: <job>-``; Indexed ones ``<job>-<i>-`` with
the ``batch.kubernetes.io/job-completion-index`` annotation and label, hostname and
``JOB_COMPLETION_INDEX``), each with the ``batch.kubernetes.io/job-tracking`` finalizer,
which comes off once the pod's end is counted in ``succeeded``/``failed``. Up to
``parallelism`` run at once. Success (``completions`` reached, every index done, or a
``successPolicy`` rule) first sets ``SuccessCriteriaMet``; failure (``backoffLimit``,
``activeDeadlineSeconds``, a ``podFailurePolicy`` ``FailJob`` rule) first sets
``FailureTarget`` and deletes the running pods; ``Complete``/``Failed`` follow once no pod
runs, as with 1.32's JobManagedBy and JobPodReplacementPolicy. ``suspend`` deletes the
pods and sets ``Suspended``. Events: ``SuccessfulCreate``, ``Completed``, the failure
reason, ``Suspended``/``Resumed``.

Entry point: ``JobController(cluster)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubeforge.apiserver.controllers import job_rules as rules
from kubeforge.apiserver.controllers.cluster import controller_of, copy
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, key_of
from kubeforge.apiserver.controllers.ownership import claim
from kubeforge.apiserver.controllers.ranking import is_active, is_ready, parse_time
from kubeforge.apiserver.controllers.replicaset import pod_from_template
from kubeforge.apiserver.storage.sqlite import Event

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

    def keys_for(self, event: Event) -> Iterable[Key]:
        if event.resource == _JOBS:
            return (key_of(event.object),)
        if event.resource == _PODS:
            return self.owned_keys(event.object, "Job")
        return ()

    def sync(self, key: Key) -> float | None:
        job = self.cluster.get(_JOBS, *key)
        if job is None:
            self._release_orphans(*key)
            return None
        if job["metadata"].get("deletionTimestamp") or finished(job):
            return None
        spec = job.get("spec") or {}
        pods = claim(self.cluster, _PODS, job, spec.get("selector") or {}, is_active)
        status = copy({"s": job.get("status") or {}})["s"]
        target = self._account(job, pods, status)
        pods = [p for p in self.cluster.list(_PODS, key[0]) if _mine(p, job)]
        again = None
        if target is None:
            target = self._terminal(job, pods, status)
        if target is not None:
            self._finish(job, pods, status, target)
        elif spec.get("suspend"):
            self._suspend(job, pods, status)
        else:
            again = self._progress(job, pods, status)
            pods = [p for p in self.cluster.list(_PODS, key[0]) if _mine(p, job)]
        self._write(job, pods, status)
        return again

    # --- counting ---------------------------------------------------------------------------

    def _account(
        self, job: dict[str, Any], pods: list[dict[str, Any]], status: dict[str, Any]
    ) -> tuple[str, str, str] | None:
        """Count finished (or deleted: they count as failed) pods still holding the tracking
        finalizer, then release them; returns a FailJob rule's verdict."""
        verdict = None
        indexed = (job.get("spec") or {}).get("completionMode") == "Indexed"
        done = rules.parse_indexes(status.get("completedIndexes"))
        for pod in pods:
            finalizers = pod["metadata"].get("finalizers") or []
            ended = _phase(pod) in ("Succeeded", "Failed") or pod["metadata"].get(
                "deletionTimestamp"
            )
            if not ended or rules.TRACKING_FINALIZER not in finalizers:
                continue
            if _phase(pod) == "Succeeded":
                status["succeeded"] = int(status.get("succeeded") or 0) + 1
                index = rules.pod_index(pod)
                if indexed and index is not None:
                    done.add(index)
            else:
                matched = rules.failure_rule(job, pod)
                if matched is None or matched[0] != "Ignore":
                    status["failed"] = int(status.get("failed") or 0) + 1
                if matched is not None and matched[0] == "FailJob":
                    verdict = ("Failed", "PodFailurePolicy", matched[1])
            body = copy(pod)
            body["metadata"]["finalizers"] = [
                f for f in finalizers if f != rules.TRACKING_FINALIZER
            ]
            self.cluster.update(_PODS, body)
        if indexed:
            status["completedIndexes"] = rules.format_indexes(done)
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
        restarts = 0
        if (spec.get("template") or {}).get("spec", {}).get("restartPolicy") == "OnFailure":
            restarts = sum(
                int(s.get("restartCount") or 0)
                for p in active
                for s in (p.get("status") or {}).get("containerStatuses") or []
            )
        if int(status.get("failed") or 0) + restarts > int(spec.get("backoffLimit", 6)):
            return (
                "Failed",
                "BackoffLimitExceeded",
                rules.REASONS["BackoffLimitExceeded"],
            )
        started = parse_time(status.get("startTime"))
        deadline = spec.get("activeDeadlineSeconds")
        running_for = self.cluster.wall_time() - started if started is not None else 0.0
        if deadline is not None and not spec.get("suspend") and running_for >= int(deadline):
            return "Failed", "DeadlineExceeded", rules.REASONS["DeadlineExceeded"]
        succeeded = int(status.get("succeeded") or 0)
        completions = spec.get("completions")
        if spec.get("completionMode") == "Indexed":
            done = rules.parse_indexes(status.get("completedIndexes"))
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

    def _finish(
        self,
        job: dict[str, Any],
        pods: list[dict[str, Any]],
        status: dict[str, Any],
        target: tuple[str, str, str],
    ) -> None:
        kind, reason, message = target
        interim = "SuccessCriteriaMet" if kind == "Complete" else "FailureTarget"
        now = self.cluster.now()
        _set_condition(status, interim, reason, message, now)
        for pod in pods:
            if is_active(pod):
                meta = pod["metadata"]
                self.cluster.delete(_PODS, meta["namespace"], meta["name"], uid=meta["uid"])
        if any(_phase(p) not in ("Succeeded", "Failed") for p in pods):
            return  # the terminal condition waits until no pod of the Job runs
        _set_condition(status, kind, reason, message, now)
        if kind == "Complete":
            status["completionTime"] = now
            self._event(job, "Normal", "Completed", "Job completed")
        else:
            self._event(job, "Warning", reason, message)

    def _suspend(
        self, job: dict[str, Any], pods: list[dict[str, Any]], status: dict[str, Any]
    ) -> None:
        for pod in pods:
            if is_active(pod):
                meta = pod["metadata"]
                self.cluster.delete(_PODS, meta["namespace"], meta["name"], uid=meta["uid"])
        if _condition(status, "Suspended").get("status") != "True":
            _set_condition(status, "Suspended", "JobSuspended", "Job suspended", self.cluster.now())
            status.pop("startTime", None)
            self._event(job, "Normal", "Suspended", "Job suspended")

    def _progress(
        self, job: dict[str, Any], pods: list[dict[str, Any]], status: dict[str, Any]
    ) -> float | None:
        spec = job.get("spec") or {}
        if _condition(status, "Suspended").get("status") == "True":
            _set_condition(
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
        parallelism = int(spec.get("parallelism", 1))
        for index in self._missing(job, active, status)[: max(parallelism - len(active), 0)]:
            self._create(job, index)
        deadline = spec.get("activeDeadlineSeconds")
        started = parse_time(status.get("startTime"))
        if deadline is None or started is None:
            return None
        return max(started + int(deadline) - self.cluster.wall_time(), 0.0)

    def _missing(
        self, job: dict[str, Any], active: list[dict[str, Any]], status: dict[str, Any]
    ) -> list[int | None]:
        spec = job.get("spec") or {}
        completions = spec.get("completions")
        if spec.get("completionMode") == "Indexed":
            taken = rules.parse_indexes(status.get("completedIndexes"))
            taken |= {i for p in active if (i := rules.pod_index(p)) is not None}
            return [i for i in range(int(completions or 0)) if i not in taken]
        succeeded = int(status.get("succeeded") or 0)
        if completions is None:
            wanted = int(spec.get("parallelism", 1)) if succeeded == 0 else 0
        else:
            wanted = int(completions) - succeeded
        return [None] * max(wanted - len(active), 0)

    def _create(self, job: dict[str, Any], index: int | None) -> None:
        name = job["metadata"]["name"]
        template = (job.get("spec") or {}).get("template") or {}
        prefix = name if index is None else f"{name}-{index}"
        pod = pod_from_template(job, template, prefix)
        pod["metadata"]["finalizers"] = [
            *pod["metadata"].get("finalizers", []),
            rules.TRACKING_FINALIZER,
        ]
        if index is not None:
            pod["metadata"].setdefault("annotations", {})[rules.INDEX_ANNOTATION] = str(index)
            pod["metadata"]["labels"][rules.INDEX_ANNOTATION] = str(index)
            pod["spec"]["hostname"] = prefix
            for container in pod["spec"].get("containers") or []:
                env = [
                    e for e in container.get("env") or [] if e.get("name") != "JOB_COMPLETION_INDEX"
                ]
                env.append(
                    {
                        "name": "JOB_COMPLETION_INDEX",
                        "valueFrom": {
                            "fieldRef": {
                                "apiVersion": "v1",
                                "fieldPath": f"metadata.annotations['{rules.INDEX_ANNOTATION}']",
                            }
                        },
                    }
                )
                container["env"] = env
        created = self.cluster.create(_PODS, job["metadata"]["namespace"], pod)
        self._event(
            job,
            "Normal",
            "SuccessfulCreate",
            f"Created pod: {created['metadata']['name']}",
        )

    def _release_orphans(self, namespace: str, name: str) -> None:
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
                self.cluster.update(_PODS, body)

    def _write(
        self, job: dict[str, Any], pods: list[dict[str, Any]], status: dict[str, Any]
    ) -> None:
        active = [p for p in pods if is_active(p)]
        status["active"] = len(active)
        status["ready"] = sum(is_ready(p) for p in active)
        status["terminating"] = sum(
            1
            for p in pods
            if p["metadata"].get("deletionTimestamp") and _phase(p) not in ("Succeeded", "Failed")
        )
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
                self.cluster.update_status(_JOBS, body)

    def _event(self, job: dict[str, Any], kind: str, reason: str, message: str) -> None:
        self.cluster.record(job, kind, reason, message, component=_COMPONENT)


def _mine(pod: dict[str, Any], job: dict[str, Any]) -> bool:
    ref = controller_of(pod)
    return ref is not None and ref.get("uid") == job["metadata"].get("uid")


def _condition(status: dict[str, Any], kind: str) -> dict[str, Any]:
    for condition in status.get("conditions") or []:
        if condition.get("type") == kind:
            return dict(condition)
    return {}


def _set_condition(
    status: dict[str, Any],
    kind: str,
    reason: str,
    message: str,
    now: str,
    *,
    state: str = "True",
) -> None:
    current = _condition(status, kind)
    if current.get("status") == state and current.get("reason") == reason:
        return
    condition = {
        "type": kind,
        "status": state,
        "lastProbeTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }
    others = [c for c in status.get("conditions") or [] if c.get("type") != kind]
    status["conditions"] = [*others, condition]
