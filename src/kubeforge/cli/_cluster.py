"""Apply, delete and wait for manifests on a cluster, with a live progress display.

Entry point: ``Cluster`` (``apply``, ``delete``, ``wait_until``), used by
``install``/``uninstall`` and ``deploy``/``undeploy``. Applying is ``kubectl
apply``'s client-side apply: create, or patch with a three-way merge against the
``last-applied-configuration`` annotation, so fields dropped from a manifest are
removed and everything else the server or others set is kept. Result lines read
like kubectl's (``namespace/frigate-system created``); the spinner only shows on
a terminal and is cleared when done, so piped output and error messages stay clean.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn

from kubeforge.cli._errors import TimedOut
from kubeforge.client import Api, Client
from kubeforge.config import ClientConfig
from kubeforge.core import errors
from kubeforge.core.resource import ResourceInfo

__all__ = [
    "LAST_APPLIED",
    "Cluster",
    "Display",
    "display",
    "object_name",
    "wait_until",
    "with_last_applied",
]

_POLL = 0.1
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def object_name(obj: dict[str, Any]) -> str:
    """How kubectl names an object in its output: ``deployment.apps/web``, ``namespace/x``."""
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    kind = str(obj.get("kind", "")).lower()
    name = (obj.get("metadata") or {}).get("name", "")
    return f"{kind}.{group}/{name}" if group else f"{kind}/{name}"


class Display:
    """Result lines on stdout plus one spinner per object while something is awaited."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._tasks: dict[str, TaskID] = {}

    def line(self, text: str) -> None:
        self._progress.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def state(self, key: str, state: str) -> None:
        task = self._tasks.get(key)
        if task is None:
            self._tasks[key] = self._progress.add_task(key, state=state)
        else:
            self._progress.update(task, state=state)


@contextmanager
def display() -> Iterator[Display]:
    console = Console()
    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TextColumn("[dim]{task.fields[state]}"),
        console=console,
        transient=True,
        # Off a terminal (a pipe, CI) only the result lines are written.
        disable=not console.is_terminal,
    )
    with progress:
        yield Display(progress)


class Cluster:
    """Manifests (plain dicts) against one API server, typed by discovery."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def info(self, obj: dict[str, Any]) -> ResourceInfo:
        """The served resource of ``obj``'s apiVersion and kind (a CRD applied just now too)."""
        group, _, version = str(obj.get("apiVersion", "")).rpartition("/")
        kind = str(obj.get("kind", ""))
        for attempt in range(2):
            if attempt:
                self.client.discovery.invalidate()
            for info in await self.client.discovery.resources():
                if (info.group, info.version, info.kind) == (group, version, kind):
                    return info
        raise errors.ResourceNotFound(
            f"the server doesn't have a resource type for {obj.get('apiVersion')} {kind}"
        )

    async def _api(self, obj: dict[str, Any]) -> tuple[Api[dict[str, Any]], str]:
        info = await self.info(obj)
        meta = obj.get("metadata") or {}
        namespace = None
        if info.namespaced:
            namespace = meta.get("namespace") or self.client.default_namespace
        return self.client.dynamic(info, namespace=namespace), str(meta.get("name", ""))

    async def apply(self, obj: dict[str, Any]) -> str:
        """Create ``obj`` or patch the existing one to match: ``created|configured|unchanged``.

        Like ``kubectl apply`` (client-side), the manifest is recorded in the
        ``last-applied-configuration`` annotation, so fields dropped from a manifest
        are removed on the next apply, and kubectl and kubeforge can take turns.
        """
        api, name = await self._api(obj)
        body = with_last_applied(obj)
        try:
            await api.create(body)
            return "created"
        except errors.AlreadyExists:
            pass
        before = await api.get(name)
        annotations = before["metadata"].get("annotations") or {}
        last = _decode_last_applied(annotations.get(LAST_APPLIED))
        after = await api.patch(name, _merge_patch(last, body), patch_type="merge")
        same = before["metadata"].get("resourceVersion") == after["metadata"].get("resourceVersion")
        return "unchanged" if same else "configured"

    async def delete(self, obj: dict[str, Any], *, ignore_not_found: bool) -> bool:
        """Ask for deletion; ``False`` if it was already gone (an error unless ignored)."""
        api, name = await self._api(obj)
        try:
            await api.delete(name)
        except errors.NotFound:
            if not ignore_not_found:
                raise
            return False
        return True

    async def exists(self, obj: dict[str, Any]) -> bool:
        api, name = await self._api(obj)
        try:
            await api.get(name)
        except errors.NotFound:
            return False
        return True

    async def established(self, obj: dict[str, Any]) -> bool:
        """A CRD's ``Established`` condition is ``True``: its resources can be used."""
        api, name = await self._api(obj)
        crd = await api.get(name)
        conditions = (crd.get("status") or {}).get("conditions") or []
        return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)


def with_last_applied(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with kubectl's ``last-applied-configuration`` annotation: itself, as JSON."""
    clean = copy.deepcopy(obj)
    metadata = clean.setdefault("metadata", {})
    # Byte for byte what kubectl records, so either tool sees the other's apply as its
    # own: the object with its other annotations (an empty map if none), encoded the
    # way Go encodes it: compact, keys sorted, newline-terminated.
    metadata["annotations"] = {
        k: v for k, v in (metadata.get("annotations") or {}).items() if k != LAST_APPLIED
    }
    recorded = json.dumps(clean, separators=(",", ":"), sort_keys=True) + "\n"
    body = copy.deepcopy(clean)
    body.setdefault("metadata", {}).setdefault("annotations", {})[LAST_APPLIED] = recorded
    return body


def _decode_last_applied(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}  # someone else's garbage in the annotation: patch as if first applied
    return value if isinstance(value, dict) else {}


def _merge_patch(last: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """A merge patch setting everything in ``new`` and deleting what only ``last`` had.

    Fields the manifest never set (the server's defaults, other writers' fields) are
    left alone: a three-way merge over JSON merge patch, as ``kubectl apply`` does
    for custom resources.
    """
    patch: dict[str, Any] = {key: None for key in last if key not in new}
    for key, value in new.items():
        previous = last.get(key)
        if isinstance(value, dict) and isinstance(previous, dict):
            patch[key] = _merge_patch(previous, value)
        else:
            patch[key] = value
    return patch


async def wait_until(
    pending: dict[str, dict[str, Any]],
    done: Callable[[dict[str, Any]], Awaitable[bool]],
    *,
    timeout: float,
    waiting_for: str,
    on_done: Callable[[str], None],
) -> None:
    """Poll ``done(obj)`` for every object in ``pending`` (by key) until all are done.

    Raises ``TimedOut`` naming those still pending after ``timeout`` seconds.
    """
    left = dict(pending)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while left:
        for key, obj in list(left.items()):
            if await done(obj):
                del left[key]
                on_done(key)
        if not left:
            return
        if loop.time() >= deadline:
            raise TimedOut(f"timed out after {timeout:g}s: {', '.join(left)} not {waiting_for}")
        await asyncio.sleep(_POLL)


async def delete_and_wait(
    config: ClientConfig,
    objects: list[dict[str, Any]],
    *,
    ignore_not_found: bool,
    timeout: float,
) -> None:
    """Delete ``objects`` (last first) and wait until each is gone: ``uninstall``/``undeploy``."""
    async with Client(config) as client:
        cluster = Cluster(client)
        with display() as show:
            deleting: dict[str, dict[str, Any]] = {}
            for obj in reversed(objects):
                key = object_name(obj)
                show.state(key, "deleting")
                if await cluster.delete(obj, ignore_not_found=ignore_not_found):
                    deleting[key] = obj
                    show.state(key, "waiting until gone")
                else:
                    show.line(f"{key} not found")

            async def gone(obj: dict[str, Any]) -> bool:
                return not await cluster.exists(obj)

            await wait_until(
                deleting,
                gone,
                timeout=timeout,
                waiting_for="gone",
                on_done=lambda key: show.line(f"{key} deleted"),
            )
