"""Manifests from a project's code: CRDs from its resources, RBAC from its controllers.

Entry point: ``write_manifests(project)`` (what ``kubeforge generate`` and
``create api`` run). The project's package is imported from its root the way
``kubeforge run`` imports it: every ``Resource`` subclass defined under
``<package>/api`` becomes part of a CRD (one per kind, every version), and the
``rbac`` rules of every module under ``<package>/controllers`` are merged with
what the package's ``setup(mgr)`` builds needs (``kubeforge.crd.needs``) into
``config/rbac/role.yaml`` and its bindings. Output is deterministic, so regenerating an unchanged
project changes no byte.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import click

from kubeforge.cli._project import Project
from kubeforge.cli._rbac import rbac_manifests
from kubeforge.cli._targets import cache_options_of
from kubeforge.cli._webhook_manifests import webhook_files
from kubeforge.core.resource import Resource
from kubeforge.crd import (
    Rule,
    SchemaError,
    generate_crds,
    render_yaml,
    resources_in,
    rules_in,
)
from kubeforge.crd.needs import Need, inspect_setup, required_rules
from kubeforge.runtime import LeaderElectionOptions, ManagerOptions
from kubeforge.webhook import webhooks_in

__all__ = [
    "CRD_BASES",
    "ROLE_FILE",
    "collect_resources",
    "collect_rules",
    "import_project",
    "project_needs",
    "write_crds",
    "write_manifests",
    "write_rbac",
    "write_webhooks",
]

CRD_BASES = Path("config") / "crd" / "bases"
ROLE_FILE = Path("config") / "rbac" / "role.yaml"
ROLE_BINDING_FILE = Path("config") / "rbac" / "role_binding.yaml"
_CRD_KUSTOMIZATION = Path("config") / "crd" / "kustomization.yaml"


def write_manifests(project: Project) -> list[Path]:
    """Regenerate the CRDs, the manager's ClusterRole and the webhooks' manifests;
    returns the files written."""
    return [*write_crds(project), *write_rbac(project), *write_webhooks(project)]


def write_webhooks(project: Project) -> list[Path]:
    """config/webhook, config/certmanager and the conversion patches, with their wiring
    (see ``_webhook_manifests``), for the ``TypeWebhooks`` under ``<package>/webhooks``."""
    modules = list(_modules(project, "webhooks"))
    with _generation_errors():
        files = webhook_files(project, webhooks_in(*modules))
    for relative, text in files.items():
        _write(project.root / relative, text)
    return list(files)


def write_crds(project: Project) -> list[Path]:
    """One ``config/crd/bases/<group>_<plural>.yaml`` per kind, and their kustomization."""
    classes = collect_resources(project)
    with _generation_errors():
        crds = generate_crds(classes)
    written: list[Path] = []
    for crd in crds:
        spec = crd["spec"]
        relative = CRD_BASES / f"{spec['group']}_{spec['names']['plural']}.yaml"
        _write(project.root / relative, render_yaml([crd]))
        written.append(relative)
    bases = project.root / CRD_BASES
    listed = sorted(p.name for p in bases.glob("*.yaml")) if bases.is_dir() else []
    resources = "".join(f"  - bases/{name}\n" for name in listed)
    _write(
        project.root / _CRD_KUSTOMIZATION,
        "# Written by `kubeforge generate crd`: one file per kind under bases/.\n"
        + (f"resources:\n{resources}" if listed else "resources: []\n"),
    )
    return [*written, _CRD_KUSTOMIZATION]


def write_rbac(project: Project) -> list[Path]:
    """``config/rbac/role.yaml`` and ``role_binding.yaml``: the RBAC the manager's
    controllers need (derived from ``setup(mgr)``) plus their declared ``rbac`` rules."""
    needs = project_needs(project)
    with _generation_errors():
        roles, bindings = rbac_manifests(project, needs)
    _write(project.root / ROLE_FILE, render_yaml(roles))
    _write(project.root / ROLE_BINDING_FILE, render_yaml(bindings))
    return [ROLE_FILE, ROLE_BINDING_FILE]


def project_needs(project: Project) -> list[Need]:
    """Everything the project's manager needs: what its package's ``setup(mgr)`` builds,
    run as deployed (``--leader-elect`` on a Lease in the project's namespace,
    ``--metrics-secure``, the package's ``cache_options``), and the declared ``rbac``
    rules, granted in each of the cache's namespaces when it is restricted to some."""
    declared = collect_rules(project)
    package = import_project(project)
    cache = cache_options_of(package)
    setup = getattr(package, "setup", None)
    needs: list[Need] = []
    if callable(setup):
        election = LeaderElectionOptions(
            lease_name=project.leader_election_id, namespace=project.namespace
        )
        deployed = ManagerOptions(leader_election=election, metrics_secure=True, cache=cache)
        try:
            manager = inspect_setup(setup, deployed)
        except Exception as exc:
            raise click.ClickException(
                f"{_origin(exc, project.package)}: setup(mgr) failed: {type(exc).__name__}: {exc}"
            ) from exc
        needs = required_rules(manager)
    scopes: tuple[str | None, ...] = tuple(cache.default_namespaces) or (None,)
    reason = "declared in an rbac list"
    return [*needs, *(Need(rule, reason, namespace=ns) for rule in declared for ns in scopes)]


def collect_resources(project: Project) -> list[type[Resource]]:
    """Every ``Resource`` subclass defined in a module under ``<package>/api``."""
    modules = list(_modules(project, "api"))
    with _generation_errors():
        return resources_in(*modules)


def collect_rules(project: Project) -> list[Rule]:
    """The ``rbac`` rules of every module under ``<package>/controllers``."""
    modules = list(_modules(project, "controllers"))
    with _generation_errors():
        return rules_in(*modules)


@contextmanager
def _generation_errors() -> Iterator[None]:
    # The generators reject what they cannot express (a bad marker, a non-Rule in an
    # rbac list) with these; to the user each is one line about their own code.
    try:
        yield
    except (TypeError, ValueError, SchemaError) as exc:
        raise click.ClickException(f"cannot generate manifests: {exc}") from exc


def _modules(project: Project, subpackage: str) -> Iterator[ModuleType]:
    package = import_project(project)
    name = f"{package.__name__}.{subpackage}"
    if not (project.package_dir / subpackage / "__init__.py").is_file():
        return
    root = _import(name)
    yield root
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{name}."):
        yield _import(info.name)


def import_project(project: Project) -> ModuleType:
    """Import the project's package fresh from its root (never a stale copy of another)."""
    for loaded in [
        m for m in sys.modules if m == project.package or m.startswith(f"{project.package}.")
    ]:
        del sys.modules[loaded]
    root = str(project.root)
    if root in sys.path:
        sys.path.remove(root)
    sys.path.insert(0, root)
    importlib.invalidate_caches()
    return _import(project.package)


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except Exception as exc:
        # The user's own code is being imported: any error in it is theirs to read, as
        # one line naming the file and line it comes from.
        raise click.ClickException(f"{_origin(exc, name)}: {type(exc).__name__}: {exc}") from exc


def _origin(exc: BaseException, module: str) -> str:
    """``path:line`` of the innermost frame of the project's code that raised ``exc``."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{_relative(exc.filename)}:{exc.lineno}"
    where = module
    traceback = exc.__traceback__
    while traceback is not None:
        filename = traceback.tb_frame.f_code.co_filename
        if _relative(filename) != filename:
            where = f"{_relative(filename)}:{traceback.tb_lineno}"
        traceback = traceback.tb_next
    return where


def _relative(filename: str) -> str:
    try:
        return str(Path(filename).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return filename


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
