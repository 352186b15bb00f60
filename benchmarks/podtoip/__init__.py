"""PodToIp end to end against kopf and the official client: ``python -m benchmarks.podtoip``."""
