"""The CronJob controller: a Job per scheduled time, as kube-controller-manager's cronjob v2.

Times come from ``spec.schedule`` in ``spec.timeZone`` (UTC without one, the zone
kube-controller-manager runs in on most clusters). Each sync takes the most recent start
time since ``lastScheduleTime`` (or creation) — no earlier than ``startingDeadlineSeconds``
ago — and creates ``<cronjob>-<minutes since the epoch>`` from the job template
(annotated ``batch.kubernetes.io/cronjob-scheduled-timestamp``), unless ``suspend`` is
set or ``concurrencyPolicy`` says otherwise (``Forbid``: not while one runs,
``JobAlreadyActive``; ``Replace``: the running ones are deleted first). More than 100
missed start times warn ``TooManyMissedTimes``. ``status.active`` lists the Jobs it
started that still run, ``lastScheduleTime`` and ``lastSuccessfulTime`` follow them, and
finished Jobs beyond ``successfulJobsHistoryLimit``/``failedJobsHistoryLimit`` are
deleted. Events: ``SuccessfulCreate`` (``Created job <name>``), ``SawCompletedJob``,
``SuccessfulDelete``, ``UnexpectedJob``, ``MissingJob``, ``UnknownTimeZone``,
``UnsupportedSchedule`` (a schedule naming ``TZ``), ``UnparseableSchedule``,
``InvalidSchedule`` (a schedule that never fires, such as February 31st).

Entry point: ``CronJobController(cluster)``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from kubeforge.apiserver.builtin.batch.cronschedule import load_location, parse_standard
from kubeforge.apiserver.controllers.cluster import (
    Cluster,
    controller_of,
    copy,
    owner_reference,
)
from kubeforge.apiserver.controllers.cron import most_recent, schedule_text
from kubeforge.apiserver.controllers.job import finished
from kubeforge.apiserver.controllers.loop import ControllerLoop, Key, KeyMapper, own_key
from kubeforge.apiserver.controllers.podcontrol import Retries, terminating_namespace
from kubeforge.apiserver.controllers.ranking import parse_time
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.storage.sqlite import ResourceKey

__all__ = ["CronJobController"]

_CRONJOBS = ("batch", "cronjobs")
_JOBS = ("batch", "jobs")
_COMPONENT = "cronjob-controller"
_SCHEDULED = "batch.kubernetes.io/cronjob-scheduled-timestamp"
_MAX_MISSED = 100
_TOO_MANY = (
    "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"
)
_ALREADY_ACTIVE = (
    "Not starting job because prior execution is running and concurrency policy is Forbid"
)


def _zone(spec: dict[str, Any]) -> tzinfo:
    """The zone the scheduled-timestamp annotation is written in (UTC without one)."""
    try:
        return load_location(str(spec.get("timeZone") or "")) or UTC
    except ValueError:
        return UTC


def _rfc3339(moment: datetime) -> str:
    """Go's ``time.RFC3339`` in the schedule's zone (``Z`` for UTC)."""
    text = moment.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _tz_message(spec: dict[str, Any]) -> str:
    """``formatSchedule``'s warning for a schedule that names its zone itself."""
    return (
        f"CRON_TZ or TZ used in schedule {json.dumps(spec.get('schedule'))} is not officially "
        "supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ "
        "for more details"
    )


class CronJobController(ControllerLoop):
    resource = _CRONJOBS
    account = _COMPONENT

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(cluster)
        self._retries = Retries()

    def key_mappers(self) -> dict[ResourceKey, KeyMapper]:
        return {_CRONJOBS: own_key, _JOBS: lambda event: self.owned_keys(event.object, "CronJob")}

    async def sync(self, key: Key) -> float | None:
        cronjob = self.cluster.get(_CRONJOBS, *key)
        if cronjob is None or cronjob["metadata"].get("deletionTimestamp"):
            return None
        uid = cronjob["metadata"]["uid"]
        jobs = [
            j
            for j in self.cluster.list(_JOBS, key[0])
            if (controller_of(j) or {}).get("uid") == uid
        ]
        status = copy({"s": cronjob.get("status") or {}})["s"]
        self._follow(cronjob, jobs, status)
        await self._trim_history(cronjob, jobs)
        try:
            again = await self._schedule(cronjob, status)
            self._retries.forget(key)
        except StatusError:  # a refused Job create (its event written): retried, rate-limited
            again = self._retries.failed(key)
        if status != (cronjob.get("status") or {}):
            body = copy(self.cluster.get(_CRONJOBS, *key) or cronjob)
            body["status"] = status
            await self.api.update_status(_CRONJOBS, body)
        return again

    def _follow(
        self,
        cronjob: dict[str, Any],
        jobs: list[dict[str, Any]],
        status: dict[str, Any],
    ) -> None:
        """``status.active`` as ``syncCronJob`` keeps it: a listed Job that finished leaves
        it (``SawCompletedJob``), one that is gone too (``MissingJob``); a running Job it
        does not list is reported (``UnexpectedJob``), not adopted; ``lastSuccessfulTime``
        follows the completed Jobs no longer listed."""
        active = [dict(ref) for ref in status.get("active") or []]
        listed = {ref.get("uid") for ref in active}
        for job in sorted(jobs, key=lambda j: str(j["metadata"].get("creationTimestamp"))):
            outcome, meta = finished(job), job["metadata"]
            if meta["uid"] not in listed and outcome is None:
                message = f"Saw a job that the controller did not create or forgot: {meta['name']}"
                self._event(cronjob, "Warning", "UnexpectedJob", message)
            elif meta["uid"] in listed and outcome is not None:
                active = [ref for ref in active if ref.get("uid") != meta["uid"]]
                message = f"Saw completed job: {meta['name']}, condition: {outcome}"
                self._event(cronjob, "Normal", "SawCompletedJob", message)
            elif outcome == "Complete":
                completed = (job.get("status") or {}).get("completionTime")
                last = status.get("lastSuccessfulTime")
                if completed and (parse_time(completed) or 0.0) > (parse_time(last) or 0.0):
                    status["lastSuccessfulTime"] = completed
        present = {job["metadata"]["uid"] for job in jobs}
        for ref in list(active):
            if ref.get("uid") in present:
                continue
            namespace = cronjob["metadata"]["namespace"]
            if self.cluster.get(_JOBS, namespace, str(ref.get("name"))) is None:
                message = f"Active job went missing: {ref.get('name')}"
                self._event(cronjob, "Normal", "MissingJob", message)
                active.remove(ref)
        if active:
            status["active"] = active
        else:
            status.pop("active", None)

    async def _trim_history(self, cronjob: dict[str, Any], jobs: list[dict[str, Any]]) -> None:
        spec = cronjob.get("spec") or {}
        limits = {
            "Complete": spec.get("successfulJobsHistoryLimit", 3),
            "Failed": spec.get("failedJobsHistoryLimit", 1),
        }
        for outcome, limit in limits.items():
            if limit is None:
                continue
            done = [j for j in jobs if finished(j) == outcome]
            done.sort(
                key=lambda j: str(
                    (j.get("status") or {}).get("startTime")
                    or j["metadata"].get("creationTimestamp")
                )
            )
            for job in done[: max(len(done) - int(limit), 0)]:
                await self._delete(cronjob, job)

    async def _delete(self, cronjob: dict[str, Any], job: dict[str, Any]) -> None:
        meta = job["metadata"]
        if await self.api.delete(
            _JOBS,
            meta["namespace"],
            meta["name"],
            uid=meta["uid"],
            propagation="Background",
        ):
            self._event(cronjob, "Normal", "SuccessfulDelete", f"Deleted job {meta['name']}")

    async def _schedule(self, cronjob: dict[str, Any], status: dict[str, Any]) -> float | None:
        """``syncCronJob`` from its time zone check on: a zone that does not load, a
        suspended CronJob or a schedule that does not parse starts nothing."""
        spec = cronjob.get("spec") or {}
        zone = spec.get("timeZone")
        if zone is not None:
            try:
                load_location(str(zone))
            except ValueError as error:
                message = f"invalid timeZone: {json.dumps(zone)}: {error}"  # Go's %q
                self._event(cronjob, "Warning", "UnknownTimeZone", message)
                return None
        if spec.get("suspend"):
            return None
        if "TZ" in str(spec.get("schedule") or ""):
            self._event(cronjob, "Warning", "UnsupportedSchedule", _tz_message(spec))
        try:
            schedule = parse_standard(schedule_text(spec))
        except ValueError as error:
            schedule_shown = json.dumps(spec.get("schedule"))  # Go's %q
            message = f"unparseable schedule: {schedule_shown} : {error}"
            self._event(cronjob, "Warning", "UnparseableSchedule", message)
            return None
        now = datetime.fromtimestamp(self.cluster.wall_time(), UTC)
        since_text = status.get("lastScheduleTime") or cronjob["metadata"].get("creationTimestamp")
        since = datetime.fromtimestamp(parse_time(since_text) or self.cluster.wall_time(), UTC)
        deadline = spec.get("startingDeadlineSeconds")
        if deadline is not None:  # nothing older than the deadline is started any more
            since = max(since, now - timedelta(seconds=int(deadline)))
        try:
            due, missed = most_recent(schedule, since, now)
        except ValueError as error:
            message = f"invalid schedule: {spec.get('schedule')} : {error}"
            self._event(cronjob, "Warning", "InvalidSchedule", message)
            return None
        if missed > _MAX_MISSED:
            self._event(cronjob, "Warning", "TooManyMissedTimes", _TOO_MANY)
        if due is not None:
            await self._start(cronjob, status, due, now)
        upcoming = schedule.next_after(max(due or since, now))
        if upcoming is None:
            return None
        return max((upcoming - now).total_seconds(), 0.0) + 0.01

    async def _start(
        self,
        cronjob: dict[str, Any],
        status: dict[str, Any],
        due: datetime,
        now: datetime,
    ) -> None:
        spec = cronjob.get("spec") or {}
        deadline = spec.get("startingDeadlineSeconds")
        if deadline is not None and (now - due).total_seconds() > int(deadline):
            when = due.astimezone(UTC).strftime("%a, %d %b %Y %H:%M:%S +0000")  # RFC1123Z
            message = f"Missed scheduled time to start a job: {when}"
            self._event(cronjob, "Warning", "MissSchedule", message)
            return  # lastScheduleTime stays: the real controller does not note a miss
        active = status.get("active") or []
        policy = spec.get("concurrencyPolicy", "Allow")
        if active and policy == "Forbid":
            self._event(cronjob, "Normal", "JobAlreadyActive", _ALREADY_ACTIVE)
            return  # tried again when the running Job ends
        if active and policy == "Replace":
            namespace = cronjob["metadata"]["namespace"]
            for ref in active:
                job = self.cluster.get(_JOBS, namespace, str(ref.get("name")))
                if job is not None:
                    await self._delete(cronjob, job)
            status.pop("active", None)
        job = self._job_for(cronjob, due)
        existing = self.cluster.get(
            _JOBS, cronjob["metadata"]["namespace"], job["metadata"]["name"]
        )
        if existing is None:
            existing = await self._create(cronjob, job)
            self._event(
                cronjob,
                "Normal",
                "SuccessfulCreate",
                f"Created job {existing['metadata']['name']}",
            )
        status["lastScheduleTime"] = _stamp(due)
        if finished(existing):
            return  # this minute's Job already ran: Job names are per minute, as for real
        meta = existing["metadata"]
        refs = [r for r in status.get("active") or [] if r.get("uid") != meta["uid"]]
        ref = {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "name": meta["name"],
            "namespace": meta["namespace"],
            "uid": meta["uid"],
            "resourceVersion": meta.get("resourceVersion"),
        }
        status["active"] = [*refs, ref]

    async def _create(self, cronjob: dict[str, Any], job: dict[str, Any]) -> dict[str, Any]:
        """Create the Job; a refusal is the Warning ``FailedCreate`` (not in a terminating
        namespace, as ``syncCronJob`` does) and is raised again."""
        try:
            return await self.api.create(_JOBS, cronjob["metadata"]["namespace"], job)
        except StatusError as error:
            if not terminating_namespace(error):
                self._event(cronjob, "Warning", "FailedCreate", f"Error creating job: {error}")
            raise

    def _job_for(self, cronjob: dict[str, Any], due: datetime) -> dict[str, Any]:
        template = copy((cronjob.get("spec") or {}).get("jobTemplate") or {})
        meta = template.get("metadata") or {}
        zone = _zone(cronjob.get("spec") or {})
        annotations = {
            **(meta.get("annotations") or {}),
            _SCHEDULED: _rfc3339(due.astimezone(zone)),
        }
        return {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": f"{cronjob['metadata']['name']}-{int(due.timestamp()) // 60}",
                "labels": dict(meta.get("labels") or {}),
                "annotations": annotations,
                "ownerReferences": [owner_reference(cronjob)],
            },
            "spec": template.get("spec") or {},
        }

    def _event(self, cronjob: dict[str, Any], kind: str, reason: str, message: str) -> None:
        self.cluster.record(cronjob, kind, reason, message, component=_COMPONENT)
