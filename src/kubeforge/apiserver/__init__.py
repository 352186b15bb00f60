"""The local Kubernetes API server: aiohttp over SQLite, faithful enough for kubectl.

Imports ``kubeforge.core`` only (never the client), so client bugs are not mirrored
here. Entry points: ``python -m kubeforge.apiserver`` / ``kubeforge apiserver`` (the
click command in ``server.command``) and ``app.LocalServer`` for embedding in a process.

One subpackage per concern, laid out as the real server is (``k8s.io/apiserver``'s
endpoints, registry, storage, admission, authentication and authorization;
``kubernetes/pkg/registry/<group>``). Higher layers import lower ones, never the reverse:

    server        assembly of the aiohttp app, the process, TLS, the request log
    endpoints     HTTP: request filters (``access``), verbs, list/watch, tables, discovery
    admission     webhooks and RBAC escalation prevention around writes
    controllers   the simulated control plane: node, namespaces, garbage collection
    builtin       built-in kinds (facts, strategies, table columns), one module per API group
    apiextensions CRDs and custom resources: schemas, validation, names, lifecycle
    fieldmanager  managedFields and server-side apply
    authz         the RBAC authorizer and the bootstrap policy
    openapi       /openapi/v2 and /openapi/v3
    registry      the generic store: verbs, strategies, deletion, scale, what is served
    storage       SQLite + in-memory index, journal, data-directory guards, history,
                  watch fan-out, continue tokens
    patch         JSON, merge and strategic merge patch
    authn         who is asking: tokens, service accounts, impersonation
    meta, cel, smd, protobuf, printers, failures, negotiation
                  leaves: ObjectMeta rules, CEL, the structured-merge-diff type model,
                  protobuf bodies, ``kubectl get`` column machinery, Status errors,
                  Accept parsing

Each subpackage's ``__init__`` says what it owns, its entry point and what it may import.
"""
