"""Server-side apply and managedFields, as structured-merge-diff does them in the real server.

Layout: ``schema`` (how each node of an object merges: built-in kinds from the
generated ``builtin_types.json``, custom resources from their CRD schema), ``fieldpath``
(paths, field sets and the ``FieldsV1`` encoding), ``typed`` (field sets of values,
comparison, apply-merge, removal), ``entries`` (the managedFields wire format) and
``managed`` (the ``Update`` and ``Apply`` operations). ``generate`` regenerates the
built-in table from the Kubernetes OpenAPI (a development tool).

The HTTP side is ``kubeforge.apiserver.apply``; strategic merge patch (``smp``) reads
the same types.
"""
