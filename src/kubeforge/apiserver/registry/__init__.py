"""The generic store: the verbs with the real server's rules, and what is served.

Entry points: ``engine.Engine`` (create, update, patch, delete without HTTP),
``strategy.Strategy`` (the per-resource rules a kind plugs in), ``served.Registry``
(the resources served right now), ``deletion`` (options and finalizers), ``scale``
(the ``/scale`` subresource).

May import: ``storage``, ``patch``, ``authn`` and the leaves (``failures``, ``meta``,
``smd``, ...); never a kind, an HTTP handler or a controller.
"""
