"""Admission around writes: admission webhooks and RBAC escalation prevention.

Entry points: ``chain.Admission`` (``write`` and ``delete``, called by the handlers) and
``webhooks.Webhooks``.

May import: the kinds' layer (``builtin``, ``apiextensions``, ``fieldmanager``, ``authz``,
``openapi``) and what is below it.
"""
