"""The core group (``/api/v1``): one module per family of kinds, and ``kinds``, their listing.

Entry point: ``kinds.KINDS``. ``pods_services`` holds Pods (defaults, graceful deletion),
``services`` Services (with ``service_defaults``, ``service_spec``, ``service_ips`` and the
cluster IP and node port allocations of ``service_alloc``), ``endpoints`` Endpoints,
``objects`` the plain kinds, ``volumes_quotas`` the rest; ``pod_columns`` and ``columns``
their ``kubectl get`` columns.
"""
