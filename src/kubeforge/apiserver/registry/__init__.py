"""The generic store: the verbs with the real server's rules, and what is served.

Entry points: ``engine.Engine`` (create, update, patch, delete without HTTP),
``strategy.Strategy`` (the per-resource rules a kind plugs in), ``served.Registry``
(the resources served right now), ``deletion`` (options and finalizers), ``scale``
(the ``/scale`` subresource). The engine's rules live beside it, one concern each:
``system_metadata`` (what the server owns in metadata), ``status_writes``,
``unknown_fields`` (fieldValidation), ``patched`` (a patch's own checks),
``namespace_lifecycle``, ``conversions``, ``admit`` (the built-in admission hook).

May import: ``storage``, ``patch``, ``authn`` and the leaves (``failures``, ``meta``,
``smd``, ...); never a kind, an HTTP handler or a controller.
"""
