"""The control plane's writes through admission: ``python -m benchmarks.admission``."""
