"""The CronJob controller's schedule arithmetic over robfig/cron schedules.

Schedules are read by ``builtin.batch.cronschedule`` (robfig/cron v3.0.1's parser, the
one the server validates with); this module holds ``mostRecentScheduleTime``'s sums and
``formatSchedule``: a schedule that names ``TZ`` is read as it is (and warned of), else
``spec.timeZone``, when it loads, becomes a ``TZ=`` prefix.

Entry points: ``schedule_text(spec)``, ``most_recent(schedule, earliest, now)``.

>>> schedule_text({"schedule": "0 9 * * *", "timeZone": "Europe/Paris"})
'TZ=Europe/Paris 0 9 * * *'
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from kubeforge.apiserver.builtin.batch.cronschedule import CronSchedule, load_location

__all__ = ["most_recent", "schedule_text"]


def schedule_text(spec: dict[str, Any]) -> str:
    """``formatSchedule``: the text the controller parses for ``spec``."""
    schedule = str(spec.get("schedule") or "")
    zone = spec.get("timeZone")
    if "TZ" in schedule or zone is None:
        return schedule
    try:
        load_location(str(zone))
    except ValueError:
        return schedule
    return f"TZ={zone} {schedule}"


def most_recent(
    schedule: CronSchedule, earliest: datetime, now: datetime
) -> tuple[datetime | None, int]:
    """``mostRecentScheduleTime``: the latest start time in ``(earliest, now]`` and how many
    were missed, estimated as the real controller does (elapsed time over the interval
    between the first two starts), so a start decades ago costs no more than a recent one.
    Raises ``ValueError`` for a schedule whose starts are under a second apart."""
    first = schedule.next_after(earliest)
    second = schedule.next_after(first) if first is not None else None
    if first is None or second is None:  # robfig's zero time: Go finds no interval either
        raise ValueError("time difference between two schedules is less than 1 second")
    if now < first:
        return None, 0
    if now < second:
        return first, 1
    interval = round((second - first).total_seconds())
    if interval < 1:
        raise ValueError("time difference between two schedules is less than 1 second")
    missed = int((now - first).total_seconds()) // interval + 1
    latest: datetime | None = None
    moment = schedule.next_after(first + timedelta(seconds=(missed - 2) * interval))
    while moment is not None and moment <= now:
        latest, moment = moment, schedule.next_after(moment)
    return latest, missed
