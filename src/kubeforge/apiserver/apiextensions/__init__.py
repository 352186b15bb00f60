"""CRDs and custom resources: CRD validation and naming, structural schemas, the CRD lifecycle.

Entry points: ``crds.CRDController`` (establishes and removes CRDs, serves their
resources), ``custom_resources.CustomResourceStrategy`` (the rules of a custom resource:
schema, CEL, defaults), ``schema.validate`` / ``prune`` / ``apply_defaults``,
``validation.validate_crd``, ``names`` (accepted names and conflicts).

May import: ``registry`` and what is below it.
"""
