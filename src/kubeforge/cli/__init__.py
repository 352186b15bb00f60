"""The ``kubeforge`` command line. See ``kubeforge.cli.main`` for the entry point."""
