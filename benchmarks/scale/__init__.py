"""An informer over 100,000 pods: ``python -m benchmarks.scale``.

Sync time, peak and steady memory, and CPU per watch event under churn, for
kubeforge's informer (paged and streaming initial lists) and the official
``kubernetes`` client's ``SharedInformer``, each in a process of its own against
the same local API server.
"""
