"""Serve the newest certificate in a directory without a restart: ``CertWatcher``.

Entry point: ``CertWatcher(cert_path, key_path)``; ``server_context()`` is the
``ssl.SSLContext`` to serve with, ``start()``/``stop()`` run the watch. It does what
controller-runtime's ``pkg/certwatcher`` does for its webhook server: the pair is
read at start (a missing or bad pair fails the start), then re-read whenever either
file changes; a pair that fails to load (half written, key and certificate not
matching yet) is logged and counted, and the previous one stays in service until a
good pair appears. cert-manager rotates the Secret that a Deployment mounts, and the
kubelet swaps the files in place, so a long-running manager picks up the new
certificate by itself.

Every new TLS handshake gets the current pair: the served context's SNI callback
(called for every ClientHello, with or without a server name) hands the connection
the context built from the latest good read. Change detection polls ``os.stat``
every ``interval`` seconds (the standard library has no inotify; controller-runtime
also polls, every 10 s, beside fsnotify); reads are counted in
``certwatcher_read_certificate_total`` and ``..._errors_total``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import ssl
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter

__all__ = ["CertWatcher"]

log = logging.getLogger("kubeforge.webhook.certwatcher")

_Stamp = tuple[int, int, int] | None


class CertWatcher:
    """The current certificate/key pair of two files, reloaded when they change.

    Example::

        watcher = CertWatcher(Path("certs/tls.crt"), Path("certs/tls.key"))
        context = watcher.server_context()   # raises if the pair cannot be read
        await watcher.start()
        ...
        await watcher.stop()
    """

    def __init__(
        self,
        cert_path: Path,
        key_path: Path,
        *,
        interval: float = 1.0,
        registry: CollectorRegistry | None = None,
    ) -> None:
        self.cert_path = Path(cert_path)
        self.key_path = Path(key_path)
        self.interval = interval
        registry = registry if registry is not None else CollectorRegistry()
        self._reads = Counter(
            "certwatcher_read_certificate_total",
            "Total number of certificate reads",
            registry=registry,
        )
        self._errors = Counter(
            "certwatcher_read_certificate_errors_total",
            "Total number of certificate read errors",
            registry=registry,
        )
        self._current: ssl.SSLContext | None = None
        self._served: ssl.SSLContext | None = None
        self._stamps: tuple[_Stamp, _Stamp] = (None, None)
        self._task: asyncio.Task[None] | None = None
        self.reloads = 0
        """How many times a changed pair was loaded into service (not counting the first)."""

    def server_context(self) -> ssl.SSLContext:
        """The context to serve with; reads the pair the first time (``OSError``/``SSLError``)."""
        if self._served is None:
            self._current = self._read()
            served = self._load(self.cert_path, self.key_path)
            served.sni_callback = self._pick
            self._served = served
        return self._served

    async def start(self) -> None:
        """Begin watching (``server_context()`` is called first if it was not)."""
        self.server_context()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._watch(), name=f"certwatcher {self.cert_path}"
            )

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def check(self) -> bool:
        """Read the files again if they changed; ``True`` when a new pair went into service."""
        stamps = (_stamp(self.cert_path), _stamp(self.key_path))
        if stamps == self._stamps:
            return False
        try:
            context = self._read()
        except (OSError, ssl.SSLError) as error:
            log.error("certificate watcher: keeping the previous certificate: %s", error)
            return False
        self._current = context
        self.reloads += 1
        log.info("certificate watcher: loaded the updated certificate %s", self.cert_path)
        return True

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            self.check()

    def _read(self) -> ssl.SSLContext:
        # The stamps are taken before reading: a change during the read is seen next time.
        stamps = (_stamp(self.cert_path), _stamp(self.key_path))
        self._reads.inc()
        try:
            context = self._load(self.cert_path, self.key_path)
        except (OSError, ssl.SSLError):
            self._errors.inc()
            raise
        self._stamps = stamps
        return context

    @staticmethod
    def _load(cert_path: Path, key_path: Path) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        # The API server speaks TLS 1.2+ (Go's default client minimum).
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(cert_path, key_path)
        return context

    def _pick(self, connection: ssl.SSLObject, server_name: str | None, _: ssl.SSLContext) -> None:
        if self._current is not None:
            connection.context = self._current


def _stamp(path: Path) -> _Stamp:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size)
