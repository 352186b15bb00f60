"""Load on the local API server: ``python -m benchmarks.apiserver [--quick]``.

Starts ``kubeforge apiserver`` as a real process with a data directory (every
write durable, as in use) and measures, from this process over HTTPS:

* **writes/s**: ConfigMap creates acknowledged per second, ``--concurrency``
  requests in flight, ``--objects`` in all;
* **list**: one GET of those ``--objects`` ConfigMaps (best of 5), and the same
  list in pages of 500 as kubectl reads it;
* **watch fan-out**: ``--watchers`` watches open on one namespace while creates
  arrive at ``--rate`` per second for ``--seconds``; the write rate achieved,
  whether every watcher saw every event in resourceVersion order, and, on every
  tenth watcher, the latency from sending each write to receiving its event;
* the same fan-out with writes as fast as the server takes them;
* the paced fan-out again with each watcher on a namespace of its own and the writes
  spread over those namespaces (``benchmarks/apiserver/_fanout.py``); with
  ``$KF_BENCH_BASE`` naming another checkout, the three runs again on a fresh server
  of that one (before/after in one run).

The server's CPU time is read from ``/proc`` so the report says whether the
server or this (single) client process was the bottleneck. Writes
``benchmarks/results/apiserver.json`` (``-quick`` for ``--quick``; ``--out`` to change)
with the machine, versions and command beside the numbers. Traffic goes to
127.0.0.1 only, and every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import os
import re
import resource
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from benchmarks._report import clean_exit_on_sigterm, environment, write_results
from benchmarks.apiserver._fanout import FanOut, measure_fan_outs
from benchmarks.apiserver._pods import (
    ListBlocking,
    LoopStretch,
    PodCreates,
    bounded,
    fill_pods,
    measure_list_blocking,
    measure_pod_creates,
)
from benchmarks.apiserver._trace import TRACE_ENV

from kubeforge.testing import LocalApiServer

LOOPWATCH = Path(__file__).resolve().parent / "loopwatch"


@dataclass
class Report:
    cpus: int
    load_average: list[float] = field(default_factory=list)
    """1-minute load average before and after the run: other work on the machine."""
    writes_per_second: float = 0.0
    write_server_cpu_share: float = 0.0
    write_client_cpu_share: float = 0.0
    server_cpu_us_per_write: float = 0.0
    list_objects: int = 0
    list_ms: float = 0.0
    list_mib: float = 0.0
    list_paged_ms: float = 0.0
    fan_out: list[FanOut] = field(default_factory=list)
    fan_out_base: list[FanOut] = field(default_factory=list)  # on $KF_BENCH_BASE's server
    pod_creates: PodCreates | None = None
    list_blocking: ListBlocking | None = None
    list_blocking_base: ListBlocking | None = None  # the same pods on $KF_BENCH_BASE's server


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _server_cpu(server: LocalApiServer) -> float:
    """Seconds of CPU the server process has used (user + system)."""
    process = server._process  # the benchmark is a friend of the harness
    assert process is not None
    fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


class Client:
    """aiohttp for reads and watches; writes go over ``_Connection``s (cheaper per request)."""

    def __init__(self, server: LocalApiServer, session: aiohttp.ClientSession) -> None:
        self.server = server
        self.session = session
        self.headers = {"Authorization": f"Bearer {server.token}"}
        self._idle: list[_Connection] = []

    async def create(self, namespace: str, name: str) -> None:
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
        body["data"] = {"key": "value", "name": name}
        await self.create_raw(namespace, "configmaps", body)

    async def create_raw(self, namespace: str, plural: str, body: dict[str, Any]) -> None:
        path = f"/api/v1/namespaces/{namespace}/{plural}"
        connection = self._idle.pop() if self._idle else await _Connection.open(self.server)
        status, text = await connection.post(path, json.dumps(body).encode())
        self._idle.append(connection)
        assert status == 201, text

    def close(self) -> None:
        for connection in self._idle:
            connection.close()

    async def get_bytes(self, path: str, **params: str) -> bytes:
        url = self.server.url + path
        async with self.session.get(url, params=params, headers=self.headers) as response:
            assert response.status == 200, await response.text()
            return await response.read()

    async def namespace(self, name: str) -> None:
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        url = f"{self.server.url}/api/v1/namespaces"
        async with self.session.post(url, json=body, headers=self.headers) as response:
            assert response.status == 201, await response.text()


class _Connection:
    """One keep-alive HTTP/1.1 connection speaking just enough to POST JSON.

    A general client spends more CPU per request than the server does on a create,
    so with it this benchmark would mostly measure itself.
    """

    def __init__(
        self, server: LocalApiServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.reader, self.writer = reader, writer
        self.head = (
            f"Host: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {server.token}\r\n"
            "Content-Type: application/json\r\nAccept: application/json\r\n"
        ).encode()

    @classmethod
    async def open(cls, server: LocalApiServer) -> _Connection:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", server.port, ssl=server.ssl_context()
        )
        return cls(server, reader, writer)

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        request = b"POST %s HTTP/1.1\r\n%sContent-Length: %d\r\n\r\n%s" % (
            path.encode(),
            self.head,
            len(body),
            body,
        )
        self.writer.write(request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def measure_writes(client: Client, args: argparse.Namespace, report: Report) -> None:
    await client.namespace("bench-writes")
    cpu, own = _server_cpu(client.server), _own_cpu()
    start = time.perf_counter()

    async def create(index: int) -> None:
        await client.create("bench-writes", f"w-{index:06d}")

    await bounded(args.objects, args.concurrency, create)
    elapsed = time.perf_counter() - start
    busy = _server_cpu(client.server) - cpu
    report.writes_per_second = args.objects / elapsed
    report.write_server_cpu_share = busy / elapsed
    report.write_client_cpu_share = (_own_cpu() - own) / elapsed
    report.server_cpu_us_per_write = busy / args.objects * 1e6


async def measure_list(client: Client, args: argparse.Namespace, report: Report) -> None:
    path = "/api/v1/namespaces/bench-writes/configmaps"
    best, size = float("inf"), 0
    for _ in range(5):
        start = time.perf_counter()
        data = await client.get_bytes(path)
        best = min(best, time.perf_counter() - start)
        size = len(data)
    # Only the benchmark's own: the root-CA publisher adds kube-root-ca.crt to every namespace.
    assert len(_written(json.loads(data)["items"])) == args.objects
    report.list_objects = args.objects
    report.list_ms = best * 1000
    report.list_mib = size / (1 << 20)
    start = time.perf_counter()
    token, seen = "", 0
    while True:
        params = {"limit": "500", **({"continue": token} if token else {})}
        page = json.loads(await client.get_bytes(path, **params))
        seen += len(_written(page["items"]))
        token = page["metadata"].get("continue", "")
        if not token:
            break
    assert seen == args.objects
    report.list_paged_ms = (time.perf_counter() - start) * 1000


def _written(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [item for item in items if item["metadata"]["name"].startswith("w-")]


async def measure(args: argparse.Namespace) -> Report:
    report = Report(
        cpus=os.cpu_count() or 0,
        load_average=[os.getloadavg()[0]],
    )
    if "writes" not in args.skip:
        phase = lambda client, *_: _writes_list_fan_out(client, args, report)  # noqa: E731
        await _on_fresh_server(args, phase, loopwatch=args.trace)
        await _fan_out_base(args, report)
    if args.pods:
        report.pod_creates = await _on_fresh_server(args, _pod_creates, nodes=args.pods // 100 + 1)
    if args.list_pods:
        await _list_blocking(args, report)
    report.load_average.append(os.getloadavg()[0])
    return report


async def _writes_list_fan_out(client: Client, args: argparse.Namespace, report: Report) -> None:
    await measure_writes(client, args, report)
    await measure_list(client, args, report)
    report.fan_out = await measure_fan_outs(client, args, _server_cpu, _own_cpu)


async def _fan_out_base(args: argparse.Namespace, report: Report) -> None:
    """The fan-out runs again on a server of ``$KF_BENCH_BASE``'s checkout, if named."""
    source = _base_source()
    if source is None:
        return
    with tempfile.TemporaryDirectory(prefix="kubeforge-bench-") as data_dir:

        async def phase(client: Client) -> list[FanOut]:
            return await measure_fan_outs(client, args, _server_cpu, _own_cpu)

        report.fan_out_base = await _on_server(Path(data_dir), phase, 1, source, args.trace)


async def _on_fresh_server(
    args: argparse.Namespace, phase: Any, nodes: int = 1, loopwatch: bool = False
) -> Any:
    """``phase(client, args, nodes)`` against a new server with a data directory (durable)."""
    with tempfile.TemporaryDirectory(prefix="kubeforge-bench-") as data_dir:
        run = lambda client: phase(client, args, nodes)  # noqa: E731
        return await _on_server(Path(data_dir), run, nodes, loopwatch=loopwatch)


async def _on_server(
    data_dir: Path, phase: Any, nodes: int, source: str | None = None, loopwatch: bool = False
) -> Any:
    """``phase(client)`` against a server on ``data_dir``, of ``source``'s kubeforge if given,
    with ``loopwatch/`` on its path if ``loopwatch`` (``LoopStretch``, or ``--trace``)."""
    saved = os.environ.get("PYTHONPATH")
    paths = [source] if source is not None else []
    paths += [str(LOOPWATCH)] if loopwatch else []
    if paths:
        os.environ["PYTHONPATH"] = os.pathsep.join(paths)
    try:
        # A restart on a data directory of 100,000 pods loads them first: minutes under load.
        with LocalApiServer(data_dir=data_dir, nodes=nodes, startup_timeout=600) as server:
            connector = aiohttp.TCPConnector(ssl=server.ssl_context(), limit=0)
            timeout = aiohttp.ClientTimeout(total=None, sock_read=300)
            async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
                client = Client(server, session)
                try:
                    return await phase(client)
                finally:
                    client.close()
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


async def _pod_creates(client: Client, args: argparse.Namespace, nodes: int) -> PodCreates:
    return await measure_pod_creates(
        client, "bench-pods", args.pods, args.concurrency, nodes, _server_cpu
    )


async def _list_blocking(args: argparse.Namespace, report: Report) -> None:
    """The pods are created once; then a server of this checkout lists them and, when
    ``$KF_BENCH_BASE`` names another checkout, first a server of that one (before/after
    in one run), each started on the same data directory."""
    with tempfile.TemporaryDirectory(prefix="kubeforge-bench-") as data_dir:
        data = Path(data_dir)

        async def create(client: Client) -> PodCreates:
            count = max(1, min(args.list_pods, args.list_created))
            return await measure_pod_creates(
                client, "bench-list", count, args.concurrency, 0, _server_cpu
            )

        async def list_them(client: Client) -> ListBlocking:
            assert client.server._process is not None
            stretch = LoopStretch(client.server._process.pid, data.with_suffix(".stretch"))
            count = args.list_pods
            return await measure_list_blocking(client, "bench-list", count, _server_cpu, stretch)

        os.environ["KF_LOOP_STRETCH"] = str(data.with_suffix(".stretch"))
        await _on_server(data, create, nodes=0)
        await fill_pods(data, "bench-list", args.list_pods)
        source = _base_source()
        if source is not None:
            report.list_blocking_base = await _on_server(data, list_them, 0, source, True)
        report.list_blocking = await _on_server(data, list_them, 0, None, True)
        data.with_suffix(".stretch").unlink(missing_ok=True)


def _base_source() -> str | None:
    """The compiled ``src`` of the baseline checkout ``$KF_BENCH_BASE`` names, if any."""
    base = os.environ.get("KF_BENCH_BASE")
    if not base:
        return None
    source = str(Path(base).resolve() / "src")
    compileall.compile_dir(source, quiet=1, workers=1)  # as an installed wheel has it
    return source


def _print_writes(report: Report) -> None:
    print(f"writes/s (creates, durable): {report.writes_per_second:,.0f}")
    print(
        f"  server CPU {report.server_cpu_us_per_write:.0f} us per write; busy "
        f"{report.write_server_cpu_share:.0%} (client {report.write_client_cpu_share:.0%})"
    )
    print(
        f"list of {report.list_objects:,}: {report.list_ms:.0f} ms ({report.list_mib:.1f} MiB); "
        f"in pages of 500: {report.list_paged_ms:.0f} ms"
    )


def _print(report: Report) -> None:
    before, after = report.load_average
    print(f"machine: {report.cpus} CPUs, load average {before:.1f} before, {after:.1f} after")
    if report.writes_per_second:
        _print_writes(report)
    if report.pod_creates is not None:
        pods = report.pod_creates
        print(
            f"pod creates/s with {pods.nodes} simulated nodes running: "
            f"{pods.creates_per_second:,.0f} ({pods.pods:,} pods, {pods.running_at_end:,} running "
            f"at the end); server CPU {pods.server_cpu_us_per_create:.0f} us per create"
        )
    for code, lb in [("base", report.list_blocking_base), ("this checkout", report.list_blocking)]:
        if lb is None:
            continue
        print(
            f"paged list of {lb.pods:,} pods ({lb.pages} pages of 500, {code}): "
            f"{lb.list_seconds:.1f} s; another client's GET meanwhile: p99 "
            f"{lb.probe_during_list_p99_ms:.1f} ms, max {lb.probe_during_list_max_ms:.1f} ms "
            f"(idle server: p99 {lb.probe_idle_p99_ms:.1f} ms, max {lb.probe_idle_max_ms:.1f} ms); "
            f"server CPU {lb.server_cpu_ms_per_page:.1f} ms per page; longest loop callback "
            f"{lb.longest_loop_callback_ms:.1f} ms of CPU"
        )
    runs = [("", run) for run in report.fan_out]
    runs += [("$KF_BENCH_BASE: ", run) for run in report.fan_out_base]
    for label, run in runs:
        target = f"{run.target_rate:,.0f}/s" if run.target_rate else "flat out"
        print(
            f"{label}fan-out to {run.watchers} watchers on {run.namespaces} namespace(s), writes "
            f"{target}: achieved "
            f"{run.achieved_rate:,.0f} writes/s; latency p50 {run.latency_p50_ms:.1f} ms, "
            f"p99 {run.latency_p99_ms:.1f} ms, max {run.latency_max_ms:.1f} ms; "
            f"{run.events_received:,}/{run.events_expected:,} events, in order: "
            f"{run.all_in_order}; server CPU {run.server_cpu_us_per_write:.0f} us per write "
            f"(one free core: {1e6 / run.server_cpu_us_per_write:,.0f} writes/s), "
            f"busy {run.server_cpu_share:.0%} (client {run.client_cpu_share:.0%})"
        )
        if run.trace:
            _print_trace(run.trace)


def _print_trace(trace: dict[str, Any]) -> None:
    legs = ("sent_commit_ms", "commit_handoff_ms", "commit_read_ms")
    for leg in legs:
        spread = trace[leg]
        if spread:
            print(f"  {leg[:-3]:15s} " + ", ".join(f"{k} {v:.1f}" for k, v in spread.items()))
    longest = ", ".join(
        f"gen{g} {wall:.1f} ({cpu:.1f} CPU)" for g, wall, cpu in trace["gc_longest_ms"]
    )
    print(f"  server: {trace['gc_collections']} collections, longest ms: {longest or '-'}")
    slow = "; ".join(
        f"{wall:.1f} ({cpu:.1f} CPU) {name}" for wall, cpu, name in trace["callbacks_longest_ms"]
    )
    print(f"  server: {trace['callbacks_over_2ms']} callbacks over 2 ms, longest ms: {slow or '-'}")


_WRITE_FIELDS = (
    "writes_per_second",
    "write_server_cpu_share",
    "write_client_cpu_share",
    "server_cpu_us_per_write",
    "list_objects",
    "list_ms",
    "list_mib",
    "list_paged_ms",
    "fan_out",
    "fan_out_base",
)


def _measured(fields: dict[str, Any], skipped: list[str]) -> dict[str, Any]:
    """The report without the phases a run skipped (their zeros would read as results)."""
    dropped = set(_WRITE_FIELDS) if "writes" in skipped else set()
    dropped |= {"pod_creates"} if "pods" in skipped else set()
    dropped |= {"list_blocking", "list_blocking_base"} if "list" in skipped else set()
    return {key: value for key, value in fields.items() if key not in dropped}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.apiserver", description=__doc__)
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--rate", type=float, default=2000.0)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--pods", type=int, default=5_000, help="pod creates, nodes running")
    parser.add_argument("--list-pods", type=int, default=100_000, help="pods in the paged list")
    parser.add_argument(
        "--list-created",
        type=int,
        default=1_000_000,
        help="of those, how many to create through the API (the rest: copies in its storage)",
    )
    parser.add_argument("--skip", action="append", default=[], help="writes, pods or list")
    parser.add_argument("--quick", action="store_true", help="small sizes, to try it out")
    parser.add_argument(
        "--trace",
        action="store_true",
        help="fan-out runs say where their latency went (costs the server some CPU)",
    )
    parser.add_argument("--out", type=Path, default=None, help="JSON path (default: results/)")
    parser.add_argument(
        "--name", default="apiserver", help="results/<name>.json, e.g. for a run of one phase"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.objects, args.watchers, args.seconds = 1000, 10, 1.0
        args.pods, args.list_pods = 500, 2000
    if "pods" in args.skip:
        args.pods = 0
    if "list" in args.skip:
        args.list_pods = 0
    clean_exit_on_sigterm()
    if args.trace:
        os.environ[TRACE_ENV] = str(Path(tempfile.gettempdir()) / f"kubeforge-trace-{os.getpid()}")
    env = environment("benchmarks.apiserver", argv)
    report = asyncio.run(measure(args))
    _print(report)
    payload = {**env, **_measured(asdict(report), args.skip)}
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    else:
        write_results(args.name, payload, quick=args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
