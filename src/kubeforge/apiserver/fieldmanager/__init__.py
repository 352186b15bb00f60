"""Field management: ``managedFields`` and server-side apply.

Entry points: ``apply.server_side_apply`` and ``apply.ManagedFieldsTracker`` (what a write records
into ``managedFields``), over ``managed`` (the Update and Apply operations),
``entries`` (the ``managedFields`` wire format), ``conflicts`` (a refused apply's 409)
and ``last_applied`` (kubectl's client-side apply annotation under server-side apply).

May import: ``registry`` and what is below it (``smd`` for the type model).
"""
