"""``CacheOptions``: per-kind settings over the cache-wide defaults, and bad values refused."""

from __future__ import annotations

import pytest

from kubeforge.cache import ByObject, CacheOptions
from kubeforge.cache.options import and_selectors
from kubeforge.models.core_v1 import ConfigMap, Secret


def test_a_kind_s_own_settings_win_and_the_defaults_fill_the_rest() -> None:
    def trim(obj: object) -> object:
        return obj

    options = CacheOptions(
        default_namespaces=["a", "b"],
        default_label_selector="app=shop",
        by_object={Secret: ByObject(namespaces=["vault"], field_selector="type=Opaque")},
        default_transform=trim,
    )

    secrets = options.for_kind(Secret)
    assert (secrets.namespaces, secrets.label_selector, secrets.field_selector) == (
        ("vault",),
        "app=shop",
        "type=Opaque",
    )
    assert secrets.transform is trim
    # a kind is found by its class or by its ResourceInfo alike
    assert options.for_kind(Secret.info).namespaces == ("vault",)
    assert options.for_kind(ConfigMap).namespaces == ("a", "b")
    assert CacheOptions().for_kind(ConfigMap).namespaces is None  # every namespace


def test_namespaces_are_lists_of_names() -> None:
    with pytest.raises(TypeError, match="not the string 'team-a'"):
        CacheOptions(default_namespaces="team-a")
    with pytest.raises(ValueError, match="at least one namespace"):
        ByObject(namespaces=[])


def test_selectors_are_anded() -> None:
    assert and_selectors(None, "") is None
    assert and_selectors("a=1", "b!=2") == "a=1,b!=2"
