"""Controller startup against kopf and the official client: ``python -m benchmarks.startup``."""
