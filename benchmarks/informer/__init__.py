"""Informer event throughput from watch line to handler: ``python -m benchmarks.informer``.

In process (codec + watcher + store + handlers, no network) and end to end against
a local API server, side by side with the official ``kubernetes`` SharedInformer.
The numbers are in ``benchmarks/cache/README.md``.
"""
