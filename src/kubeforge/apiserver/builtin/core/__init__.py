"""The core group (``/api/v1``): one module per family of kinds, and ``kinds``, their listing.

Entry point: ``kinds.KINDS``. ``pods_services`` holds Pods and Services (defaults, graceful
deletion, cluster IPs), ``objects`` the plain kinds, ``volumes_quotas`` the rest;
``pod_columns`` and ``columns`` their ``kubectl get`` columns.
"""
