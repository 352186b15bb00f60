"""Patches: JSON patch, JSON merge patch and strategic merge patch.

Entry point: ``formats.apply_patch(kind, document, patch)``; strategic merge is
``strategic.strategic_merge``, which reads merge keys and strategies from ``smd``.

May import: ``smd``, ``failures``.
"""
