"""Built-in kinds, one module per API group: each lists its kinds once, with their rules.

Every group's module ends with ``KINDS``, one ``kind.Kind`` per resource: its facts for
discovery, the ``Strategy`` of its writes (defaults, validation, status rules) and the
``Printer`` of its ``kubectl get`` columns, both beside it. A group too big for one file
is a folder (``core/``, ``apps/``, ``batch/``) whose ``kinds`` module lists ``KINDS`` and
whose ``columns`` module holds the printers. ``resources`` joins the groups:
``BUILTIN_RESOURCES`` for the registry (a kind's printer rides on its ``ServedResource``
to the Table endpoint) and ``builtin_strategy`` for the engine, both handed over when the
server is assembled. ``generic.CatalogStrategy`` is the rules of a GA kind without rules
of its own; ``printers.columns.DEFAULT_PRINTER`` the columns of a kind without its own.

May import: ``registry`` and what is below it.
"""
