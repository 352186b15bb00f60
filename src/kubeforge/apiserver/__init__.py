"""The local Kubernetes API server: aiohttp over SQLite, faithful enough for kubectl.

Imports ``kubeforge.core`` only (never the client), so client bugs are not mirrored
here. Entry points: ``python -m kubeforge.apiserver`` / ``kubeforge apiserver`` (the
click command in ``command``) and ``app.LocalServer`` for embedding in a process.

Layout: ``app`` wires ``storage`` (SQLite + in-memory index, revisions, history),
``registry`` (what is served), ``engine`` + ``deletion`` (verb rules) with per-resource
``strategies``/``workloads``/``crds`` (custom resources: ``custom_resources``,
``schema`` with ``formats``, ``cel`` rules, ``defaulting`` on read, ``crd_validation``,
``crd_names`` for naming conflicts), ``handlers``/``listing`` (+ ``pages``)/``watch`` (+ ``fanout``)
(HTTP), and the simulated control plane (``controllers``, ``namespaces``, ``garbage``;
loops driven by storage events share ``background.StorageLoop``). Discovery, OpenAPI and
Table output (``discovery``, ``openapi`` with ``openapi_v2``/``_gnostic`` for Swagger 2.0
and its protobuf form, ``tables``) read the ``Registry``. Patches are
``patching`` (JSON, merge) and ``smp`` (strategic merge); server-side apply and
managedFields are ``apply`` over the ``ssa`` package. The second set of built-ins is
``builtins`` (which strategy a kind gets) over ``builtins_apps``/``_core``/``_rbac``/
``_admission``; every other GA kind is listed in ``builtins_catalog`` with its rules in
``builtins_more``, ``builtins_batch`` (Jobs, CronJobs) and ``builtins_autoscaling`` (HPA
v2, and v1 converted from it), its table columns in ``_printers_more``/``_printers_cluster``
and the protobuf bodies of kubectl's typed create commands in ``_protobuf_more``.
Every request passes ``access`` (``authn`` tokens and impersonation,
``rbac`` authorization, bootstrap roles in ``rbac_bootstrap``); every write passes
``admission`` (``webhooks``, RBAC escalation checks); ``reviews`` answers access reviews
and token requests; ``httplog`` writes ``-v``'s one line per request.
"""
