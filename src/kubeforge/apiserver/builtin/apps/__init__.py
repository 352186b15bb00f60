"""The ``apps`` group: Deployments, ReplicaSets, StatefulSets, DaemonSets and
ControllerRevisions, stored, defaulted and validated as the real server does it.

Entry point: ``kinds.KINDS``. ``workload`` holds what every workload shares (and the pod
template defaults other groups reuse), ``deployments`` and ``sets`` the kinds' own rules,
``rolling`` the rolling-update rules, ``status_rules`` what a ``/status`` write must meet,
``revisions`` the ControllerRevisions, ``columns`` their ``kubectl get`` columns.
"""
