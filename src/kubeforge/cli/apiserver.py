"""``kubeforge apiserver``: the local Kubernetes API server as a CLI subcommand.

The command itself lives with the server (``kubeforge.apiserver.command``) so that
``python -m kubeforge.apiserver`` runs the very same code without importing the CLI.
"""

from kubeforge.apiserver.command import apiserver_command

__all__ = ["apiserver_command"]
