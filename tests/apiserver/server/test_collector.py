"""The server's collector settings (``server.collector``): what is frozen, what is still collected.

The settings are process-wide, so each check runs in a fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_what_survives_a_collection_is_frozen() -> None:
    out = _run(
        """
        import gc
        from kubeforge.apiserver.server.collector import tune_collector
        tune_collector()
        print(gc.get_threshold()[0])
        kept = [[i] for i in range(1000)]  # lives on, like stored objects
        frozen = gc.get_freeze_count()
        gc.collect(0)
        print(gc.get_freeze_count() >= frozen + len(kept))
        """
    )
    assert out.splitlines() == ["5000", "True"]


def test_cycles_that_die_young_are_still_collected() -> None:
    out = _run(
        """
        import gc, weakref
        from kubeforge.apiserver.server.collector import tune_collector
        tune_collector()
        class Node:
            pass
        node = Node()
        node.self = node  # a reference cycle: only the collector frees it
        alive = weakref.ref(node)
        del node
        gc.collect(0)
        print(alive() is None)
        """
    )
    assert out == "True"


def test_a_process_that_turned_automatic_collection_off_keeps_it_off() -> None:
    out = _run(
        """
        import gc
        from kubeforge.apiserver.server.collector import tune_collector
        gc.set_threshold(0)
        tune_collector()
        tune_collector()  # twice: still one callback
        print(gc.get_threshold()[0], len(gc.callbacks))
        """
    )
    assert out == "0 1"
