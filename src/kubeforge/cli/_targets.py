"""Find the controllers a ``kubeforge run TARGET`` names.

A target is a module name (``my_operator.controllers``), a ``.py`` file, a
directory holding a package (``examples/podtoip``), or a project directory made by
``kubeforge init`` (``examples/frigate``: its ``PROJECT`` file names the package,
imported with the project root on ``sys.path`` so the project's absolute imports
work from any working directory). It must define ``setup(manager)``, which
registers its controllers, and may define ``cache_options`` (a ``CacheOptions``)
for the manager's cache.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from kubeforge.cache.options import CacheOptions
from kubeforge.cli._project import PROJECT_FILE, Project

__all__ = ["cache_options_of", "load_module", "load_setup"]


def load_setup(target: str) -> Callable[[Any], None]:
    """Import ``target`` and return its ``setup`` function; errors are one readable line."""
    module = load_module(target)
    setup = getattr(module, "setup", None)
    if not callable(setup):
        raise click.ClickException(f"{target}: defines no setup(manager) function")
    return setup  # type: ignore[no-any-return]


def cache_options_of(module: ModuleType) -> CacheOptions:
    """The module's ``cache_options`` (beside ``setup``), or the default: cache everything."""
    options = getattr(module, "cache_options", None)
    if options is None:
        return CacheOptions()
    if not isinstance(options, CacheOptions):
        raise click.ClickException(
            f"{module.__name__}.cache_options is a {type(options).__name__}, not a CacheOptions"
        )
    return options


def load_module(target: str) -> ModuleType:
    """Import a module name, a ``.py`` file or a package directory."""
    path = Path(target)
    if path.is_dir() and (path / PROJECT_FILE).is_file():
        return _import_project(Project.load(path.resolve()))
    if path.is_dir():
        init = path / "__init__.py"
        if not init.is_file():
            raise click.ClickException(
                f"{target}: a directory target must be a package (no __init__.py) "
                f"or a kubeforge project (no {PROJECT_FILE} file)"
            )
        return _import_file(path.resolve().name, init, package_dir=path.resolve())
    if path.suffix == ".py":
        if not path.is_file():
            raise click.ClickException(f"{target}: no such file")
        return _import_file(path.stem, path.resolve(), package_dir=None)
    try:
        return importlib.import_module(target)
    except ImportError as exc:
        raise click.ClickException(f"{target}: cannot import ({exc})") from exc


def _import_project(project: Project) -> ModuleType:
    root = str(project.root)
    if root not in sys.path:
        sys.path.insert(0, root)
    if not (project.package_dir / "__init__.py").is_file():
        raise click.ClickException(
            f"{project.root / PROJECT_FILE}: names the package {project.package!r}, "
            f"but {project.package_dir} is not a package"
        )
    try:
        return importlib.import_module(project.package)
    except ImportError as exc:
        raise click.ClickException(f"{project.package_dir}: cannot import ({exc})") from exc


def _import_file(name: str, file: Path, *, package_dir: Path | None) -> ModuleType:
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__file__", None) == str(file):
        return loaded  # imported already (its submodules are bound to this very object)
    locations = [str(package_dir)] if package_dir is not None else None
    spec = importlib.util.spec_from_file_location(name, file, submodule_search_locations=locations)
    if spec is None or spec.loader is None:
        raise click.ClickException(f"{file}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except ImportError as exc:
        del sys.modules[name]
        raise click.ClickException(f"{file}: cannot import ({exc})") from exc
    return module
