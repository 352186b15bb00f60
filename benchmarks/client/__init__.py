"""Client decode speed and memory next to the Python peers: ``python -m benchmarks.client``.

Decodes a 10,000-pod list and a 50,000-event watch stream with kubeforge and with
the official ``kubernetes`` package (sync and ``kubernetes.aio``),
``kubernetes_asyncio`` and ``lightkube``, each through its own decode path, and
reports time, memory per decoded pod and ratios against the official client.
Install the peers with ``pip install -e '.[bench]'``. Results go to
``benchmarks/results/client.json``; the numbers are in ``README.md`` beside this file.
"""
