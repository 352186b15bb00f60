"""``python -m kubeforge.cli``: the same as the ``kubeforge`` command."""

from kubeforge.cli.main import main

main()
