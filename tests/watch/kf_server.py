"""Helpers for tests against the real local API server (``kube_apiserver`` fixtures)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from kubeforge.client import Client
from kubeforge.core.meta import ObjectMeta
from kubeforge.core.objects import KubeObject, name_of
from kubeforge.models.core_v1 import ConfigMap, Namespace

_counter = itertools.count()

ROOT_CA = "kube-root-ca.crt"
"""The ConfigMap the root-CA publisher keeps in every namespace, as on a real cluster."""

Obj = TypeVar("Obj", bound=KubeObject)


def own(objects: Iterable[Obj]) -> list[Obj]:
    """The objects a test made: all but the namespace's ``kube-root-ca.crt``."""
    return [obj for obj in objects if name_of(obj) != ROOT_CA]


async def fresh_namespace(client: Client, prefix: str) -> str:
    """Create a namespace no other test uses (the session server is shared)."""
    name = f"{prefix}-{next(_counter)}"
    await client.api(Namespace).create(Namespace(metadata=ObjectMeta(name=name)))
    return name


def configmap(name: str, namespace: str, **data: str) -> ConfigMap:
    return ConfigMap(metadata=ObjectMeta(name=name, namespace=namespace), data=data or None)


async def eventually(condition: Callable[[], Any], *, attempts: int = 400) -> None:
    """Poll ``condition`` until it holds (eventual consistency, up to ~20 s); not a timing check."""
    for _ in range(attempts):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never converged: {condition()!r}")


async def eventually_equal(fetch: Callable[[], Awaitable[Any]], expected: Any) -> None:
    """Poll ``await fetch()`` until it equals ``expected`` (up to ~20 s)."""
    got = None
    for _ in range(400):
        got = await fetch()
        if got == expected:
            return
        await asyncio.sleep(0.05)
    assert got == expected
