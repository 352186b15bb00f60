"""Generate ``kubeforge.models``, every built-in kind of Kubernetes 1.32.

Run ``python -m kubeforge.codegen.builtin`` (``main()``; ``generate()`` from code).

Writes one module per API package and version (``core_v1.py``, ``apps_v1.py``,
``coordination_v1.py``, ``apiextensions_v1.py``, ...; the shared apimachinery types
go to ``meta_v1.py``) plus ``_index.py``, the kind -> module table. ``--check``
only compares and exits 1 if the committed modules are out of date.

Where the data comes from, and why:

- **Field schemas: kubernetes-validate** (``v1.32.0-local/_definitions.json``). It
  ships the API server's published OpenAPI definitions converted to JSON Schema,
  one directory per Kubernetes minor (1.25-1.37 in one wheel), refreshed with each
  release. It keeps what a generator needs and the alternatives lose: descriptions,
  ``required`` lists, formats (int-or-string, int64, date-time), and
  ``x-kubernetes-group-version-kind``. The official ``kubernetes`` package only has
  its own generated classes (type strings, no formats, one Kubernetes version per
  client release), and lightkube-models has Python classes, not a schema.
- **Plural and scope: lightkube-models 1.32** (its ``resources`` modules, read as
  syntax trees). JSON Schema carries no REST paths; lightkube-models is generated
  from the paths of the same 1.32 spec and is versioned per Kubernetes minor. (The
  official client's API classes carry the paths too, but for whichever client
  version is installed, not 1.32.) A test checks that both sources agree: every
  kind with a REST path has a schema.
- **Short names** (``po``, ``deploy``) are in no OpenAPI document, only in the API
  server's discovery, so the few built-in ones are listed here.

Both packages are pinned in the ``test`` extra; other versions are refused, since
they would regenerate different code.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kubeforge.codegen import _sources
from kubeforge.codegen.plan import External, ModulePlan, TypeAlias
from kubeforge.codegen.planner import plan_modules
from kubeforge.codegen.render import docstring, format_source, render_module
from kubeforge.core.resource import ResourceInfo

__all__ = ["generate", "main", "plan_builtin", "render_builtin", "stale_files"]

PACKAGE = "kubeforge.models"
"""Where the generated modules live (imports between them use this name)."""

_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_APIEXT = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"


def _core(name: str) -> External:
    return External(name, (("kubeforge.core.meta", name),))


def _models(expr: str, module: str, *names: str) -> External:
    return External(expr, tuple((f"{PACKAGE}.{module}", n) for n in names))


_EXTERNALS: dict[str, External] = {
    # metadata types already hand-written in kubeforge.core.meta, shared with custom resources
    _META + "ObjectMeta": _core("ObjectMeta"),
    _META + "ListMeta": _core("ListMeta"),
    _META + "ManagedFieldsEntry": _core("ManagedFieldsEntry"),
    _META + "OwnerReference": _core("OwnerReference"),
    # Go marshals a zero Time as null (a map of them holds nulls: a PodDisruptionBudget's
    # status.disruptedPods), so a time is a string or None wherever it occurs
    _META + "Time": External("str | None"),
    _META + "MicroTime": External("str | None"),
    _INT_OR_STRING: _models("IntOrString", "meta_v1", "IntOrString"),
    _QUANTITY: _models("Quantity", "meta_v1", "Quantity"),
    # untyped in the schema (custom JSON marshalling in Go); these unions are what
    # the API server accepts, and msgspec tells the members apart by JSON type
    _APIEXT + "JSONSchemaPropsOrArray": _models(
        "JSONSchemaProps | list[JSONSchemaProps]", "apiextensions_v1", "JSONSchemaProps"
    ),
    _APIEXT + "JSONSchemaPropsOrBool": _models(
        "JSONSchemaProps | bool", "apiextensions_v1", "JSONSchemaProps"
    ),
    _APIEXT + "JSONSchemaPropsOrStringArray": _models(
        "JSONSchemaProps | list[str]", "apiextensions_v1", "JSONSchemaProps"
    ),
}

_ALIASES = {
    "meta_v1": [
        TypeAlias(
            "IntOrString",
            "int | str",
            'A number or a name: a port (``8080`` or ``"http"``) or an amount (``1`` or '
            '``"25%"``). Kept as the JSON value; nothing is converted.',
        ),
        TypeAlias(
            "Quantity",
            "str | int | float",
            'A resource quantity such as ``"500m"`` or ``"1Gi"``. Servers always send '
            "strings; numbers are accepted because manifests often use them (``cpu: 2``). "
            "Kept as the JSON value; nothing is parsed or normalised.",
        ),
    ]
}

# (group, plural) -> short names, as the API server's discovery lists them
_SHORT_NAMES: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "componentstatuses"): ("cs",),
    ("", "configmaps"): ("cm",),
    ("", "endpoints"): ("ep",),
    ("", "events"): ("ev",),
    ("", "limitranges"): ("limits",),
    ("", "namespaces"): ("ns",),
    ("", "nodes"): ("no",),
    ("", "persistentvolumeclaims"): ("pvc",),
    ("", "persistentvolumes"): ("pv",),
    ("", "pods"): ("po",),
    ("", "replicationcontrollers"): ("rc",),
    ("", "resourcequotas"): ("quota",),
    ("", "serviceaccounts"): ("sa",),
    ("", "services"): ("svc",),
    ("apiextensions.k8s.io", "customresourcedefinitions"): ("crd", "crds"),
    ("apps", "daemonsets"): ("ds",),
    ("apps", "deployments"): ("deploy",),
    ("apps", "replicasets"): ("rs",),
    ("apps", "statefulsets"): ("sts",),
    ("autoscaling", "horizontalpodautoscalers"): ("hpa",),
    ("batch", "cronjobs"): ("cj",),
    ("certificates.k8s.io", "certificatesigningrequests"): ("csr",),
    ("events.k8s.io", "events"): ("ev",),
    ("networking.k8s.io", "ingresses"): ("ing",),
    ("networking.k8s.io", "networkpolicies"): ("netpol",),
    ("policy", "poddisruptionbudgets"): ("pdb",),
    ("scheduling.k8s.io", "priorityclasses"): ("pc",),
    ("storage.k8s.io", "storageclasses"): ("sc",),
}


def _place(name: str) -> tuple[str, str]:
    """``io.k8s.api.apps.v1.Deployment`` -> ``("apps_v1", "Deployment")``.

    Modules are named after the Go API package (``rbac_v1``, ``flowcontrol_v1``), as
    Go code imports them; every apimachinery type goes to ``meta_v1``.
    """
    parts = name.split(".")
    if name.startswith("io.k8s.apimachinery."):
        return "meta_v1", parts[-1]
    return f"{parts[-3]}_{parts[-2]}", parts[-1]


def _resources(definitions: dict[str, dict[str, Any]]) -> dict[str, ResourceInfo]:
    mapping = _sources.load_rest_mapping()
    found: dict[str, ResourceInfo] = {}
    for name, schema in definitions.items():
        gvks = schema.get("x-kubernetes-group-version-kind")
        if not isinstance(gvks, list) or len(gvks) != 1:
            continue  # none, or shared by every group (DeleteOptions, WatchEvent)
        gvk = (str(gvks[0]["group"]), str(gvks[0]["version"]), str(gvks[0]["kind"]))
        rest = mapping.pop(gvk, None)
        if rest is None:
            continue  # a List, or only a subresource body (Scale, Eviction)
        group, version, kind = gvk
        found[name] = ResourceInfo(
            group=group,
            version=version,
            kind=kind,
            plural=rest.plural,
            namespaced=rest.namespaced,
            short_names=_SHORT_NAMES.get((group, rest.plural), ()),
            singular=kind.lower(),
        )
    if mapping:
        raise RuntimeError(f"kinds with a REST path but no schema: {sorted(mapping)}")
    return found


def plan_builtin() -> dict[str, ModulePlan]:
    """The plan of every built-in module (what ``generate`` renders)."""
    _sources.check_versions()
    definitions = _sources.load_definitions()
    return plan_modules(
        definitions,
        package=PACKAGE,
        place=_place,
        externals=_EXTERNALS,
        resources=_resources(definitions),
        aliases=_ALIASES,
        int_or_string=_EXTERNALS[_INT_OR_STRING],
    )


def _module_doc(plan: ModulePlan) -> str:
    kinds = sorted({c.info.api_version for c in plan.classes if c.info is not None})
    what = f"the ``{', '.join(kinds)}`` API" if kinds else "shared API types"
    return (
        f"Typed models of {what} (Kubernetes {_sources.KUBERNETES_VERSION}).\n\n"
        "Generated by ``python -m kubeforge.codegen.builtin`` from "
        f"{_sources.SCHEMA_PACKAGE} {_sources.SCHEMA_PACKAGE_VERSION} and "
        f"{_sources.MAPPING_PACKAGE} {_sources.MAPPING_PACKAGE_VERSION}; do not edit."
    )


def _index(plans: dict[str, ModulePlan]) -> str:
    rows = sorted(
        (c.info.group, c.info.version, c.info.kind, plan.name)
        for plan in plans.values()
        for c in plan.classes
        if c.info is not None
    )
    doc = (
        "Where each built-in kind lives: ``(group, version, kind)`` -> module in "
        "``kubeforge.models``.\n\n"
        "Generated by ``python -m kubeforge.codegen.builtin``; do not edit."
    )
    lines = [*docstring(doc, 0), "", '__all__ = ["KINDS"]', ""]
    lines.append("KINDS: dict[tuple[str, str, str], str] = {")
    lines += [f'    ("{g}", "{v}", "{k}"): "{m}",' for g, v, k, m in rows]
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_builtin(package_dir: Path) -> dict[str, str]:
    """File name -> formatted source of every generated file, formatted as if in ``package_dir``."""
    plans = plan_builtin()
    files = {
        f"{name}.py": render_module(plan, doc=_module_doc(plan)) for name, plan in plans.items()
    }
    files["_index.py"] = _index(plans)
    return {name: format_source(text, package_dir / name) for name, text in sorted(files.items())}


_MARKER = "Generated by ``python -m kubeforge.codegen.builtin``"


def _leftovers(package_dir: Path, current: dict[str, str]) -> list[Path]:
    """Generated files in ``package_dir`` that the current schema no longer produces."""
    return [
        path
        for path in sorted(package_dir.glob("*.py"))
        if path.name not in current and _MARKER in path.read_text(encoding="utf-8")[:600]
    ]


def generate(package_dir: Path) -> list[Path]:
    """Write every generated module into ``package_dir``; returns the files written.

    Modules the schema no longer produces (a removed API version) are deleted.
    """
    files = render_builtin(package_dir)
    for path in _leftovers(package_dir, files):
        path.unlink()
    written = []
    for name, text in files.items():
        path = package_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def stale_files(package_dir: Path) -> list[str]:
    """Names of generated files in ``package_dir`` that differ from a fresh generation.

    Includes missing files and leftovers. Empty means the committed code is up to date.
    """
    files = render_builtin(package_dir)
    stale = [p.name for p in _leftovers(package_dir, files)]
    for name, text in files.items():
        path = package_dir / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    return sorted(stale)


def _default_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "models"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kubeforge.codegen.builtin", description=__doc__
    )
    parser.add_argument(
        "--out", type=Path, default=_default_dir(), help="the models package folder"
    )
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 if out of date")
    args = parser.parse_args(argv)
    out: Path = args.out
    if args.check:
        stale = stale_files(out)
        for name in stale:
            print(f"out of date: {out / name}")
        return 1 if stale else 0
    for path in generate(out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
