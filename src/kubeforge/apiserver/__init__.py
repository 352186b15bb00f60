"""The local Kubernetes API server: aiohttp over SQLite, faithful enough for kubectl.

Imports ``kubeforge.core`` only (never the client), so client bugs are not mirrored
here. Entry points: ``python -m kubeforge.apiserver`` / ``kubeforge apiserver`` (the
click command in ``kubeforge.cli.apiserver``) and ``app.build_app`` for embedding.
"""
