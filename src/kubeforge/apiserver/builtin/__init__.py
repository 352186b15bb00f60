"""Built-in kinds, one module per API group: each lists its kinds once, with their rules.

Every group's module ends with ``KINDS``, one ``kind.Kind`` per resource: its facts for
discovery and the ``Strategy`` of its writes (defaults, validation, status rules), which
lives beside it (the core group is a folder: ``core/``). ``resources`` joins the groups:
``BUILTIN_RESOURCES`` for the registry and ``builtin_strategy`` for the engine, both
handed over when the server is assembled. ``generic.CatalogStrategy`` is the rules of a
GA kind without rules of its own. Table columns are ``printers``', keyed by group and kind.

May import: ``registry`` and what is below it.
"""
