"""Report what a controller did as ``core/v1`` Events: ``EventRecorder``.

``kubectl describe`` shows these under the object. The recorder behaves like
client-go's (``tools/record``) so a busy controller cannot flood the API server:

- ``recorder.event(obj, "Normal", "Created", "created pod web-0")`` returns at once;
  a background task writes events in order (at most 1000 waiting, more are dropped).
- A new event is named ``<object name>.<unix nanoseconds in hex>`` and lives in the
  object's namespace (``default`` for cluster-scoped objects).
- The same (object, source, type, reason, message) again is not a new Event: the
  existing one gets ``count + 1`` and a new ``lastTimestamp`` through a
  strategic-merge PATCH (and is created again if it was deleted meanwhile).
- More than 10 different messages for one (object, type, reason) within 10 minutes
  are combined into one ``(combined from similar events): ...`` event.
- Spam filter: 25 events per (source, object), then one more per 5 minutes; the
  rest are dropped. See ``_correlator`` for the rules.
- Failed writes are retried up to 12 times, 10 s apart, when the failure may pass
  (connection errors, 429, 5xx); other refusals are logged and dropped.

``await recorder.flush()`` waits until everything recorded so far is written,
``await recorder.close()`` flushes and stops the writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime

from kubeforge.client import Client
from kubeforge.controller._correlator import Correlation, Correlator, CorrelatorOptions
from kubeforge.core import errors
from kubeforge.core.clock import Clock, MonotonicClock
from kubeforge.core.meta import ObjectMeta
from kubeforge.core.objects import KubeObject, name_of, namespace_of, resource_version_of, uid_of
from kubeforge.core.resource import Resource
from kubeforge.models.core_v1 import Event, EventSource, ObjectReference

__all__ = ["EVENT_TYPES", "CorrelatorOptions", "EventRecorder"]

log = logging.getLogger("kubeforge.controller.events")

EVENT_TYPES = ("Normal", "Warning")

_MAX_QUEUED = 1000  # client-go's maxQueuedEvents
_MAX_TRIES = 12  # client-go's maxTriesPerEvent
_RETRY_INTERVAL = 10.0  # client-go's sleepDuration

# Failures worth retrying: the server may come back, the event is still good.
_TRANSIENT = (
    errors.TransportError,
    errors.TooManyRequests,
    errors.InternalError,
    errors.ServiceUnavailable,
    errors.ServerTimeout,
)


class EventRecorder:
    """Records Events about objects on behalf of ``component`` (the event's source).

    ``host`` fills ``source.host`` and ``reportingInstance``. ``clock`` paces
    retries and the spam filter; ``wall_clock`` (nanoseconds since the epoch)
    stamps names and timestamps. Both are injectable for tests.
    """

    def __init__(
        self,
        client: Client,
        component: str,
        *,
        host: str = "",
        options: CorrelatorOptions | None = None,
        clock: Clock | None = None,
        wall_clock: Callable[[], int] = time.time_ns,
        retry_interval: float = _RETRY_INTERVAL,
        max_tries: int = _MAX_TRIES,
    ) -> None:
        self.client = client
        self.source = EventSource(component=component, host=host or None)
        self._clock = clock or MonotonicClock()
        self._wall_clock = wall_clock
        self._correlator = Correlator(self._clock, options)
        self.retry_interval = retry_interval
        self.max_tries = max_tries
        self._queue: asyncio.Queue[Event] = asyncio.Queue(_MAX_QUEUED)
        self._writer: asyncio.Task[None] | None = None
        self._closed = False

    def event(
        self,
        obj: KubeObject,
        type: str,
        reason: str,
        message: str,
        *,
        field_path: str = "",
        annotations: Mapping[str, str] | None = None,
    ) -> None:
        """Record that ``reason`` happened to ``obj``; never blocks, never raises for I/O.

        ``type`` is ``"Normal"`` or ``"Warning"``; anything else is logged and dropped,
        as client-go does. Must be called with an event loop running.
        """
        if type not in EVENT_TYPES:
            log.error("unsupported event type %r (reason %s): dropped", type, reason)
            return
        if self._closed:
            log.warning("event recorder %s is closed: dropped %s", self.source.component, reason)
            return
        event = self._make(obj, type, reason, message, field_path, annotations)
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            log.warning("event queue full: dropped %s event about %s", reason, name_of(obj))
            return
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(
                self._write_all(), name=f"events {self.source.component}"
            )

    async def flush(self) -> None:
        """Return once every event recorded so far has been written or given up on."""
        if self._writer is not None and not self._writer.done():
            await self._queue.join()

    async def close(self) -> None:
        """Flush, then stop the writer; later events are dropped."""
        await self.flush()
        self._closed = True
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.cancel()
            await asyncio.wait({writer})

    # -- internals ------------------------------------------------------------------

    def _make(
        self,
        obj: KubeObject,
        type: str,
        reason: str,
        message: str,
        field_path: str,
        annotations: Mapping[str, str] | None,
    ) -> Event:
        nanos = self._wall_clock()
        stamp = _timestamp(nanos)
        namespace = namespace_of(obj)
        if isinstance(obj, Resource):
            api_version, kind = obj.api_version, obj.kind
        else:
            api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
        return Event(
            metadata=ObjectMeta(
                name=f"{name_of(obj)}.{nanos:x}",
                namespace=namespace or "default",
                annotations=dict(annotations) if annotations else None,
            ),
            involved_object=ObjectReference(
                api_version=api_version or None,
                kind=kind or None,
                name=name_of(obj) or None,
                namespace=namespace or None,
                uid=uid_of(obj) or None,
                resource_version=resource_version_of(obj) or None,
                field_path=field_path or None,
            ),
            reason=reason,
            message=message,
            type=type,
            count=1,
            first_timestamp=stamp,
            last_timestamp=stamp,
            source=self.source,
            reporting_component=self.source.component,
            reporting_instance=self.source.host,
        )

    async def _write_all(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                subject = event.involved_object.name or ""

                def combined_name(subject: str = subject) -> str:
                    return f"{subject}.{self._wall_clock():x}"

                correlation = self._correlator.correlate(event, combined_name)
                if correlation is None:
                    log.debug("spam filter dropped %s event about %s", event.reason, subject)
                else:
                    await self._write(correlation)
            except Exception:
                log.exception("could not record event %s", event.reason)
            finally:
                self._queue.task_done()

    async def _write(self, correlation: Correlation) -> None:
        for attempt in range(1, self.max_tries + 1):
            try:
                stored = await self._send(correlation)
            except _TRANSIENT as err:
                if attempt == self.max_tries:
                    log.error(
                        "giving up on event %s after %d tries: %s", _name(correlation), attempt, err
                    )
                    return
                # Spread the first retry so many recorders failing together do not align.
                delay = self.retry_interval * (random.random() if attempt == 1 else 1.0)
                await self._clock.sleep(delay)
                continue
            except errors.ApiError as err:
                if isinstance(err, errors.AlreadyExists):
                    log.debug("event %s already exists: %s", _name(correlation), err)
                else:
                    log.error("server refused event %s: %s", _name(correlation), err)
                return
            self._correlator.written(correlation, stored)
            return

    async def _send(self, correlation: Correlation) -> Event:
        event = correlation.event
        api = self.client.api(Event, namespace=event.metadata.namespace)
        if correlation.patch is not None and (event.count or 0) > 1:
            with contextlib.suppress(errors.NotFound):
                return await api.patch(
                    event.metadata.name or "", correlation.patch, patch_type="strategic"
                )
            # Deleted meanwhile (events expire): create it again, count and all.
        event.metadata.resource_version = None
        return await api.create(event)


def _timestamp(nanos: int) -> str:
    """``metav1.Time`` on the wire: RFC 3339 with whole seconds."""
    return datetime.fromtimestamp(nanos // 1_000_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _name(correlation: Correlation) -> str:
    return correlation.event.metadata.name or ""
