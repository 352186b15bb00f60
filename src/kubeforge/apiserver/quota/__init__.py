"""Resource quota accounting shared by the ``ResourceQuota`` admission plugin and the
resource-quota controller (kubernetes' ``pkg/quota/v1`` and
``k8s.io/apiserver/pkg/quota/v1``): quantities with their print format and resource-list
arithmetic (``quantity``), what each object costs (``pods``, ``evaluators``), whether a
write fits (``admit``) and a quota's recalculated usage (``usage``).

Imports ``builtin`` (the quantity parser and printer) and below; imported by
``admission`` and ``controllers``.
"""
