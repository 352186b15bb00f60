"""The machinery of server-side ``kubectl get`` columns, and the JSONPath of CRD printer columns.

``columns`` holds ``Printer`` (column definitions plus a row function), ``column`` and the
shared ``Name``/``Age`` columns and age rendering; ``cells`` the tolerant readers row
functions are built from; ``jsonpath`` kubectl's JSONPath dialect, which evaluates a
CRD's ``additionalPrinterColumns``. A built-in kind's own printer is not here: it is the
``printer`` of its ``Kind`` entry, in its API group's module under ``builtin``.

Entry points: ``columns.Printer``, ``columns.human_duration``, ``jsonpath.find``.

May import: ``meta`` and ``failures``.
"""
