"""Field management: ``managedFields`` and server-side apply.

Entry points: ``apply.server_side_apply`` and ``apply.ManagedFieldsTracker`` (what a write records
into ``managedFields``), over ``managed`` (the Update and Apply operations) and
``entries`` (the ``managedFields`` wire format).

May import: ``registry`` and what is below it (``smd`` for the type model).
"""
