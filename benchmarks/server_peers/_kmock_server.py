"""kmock's ``KubernetesEmulator`` on loopback, as a process: ``python _kmock_server.py PORTFILE``.

Serves ConfigMaps (``v1/configmaps``) until SIGTERM, and writes its port to PORTFILE
once it listens. Plain HTTP and no authentication: kmock has neither.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import kmock


async def main(port_file: Path) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with kmock.KubernetesEmulator() as emulator, kmock.Server(emulator) as server:
        emulator.resources["v1/configmaps"] = {}
        port_file.write_text(str(server.port))  # noqa: ASYNC240 - once, before serving
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
