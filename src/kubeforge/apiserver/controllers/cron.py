"""Cron schedules as the CronJob controller reads them (robfig/cron's standard parser).

Five fields (minute, hour, day of month, month, day of week) with ``*``, ``?``, lists,
ranges, ``/`` steps and month/day names, or a descriptor (``@yearly``, ``@monthly``,
``@weekly``, ``@daily``/``@midnight``, ``@hourly``, ``@every <duration>``). When both
day fields are restricted a day matching either runs, as in robfig/cron. Written here
rather than taken from a library: the server's dependencies stay the ones it has, and
the semantics are robfig's, not another cron dialect's.

Entry points: ``Schedule.parse(text)`` (raises ``ValueError``), ``schedule.next_after(t)``,
``most_recent(schedule, earliest, now)`` (the CronJob controller's missed-start arithmetic).

>>> from datetime import datetime, timezone
>>> Schedule.parse("*/15 * * * *").next_after(datetime(2024, 1, 1, 0, 7, tzinfo=timezone.utc))
datetime.datetime(2024, 1, 1, 0, 15, tzinfo=datetime.timezone.utc)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["Schedule", "most_recent"]

_MONTHS = [
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "oct",
    "nov",
    "dec",
]
_DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
_DESCRIPTORS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(h|m|s|ms)")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
_HORIZON = timedelta(days=5 * 366)


def _value(text: str, names: list[str], offset: int) -> int:
    lowered = text.lower()
    if lowered in names:
        return names.index(lowered) + offset
    return int(text)


def _field(
    text: str, low: int, high: int, names: list[str] | None = None
) -> tuple[frozenset[int], bool]:
    """The values one field allows, and whether it was a bare ``*``/``?``."""
    offset = low if names is _MONTHS else 0
    values: set[int] = set()
    for part in text.split(","):
        span, _, step_text = part.partition("/")
        step = int(step_text) if step_text else 1
        if span in ("*", "?"):
            first, last = low, high
        elif "-" in span:
            a, b = span.split("-", 1)
            first, last = _value(a, names or [], offset), _value(b, names or [], offset)
        else:
            first = _value(span, names or [], offset)
            last = high if step_text else first
        if step < 1 or first < low or last > high or first > last:
            raise ValueError(f"value out of range in {text!r}")
        values.update(range(first, last + 1, step))
    return frozenset(values), text in ("*", "?")


@dataclass(frozen=True)
class Schedule:
    minutes: frozenset[int] = frozenset()
    hours: frozenset[int] = frozenset()
    days: frozenset[int] = frozenset()
    months: frozenset[int] = frozenset()
    weekdays: frozenset[int] = frozenset()
    any_day: bool = True
    any_weekday: bool = True
    every: timedelta | None = None

    @classmethod
    def parse(cls, text: str) -> Schedule:
        text = text.strip()
        if text.startswith("@every "):
            total = sum(float(n) * _UNITS[u] for n, u in _DURATION.findall(text[7:]))
            if total <= 0:
                raise ValueError(f"bad duration in {text!r}")
            return cls(every=timedelta(seconds=max(total, 1.0)))
        fields = _DESCRIPTORS.get(text, text).split()
        if len(fields) != 5:
            raise ValueError(f"expected exactly 5 fields, found {len(fields)}: {text}")
        days, any_day = _field(fields[2], 1, 31)
        weekdays, any_weekday = _field(fields[4], 0, 7, _DAYS)  # 7 is Sunday too
        return cls(
            minutes=_field(fields[0], 0, 59)[0],
            hours=_field(fields[1], 0, 23)[0],
            days=days,
            months=_field(fields[3], 1, 12, _MONTHS)[0],
            weekdays=frozenset(d % 7 for d in weekdays),
            any_day=any_day,
            any_weekday=any_weekday,
        )

    def _day_matches(self, t: datetime) -> bool:
        in_month = t.day in self.days
        in_week = (t.weekday() + 1) % 7 in self.weekdays
        if self.any_day or self.any_weekday:
            return in_month and in_week
        return in_month or in_week

    def next_after(self, after: datetime) -> datetime | None:
        """The first scheduled time strictly after ``after`` (in ``after``'s zone)."""
        if self.every is not None:
            return after + self.every - timedelta(microseconds=after.microsecond)
        t = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
        limit = after + _HORIZON
        while t <= limit:
            if t.month not in self.months:
                t = (t.replace(day=1, hour=0, minute=0) + timedelta(days=32)).replace(day=1)
            elif not self._day_matches(t):
                t = t.replace(hour=0, minute=0) + timedelta(days=1)
            elif t.hour not in self.hours:
                t = t.replace(minute=0) + timedelta(hours=1)
            elif t.minute not in self.minutes:
                t += timedelta(minutes=1)
            else:
                return t
        return None


def most_recent(
    schedule: Schedule, earliest: datetime, now: datetime
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
