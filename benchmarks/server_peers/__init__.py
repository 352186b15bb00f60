"""The local API server against kmock's emulator: ``python -m benchmarks.server_peers``."""
