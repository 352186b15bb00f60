"""``examples/podtoip`` unchanged except for its worker count: ``kubeforge run`` this file.

The example asks for ``max_concurrent_reconciles=2``. With the local server's
write latency that caps how fast a backlog drains, whatever the CPU cost, so
the PodToIp benchmark can also run this variant (``--only kubeforge-8w``) to show
what the worker count alone changes. ``KF_BENCH_WORKERS`` overrides the default 8.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

from kubeforge import Manager
from kubeforge.cli._targets import load_module

_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "podtoip"


def setup(mgr: Manager) -> None:
    podtoip = sys.modules.get("podtoip") or load_module(str(_EXAMPLE))
    podtoip.setup(mgr)
    workers = int(os.environ.get("KF_BENCH_WORKERS", "8"))
    for controller in mgr.controllers:
        # Workers are started from these options, so replacing them before the manager
        # runs is the same as the example asking for this many.
        controller.options = dataclasses.replace(
            controller.options, max_concurrent_reconciles=workers
        )
