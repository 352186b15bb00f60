"""The CronJob controller's missed start times, as 1.32's ``cronjob_controllerv2``: a
``lastScheduleTime`` hours ago (a controller that was down) starts only the most recent
missed time, warns ``TooManyMissedTimes`` past 100 unless ``startingDeadlineSeconds``
narrows the window, ``Forbid`` reports ``JobAlreadyActive``, a Job it did not start is
``UnexpectedJob``, and ``lastSuccessfulTime`` follows the Jobs that complete."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from kf_http import Api
from kf_plane import events_for, until

MERGE = "application/merge-patch+json"
TOO_MANY = (
    "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"
)


def _cronjob(name: str, annotations: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {
            "schedule": "* * * * *",
            "suspend": True,
            **spec,
            "jobTemplate": {
                "spec": {
                    "template": {
                        "metadata": {"annotations": annotations or {}},
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [{"name": "main", "image": "busybox:1.36"}],
                        },
                    }
                }
            },
        },
    }


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def _last_scheduled(api: Api, path: str, ago: timedelta) -> str:
    """Write ``status.lastScheduleTime`` as if the last start was ``ago``; returns it."""
    stamp = _stamp(datetime.now(UTC) - ago)
    while True:
        body = (await api.get(path)).body
        body.setdefault("status", {})["lastScheduleTime"] = stamp
        if (await api.put(f"{path}/status", body)).status == 200:
            return stamp


async def _resume(api: Api, path: str) -> None:
    await api.patch(path, {"spec": {"suspend": False}}, MERGE)


async def _reasons(api: Api, namespace: str, name: str) -> list[str]:
    return [e["reason"] for e in await events_for(api, namespace, name)]


async def test_a_controller_down_for_hours_starts_only_the_latest_time_and_warns(
    api: Api, namespace: str
) -> None:
    path = f"/apis/batch/v1/namespaces/{namespace}/cronjobs/late"
    await api.post(f"/apis/batch/v1/namespaces/{namespace}/cronjobs", _cronjob("late"))
    written = await _last_scheduled(api, path, timedelta(hours=3))
    await _resume(api, path)
    cronjob = await until(api, path, lambda c: c["status"]["lastScheduleTime"] != written)
    latest = _time(cronjob["status"]["lastScheduleTime"])
    assert latest - _time(written) > timedelta(hours=2)
    (job,) = (await api.get(f"/apis/batch/v1/namespaces/{namespace}/jobs")).body["items"]
    assert job["metadata"]["name"] == f"late-{int(latest.timestamp()) // 60}"
    events = [
        e for e in await events_for(api, namespace, "late") if e["reason"] == "TooManyMissedTimes"
    ]
    assert events and (events[0]["type"], events[0]["message"]) == ("Warning", TOO_MANY)


async def test_a_starting_deadline_narrows_the_missed_times_it_counts(
    api: Api, namespace: str
) -> None:
    path = f"/apis/batch/v1/namespaces/{namespace}/cronjobs/narrow"
    body = _cronjob("narrow", startingDeadlineSeconds=300)
    await api.post(f"/apis/batch/v1/namespaces/{namespace}/cronjobs", body)
    written = await _last_scheduled(api, path, timedelta(hours=3))
    await _resume(api, path)
    await until(api, path, lambda c: c["status"]["lastScheduleTime"] != written)
    reasons = await _reasons(api, namespace, "narrow")
    assert "SuccessfulCreate" in reasons
    assert "TooManyMissedTimes" not in reasons


async def test_last_successful_time_follows_a_completed_job(api: Api, namespace: str) -> None:
    path = f"/apis/batch/v1/namespaces/{namespace}/cronjobs/done"
    await api.post(f"/apis/batch/v1/namespaces/{namespace}/cronjobs", _cronjob("done"))
    await _last_scheduled(api, path, timedelta(seconds=90))
    await _resume(api, path)
    cronjob = await until(api, path, lambda c: "lastSuccessfulTime" in c["status"])
    assert "active" not in cronjob["status"]
    (job,) = (await api.get(f"/apis/batch/v1/namespaces/{namespace}/jobs")).body["items"]
    assert cronjob["status"]["lastSuccessfulTime"] == job["status"]["completionTime"]
    reasons = await _reasons(api, namespace, "done")
    assert reasons.index("SuccessfulCreate") < reasons.index("SawCompletedJob")


async def test_forbid_reports_the_running_job_and_a_foreign_job_is_unexpected(
    api: Api, namespace: str
) -> None:
    cronjobs = f"/apis/batch/v1/namespaces/{namespace}/cronjobs"
    path = f"{cronjobs}/single"
    body = _cronjob(
        "single", concurrencyPolicy="Forbid", annotations={"kubeforge.dev/exit-after": "600"}
    )
    owner = (await api.post(cronjobs, body)).body
    await _last_scheduled(api, path, timedelta(seconds=90))
    await _resume(api, path)
    await until(api, path, lambda c: len(c["status"].get("active") or []) == 1)
    await _last_scheduled(api, path, timedelta(seconds=90))
    await until(
        api,
        f"/api/v1/namespaces/{namespace}/events",
        lambda e: any(i["reason"] == "JobAlreadyActive" for i in e["items"]),
        fieldSelector="involvedObject.name=single",
    )
    events = await events_for(api, namespace, "single")
    event = next(e for e in events if e["reason"] == "JobAlreadyActive")
    assert event["message"] == (
        "Not starting job because prior execution is running and concurrency policy is Forbid"
    )
    foreign = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "stowaway",
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "CronJob",
                    "name": "single",
                    "uid": owner["metadata"]["uid"],
                    "controller": True,
                }
            ],
        },
        "spec": body["spec"]["jobTemplate"]["spec"],
    }
    await api.post(f"/apis/batch/v1/namespaces/{namespace}/jobs", foreign)
    await until(
        api,
        f"/api/v1/namespaces/{namespace}/events",
        lambda e: any(
            i["message"] == "Saw a job that the controller did not create or forgot: stowaway"
            for i in e["items"]
        ),
        fieldSelector="involvedObject.name=single",
    )
    cronjob = (await api.get(path)).body
    assert "stowaway" not in {ref["name"] for ref in cronjob["status"]["active"]}


async def test_a_time_zone_places_the_schedule_and_the_scheduled_timestamp(
    api: Api, namespace: str
) -> None:
    # Asia/Kolkata is UTC+05:30: minute 30 there is minute 0 in UTC.
    path = f"/apis/batch/v1/namespaces/{namespace}/cronjobs/kolkata"
    body = _cronjob("kolkata", schedule="30 * * * *", timeZone="Asia/Kolkata")
    assert (await api.post(f"/apis/batch/v1/namespaces/{namespace}/cronjobs", body)).status == 201
    written = await _last_scheduled(api, path, timedelta(hours=3))
    await _resume(api, path)
    cronjob = await until(api, path, lambda c: c["status"]["lastScheduleTime"] != written)
    latest = _time(cronjob["status"]["lastScheduleTime"])
    assert (latest.minute, latest.second) == (0, 0)
    (job,) = (await api.get(f"/apis/batch/v1/namespaces/{namespace}/jobs")).body["items"]
    stamp = job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"]
    assert stamp.endswith(":30:00+05:30")
    assert datetime.fromisoformat(stamp) == latest
