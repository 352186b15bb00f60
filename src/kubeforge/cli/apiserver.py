"""``kubeforge apiserver``: the local Kubernetes API server as a CLI subcommand.

The command itself lives with the server (``kubeforge.apiserver.server.command``) so that
``python -m kubeforge.apiserver`` runs the very same code without importing the CLI.
"""

from kubeforge.apiserver.server.command import apiserver_command

__all__ = ["apiserver_command"]
