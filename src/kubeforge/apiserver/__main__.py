"""``python -m kubeforge.apiserver``: the same command as ``kubeforge apiserver``."""

from kubeforge.apiserver.server.command import apiserver_command

if __name__ == "__main__":
    apiserver_command(prog_name="python -m kubeforge.apiserver")
