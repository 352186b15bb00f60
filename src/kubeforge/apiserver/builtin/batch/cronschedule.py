"""Cron schedules exactly as robfig/cron v3.0.1's ``ParseStandard`` reads them.

Kubernetes 1.32 validates ``spec.schedule`` with that parser (its error text is the
field error's detail) and the CronJob controller times its Jobs with it, so both read
schedules here: five fields (minute 0-59, hour 0-23, day of month 1-31, month 1-12 or
``jan``-``dec``, day of week 0-6 or ``sun``-``sat``; ``7`` is out of range) of
comma-separated ``*``/``?``/``N``/``N-M`` with ``/step``, or a descriptor (``@yearly``,
``@annually``, ``@monthly``, ``@weekly``, ``@daily``, ``@midnight``, ``@hourly``,
``@every <Go duration>``), after an optional ``TZ=<zone>``/``CRON_TZ=<zone>`` prefix.
Each field is a bitset with robfig's star bit (a ``*``/``?`` range whose step is at most
1): a day matches when both day fields match, unless neither has the star bit, when
either may. ``@every`` runs whole seconds apart, at least one.

Written from robfig's behaviour (its parser.go, spec.go and constantdelay.go), not
taken as a dependency: the server's dependencies stay the ones it has.

Entry points: ``parse_standard(text)`` (a ``CronSchedule``; ``ValueError`` with robfig's
message), ``schedule.next_after(t)``, ``load_location(name)`` (Go's
``time.LoadLocation``).

>>> from datetime import datetime, timezone
>>> parse_standard("*/15 * * * *").next_after(datetime(2024, 1, 1, 0, 7, tzinfo=timezone.utc))
datetime.datetime(2024, 1, 1, 0, 15, tzinfo=datetime.timezone.utc)
>>> parse_standard("0 0 * * 7")
Traceback (most recent call last):
...
ValueError: end of range (7) above maximum (6): 7
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from kubeforge.apiserver.builtin.batch.cronfields import (
    DAYS_OF_MONTH,
    DAYS_OF_WEEK,
    HOURS,
    MINUTES,
    MONTHS,
    STAR,
    Bounds,
    every_bits,
    go_fields,
    parse_field,
)
from kubeforge.apiserver.builtin.batch.zones import load_location
from kubeforge.apiserver.meta.goduration import parse_go_duration

__all__ = ["CronSchedule", "load_location", "parse_standard"]

_SECOND = 1_000_000_000


@dataclass(frozen=True)
class CronSchedule:
    """A parsed schedule: robfig's ``SpecSchedule`` bitsets, or an ``@every`` delay."""

    minute: int = 0
    hour: int = 0
    dom: int = 0
    month: int = 0
    dow: int = 0
    location: tzinfo | None = None
    """``None`` is Go's ``time.Local``: times are read in the zone they are given in."""
    every: timedelta | None = None

    def next_after(self, after: datetime) -> datetime | None:
        """robfig's ``Next``: the first time strictly after ``after`` (an aware datetime),
        in ``after``'s zone; ``None`` (Go's zero time) when none comes within five years."""
        if self.every is not None:
            return after + self.every - timedelta(microseconds=after.microsecond)
        return _next_spec(self, after)


def _descriptor(text: str, location: tzinfo | None) -> CronSchedule:
    start = 1 << 0
    named = {
        "@yearly": (start, start, 1 << 1, 1 << 1, every_bits(DAYS_OF_WEEK)),
        "@annually": (start, start, 1 << 1, 1 << 1, every_bits(DAYS_OF_WEEK)),
        "@monthly": (start, start, 1 << 1, every_bits(MONTHS), every_bits(DAYS_OF_WEEK)),
        "@weekly": (start, start, every_bits(DAYS_OF_MONTH), every_bits(MONTHS), 1 << 0),
        "@daily": (
            start,
            start,
            every_bits(DAYS_OF_MONTH),
            every_bits(MONTHS),
            every_bits(DAYS_OF_WEEK),
        ),
        "@hourly": (
            start,
            every_bits(HOURS),
            every_bits(DAYS_OF_MONTH),
            every_bits(MONTHS),
            every_bits(DAYS_OF_WEEK),
        ),
    }
    named["@midnight"] = named["@daily"]
    if text in named:
        minute, hour, dom, month, dow = named[text]
        return CronSchedule(minute, hour, dom, month, dow, location)
    if text.startswith("@every "):
        try:
            nanos = parse_go_duration(text[len("@every ") :])
        except ValueError as error:
            raise ValueError(f"failed to parse duration {text}: {error}") from None
        # Every(): under a second is a second; anything finer than a second is dropped.
        nanos = max(nanos, _SECOND)
        whole = nanos - nanos % _SECOND
        return CronSchedule(location=location, every=timedelta(seconds=whole // _SECOND))
    raise ValueError(f"unrecognized descriptor: {text}")


def _split_location(text: str) -> tuple[str, tzinfo | None]:
    """The ``TZ=``/``CRON_TZ=`` prefix's zone and the rest, as ``Parser.Parse`` takes them."""
    if not (text.startswith("TZ=") or text.startswith("CRON_TZ=")):
        return text, None
    space = text.find(" ")
    if space < 0:
        # robfig slices spec[eq+1:-1] here and panics (a 500 from a real server); a zone
        # and nothing else is refused here as the fieldless schedule it is.
        raise ValueError("expected exactly 5 fields, found 0: []")
    name = text[text.index("=") + 1 : space]
    try:
        location = load_location(name)
    except ValueError as error:
        raise ValueError(f"provided bad location {name}: {error}") from None
    return text[space:].strip(), location


def parse_standard(text: str) -> CronSchedule:
    """``cron.ParseStandard(text)``; ``ValueError`` with robfig's words on failure."""
    if not text:
        raise ValueError("empty spec string")
    spec, location = _split_location(text)
    if spec.startswith("@"):
        return _descriptor(spec, location)
    fields = go_fields(spec)
    if len(fields) != 5:
        raise ValueError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    bounds: tuple[Bounds, ...] = (MINUTES, HOURS, DAYS_OF_MONTH, MONTHS, DAYS_OF_WEEK)
    minute, hour, dom, month, dow = (parse_field(f, b) for f, b in zip(fields, bounds, strict=True))
    return CronSchedule(minute, hour, dom, month, dow, location)


# --- Next ---------------------------------------------------------------------------------


def _date(
    zone: tzinfo, year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> datetime:
    """Go's ``time.Date`` in ``zone``: month and day past their ends roll over."""
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    wall = datetime(year, month, 1) + timedelta(
        days=day - 1, hours=hour, minutes=minute, seconds=second
    )
    return wall.replace(tzinfo=zone).astimezone(UTC).astimezone(zone)


def _add(moment: datetime, **delta: float) -> datetime:
    """Go's ``Time.Add``: elapsed time, not wall-clock time, across a DST change."""
    zone = moment.tzinfo
    assert zone is not None
    return (moment.astimezone(UTC) + timedelta(**delta)).astimezone(zone)


def _day_matches(schedule: CronSchedule, moment: datetime) -> bool:
    in_month = bool(1 << moment.day & schedule.dom)
    in_week = bool(1 << (moment.weekday() + 1) % 7 & schedule.dow)
    if schedule.dom & STAR or schedule.dow & STAR:
        return in_month and in_week
    return in_month or in_week


def _next_spec(schedule: CronSchedule, after: datetime) -> datetime | None:
    original = after.tzinfo
    assert original is not None
    zone = schedule.location or original
    t = _add(after.astimezone(zone), seconds=1, microseconds=-after.microsecond)
    added = False
    year_limit = t.year + 5
    while t.year <= year_limit:
        wrapped = False
        while not 1 << t.month & schedule.month:
            if not added:
                added, t = True, _date(zone, t.year, t.month, 1)
            t = _date(zone, t.year, t.month + 1, t.day, t.hour, t.minute, t.second)
            if t.month == 1:
                wrapped = True
                break
        if wrapped:
            continue
        while not _day_matches(schedule, t):
            if not added:
                added, t = True, _date(zone, t.year, t.month, t.day)
            t = _date(zone, t.year, t.month, t.day + 1, t.hour, t.minute, t.second)
            if t.hour:  # midnight skipped by a DST change: back to (or on to) a day start
                t = _add(t, hours=24 - t.hour if t.hour > 12 else -t.hour)
            if t.day == 1:
                wrapped = True
                break
        if wrapped:
            continue
        while not 1 << t.hour & schedule.hour:
            if not added:
                added, t = True, _date(zone, t.year, t.month, t.day, t.hour)
            t = _add(t, hours=1)
            if t.hour == 0:
                wrapped = True
                break
        if wrapped:
            continue
        while not 1 << t.minute & schedule.minute:
            if not added:
                added, t = True, t.replace(second=0, microsecond=0)
            t = _add(t, minutes=1)
            if t.minute == 0:
                wrapped = True
                break
        if wrapped:
            continue
        # Standard schedules fire at second 0 only.
        if t.second != 0:
            if not added:
                added, t = True, t.replace(microsecond=0)
            t = _add(t, seconds=60 - t.second)
            continue
        return t.astimezone(original)
    return None
