"""Server-side ``kubectl get`` columns of built-in kinds, and the JSONPath of CRD printer columns.

Entry points: ``apps_rbac.printer_for_builtin(group, kind)`` (a ``core.Printer``: column
definitions plus a row function), ``core.human_duration``, ``jsonpath.find``.

May import: ``meta`` and ``failures``.
"""
