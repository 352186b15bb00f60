"""Structured-merge-diff: the type model server-side apply and strategic merge patch read.

Entry points: ``schema.builtin_root`` / ``crd_root`` (how each node of an object merges,
from the generated ``builtin_types.json`` or a CRD schema), ``fieldpath.FieldSet`` (paths
and the ``FieldsV1`` encoding), ``typed`` (field sets of values, compare, merge, remove).
``generate`` regenerates ``builtin_types.json`` (a development tool).

May import: ``failures`` only (it is below ``patch`` and ``fieldmanager``, which use it).
"""
