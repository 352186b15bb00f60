"""Leader election on a ``coordination.k8s.io/v1`` Lease, as client-go does it: ``LeaderElector``.

Entry point: ``LeaderElector(client, options)``; ``await acquire()`` returns once
this process leads, ``await hold()`` renews until leadership is lost, and
``await release()`` hands the lease over at shutdown. The manager drives these
(``ManagerOptions.leader_election``); controllers start only once it leads.

The protocol is client-go's ``leaderelection`` with a ``LeaseLock``, so Go and
Python replicas of one controller can share a lease.
"""

from __future__ import annotations

import asyncio
import logging
import random
import socket
import uuid
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any, NamedTuple

import msgspec

from kubeforge.client import Client
from kubeforge.core import errors
from kubeforge.core.clock import Clock, MonotonicClock
from kubeforge.core.meta import ObjectMeta
from kubeforge.models.coordination_v1 import Lease, LeaseSpec
from kubeforge.runtime.options import JITTER_FACTOR, LeaderElectionOptions

__all__ = [
    "JITTER_FACTOR",
    "LeaderElectionLost",
    "LeaderElectionOptions",
    "LeaderElector",
    "default_identity",
    "micro_time",
]

log = logging.getLogger("kubeforge.runtime.leader")


class LeaderElectionLost(errors.KubeforgeError):
    """The lease could not be renewed within the renew deadline: another replica may lead now."""


def default_identity() -> str:
    """``<hostname>_<uuid>``: unique per process even when replicas share a host name."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


def micro_time(moment: datetime) -> str:
    """A ``metav1.MicroTime``: UTC with exactly six fractional digits.

    >>> micro_time(datetime(2024, 5, 1, 12, 0, 3, 42, tzinfo=UTC))
    '2024-05-01T12:00:03.000042Z'
    """
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class _Record(NamedTuple):
    """The fields of a lease that say who leads; compared whole to notice any change."""

    holder: str
    duration: int
    acquire_time: str | None
    renew_time: str | None
    transitions: int

    @classmethod
    def of(cls, lease: Lease) -> _Record:
        spec = lease.spec or LeaseSpec()
        return cls(
            spec.holder_identity or "",
            spec.lease_duration_seconds or 0,
            spec.acquire_time,
            spec.renew_time,
            spec.lease_transitions or 0,
        )

    def spec(self) -> LeaseSpec:
        return LeaseSpec(
            holder_identity=self.holder,
            lease_duration_seconds=self.duration,
            acquire_time=self.acquire_time,
            renew_time=self.renew_time,
            lease_transitions=self.transitions,
        )


class LeaderElector:
    """Contends for one Lease and keeps it while leading.

    *Guarantees* (client-go's ``tryAcquireOrRenew``)

    - A lease held by another replica is taken over only after it went unchanged
      for its ``leaseDurationSeconds``, measured on this process's own clock from
      the moment this process saw it change (``observedTime``), never from the
      timestamps in it, so clock skew between machines cannot cut a lease short.
    - Every write carries the resourceVersion read, so of two candidates racing
      for an expired lease exactly one wins; the other's write is a 409 and it
      stays a candidate.
    - A leader whose renewals keep failing for ``renew_deadline`` stops leading
      (``hold`` returns); since ``renew_deadline < lease_duration``, it stops before
      another replica may take over.

    *Caveats*: one candidate waits for a held lease by polling, every
    ``retry_period`` with client-go's jitter; it never sleeps past the moment the
    observed lease would expire. Timestamps (``acquireTime``, ``renewTime``) are
    wall-clock MicroTimes for people and tools; they are never used for decisions.
    """

    def __init__(
        self,
        client: Client,
        options: LeaderElectionOptions,
        *,
        clock: Clock | None = None,
        on_change: Callable[[bool], None] | None = None,
    ) -> None:
        self.options = options
        self.identity = options.identity or default_identity()
        self.namespace = options.namespace or client.default_namespace
        self._api = client.api(Lease, namespace=self.namespace)
        self._clock = clock or MonotonicClock()
        self._on_change = on_change
        self._leading = False
        # The last lease read or written, its record, and when (on our clock) the
        # record was last seen to change: the basis of every validity decision.
        self._observed: Lease | None = None
        self._observed_record: _Record | None = None
        self._observed_time = 0.0
        self._reported_holder: str | None = None

    @property
    def is_leader(self) -> bool:
        return self._leading

    @property
    def lease_name(self) -> str:
        return self.options.lease_name

    async def acquire(self) -> None:
        """Try at once, then every jittered ``retry_period``, until this process leads."""
        log.info(
            "leader election: %s contends for lease %s/%s",
            self.identity,
            self.namespace,
            self.lease_name,
        )
        while not await self.try_acquire_or_renew():
            await self._clock.sleep(self._acquire_wait())
        self._set_leading(True)
        log.info("leader election: %s acquired lease %s", self.identity, self._where)

    async def hold(self) -> None:
        """Renew every ``retry_period`` while leading; return once leadership is lost."""
        if not self._leading:
            raise RuntimeError("hold() before acquire()")
        period = self.options.retry_period
        while True:
            if not await self._renew_within_deadline():
                self._set_leading(False)
                log.error(
                    "leader election: %s failed to renew lease %s for %s s; leadership lost",
                    self.identity,
                    self._where,
                    self.options.renew_deadline,
                )
                return
            await self._clock.sleep(period)

    async def release(self) -> bool:
        """Give the lease up (when leading); returns whether the server took the release."""
        observed = self._observed
        if not self._leading or observed is None or self._observed_record is None:
            return False
        now = micro_time(datetime.now(UTC))
        # Transitions are kept; the 1 s duration lets a candidate that misses the
        # empty holder still take over almost at once.
        record = _Record("", 1, now, now, self._observed_record.transitions)
        try:
            updated = await self._api.replace(msgspec.structs.replace(observed, spec=record.spec()))
        except errors.KubeforgeError as err:
            log.error("leader election: failed to release lease %s: %s", self._where, err)
            return False
        self._observe(updated)
        self._set_leading(False)
        log.info("leader election: %s released lease %s", self.identity, self._where)
        return True

    async def try_acquire_or_renew(self) -> bool:
        """One attempt: create, take over or renew the lease; ``True`` if this process now holds it.

        API failures and lost races answer ``False`` (logged); nothing raises.
        """
        now = micro_time(datetime.now(UTC))
        observed = self._observed
        # Fast path: while the last record seen names this process, write over it;
        # only if that fails (someone else wrote meanwhile) read the lease again.
        record = self._observed_record
        holding = record is not None and record.holder == self.identity
        fast = holding and observed is not None and self._observed_valid()
        if fast and observed is not None and await self._write(observed, now):
            return True
        try:
            lease = await self._api.get(self.lease_name)
        except errors.NotFound:
            return await self._create(now)
        except errors.KubeforgeError as err:
            log.warning("leader election: cannot read lease %s: %s", self._where, err)
            return False
        record = _Record.of(lease)
        if record != self._observed_record:
            self._observe(lease)
        else:
            self._observed = lease  # same record, perhaps a newer resourceVersion
        if record.holder and record.holder != self.identity and self._observed_valid():
            self._report_holder(record.holder)
            return False
        return await self._write(lease, now)

    # --- internals -------------------------------------------------------------------------

    @property
    def _where(self) -> str:
        return f"{self.namespace}/{self.lease_name}"

    def _observed_valid(self) -> bool:
        record = self._observed_record
        if record is None:
            return False
        return self._observed_time + record.duration > self._clock.now()

    def _observe(self, lease: Lease) -> None:
        self._observed = lease
        self._observed_record = _Record.of(lease)
        self._observed_time = self._clock.now()

    def _acquire_wait(self) -> float:
        period = self.options.retry_period
        wait = period * (1 + random.random() * JITTER_FACTOR)
        record = self._observed_record
        if record is not None and record.holder and record.holder != self.identity:
            # Never sleep past the moment the observed lease expires.
            expires_in = self._observed_time + record.duration - self._clock.now()
            wait = min(wait, max(expires_in, 0.0) + 0.001)
        return wait

    async def _create(self, now: str) -> bool:
        record = _Record(self.identity, self._duration_seconds, now, now, 0)
        lease = Lease(
            metadata=ObjectMeta(name=self.lease_name, namespace=self.namespace),
            spec=record.spec(),
        )
        try:
            created = await self._api.create(lease)
        except errors.KubeforgeError as err:
            # AlreadyExists: another candidate created it first; it decides next round.
            log.info("leader election: cannot create lease %s: %s", self._where, err)
            return False
        self._observe(created)
        return True

    async def _write(self, lease: Lease, now: str) -> bool:
        old = _Record.of(lease)
        if old.holder == self.identity:
            acquire_time, transitions = old.acquire_time, old.transitions
        else:
            acquire_time, transitions = now, old.transitions + 1
        record = _Record(self.identity, self._duration_seconds, acquire_time, now, transitions)
        try:
            # The lease's resourceVersion makes this a compare-and-swap: 409 = lost race.
            updated = await self._api.replace(msgspec.structs.replace(lease, spec=record.spec()))
        except errors.Conflict:
            log.info("leader election: lost the race for lease %s", self._where)
            return False
        except errors.KubeforgeError as err:
            log.warning("leader election: cannot update lease %s: %s", self._where, err)
            return False
        self._observe(updated)
        return True

    async def _renew_within_deadline(self) -> bool:
        """Retry every ``retry_period`` until a renewal succeeds or ``renew_deadline`` passes."""
        deadline = self._clock.now() + self.options.renew_deadline
        while True:
            remaining = deadline - self._clock.now()
            if remaining <= 0:
                return False
            if await self._bounded(self.try_acquire_or_renew(), remaining):
                return True
            remaining = deadline - self._clock.now()
            if remaining <= 0:
                return False
            await self._clock.sleep(min(self.options.retry_period, remaining))

    async def _bounded(self, attempt: Coroutine[Any, Any, bool], timeout: float) -> bool:
        """``await attempt``, but ``False`` (attempt cancelled) once ``timeout`` passes."""
        task = asyncio.ensure_future(attempt)
        timer = asyncio.ensure_future(self._clock.sleep(timeout))
        try:
            await asyncio.wait({task, timer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            timer.cancel()
            if not task.done():
                task.cancel()
            await asyncio.wait({task, timer})
        return not task.cancelled() and task.result()

    @property
    def _duration_seconds(self) -> int:
        return int(self.options.lease_duration)

    def _set_leading(self, leading: bool) -> None:
        if leading != self._leading:
            self._leading = leading
            if self._on_change is not None:
                self._on_change(leading)

    def _report_holder(self, holder: str) -> None:
        if holder != self._reported_holder:
            self._reported_holder = holder
            log.info("leader election: lease %s is held by %s", self._where, holder)
