"""The control plane's pure rules: cron schedules, job indexes and policies, rollout
arithmetic, template hashes and the scheduler's message, checked value by value."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from kubeforge.apiserver.builtin.batch.cronschedule import parse_standard
from kubeforge.apiserver.controllers import job_rules, rollout
from kubeforge.apiserver.controllers.cron import most_recent
from kubeforge.apiserver.controllers.scheduling import Verdict, failure_message


def _at(text: str, zone: str = "UTC") -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC if zone == "UTC" else ZoneInfo(zone))


@pytest.mark.parametrize(
    ("schedule", "after", "expected"),
    [
        ("*/15 * * * *", "2024-01-01T00:07", "2024-01-01T00:15"),
        ("0 9 * * mon-fri", "2024-01-06T10:00", "2024-01-08T09:00"),  # Saturday -> Monday
        ("@monthly", "2024-01-31T10:00", "2024-02-01T00:00"),
        ("0 0 13 * 5", "2024-01-01T00:00", "2024-01-05T00:00"),  # the 13th OR a Friday
        ("30 2 * * 0", "2024-01-01T00:00", "2024-01-07T02:30"),  # 0 is Sunday (7 is refused)
        ("0 0 29 2 *", "2023-03-01T00:00", "2024-02-29T00:00"),
        ("@every 90s", "2024-01-01T00:00", "2024-01-01T00:01:30"),
    ],
)
def test_next_scheduled_time(schedule: str, after: str, expected: str) -> None:
    assert parse_standard(schedule).next_after(_at(after)) == _at(expected)


def test_a_schedule_runs_in_its_time_zone() -> None:
    berlin = _at("2024-07-01T10:00", "Europe/Berlin")
    due = parse_standard("0 9 * * *").next_after(berlin)
    assert due is not None and due.astimezone(UTC) == _at("2024-07-02T07:00")


@pytest.mark.parametrize(
    "bad", ["* * * *", "61 * * * *", "* * * * mon-xyz", "@fortnightly", "0 0 * * 7"]
)
def test_a_bad_schedule_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_standard(bad)


def test_completed_indexes_are_written_as_intervals() -> None:
    assert job_rules.format_indexes({0, 1, 2, 4, 6, 7}) == "0-2,4,6,7"  # a pair is not a range
    assert job_rules.parse_indexes("0-2,4,6-7") == {0, 1, 2, 4, 6, 7}
    assert job_rules.format_indexes(set()) == ""


def test_success_policy_rules_match_by_indexes_or_count() -> None:
    job = {
        "spec": {
            "successPolicy": {
                "rules": [
                    {"succeededIndexes": "0-1"},
                    {"succeededIndexes": "2-9", "succeededCount": 2},
                ]
            }
        }
    }
    assert job_rules.success_rule(job, {0}) is None
    assert job_rules.success_rule(job, {0, 1}) == 0
    assert job_rules.success_rule(job, {3, 5}) == 1


def test_a_pod_failure_policy_rule_matches_an_exit_code() -> None:
    job = {
        "spec": {
            "podFailurePolicy": {
                "rules": [
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
                    {"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [0, 1]}},
                ]
            }
        }
    }
    pod = {
        "metadata": {"name": "p", "namespace": "ns"},
        "status": {
            "containerStatuses": [{"name": "main", "state": {"terminated": {"exitCode": 2}}}]
        },
    }
    assert job_rules.failure_rule(job, pod) == (
        "FailJob",
        "Container main for pod ns/p failed with exit code 2 matching FailJob rule at index 1",
    )
    pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] = 1
    assert job_rules.failure_rule(job, pod) is None


@pytest.mark.parametrize(
    ("replicas", "surge", "unavailable", "expected"),
    [
        (3, "25%", "25%", (1, 0)),
        (10, "25%", "25%", (3, 2)),
        (4, 0, 0, (0, 1)),
        (5, 2, "50%", (2, 2)),
    ],
)
def test_surge_rounds_up_and_unavailable_down(
    replicas: int, surge: object, unavailable: object, expected: tuple[int, int]
) -> None:
    strategy = {"rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}
    deployment = {"spec": {"replicas": replicas, "strategy": strategy}}
    assert rollout.surge_and_unavailable(deployment) == expected


def test_the_template_hash_ignores_null_fields_and_uses_the_safe_alphabet() -> None:
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": []}}
    with_null = {"metadata": {"labels": {"app": "web"}, "creationTimestamp": None}, **template}
    pod_hash = rollout.template_hash(template, 0)
    assert set(pod_hash) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert rollout.same_template(template, with_null)
    assert rollout.template_hash(template, 1) != pod_hash


def test_proportional_scaling_shares_by_size() -> None:
    assert rollout.proportional_sizes([6, 3], 3) == [8, 4]
    assert rollout.proportional_sizes([6, 3], -3) == [4, 2]


def test_the_failed_scheduling_message_sorts_count_and_reason_together() -> None:
    verdicts = [
        Verdict(("node(s) had untolerated taint {dedicated: gpu}",), resolvable=False),
        Verdict(("Insufficient cpu",)),
        Verdict(("Insufficient cpu",)),
    ]
    assert failure_message(verdicts, 3) == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
        "2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not "
        "helpful for scheduling, 2 No preemption victims found for incoming pod."
    )


def test_missed_start_times_are_estimated_as_the_cronjob_controller_does() -> None:
    every_minute = parse_standard("* * * * *")
    latest, missed = most_recent(every_minute, _at("2024-01-01T00:00"), _at("2024-01-01T03:00:30"))
    assert (latest, missed) == (_at("2024-01-01T03:00"), 180)
    assert most_recent(every_minute, _at("2024-01-01T00:00"), _at("2024-01-01T00:00:30")) == (
        None,
        0,
    )
    with pytest.raises(ValueError, match="less than 1 second"):
        most_recent(
            parse_standard("59 23 31 2 *"), _at("2024-01-01T00:00"), _at("2024-03-01T00:00")
        )
