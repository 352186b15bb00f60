"""Turns list + watch into one resumable stream of typed events. See ``watcher()``.

May import ``client``, ``config`` and ``core``; knows nothing of caches or controllers.

- ``watcher(api, WatcherConfig(...))``: the stream (``events``: ``Init``,
  ``InitApply``, ``InitDone``, ``Apply``, ``Delete``).
- ``ExponentialBackoff``: the retry pacing it uses (client-go's reflector defaults).
"""

from kubeforge.watch.backoff import Backoff, ExponentialBackoff
from kubeforge.watch.events import Apply, Delete, Event, Init, InitApply, InitDone
from kubeforge.watch.watcher import ListWatch, WatcherConfig, watcher

__all__ = [
    "Apply",
    "Backoff",
    "Delete",
    "Event",
    "ExponentialBackoff",
    "Init",
    "InitApply",
    "InitDone",
    "ListWatch",
    "WatcherConfig",
    "watcher",
]
