"""``kubeforge create api``: add a kind (its types module) and/or its controller to a project.

Entry point: ``create_command`` (the ``create`` group). For ``--kind Frigate
--version v1beta1`` it writes ``<package>/api/v1beta1/frigate_types.py`` (spec,
status, the ``Resource`` class), ``<package>/controllers/frigate_controller.py``
(the reconciler, its ``rbac`` rules and ``setup``), a test for the controller and
a sample object; registers the controller in ``<package>/manager.py`` at its
``kubeforge:scaffold`` markers; records the kind in ``PROJECT``; and regenerates
the manifests, as kubebuilder's ``make`` does after scaffolding.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass, replace
from pathlib import Path

import click

from kubeforge.cli._errors import readable_errors
from kubeforge.cli._generate import write_manifests
from kubeforge.cli._project import (
    ApiResource,
    Project,
    check_group,
    check_kind,
    check_version,
    pluralize,
)
from kubeforge.cli._pysource import from_import, import_blocks, register_controller
from kubeforge.cli._scaffold import python_header, render, write_files
from kubeforge.cli.create_webhook import create_webhook_command
from kubeforge.core.resource import Resource
from kubeforge.models import KINDS, resource_class

__all__ = ["create_command"]


@click.group()
def create_command() -> None:
    """Scaffold an API (a kind and/or its controller) in the current project.

    \b
    Examples:
      kubeforge create api --group ship --version v1beta1 --kind Frigate
    """


create_command.add_command(create_webhook_command, "webhook")


@create_command.command("api")
@click.option("--group", required=True, help="API group, without the domain (ship).")
@click.option("--version", "version", required=True, help="API version (v1beta1).")
@click.option("--kind", required=True, help="Kind, in PascalCase (Frigate).")
@click.option("--plural", default=None, help="Resource name (default: the kind's plural).")
@click.option(
    "--resource/--no-resource",
    default=True,
    show_default=True,
    help="Write the kind's types module (spec, status, CRD options).",
)
@click.option(
    "--controller/--no-controller",
    default=True,
    show_default=True,
    help="Write a controller for the kind and register it with the manager.",
)
@click.option(
    "--namespaced/--cluster-scoped",
    default=True,
    show_default=True,
    help="Whether objects of the kind live in a namespace.",
)
@click.option(
    "--generate/--no-generate",
    default=True,
    show_default=True,
    help="Regenerate config/crd and config/rbac afterwards (`kubeforge generate`).",
)
@click.option("--force", is_flag=True, help="Overwrite files that exist already.")
def create_api_command(
    group: str,
    version: str,
    kind: str,
    plural: str | None,
    resource: bool,
    controller: bool,
    namespaced: bool,
    generate: bool,
    force: bool,
) -> None:
    """Add a kind and/or its controller to the project.

    With --no-resource, the controller reconciles a kind defined elsewhere: one this
    project created before, or a built-in kind (--group apps --version v1 --kind
    Deployment; the core group is --group core).

    \b
    Examples:
      kubeforge create api --group ship --version v1beta1 --kind Frigate
      kubeforge create api --group ship --version v1 --kind Harbor --cluster-scoped
      kubeforge create api --group ship --version v1beta1 --kind Frigate --no-controller
      kubeforge create api --group apps --version v1 --kind Deployment --no-resource
    """
    with readable_errors():
        if not resource and not controller:
            raise click.UsageError("nothing to create: drop --no-resource or --no-controller")
        project = Project.find()
        check_kind(kind)
        check_version(version)
        target = _target(project, group, version, kind, plural, namespaced, resource)
        files: dict[Path, str] = {}
        header = python_header(project.root)
        if resource:
            files.update(_resource_files(project, target.api, header))
        if controller:
            files.update(_controller_files(project, target, header))
        manager = _registered(project, target.api) if controller else None
        written = write_files(project.root, files, force=force)
        # manager.py and the samples' kustomization are edited, not scaffolded: they
        # grow with every kind, so they are rewritten rather than refused.
        if manager is not None:
            relative, text = manager
            (project.root / relative).write_text(text)
            written.append(relative)
        if resource:
            written.append(_write_samples_kustomization(project))
        project = project.with_resource(
            replace(target.api, resource=resource, controller=controller)
        )
        project.save()
        for path in written:
            click.echo(f"  {path}")
        versions = sorted(
            r.version
            for r in project.resources
            if r.resource and r.kind == kind and r.group == group
        )
        if resource and len(versions) > 1:
            # One CRD serves every version, and exactly one must be stored: that is the
            # user's decision, so generating now could only fail.
            click.echo(
                f"{kind} now has versions {', '.join(versions)}: mark the one the server "
                "stores with CRDOptions(storage=True), then run `kubeforge generate`."
            )
            return
        if generate:
            for path in write_manifests(project):
                click.echo(f"  {path}")
        click.echo(f"Next: edit {_types_hint(project, target)}, then run `kubeforge generate`.")


@dataclass(frozen=True, slots=True)
class _Target:
    api: ApiResource
    builtin_module: str | None  # kubeforge.models.<module> for a built-in kind


def _target(
    project: Project,
    group: str,
    version: str,
    kind: str,
    plural: str | None,
    namespaced: bool,
    resource: bool,
) -> _Target:
    known = project.find_resource(group, version, kind)
    if resource or (known is not None and known.resource):
        check_group(group, project.domain)
        if known is not None and known.resource:
            return _Target(known, None)
        api = ApiResource(
            group=group,
            version=version,
            kind=kind,
            plural=plural or pluralize(kind),
            domain=project.domain,
            namespaced=namespaced,
        )
        return _Target(api, None)
    builtin = _builtin(group, version, kind)
    if builtin is None:
        raise click.ClickException(
            f"{group}/{version} {kind} is neither a kind of this project nor a built-in one: "
            "create it first (without --no-resource)"
        )
    module, cls = builtin
    api = ApiResource(
        group=cls.info.group or "core",
        version=version,
        kind=kind,
        plural=cls.info.plural,
        domain="",
        namespaced=cls.info.namespaced,
        resource=False,
    )
    return _Target(api, module)


def _builtin(group: str, version: str, kind: str) -> tuple[str, type[Resource]] | None:
    module = f"{group.split('.')[0]}_{version}"
    cls = _builtin_class(module, kind)
    return None if cls is None else (module, cls)


def _builtin_class(module: str, kind: str) -> type[Resource] | None:
    """The generated class of built-in ``kind`` in ``kubeforge.models.<module>``, if any."""
    for (group, version, name), where in KINDS.items():
        if where == module and name == kind:
            return resource_class(f"{group}/{version}" if group else version, kind)
    return None


def _values(project: Project, res: ApiResource) -> dict[str, str]:
    singular = res.kind.lower()
    return {
        "project_name": project.project_name,
        "package": project.package,
        "api_group": res.api_group,
        "group": res.group,
        "version": res.version,
        "kind": res.kind,
        "plural": res.plural,
        "singular": singular,
        "module": res.module,
        "namespaced": str(res.namespaced),
        "scope": "namespaced" if res.namespaced else "cluster-scoped",
    }


def _resource_files(project: Project, res: ApiResource, header: str) -> dict[Path, str]:
    values = _values(project, res)
    api_dir = Path(project.package) / "api" / res.version
    files = {api_dir / f"{res.module}_types.py": header + render("api/types.py", values)}
    init = api_dir / "__init__.py"
    if not (project.root / init).exists():
        files[init] = header + render("api/version_init.py", values)
    sample = Path("config") / "samples" / f"{res.group}_{res.version}_{res.module}.yaml"
    files[sample] = render("api/sample.yaml", values)
    return files


def _write_samples_kustomization(project: Project) -> Path:
    relative = Path("config") / "samples" / "kustomization.yaml"
    names = sorted(p.name for p in (project.root / relative.parent).glob("*.yaml"))
    listed = "".join(f"  - {n}\n" for n in names if n != relative.name)
    (project.root / relative).write_text(
        render("api/samples_kustomization.yaml", {"sample_list": listed})
    )
    return relative


def _controller_files(project: Project, target: _Target, header: str) -> dict[Path, str]:
    res = target.api
    values = _values(project, res)
    var = _variable(res.module)
    plural_var = _plural_var(res)
    own = target.builtin_module is None
    if target.builtin_module is None:
        type_module, rbac_group = f"..api.{res.version}.{res.module}_types", res.api_group
    else:
        type_module = f"kubeforge.models.{target.builtin_module}"
        rbac_group = "" if res.group == "core" else _builtin_group(target.builtin_module, res.kind)
    kubeforge = [
        from_import("kubeforge", ["Builder", "Client", "Manager", "Request", "Result", "errors"]),
        from_import("kubeforge.crd", ["Rule"]),
    ]
    blocks = [["import logging"], kubeforge, []]
    (blocks[2] if own else blocks[1]).append(from_import(type_module, [res.kind]))
    values.update(
        imports=import_blocks(blocks),
        var=var,
        plural_var=plural_var,
        rbac_group=rbac_group,
        namespace_arg="request.namespace" if res.namespaced else "None",
        controller_name=res.module.replace("_", "-"),
    )
    controller_module = Path(project.package) / "controllers" / f"{res.module}_controller.py"
    files = {controller_module: header + render("api/controller.py", values)}

    test_kubeforge = (
        ["Client", "ObjectMeta", "Request", "Result"] if own else ["Client", "Request", "Result"]
    )
    reconciler = from_import(
        f"{project.package}.controllers.{res.module}_controller", [f"{res.kind}Reconciler"]
    )
    if own:
        test_module = f"{project.package}.api.{res.version}.{res.module}_types"
        test_blocks = [
            [
                from_import("kubeforge", test_kubeforge),
                from_import("kubeforge.testing.rbac", ["ManagerUnderRbac"]),
            ],
            [from_import(test_module, [res.kind]), reconciler],
        ]
    else:
        test_blocks = [[from_import("kubeforge", test_kubeforge)], [reconciler]]
    test_values = {
        **values,
        "imports": import_blocks(test_blocks),
        "namespace_arg": "namespace" if res.namespaced else "None",
        "request_namespace": "namespace" if res.namespaced else '""',
        "namespace_meta": ", namespace=namespace" if res.namespaced else "",
        "sample_name": '"sample"' if res.namespaced else 'f"{namespace}-sample"',
    }
    test_values["create_test"] = render("api/test_create.py", test_values) if own else ""
    files[Path("tests") / f"test_{res.module}_controller.py"] = header + render(
        "api/test_controller.py", test_values
    )
    return files


def _builtin_group(module: str, kind: str) -> str:
    cls = _builtin_class(module, kind)
    if cls is None:
        raise LookupError(f"kubeforge.models.{module} has no kind {kind}")
    return cls.info.group


# Names the scaffolded modules use themselves; a kind's variables must not shadow them.
_TAKEN = frozenset({"builder", "client", "errors", "log", "logging", "mgr", "request", "result"})


def _variable(name: str) -> str:
    return f"{name}_" if name in _TAKEN or keyword.iskeyword(name) else name


def _plural_var(res: ApiResource) -> str:
    head, _, last = res.module.rpartition("_")
    return _variable(f"{head}_{pluralize(last)}" if head else pluralize(last))


def _registered(project: Project, res: ApiResource) -> tuple[Path, str]:
    """``manager.py`` importing the controller module and calling its ``setup`` (once)."""
    relative = Path(project.package) / "manager.py"
    text = (project.root / relative).read_text()
    module = f"{res.module}_controller"
    try:
        return relative, register_controller(text, module)
    except ValueError as exc:
        raise click.ClickException(
            f"{relative}: {exc}; add it back, or register {module}.setup(mgr) by hand"
        ) from exc


def _types_hint(project: Project, target: _Target) -> str:
    res = target.api
    if target.builtin_module is None:
        return f"{project.package}/api/{res.version}/{res.module}_types.py and its controller"
    return f"{project.package}/controllers/{res.module}_controller.py"
