"""Memory per cached pod and read cost of informer caches: ``python -m benchmarks.cache``.

kubeforge's packed store (with and without the ``drop_managed_fields`` transform),
the decoded-Struct design it replaced, and the official ``kubernetes`` package's
``SharedInformer``, side by side on 10,000 realistic pods. Numbers and the decision
they support are in ``README.md`` beside this file.
"""
