"""The schema -> model core on CRD-style schemas: inline objects, int-or-string, free form."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from kubeforge.codegen import plan_crd, plan_modules, render_module
from kubeforge.codegen.render import format_source
from kubeforge.core.meta import Model, decode, encode
from kubeforge.core.resource import Resource, ResourceInfo

WIDGET_INFO = ResourceInfo(
    group="example.com", version="v1", kind="Widget", plural="widgets", short_names=("wd",)
)

WIDGET_SCHEMA: dict[str, Any] = {
    "description": "Widget is a test kind.\n\nIt has a second paragraph.",
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "required": ["size", "ports", "template"],
            "properties": {
                "size": {"type": "integer", "description": "How big. Second sentence."},
                "ports": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["port"],
                        "properties": {
                            "port": {
                                "anyOf": [{"type": "integer"}, {"type": "string"}],
                                "x-kubernetes-int-or-string": True,
                            },
                            "name": {"type": "string"},
                        },
                    },
                },
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "anything": {"x-kubernetes-preserve-unknown-fields": True},
                "ratio": {"type": "number"},
                "note": {"type": "string", "nullable": True},
                "podIP": {"type": "string"},
                "class": {"type": "string"},
                "template": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
            },
        },
        "status": {
            "type": "object",
            "properties": {
                "ready": {"type": "boolean"},
                "conditions": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"type": {"type": "string"}}},
                },
            },
        },
    },
}


def _load(tmp_path: Path, package: str, schemas: dict[str, Any], **options: Any) -> dict[str, Any]:
    """Plan, render and import every module; returns module name -> module namespace."""
    plans = plan_modules(schemas, package=package, **options)
    folder = tmp_path / package
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name, plan in plans.items():
        source = render_module(plan, doc=f"Test module {name}.")
        (folder / f"{name}.py").write_text(source)
    return {name: vars(importlib.import_module(f"{package}.{name}")) for name in plans}


@pytest.fixture
def importable(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in set(sys.modules) - before:
        del sys.modules[name]


def test_a_crd_schema_becomes_a_resource_with_nested_models_named_by_path(
    importable: Path,
) -> None:
    module = _load(
        importable,
        "kf_codegen_widgets",
        {"Widget": WIDGET_SCHEMA},
        place=lambda name: ("example_v1", name),
        resources={"Widget": WIDGET_INFO},
    )["example_v1"]
    assert sorted(n for n in module["__all__"]) == [
        "Widget",
        "WidgetSpec",
        "WidgetSpecPortsItem",
        "WidgetSpecTemplate",
        "WidgetStatus",
        "WidgetStatusConditionsItem",
    ]
    widget = module["Widget"]
    assert issubclass(widget, Resource) and widget.info == WIDGET_INFO
    assert issubclass(module["WidgetSpec"], Model) and not issubclass(
        module["WidgetSpec"], Resource
    )
    assert widget.__doc__ == "Widget is a test kind."  # the first paragraph only

    raw = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {
            "size": 3,
            "ports": [{"port": 8080, "name": "http"}, {"port": "metrics"}],
            "labels": {"a": "b"},
            "config": {"nested": {"deep": [1, 2]}},
            "anything": [True, None],
            "ratio": 0.5,
            "podIP": "10.0.0.1",
            "class": "gold",
            "template": {"replicas": 2},
        },
        "status": {"ready": True, "conditions": [{"type": "Ready"}]},
    }
    obj = msgspec.json.decode(json.dumps(raw).encode(), type=widget)
    assert obj.spec.ports[1].port == "metrics" and obj.spec.ports[0].port == 8080
    assert obj.spec.pod_ip == "10.0.0.1" and obj.spec.class_ == "gold"
    assert obj.spec.config == {"nested": {"deep": [1, 2]}}
    assert json.loads(msgspec.json.encode(obj)) == raw


def test_required_fields_are_required_arguments_and_optional_ones_default_to_none(
    importable: Path,
) -> None:
    module = _load(
        importable,
        "kf_defaults",
        {"Widget": WIDGET_SCHEMA},
        place=lambda name: ("example_v1", name),
        resources={"Widget": WIDGET_INFO},
    )["example_v1"]
    spec_cls, template_cls, port_cls = (
        module["WidgetSpec"],
        module["WidgetSpecTemplate"],
        module["WidgetSpecPortsItem"],
    )
    with pytest.raises(TypeError, match="Missing required argument 'ports'"):
        spec_cls(size=0, template=template_cls())
    spec = spec_cls(size=0, ports=[port_cls(port=0)], template=template_cls())
    assert (spec.labels, spec.note, spec.ratio, spec.anything) == (None, None, None, None)
    # what was passed is sent, zeros included; what was not is left out
    assert json.loads(encode(spec)) == {"size": 0, "ports": [{"port": 0}], "template": {}}
    empty = decode(b"{}", module["Widget"])
    assert empty.spec is None and empty.kind == "Widget"
    # a document without the required fields decodes as Go reads it: zero values
    assert decode(b'{"spec": {}}', module["Widget"]).spec == spec_cls(
        size=0, ports=[], template=template_cls()
    )


def test_required_models_that_refer_to_each_other_are_required_arguments(
    importable: Path,
) -> None:
    schemas = {
        "a.Alpha": {
            "type": "object",
            "required": ["beta"],
            "properties": {"beta": {"$ref": "#/definitions/a.Beta"}},
        },
        "a.Beta": {
            "type": "object",
            "required": ["gamma"],
            "properties": {
                "alpha": {"$ref": "#/definitions/a.Alpha"},
                "gamma": {"$ref": "#/definitions/a.Gamma"},
            },
        },
        "a.Gamma": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }
    module = _load(
        importable, "kf_cycle", schemas, place=lambda name: ("m", name.rsplit(".", 1)[-1])
    )["m"]
    alpha, beta, gamma = module["Alpha"], module["Beta"], module["Gamma"]
    nested = alpha(beta=beta(gamma=gamma(), alpha=alpha(beta=beta(gamma=gamma(n=0)))))
    assert json.loads(encode(nested)) == {
        "beta": {"alpha": {"beta": {"gamma": {"n": 0}}}, "gamma": {}}
    }


def test_cross_module_references_import_by_name_and_aliases_are_emitted(
    importable: Path,
) -> None:
    from kubeforge.codegen import External, TypeAlias

    schemas = {
        "x.v1.Box": {
            "type": "object",
            "properties": {
                "size": {"$ref": "#/components/schemas/res.Size"},
                "tag": {"$ref": "#/components/schemas/y.v1.Tag"},
            },
        },
        "y.v1.Tag": {"type": "object", "properties": {"name": {"type": "string"}}},
        "res.Size": {"oneOf": [{"type": "string"}, {"type": "number"}]},
    }
    modules = _load(
        importable,
        "kf_cross",
        schemas,
        place=lambda name: ("_".join(name.split(".")[:2]), name.rsplit(".", 1)[-1]),
        externals={"res.Size": External("Size", (("kf_cross.y_v1", "Size"),))},
        aliases={"y_v1": [TypeAlias("Size", "str | float", "A size.")]},
    )
    box = modules["x_v1"]["Box"]
    assert modules["y_v1"]["Size"] == str | float
    decoded = msgspec.json.decode(b'{"size": "1Gi", "tag": {"name": "t"}}', type=box)
    assert decoded == box(size="1Gi", tag=modules["y_v1"]["Tag"](name="t"))


def test_two_properties_with_the_same_python_name_are_refused() -> None:
    schema = {"type": "object", "properties": {"fooBar": {}, "foo_bar": {}}}
    with pytest.raises(ValueError, match="both map to foo_bar"):
        plan_modules({"T": schema}, package="p", place=lambda name: ("m", name))


def test_formatting_gives_ruff_clean_source_and_is_stable() -> None:
    plans = plan_modules(
        {"Widget": WIDGET_SCHEMA},
        package="kubeforge.models",
        place=lambda name: ("example_v1", name),
        resources={"Widget": WIDGET_INFO},
    )
    target = Path(__file__).parent / "example_v1.py"  # never written; picks the project's settings
    source = format_source(render_module(plans["example_v1"], doc="X."), target)
    assert format_source(source, target) == source
    assert max(len(line) for line in source.splitlines()) <= 100
    compile(source, str(target), "exec")


def test_a_crd_manifest_gives_one_module_per_version_with_its_rest_mapping(
    importable: Path,
) -> None:
    crd = json.loads((Path(__file__).parent / "samples" / "crd.json").read_text())
    plans = plan_crd(crd, package="kf_crd")
    folder = importable / "kf_crd"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name, plan in plans.items():
        (folder / f"{name}.py").write_text(render_module(plan, doc="PodToIp models."))
    module = importlib.import_module("kf_crd.podtoip_v1")
    kind = module.Podtoip
    assert kind.info == ResourceInfo(
        group="example.com",
        version="v1",
        kind="Podtoip",
        plural="podtoips",
        namespaced=True,
        short_names=("ptp",),
        singular="podtoip",
    )
    obj = msgspec.json.decode(
        b'{"metadata": {"name": "web-0"}, "spec": {"podName": "web-0", "port": "http",'
        b' "extra": {"any": ["thing"]}}, "status": {"created": true}}',
        type=kind,
    )
    assert (obj.spec.pod_name, obj.spec.port, obj.status.created) == ("web-0", "http", True)
    assert obj.api_version == "example.com/v1" and obj.spec.extra == {"any": ["thing"]}
