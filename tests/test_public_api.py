"""The public surface is exactly ``kubeforge.__all__``: a change to it shows up in review."""

from __future__ import annotations

import types

import kubeforge


def test_all_is_sorted_and_has_no_duplicates() -> None:
    assert list(kubeforge.__all__) == sorted(set(kubeforge.__all__))


def test_every_public_non_module_name_is_exported() -> None:
    public = {
        name
        for name in dir(kubeforge)  # the names loaded on first use count too
        if not name.startswith("_") and not isinstance(getattr(kubeforge, name), types.ModuleType)
    }
    assert public == set(kubeforge.__all__) - {"errors", "__version__"}


def test_every_exported_name_resolves() -> None:
    for name in kubeforge.__all__:
        assert getattr(kubeforge, name) is not None
