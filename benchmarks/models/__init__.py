"""Decode speed and memory of the model system: ``python -m benchmarks.models``.

Decodes one ``PodList`` of 10,000 realistic pods (managedFields included) with the
generated msgspec models, pydantic v2 twins of the same models, orjson and stdlib
dicts, and the official ``kubernetes`` client, and reports time and retained memory
per pod with ratios. Results go to ``benchmarks/results/models.json``; the numbers
and the decision they support (msgspec Structs) are in ``README.md`` beside this file.
"""
