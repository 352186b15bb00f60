"""Authorization: the RBAC authorizer, its rule matching, and the bootstrap policy.

Entry points: ``rbac.RBAC`` (``authorize(attributes)``), ``rules.allows`` / ``compact``
/ ``uncovered``, ``bootstrap`` (the default roles and bindings of a 1.32 server).

May import: ``registry`` and what is below it.
"""
