"""Event aggregation and spam filtering, as client-go's ``EventCorrelator`` does it.

Pure logic over ``core/v1`` ``Event`` objects and a clock; ``EventRecorder`` feeds
every new event through ``Correlator.correlate`` and writes what comes out. Three
steps, in client-go's order:

1. **Aggregate**: events alike but for their message (same source, object, type and
   reason) are counted per 10 minutes; from the 10th distinct message on, they are
   folded into one event whose message starts ``(combined from similar events):``.
2. **Observe**: an event equal to one already written (same source, object, type,
   reason and message) becomes a repeat: same name, ``count + 1``, the first
   ``firstTimestamp``, and a strategic-merge patch of ``count``, ``lastTimestamp``
   and ``message`` instead of a new object.
3. **Spam filter**: each (source, object) pair gets a token bucket of 25 events,
   refilled at one per 5 minutes; events beyond it are dropped.

Caches are LRUs of 4096 entries, so memory stays bounded however many objects
a controller reports on.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from kubeforge.core.clock import Clock
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.core_v1 import Event

__all__ = ["Correlation", "Correlator", "CorrelatorOptions"]

K = TypeVar("K")
V = TypeVar("V")

COMBINED_PREFIX = "(combined from similar events): "


@dataclass(frozen=True, slots=True)
class CorrelatorOptions:
    """client-go's defaults (``tools/record/events_cache.go``)."""

    lru_size: int = 4096
    aggregate_max_events: int = 10
    """Distinct messages per (source, object, type, reason) before they are combined."""
    aggregate_interval: float = 600.0
    """Seconds after which an aggregation record starts over."""
    spam_burst: int = 25
    """Events one source may report about one object at once."""
    spam_qps: float = 1.0 / 300.0
    """Refill rate of that allowance: one event per five minutes."""


class _Lru(Generic[K, V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)


@dataclass(slots=True)
class _Aggregate:
    messages: set[str] = field(default_factory=set)
    last_seen: float = 0.0


@dataclass(slots=True)
class _Observation:
    count: int
    first_timestamp: str | None
    name: str
    resource_version: str | None


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


@dataclass(frozen=True, slots=True)
class Correlation:
    """What to write: ``event``, as a ``patch`` of an existing one when set; ``key``
    names the observation to update once the write succeeded."""

    event: Event
    key: str
    patch: dict[str, Any] | None = None


def _ref_key(event: Event) -> list[str]:
    source, ref = event.source, event.involved_object
    return [
        (source.component or "") if source else "",
        (source.host or "") if source else "",
        ref.kind or "",
        ref.namespace or "",
        ref.name or "",
        ref.uid or "",
        ref.api_version or "",
    ]


def event_key(event: Event) -> str:
    """client-go's ``getEventKey``: source, object (with field path), type, reason, message."""
    parts = _ref_key(event)
    parts.insert(5, event.involved_object.field_path or "")
    return "".join([*parts, event.type or "", event.reason or "", event.message or ""])


class Correlator:
    """Decides, for each new event, whether and how to write it. Not thread-safe."""

    def __init__(self, clock: Clock, options: CorrelatorOptions | None = None) -> None:
        self.clock = clock
        self.options = options or CorrelatorOptions()
        size = self.options.lru_size
        self._aggregates: _Lru[str, _Aggregate] = _Lru(size)
        self._observations: _Lru[str, _Observation] = _Lru(size)
        self._buckets: _Lru[str, _Bucket] = _Lru(size)

    def correlate(self, event: Event, new_name: Callable[[], str]) -> Correlation | None:
        """The write ``event`` calls for, or ``None`` when the spam filter drops it.

        ``new_name()`` names a combined event if aggregation creates one.
        """
        event, key = self._aggregate(event, new_name)
        correlation = self._observe(event, key)
        if not self._allowed(event):
            return None
        return correlation

    def written(self, correlation: Correlation, stored: Event) -> None:
        """Remember what the server stored, so the next repeat patches it."""
        self._observations.put(
            correlation.key,
            _Observation(
                count=stored.count or 1,
                first_timestamp=stored.first_timestamp,
                name=stored.metadata.name or "",
                resource_version=stored.metadata.resource_version,
            ),
        )

    def _aggregate(self, event: Event, new_name: Callable[[], str]) -> tuple[Event, str]:
        now = self.clock.now()
        source = event.source
        aggregate_key = "".join(
            [
                *_ref_key(event),
                event.type or "",
                event.reason or "",
                event.reporting_component or "",
                event.reporting_instance or "",
            ]
        )
        record = self._aggregates.get(aggregate_key)
        if record is None or now - record.last_seen > self.options.aggregate_interval:
            record = _Aggregate()
        record.messages.add(event.message or "")
        record.last_seen = now
        self._aggregates.put(aggregate_key, record)
        if len(record.messages) < self.options.aggregate_max_events:
            return event, event_key(event)
        # Keep the set from growing past the limit, as client-go does.
        record.messages.pop()
        combined = Event(
            metadata=ObjectMeta(name=new_name(), namespace=event.metadata.namespace),
            count=1,
            first_timestamp=event.first_timestamp,
            last_timestamp=event.last_timestamp,
            involved_object=event.involved_object,
            message=COMBINED_PREFIX + (event.message or ""),
            type=event.type,
            reason=event.reason,
            source=source,
            reporting_component=event.reporting_component,
            reporting_instance=event.reporting_instance,
        )
        return combined, aggregate_key

    def _observe(self, event: Event, key: str) -> Correlation:
        seen = self._observations.get(key)
        if seen is None:
            self._observations.put(key, _Observation(1, event.first_timestamp, "", None))
            return Correlation(event, key)
        if not seen.name:
            # Seen but not written yet (still queued or failed): count it, write it anew.
            seen.count += 1
            event.count = seen.count
            return Correlation(event, key)
        seen.count += 1
        event.metadata.name = seen.name
        event.metadata.resource_version = seen.resource_version
        event.first_timestamp = seen.first_timestamp
        event.count = seen.count
        patch = {"count": event.count, "lastTimestamp": event.last_timestamp}
        if event.message:
            patch["message"] = event.message
        return Correlation(event, key, patch)

    def _allowed(self, event: Event) -> bool:
        key = "".join(_ref_key(event))
        now = self.clock.now()
        burst, rate = self.options.spam_burst, self.options.spam_qps
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = _Bucket(tokens=float(burst), updated=now)
        bucket.tokens = min(float(burst), bucket.tokens + (now - bucket.updated) * rate)
        bucket.updated = now
        self._buckets.put(key, bucket)
        if bucket.tokens < 1.0:
            return False
        bucket.tokens -= 1.0
        return True
