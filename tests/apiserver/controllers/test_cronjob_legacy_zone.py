"""A CronJob stored before ``TZ=`` in schedules was refused (its data directory edited
here, as an older server would have left it): 1.32 still takes updates that keep the
zone in the schedule (allowTZInSchedule), warns of it on every such update, refuses
adding ``timeZone`` beside it, and the CronJob controller runs it in that zone while
warning ``UnsupportedSchedule`` (cronjob_controllerv2's formatSchedule)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from kf_http import Api, Reply, open_api
from kf_plane import events_for, until

from kubeforge.testing import LocalApiServer

MERGE = "application/merge-patch+json"
SCHEDULE = "CRON_TZ=Asia/Kolkata 30 * * * *"
TZ_WARNING = (
    "cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see "
    "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details"
)


def _warnings(reply: Reply) -> list[str]:
    return [h[len('299 - "') : -1] for h in reply.headers.getall("Warning", [])]


def _cronjob(name: str) -> dict[str, Any]:
    template = {"spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]}}
    template["spec"]["restartPolicy"] = "Never"
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {
            "schedule": "30 * * * *",
            "suspend": True,
            "jobTemplate": {"spec": {"template": template}},
        },
    }


def _store_spec(server: LocalApiServer, name: str, **spec: Any) -> None:
    """Rewrite fields of the stored CronJob's spec while the server is down."""
    assert server.data_dir is not None
    db = sqlite3.connect(server.data_dir / "kubeforge.db")
    try:
        (data,) = db.execute(
            "SELECT data FROM objects WHERE resource='cronjobs' AND name=?", (name,)
        ).fetchone()
        obj = json.loads(data)
        obj["spec"].update(spec)
        db.execute(
            "UPDATE objects SET data=? WHERE resource='cronjobs' AND name=?",
            (json.dumps(obj).encode(), name),
        )
        db.commit()
    finally:
        db.close()


async def test_a_stored_zone_in_the_schedule_is_kept_warned_of_and_followed(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory()
    path = "/apis/batch/v1/namespaces/default/cronjobs/legacy"
    async with await open_api(server) as session:
        api = Api(server, session)
        assert (await api.post(path.rsplit("/", 1)[0], _cronjob("legacy"))).status == 201
    server.stop()
    _store_spec(server, "legacy", schedule=SCHEDULE)
    server.start()
    async with await open_api(server) as session:
        api = Api(server, session)
        both = await api.patch(path, {"spec": {"timeZone": "UTC"}}, MERGE)
        assert both.status == 422
        assert both.body["details"]["causes"] == [
            {
                "reason": "FieldValueInvalid",
                "message": f'Invalid value: "{SCHEDULE}": cannot use both timeZone field and '
                "TZ or CRON_TZ in schedule",
                "field": "spec.schedule",
            }
        ]
        stamp = "2024-01-01T00:00:00Z"  # long ago: the latest missed start runs at once
        status = (await api.get(path)).body
        status["status"] = {"lastScheduleTime": stamp}
        assert (await api.put(f"{path}/status", status)).status == 200
        resumed = await api.patch(path, {"spec": {"suspend": False}}, MERGE)
        assert resumed.status == 200, resumed.body
        assert _warnings(resumed) == [TZ_WARNING]
        cronjob = await until(api, path, lambda c: c["status"]["lastScheduleTime"] != stamp)
        assert cronjob["status"]["lastScheduleTime"].endswith(":00:00Z")  # :30 in Kolkata
        reasons = {e["reason"]: e for e in await events_for(api, "default", "legacy")}
        unsupported = reasons["UnsupportedSchedule"]
        assert (unsupported["type"], unsupported["message"]) == (
            "Warning",
            f'CRON_TZ or TZ used in schedule "{SCHEDULE}" is not officially supported, see '
            "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more "
            "details",
        )


async def test_a_stored_time_zone_that_does_not_load_starts_nothing(
    kube_apiserver_factory: Callable[..., LocalApiServer],
) -> None:
    server = kube_apiserver_factory()
    path = "/apis/batch/v1/namespaces/default/cronjobs/lost"
    async with await open_api(server) as session:
        api = Api(server, session)
        body = _cronjob("lost")
        body["spec"]["suspend"] = False
        assert (await api.post(path.rsplit("/", 1)[0], body)).status == 201
    server.stop()
    _store_spec(server, "lost", timeZone="Atlantis/Capital")
    server.start()
    async with await open_api(server) as session:
        api = Api(server, session)
        await until(
            api,
            "/api/v1/namespaces/default/events",
            lambda e: any(i["reason"] == "UnknownTimeZone" for i in e["items"]),
            fieldSelector="involvedObject.name=lost",
        )
        (event,) = [e for e in await events_for(api, "default", "lost")]
        assert (event["type"], event["reason"], event["message"]) == (
            "Warning",
            "UnknownTimeZone",
            'invalid timeZone: "Atlantis/Capital": unknown time zone Atlantis/Capital',
        )
