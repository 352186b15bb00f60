"""The one cron parser (robfig/cron v3.0.1's ``ParseStandard``) that validation and the
CronJob controller share: its refusals word for word, and its next times with robfig's
bitset semantics (day of week 0-6, the star bit deciding how the two day fields combine,
``TZ=`` prefixes, ``@every`` in whole seconds)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from kubeforge.apiserver.builtin.batch.cronschedule import parse_standard
from kubeforge.apiserver.controllers.cron import schedule_text

REFUSED = [
    ("61 * * * *", "end of range (61) above maximum (59): 61"),
    ("0 24 * * *", "end of range (24) above maximum (23): 24"),
    ("0 0 * * 7", "end of range (7) above maximum (6): 7"),
    ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("0 0 * 13 *", "end of range (13) above maximum (12): 13"),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("*/2/3 * * * *", "too many slashes: */2/3"),
    ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
    ("-1 * * * *", 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'),
    (
        "0 0 * * mon-xyz",
        'failed to parse int from xyz: strconv.Atoi: parsing "xyz": invalid syntax',
    ),
    (
        "99999999999999999999 * * * *",
        "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
        '"99999999999999999999": value out of range',
    ),
    ("0 * * * * x", "expected exactly 5 fields, found 6: [0 * * * * x]"),
    ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
    ("@foo", "unrecognized descriptor: @foo"),
    ("@daily ", "unrecognized descriptor: @daily "),
    (
        "@every 5q",
        'failed to parse duration @every 5q: time: unknown unit "q" in duration "5q"',
    ),
    ("@every 5", 'failed to parse duration @every 5: time: missing unit in duration "5"'),
    ("TZ=X 0 * * * *", "provided bad location X: unknown time zone X"),
    ("TZ=UTC", "expected exactly 5 fields, found 0: []"),  # robfig itself panics here
    ("CRON_TZ=../etc 0 * * * *", "provided bad location ../etc: time: invalid location name"),
]


@pytest.mark.parametrize(("schedule", "message"), REFUSED)
def test_refusals_are_robfigs_words(schedule: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_standard(schedule)
    assert str(caught.value) == message


def _at(text: str, zone: str = "UTC") -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC if zone == "UTC" else ZoneInfo(zone))


NEXT = [
    ("*/15 * * * *", "2024-01-01T00:07", "2024-01-01T00:15"),
    ("5/20 * * * *", "2024-01-01T00:30", "2024-01-01T00:45"),  # N/step runs to the end
    ("0 9 * * MON-fri", "2024-01-06T10:00", "2024-01-08T09:00"),  # names in any case
    ("0 0 13 * 5", "2024-01-01T00:00", "2024-01-05T00:00"),  # the 13th OR a Friday
    ("0 0 13 * *", "2024-01-01T00:00", "2024-01-13T00:00"),  # star day of week: AND
    ("0 0 13 * */1", "2024-01-01T00:00", "2024-01-13T00:00"),  # */1 keeps the star bit
    ("0 0 13 * */2", "2024-01-01T00:00", "2024-01-02T00:00"),  # */2 drops it: OR (a Tuesday)
    ("0 0 ? * 0", "2024-01-01T00:00", "2024-01-07T00:00"),  # ? is *
    ("0 0 1,,15 * *", "2024-01-02T00:00", "2024-01-15T00:00"),  # empty list items skipped
    ("@weekly", "2024-01-01T00:00", "2024-01-07T00:00"),
    ("@hourly", "2024-01-01T00:00:30", "2024-01-01T01:00"),
    ("@yearly", "2024-03-01T00:00", "2025-01-01T00:00"),
    ("@every 90s", "2024-01-01T00:00:00.250000", "2024-01-01T00:01:30"),
    ("@every 1500ms", "2024-01-01T00:00", "2024-01-01T00:00:01"),  # whole seconds only
    ("@every 10ms", "2024-01-01T00:00", "2024-01-01T00:00:01"),  # at least a second
    ("0 0 29 2 *", "2023-03-01T00:00", "2024-02-29T00:00"),
]


@pytest.mark.parametrize(("schedule", "after", "expected"), NEXT)
def test_next_times_follow_robfigs_bitsets(schedule: str, after: str, expected: str) -> None:
    assert parse_standard(schedule).next_after(_at(after)) == _at(expected)


def test_a_schedule_that_never_fires_has_no_next_time() -> None:
    assert parse_standard("0 0 31 2 *").next_after(_at("2024-01-01T00:00")) is None


def test_a_tz_prefix_gives_the_location_and_the_answer_stays_in_the_callers_zone() -> None:
    schedule = parse_standard("CRON_TZ=Asia/Tokyo 0 9 * * *")
    due = schedule.next_after(_at("2024-07-01T10:00"))
    assert due == _at("2024-07-02T00:00")
    assert due is not None and due.tzinfo is UTC


def test_the_controller_reads_time_zone_as_a_prefix_unless_the_schedule_names_one() -> None:
    assert schedule_text({"schedule": "0 9 * * *", "timeZone": "Asia/Tokyo"}) == (
        "TZ=Asia/Tokyo 0 9 * * *"
    )
    assert schedule_text({"schedule": "TZ=UTC 0 9 * * *", "timeZone": "Asia/Tokyo"}) == (
        "TZ=UTC 0 9 * * *"
    )
    assert schedule_text({"schedule": "0 9 * * *", "timeZone": "Nowhere/Else"}) == "0 9 * * *"
    tokyo = parse_standard(schedule_text({"schedule": "0 9 * * *", "timeZone": "Asia/Tokyo"}))
    assert tokyo.next_after(_at("2024-07-01T10:00")) == _at("2024-07-02T00:00")


def test_across_a_dst_change_hours_are_elapsed_time() -> None:
    # Europe/Berlin springs forward at 02:00 on 2024-03-31: 02:30 does not exist that day.
    schedule = parse_standard("TZ=Europe/Berlin 30 * * * *")
    due = schedule.next_after(_at("2024-03-31T00:45"))  # 01:45 in Berlin
    assert due is not None and due - _at("2024-03-31T00:45") == timedelta(minutes=45)
