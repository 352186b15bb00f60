"""Throughput benchmark of ``kubeforge.workqueue``, run by hand: ``python -m benchmarks.workqueue``.

Prints add/get/done operations per second for a few workloads with duplicate
keys, next to ``asyncio.Queue`` (put/get/task_done, no de-duplication) as the
baseline a Python user would otherwise reach for. See ``__main__.py``.
"""
