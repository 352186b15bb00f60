"""``kubeforge create webhook``: a kind's defaulting, validating and/or conversion webhooks.

Entry point: ``create_webhook_command``. For ``--group ship --version v1 --kind
Frigate --defaulting --programmatic-validation --conversion`` it writes
``<package>/webhooks/frigate_v1_webhook.py`` (the defaulter and validator to fill in,
the ``TypeWebhooks`` declaration and ``setup``), one
``<package>/api/<spoke>/frigate_conversion.py`` per other version (``to_hub`` and
``from_hub``; the given version is the hub), and a test that runs the webhooks
against the local API server; registers ``setup`` in ``<package>/manager.py``; and
regenerates the manifests (config/webhook, config/certmanager, the CRD conversion
patch), as ``kubebuilder create webhook`` followed by ``make manifests`` does.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from kubeforge.cli._errors import readable_errors
from kubeforge.cli._generate import write_manifests
from kubeforge.cli._project import ApiResource, Project, check_kind, check_version
from kubeforge.cli._pysource import CONTROLLERS_MARKER, IMPORTS_MARKER, from_import, import_blocks
from kubeforge.cli._scaffold import python_header, render, write_files

__all__ = ["create_webhook_command", "register_webhook"]

_CONTROLLERS_IMPORT = re.compile(r"^from \.controllers import (?:\([^)]*\)|[^\n]*)$", re.M)
_WEBHOOKS_IMPORT = re.compile(r"^from \.webhooks import (\(\n(?:    \w+,\n)+\)|[\w, ]+)$", re.M)


@click.command()
@click.option("--group", required=True, help="API group, without the domain (ship).")
@click.option("--version", "version", required=True, help="API version of the kind (v1).")
@click.option("--kind", required=True, help="Kind, in PascalCase (Frigate).")
@click.option("--defaulting", is_flag=True, help="A defaulting (mutating) webhook.")
@click.option(
    "--programmatic-validation", is_flag=True, help="A validating webhook (create, update, delete)."
)
@click.option(
    "--conversion",
    is_flag=True,
    help="Conversion between the kind's versions, through this version (the hub).",
)
@click.option(
    "--spoke",
    "spokes",
    multiple=True,
    metavar="VERSION",
    help="With --conversion: a version converting through the hub (default: every other "
    "version of the kind).",
)
@click.option(
    "--generate/--no-generate",
    default=True,
    show_default=True,
    help="Regenerate the manifests afterwards (`kubeforge generate`).",
)
@click.option("--force", is_flag=True, help="Overwrite files that exist already.")
def create_webhook_command(
    group: str,
    version: str,
    kind: str,
    defaulting: bool,
    programmatic_validation: bool,
    conversion: bool,
    spokes: tuple[str, ...],
    generate: bool,
    force: bool,
) -> None:
    """Scaffold webhooks for a kind of the project, served by its manager.

    \\b
    Examples:
      kubeforge create webhook --group ship --version v1beta1 --kind Frigate \\
        --defaulting --programmatic-validation
      kubeforge create webhook --group ship --version v1 --kind Frigate --conversion
    """
    with readable_errors():
        if not (defaulting or programmatic_validation or conversion):
            raise click.UsageError(
                "nothing to create: give --defaulting, --programmatic-validation or --conversion"
            )
        if spokes and not conversion:
            raise click.UsageError("--spoke needs --conversion")
        project = Project.find()
        check_kind(kind)
        check_version(version)
        res = project.find_resource(group, version, kind)
        if res is None or not res.resource:
            raise click.ClickException(
                f"{group}/{version} {kind} is not a kind of this project: create it first with "
                f"`kubeforge create api --group {group} --version {version} --kind {kind}`"
            )
        spoke_list = _spokes(project, res, spokes) if conversion else []
        header = python_header(project.root)
        files = _files(project, res, header, defaulting, programmatic_validation, spoke_list)
        manager = Path(project.package) / "manager.py"
        source = (project.root / manager).read_text()
        try:
            registered = register_webhook(source, _webhook_module(res))
        except ValueError as exc:
            raise click.ClickException(f"{manager}: {exc}") from exc
        written = write_files(project.root, files, force=force)
        (project.root / manager).write_text(registered)
        for path in [*written, manager]:
            click.echo(f"  {path}")
        if generate:
            for path in write_manifests(project):
                click.echo(f"  {path}")
        click.echo(f"Next: fill in {Path(project.package) / 'webhooks' / _webhook_module(res)}.py")


def _webhook_module(res: ApiResource) -> str:
    return f"{res.module}_{res.version}_webhook"


def _spokes(project: Project, hub: ApiResource, given: tuple[str, ...]) -> list[ApiResource]:
    versions = {
        r.version: r
        for r in project.resources
        if r.resource and (r.group, r.kind) == (hub.group, hub.kind) and r.version != hub.version
    }
    if not versions:
        raise click.ClickException(
            f"{hub.kind} has no other version to convert: add one first with "
            f"`kubeforge create api --group {hub.group} --version VERSION --kind {hub.kind}`"
        )
    missing = [v for v in given if v not in versions]
    if missing:
        raise click.ClickException(f"{hub.kind} has no version {', '.join(missing)}")
    return [versions[v] for v in (given or sorted(versions))]


def _files(
    project: Project,
    res: ApiResource,
    header: str,
    defaulting: bool,
    validation: bool,
    spokes: list[ApiResource],
) -> dict[Path, str]:
    values = {
        "api_group": res.api_group,
        "version": res.version,
        "kind": res.kind,
        "module": res.module,
        "package": project.package,
        "hub": res.version,
        "hub_module": _webhook_module(res),
        "webhook_module": _webhook_module(res),
        "features": ", ".join(
            name
            for name, on in (
                ("defaulting", defaulting),
                ("validation", validation),
                ("conversion", bool(spokes)),
            )
            if on
        ),
    }
    package = Path(project.package)
    files: dict[Path, str] = {}
    init = package / "webhooks" / "__init__.py"
    if not (project.root / init).exists():
        files[init] = header + '"""The project\'s webhooks: one module per kind and version."""\n'
    webhook = _webhook_source(values, defaulting, validation, spokes)
    files[package / "webhooks" / f"{_webhook_module(res)}.py"] = header + webhook
    for spoke in spokes:
        spoke_values = {**values, "version": spoke.version}
        path = package / "api" / spoke.version / f"{res.module}_conversion.py"
        files[path] = header + render("webhook/conversion.py", spoke_values)
    test = _test_source(values, defaulting, validation, spokes)
    files[Path("tests") / f"test_{_webhook_module(res)}.py"] = header + test
    return files


def _webhook_source(
    values: dict[str, str], defaulting: bool, validation: bool, spokes: list[ApiResource]
) -> str:
    kind = values["kind"]
    names = ["AdmissionRequest", "TypeWebhooks"] if (defaulting or validation) else ["TypeWebhooks"]
    sections, args, exported = "", "", ["setup", "webhooks"]
    if defaulting:
        sections += render("webhook/defaulter.py", values)
        args += f"    defaulter={kind}CustomDefaulter(),\n"
        exported.append(f"{kind}CustomDefaulter")
    if validation:
        names.append("Warnings")
        sections += render("webhook/validator.py", values)
        args += f"    validator={kind}CustomValidator(),\n"
        exported.append(f"{kind}CustomValidator")
    local = [from_import(f"..api.{values['version']}.{values['module']}_types", [kind])]
    if spokes:
        names.append("Conversion")
        for spoke in spokes:
            local.append(
                f"from ..api.{spoke.version} import {values['module']}_conversion as "
                f"{spoke.version}_conversion"
            )
            local.append(
                from_import(
                    f"..api.{spoke.version}.{values['module']}_types",
                    [f"{kind} as {kind}{spoke.version.capitalize()}"],
                )
            )
        args += _conversion_arg(kind, spokes)
    imports = import_blocks(
        [
            ["import logging"],
            [from_import("kubeforge", ["Manager"]), from_import("kubeforge.webhook", names)],
            local,
        ]
    )
    return render(
        "webhook/webhook.py",
        {
            **values,
            "imports": imports,
            "sections": sections,
            "webhook_args": args,
            "all_names": ", ".join(f'"{n}"' for n in sorted(exported)),
        },
    )


def _conversion_arg(kind: str, spokes: list[ApiResource]) -> str:
    calls = []
    for spoke in spokes:
        name = f"{spoke.version}_conversion"
        calls.append(
            f".spoke(\n        {kind}{spoke.version.capitalize()},\n"
            f"        to_hub={name}.to_hub,\n        from_hub={name}.from_hub,\n    )"
        )
    # ruff's formatter keeps one call on the line, and puts a chain of several one per line.
    joiner = "" if len(calls) == 1 else "\n    "
    return f"    conversion=Conversion(hub={kind}){joiner}" + joiner.join(calls) + ",\n"


def _test_source(
    values: dict[str, str], defaulting: bool, validation: bool, spokes: list[ApiResource]
) -> str:
    kind = values["kind"]
    paths = [f"mutate_path({kind}.info)"] * defaulting + [
        f"validate_path({kind}.info)"
    ] * validation
    kubeforge = ["ObjectMeta"]
    project = [
        from_import(f"{values['package']}.api.{values['version']}.{values['module']}_types", [kind])
    ]
    hooks = ["setup"] if paths else []
    tests = ""
    blocks: list[list[str]] = [[], []]
    if paths:
        blocks[0].append("from typing import Any")
        kubeforge.append("Client")
        blocks[1].append(from_import("kubeforge.webhook", [p.split("(")[0] for p in paths]))
        tests += render("webhook/test_admission.py", {**values, "paths": _tuple(paths)})
    if spokes:
        hooks.append("webhooks")
        blocks[1].append(from_import("kubeforge.client", ["to_dict"]))
        tests += render("webhook/test_conversion.py", values)
    blocks[1].append(from_import("kubeforge", kubeforge))
    project.append(from_import(f"{values['package']}.webhooks.{values['webhook_module']}", hooks))
    imports = import_blocks([*blocks, project])
    return render("webhook/test_webhook.py", {**values, "imports": imports, "tests": tests})


def _tuple(items: list[str]) -> str:
    # A trailing comma only where Python needs one: ruff would otherwise split the line.
    return f"{items[0]}," if len(items) == 1 else ", ".join(items)


def register_webhook(source: str, module: str) -> str:
    """``manager.py`` source importing ``.webhooks.<module>`` and calling its ``setup`` (once).

    Raises ``ValueError`` naming a missing ``kubeforge:scaffold`` marker.
    """
    for marker in (IMPORTS_MARKER, CONTROLLERS_MARKER):
        if marker not in source:
            raise ValueError(f"the marker `{marker}` is missing; register {module}.setup by hand")
    found = _WEBHOOKS_IMPORT.search(source)
    if found is not None:
        names = re.findall(r"\w+", found.group(1))
        statement = from_import(".webhooks", [*names, module])
        source = source[: found.start()] + statement + source[found.end() :]
    else:
        statement = from_import(".webhooks", [module])
        controllers = _CONTROLLERS_IMPORT.search(source)
        if controllers is not None:
            # Same import section as the controllers: ruff's isort wants no blank line.
            end = controllers.end()
            source = f"{source[:end]}\n{statement}{source[end:]}"
        else:
            source = source.replace(IMPORTS_MARKER, f"{statement}\n\n{IMPORTS_MARKER}", 1)
    call = f"    {module}.setup(mgr)"
    if call not in source.splitlines():
        source = source.replace(f"    {CONTROLLERS_MARKER}", f"{call}\n    {CONTROLLERS_MARKER}", 1)
    return source
