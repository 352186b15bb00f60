"""The watch fan-out's CPU per event with many scoped watches.

``python -m benchmarks.apiserver.routing [--quick]``.

In one process, with no sockets (what is left of the fan-out when no stream is written
to): an in-memory ``Storage`` and a ``WatchHub`` with ``--watchers`` watch groups, each
scoped to one namespace, or to one ``spec.nodeName`` as a kubelet's pod watch is, and
``--events`` pod creates spread evenly over them, so each event concerns one watch.
Each scope runs twice, side by side: with the watches routed by their namespace or
node (``storage.watch_routes``) and with the same watches unrouted, every group's
filter asked about every event, as before routing existed. The figure is CPU seconds
(``time.process_time``) per event above the same creates with no watch open: the
median over batches of 50 creates, alternated with batches on a store nobody watches.

Writes ``benchmarks/results/apiserver-routing.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from benchmarks._report import clean_exit_on_sigterm, environment, write_results

from kubeforge.apiserver.storage.fanout import WatchHub, WatchRequest
from kubeforge.apiserver.storage.sqlite import Storage
from kubeforge.apiserver.storage.watch_routes import WatchIndex, namespace_index
from kubeforge.core.selectors import parse_field_selector

PODS = ("", "pods")
_BATCH = 50


@dataclass
class Routing:
    scope: str
    routed: bool
    watchers: int
    events: int
    fan_out_us_per_event: float
    create_us_per_event: float


def _fields(obj: dict[str, Any]) -> dict[str, str]:
    meta = obj.get("metadata") or {}
    return {
        "metadata.name": str(meta.get("name") or ""),
        "metadata.namespace": str(meta.get("namespace") or ""),
        "spec.nodeName": str((obj.get("spec") or {}).get("nodeName") or ""),
    }


def _node(obj: dict[str, Any]) -> str:
    return _fields(obj)["spec.nodeName"]


def _request(scope: str, i: int, routed: bool) -> WatchRequest:
    """A watch as the server builds it: its filter checks the namespace, then the fields."""
    namespace = f"ns-{i}" if scope == "namespace" else None
    fields = parse_field_selector(None if namespace else f"spec.nodeName=node-{i}")

    def matches(obj: dict[str, Any]) -> bool:
        meta = obj.get("metadata") or {}
        if namespace is not None and meta.get("namespace") != namespace:
            return False
        return fields.empty() or fields.matches(_fields(obj))

    index: WatchIndex | None = None
    if routed:
        index = namespace_index(namespace) if namespace else WatchIndex("node", _node, f"node-{i}")
    return WatchRequest(PODS, "Pod", "v1", matches, group=i, cache_key="v1", index=index)


def _pod(scope: str, j: int, watchers: int) -> dict[str, Any]:
    namespace = f"ns-{j % watchers}" if scope == "namespace" else "default"
    spec = {"nodeName": f"node-{j % watchers}", "containers": [{"name": "c", "image": "i"}]}
    return {"metadata": {"namespace": namespace, "name": f"p{j}"}, "spec": spec}


async def _batch(storage: Storage, make: Callable[[int], dict[str, Any]], first: int) -> float:
    """CPU seconds for creates ``first`` to ``first + 50``, committed together as a busy
    server commits them."""
    start = time.process_time()
    for j in range(first, first + _BATCH):
        storage.create(PODS, make(j))
    await storage.durable()
    return time.process_time() - start


async def measure(scope: str, routed: bool, watchers: int, events: int) -> Routing:
    """Batches of creates alternate between a store nobody watches and one that the
    watches read, so other work on the machine weighs on both alike."""
    bare_store, watched_store = Storage(None), Storage(None)
    hub = WatchHub()
    hub.attach(watched_store)
    joined = [hub.join(_request(scope, i, routed), object()) for i in range(watchers)]
    make = lambda j: _pod(scope, j, watchers)  # noqa: E731
    bare: list[float] = []
    extra: list[float] = []
    for first in range(0, events, _BATCH):
        alone = await _batch(bare_store, make, first)
        bare.append(alone)
        extra.append(await _batch(watched_store, make, first) - alone)
    assert all(member.pending() for member, _ in joined)  # every watch got its events
    for _, leave in joined:
        leave()
    bare_store.close()
    watched_store.close()
    # Medians of the batches: a batch that shared its core with other work weighs little.
    per_event = 1e6 / _BATCH
    return Routing(
        scope,
        routed,
        watchers,
        events,
        statistics.median(extra) * per_event,
        statistics.median(bare) * per_event,
    )


async def run(args: argparse.Namespace) -> list[Routing]:
    out = []
    for _ in range(args.rounds):
        for scope in ("namespace", "node"):
            for routed in (False, True):
                out.append(await measure(scope, routed, args.watchers, args.events))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.apiserver.routing")
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes, to try it out")
    args = parser.parse_args(argv)
    if args.quick:
        args.watchers, args.events, args.rounds = 10, 500, 1
    clean_exit_on_sigterm()
    env = environment("benchmarks.apiserver.routing", argv)
    runs = asyncio.run(run(args))
    for r in runs:
        print(
            f"{r.watchers} watches by {r.scope}, {'routed' if r.routed else 'unrouted'}: "
            f"fan-out {r.fan_out_us_per_event:.1f} us of CPU per event "
            f"(the create alone {r.create_us_per_event:.1f} us)"
        )
    summary = {
        f"{scope}_{'routed' if routed else 'unrouted'}_us_per_event": statistics.median(
            r.fan_out_us_per_event for r in runs if (r.scope, r.routed) == (scope, routed)
        )
        for scope in ("namespace", "node")
        for routed in (False, True)
    }
    payload = {**env, **summary, "runs": [asdict(r) for r in runs]}
    write_results("apiserver-routing", payload, quick=args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
