"""OpenAPI: ``/openapi/v3`` and ``/openapi/v2`` (JSON and gnostic protobuf).

Entry points: ``documents.add_routes(app, registry)`` and ``documents.OpenApiDocuments``.
Built-in kinds are the real 1.32 schemas, read from ``builtin_openapi.json.gz``
(``builtin_schemas``), which ``generate`` writes (a development tool).

May import: ``registry`` and what is below it.
"""
