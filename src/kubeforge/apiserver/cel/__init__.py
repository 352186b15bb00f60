"""CEL: the rules of CRD schemas (``x-kubernetes-validations``) and webhook ``matchConditions``.

Entry points: ``rules.RuleSet.of(schema)`` and ``rules.compile_errors`` (CRD rules, with
``self``/``oldSelf`` and ratcheting); ``expressions.evaluate`` (plain expressions).

May import: ``failures`` only.
"""
