"""HTTP: request filters, one handler per verb family, list and watch, tables, discovery, reviews.

Entry point: ``handlers.ResourceHandlers`` (the ``/api`` and ``/apis`` resource URLs);
``access.Access`` runs before every request; ``listing`` serves lists and watches
(``watch`` streams them), ``tables`` the ``Table`` form, ``discovery`` the group and
resource lists, ``reviews`` access reviews and token requests.

May import: everything below it; never ``server``.
"""
