"""Event correlation rules (client-go's EventCorrelator) on a fake clock."""

from __future__ import annotations

from kubeforge.controller._correlator import Correlator, CorrelatorOptions
from kubeforge.core.clock import FakeClock
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.core_v1 import Event, EventSource, ObjectReference


def event(message: str = "pulled", reason: str = "Pulled", name: str = "web-0") -> Event:
    return Event(
        metadata=ObjectMeta(name=f"{name}.1", namespace="ns"),
        involved_object=ObjectReference(kind="Pod", name=name, namespace="ns", uid=f"uid-{name}"),
        reason=reason,
        message=message,
        type="Normal",
        count=1,
        first_timestamp="2025-01-01T00:00:00Z",
        last_timestamp="2025-01-01T00:00:00Z",
        source=EventSource(component="test"),
    )


def stored(e: Event, rv: str = "7") -> Event:
    e.metadata.resource_version = rv
    return e


def test_a_repeat_of_a_written_event_becomes_a_count_patch():
    correlator = Correlator(FakeClock())
    first = correlator.correlate(event(), lambda: "unused")
    assert first is not None and first.patch is None
    correlator.written(first, stored(first.event))
    again = event()
    again.last_timestamp = "2025-01-01T00:05:00Z"
    repeat = correlator.correlate(again, lambda: "unused")
    assert repeat is not None
    assert repeat.patch == {
        "count": 2,
        "lastTimestamp": "2025-01-01T00:05:00Z",
        "message": "pulled",
    }
    assert repeat.event.metadata.name == "web-0.1"
    assert repeat.event.first_timestamp == "2025-01-01T00:00:00Z"


def test_a_different_message_is_a_new_event():
    correlator = Correlator(FakeClock())
    first = correlator.correlate(event("one"), lambda: "unused")
    assert first is not None
    correlator.written(first, stored(first.event))
    other = correlator.correlate(event("two"), lambda: "unused")
    assert other is not None and other.patch is None and other.event.count == 1


def test_the_tenth_distinct_message_is_combined_and_later_ones_patch_the_combined_event():
    correlator = Correlator(FakeClock(), CorrelatorOptions(spam_burst=100))
    for i in range(9):
        result = correlator.correlate(event(f"message {i}"), lambda: "unused")
        assert result is not None and not result.event.message.startswith("(combined")
        correlator.written(result, stored(result.event))
    combined = correlator.correlate(event("message 9"), lambda: "web-0.combined")
    assert combined is not None
    assert combined.event.message == "(combined from similar events): message 9"
    assert combined.event.metadata.name == "web-0.combined" and combined.patch is None
    correlator.written(combined, stored(combined.event))
    next_one = correlator.correlate(event("message 10"), lambda: "never used")
    assert next_one is not None and next_one.patch is not None
    assert next_one.event.metadata.name == "web-0.combined"
    assert next_one.patch["message"] == "(combined from similar events): message 10"


def test_aggregation_starts_over_after_ten_quiet_minutes():
    clock = FakeClock()
    correlator = Correlator(clock, CorrelatorOptions(spam_burst=100))
    for i in range(9):
        assert correlator.correlate(event(f"m{i}"), lambda: "x") is not None
    clock.advance(601)
    fresh = correlator.correlate(event("m9"), lambda: "x")
    assert fresh is not None and fresh.event.message == "m9"


def test_the_spam_filter_allows_a_burst_per_object_then_one_per_refill():
    clock = FakeClock()
    correlator = Correlator(clock)
    allowed = [correlator.correlate(event(f"m{i}", reason=f"R{i}"), lambda: "x") for i in range(30)]
    assert sum(a is not None for a in allowed) == 25
    assert (
        correlator.correlate(event("other", name="web-1"), lambda: "x") is not None
    )  # its own bucket
    clock.advance(299)
    assert correlator.correlate(event("late", reason="Late"), lambda: "x") is None
    clock.advance(1)
    assert correlator.correlate(event("later", reason="Later"), lambda: "x") is not None
    assert correlator.correlate(event("again", reason="Again"), lambda: "x") is None
