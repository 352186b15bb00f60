"""The public surface is exactly ``kubeforge.__all__``: a change to it shows up in review."""

from __future__ import annotations

import kubeforge


def test_all_lists_every_public_name_once_and_sorted() -> None:
    public = sorted(name for name in vars(kubeforge) if not name.startswith("_") or name == "__version__")
    modules = {"cache", "client", "config", "controller", "core", "reconcile", "runtime", "watch",
               "workqueue", "models", "crd"}
    exported = sorted(set(public) - modules | {"errors"})
    assert sorted(kubeforge.__all__) == exported
    assert len(set(kubeforge.__all__)) == len(kubeforge.__all__)


def test_every_exported_name_resolves() -> None:
    for name in kubeforge.__all__:
        assert getattr(kubeforge, name) is not None
