"""Every generated kind carries a sane REST mapping, and the package exposes kinds lazily."""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys
from types import ModuleType

import msgspec
import pytest

import kubeforge.models
from kubeforge.codegen import crd, naming
from kubeforge.core.meta import Model, decode, zero_object
from kubeforge.core.resource import Resource
from kubeforge.models import KINDS, resource_class

ALL_KINDS = sorted(KINDS)


def test_every_built_in_group_and_its_kinds_are_there() -> None:
    groups = {group for group, _, _ in KINDS}
    assert {"", "apps", "batch", "coordination.k8s.io", "apiextensions.k8s.io"} <= groups
    assert len(KINDS) >= 80
    for gvk in [
        ("", "v1", "Pod"),
        ("apps", "v1", "Deployment"),
        ("coordination.k8s.io", "v1", "Lease"),
    ]:
        assert gvk in KINDS


@pytest.mark.parametrize("gvk", ALL_KINDS, ids=lambda gvk: "/".join(filter(None, gvk)))
def test_each_kind_has_an_info_matching_its_type(gvk: tuple[str, str, str]) -> None:
    group, version, kind = gvk
    cls = resource_class(f"{group}/{version}" if group else version, kind)
    assert cls is not None and issubclass(cls, Resource)
    info = cls.info
    assert (info.group, info.version, info.kind) == gvk
    assert info.plural == info.plural.lower() and info.plural.isalpha()
    assert info.plural.startswith(kind.lower()[:4])
    assert info.singular == kind.lower()
    assert all(name == name.lower() for name in info.short_names)
    # Required fields are required arguments; a bare document decodes with Go's zero values.
    instance = decode(b"{}", cls)
    assert (instance.api_version, instance.kind) == (info.api_version, kind)
    assert cls.__module__ == f"kubeforge.models.{KINDS[gvk]}"


@pytest.mark.parametrize(
    ("api_version", "kind", "plural", "namespaced"),
    [
        ("v1", "Pod", "pods", True),
        ("v1", "Node", "nodes", False),
        ("v1", "Namespace", "namespaces", False),
        ("v1", "Endpoints", "endpoints", True),
        ("v1", "PersistentVolume", "persistentvolumes", False),
        ("apps/v1", "Deployment", "deployments", True),
        ("coordination.k8s.io/v1", "Lease", "leases", True),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "customresourcedefinitions", False),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", False),
        ("networking.k8s.io/v1", "Ingress", "ingresses", True),
        ("networking.k8s.io/v1", "NetworkPolicy", "networkpolicies", True),
        ("storage.k8s.io/v1", "StorageClass", "storageclasses", False),
    ],
)
def test_known_kinds_have_their_real_plural_and_scope(
    api_version: str, kind: str, plural: str, namespaced: bool
) -> None:
    cls = resource_class(api_version, kind)
    assert cls is not None
    assert (cls.info.plural, cls.info.namespaced) == (plural, namespaced)


@pytest.mark.parametrize(
    ("api_version", "kind", "short_names"),
    [
        ("v1", "Pod", ("po",)),
        ("v1", "Secret", ()),
        ("apps/v1", "Deployment", ("deploy",)),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition", ("crd", "crds")),
    ],
)
def test_short_names_match_kubectl(
    api_version: str, kind: str, short_names: tuple[str, ...]
) -> None:
    cls = resource_class(api_version, kind)
    assert cls is not None and cls.info.short_names == short_names


def test_an_unknown_kind_has_no_class() -> None:
    assert resource_class("example.com/v1", "Widget") is None
    assert resource_class("v1", "PodList") is None


def test_every_generated_class_builds_with_zero_values_and_decodes_its_own_encoding() -> None:
    count = 0
    for module_name in sorted(set(KINDS.values()) | {"meta_v1"}):
        module = importlib.import_module(f"kubeforge.models.{module_name}")
        for name in module.__all__:
            cls = getattr(module, name)
            if isinstance(cls, type) and issubclass(cls, Model):
                empty = zero_object(cls)
                assert msgspec.json.decode(msgspec.json.encode(empty), type=cls) == empty
                count += 1
    assert count > 600


def test_common_kinds_import_from_the_package_on_first_use() -> None:
    code = (
        "import sys, kubeforge.models as m\n"
        # core_v1 and coordination_v1 load with the runtime (events, leases); apps_v1 must wait.
        "assert 'kubeforge.models.apps_v1' not in sys.modules\n"
        "from kubeforge.models import Pod, Deployment\n"
        "assert Pod.__module__ == 'kubeforge.models.core_v1'\n"
        "assert Deployment.__module__ == 'kubeforge.models.apps_v1'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    with pytest.raises(AttributeError, match="NoSuchKind"):
        kubeforge.models.NoSuchKind  # noqa: B018
    assert "Pod" in dir(kubeforge.models)


@pytest.mark.parametrize("module", [kubeforge.models, naming, crd], ids=lambda m: m.__name__)
def test_docstring_examples_hold(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
