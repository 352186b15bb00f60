"""ObjectMeta rules every kind shares: names, labels, annotations, selectors, field validation.

Entry points: ``validation.validate_object_meta`` / ``validate_meta_update``,
``labelselector.selector_matches`` / ``validate_selector``, and ``fieldvalidation``
(the ``fieldValidation`` query parameter: unknown and duplicate fields), and
``queryparams.query_bool`` (every boolean query parameter, read as apimachinery does).

May import: ``failures`` and ``kubeforge.core`` only.
"""
