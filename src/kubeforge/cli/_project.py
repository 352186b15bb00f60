"""A kubeforge project on disk: its ``PROJECT`` file, names and layout.

Entry point: ``Project.find()`` (walks up from the working directory to the
``PROJECT`` file, the way git finds ``.git``). ``kubeforge init`` writes the file
and every other project command reads it; ``create api`` appends to its
``resources``. The names derived here (namespace, manager, roles) are the ones
every scaffolded manifest uses, so they live in one place.
"""

from __future__ import annotations

import keyword
import re
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import click
import yaml

from kubeforge.core.names import is_dns1123_label, is_dns1123_subdomain

__all__ = [
    "PROJECT_FILE",
    "ApiResource",
    "Project",
    "check_group",
    "check_kind",
    "check_package",
    "check_project_name",
    "check_version",
    "pluralize",
]

PROJECT_FILE = "PROJECT"
LAYOUT = "kubeforge.io/v1"

# Kubernetes API versions: v1, v2beta3, v1alpha1 (kubebuilder accepts exactly these).
_VERSION = re.compile(r"v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?")
_KIND = re.compile(r"[A-Z][A-Za-z0-9]*")
_HEADER = (
    "# Written by kubeforge: `kubeforge create api` adds resources here, and\n"
    "# `kubeforge generate`, `install` and `deploy` read it. Edit with care.\n"
)


@dataclass(frozen=True, slots=True)
class ApiResource:
    """One kind the project defines (``resource``) and/or reconciles (``controller``)."""

    group: str
    """The short group (``ship``); the API group is ``group.domain``."""
    version: str
    kind: str
    plural: str
    domain: str = ""
    namespaced: bool = True
    resource: bool = True
    controller: bool = True

    @property
    def api_group(self) -> str:
        """``ship.example.com``: the group the CRD serves."""
        return f"{self.group}.{self.domain}" if self.domain else self.group

    @property
    def module(self) -> str:
        """The snake_case stem of this kind's modules (``frigate``, ``cron_job``)."""
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", self.kind).lower()


@dataclass(frozen=True, slots=True)
class Project:
    """The ``PROJECT`` file plus where it was found."""

    root: Path
    project_name: str
    package: str
    domain: str
    resources: tuple[ApiResource, ...] = field(default=())

    # --- names every manifest agrees on ---------------------------------------------------

    @property
    def namespace(self) -> str:
        return f"{self.project_name}-system"

    @property
    def manager_name(self) -> str:
        """The manager's Deployment and ServiceAccount."""
        return f"{self.project_name}-controller-manager"

    @property
    def leader_election_id(self) -> str:
        """The Lease the replicas of the manager elect a leader with."""
        return f"{self.project_name}.{self.domain}" if self.domain else self.project_name

    # --- files ----------------------------------------------------------------------------

    @property
    def package_dir(self) -> Path:
        return self.root / self.package

    def find_resource(self, group: str, version: str, kind: str) -> ApiResource | None:
        for res in self.resources:
            if (res.group, res.version, res.kind) == (group, version, kind):
                return res
        return None

    def with_resource(self, new: ApiResource) -> Project:
        """This project with ``new`` added, or merged into the entry of the same kind."""
        kept = [
            r
            for r in self.resources
            if (r.group, r.version, r.kind) != (new.group, new.version, new.kind)
        ]
        old = self.find_resource(new.group, new.version, new.kind)
        if old is not None:
            new = replace(
                old,
                resource=old.resource or new.resource,
                controller=old.controller or new.controller,
            )
        return replace(self, resources=(*kept, new))

    def save(self) -> None:
        body: dict[str, Any] = {
            "layout": LAYOUT,
            "domain": self.domain,
            "projectName": self.project_name,
            "package": self.package,
            "resources": [_resource_dict(r) for r in self.resources],
        }
        text = yaml.safe_dump(body, sort_keys=False, default_flow_style=False)
        (self.root / PROJECT_FILE).write_text(_HEADER + text)

    @classmethod
    def load(cls, root: Path) -> Project:
        path = root / PROJECT_FILE
        try:
            body = yaml.safe_load(path.read_text())
            return cls(
                root=root,
                project_name=str(body["projectName"]),
                package=str(body["package"]),
                domain=str(body.get("domain") or ""),
                resources=tuple(_resource(r) for r in body.get("resources") or ()),
            )
        except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError) as exc:
            raise click.ClickException(f"{path}: not a kubeforge PROJECT file ({exc})") from exc

    @classmethod
    def find(cls, start: Path | None = None) -> Project:
        """The project containing ``start`` (default: the working directory)."""
        here = (start or Path.cwd()).resolve()
        for directory in (here, *here.parents):
            if (directory / PROJECT_FILE).is_file():
                return cls.load(directory)
        raise click.ClickException(
            f"{here}: not inside a kubeforge project (no PROJECT file); run `kubeforge init` first"
        )


def _resource_dict(res: ApiResource) -> dict[str, Any]:
    return {
        key: value for key, value in asdict(res).items() if not (key == "domain" and value == "")
    }


def _resource(body: dict[str, Any]) -> ApiResource:
    return ApiResource(
        group=str(body["group"]),
        version=str(body["version"]),
        kind=str(body["kind"]),
        plural=str(body["plural"]),
        domain=str(body.get("domain") or ""),
        namespaced=bool(body.get("namespaced", True)),
        resource=bool(body.get("resource", True)),
        controller=bool(body.get("controller", True)),
    )


# --- validation: each raises click.BadParameter, which click reports as a usage error -------


def check_project_name(name: str) -> str:
    if len(name) > 40 or not is_dns1123_label(name):
        raise click.BadParameter(
            f"{name!r} must be a DNS label of at most 40 characters (lower-case letters, "
            "digits and '-'): it prefixes every object the project deploys",
            param_hint="--project-name",
        )
    return name


def check_package(name: str) -> str:
    if not name.isidentifier() or keyword.iskeyword(name) or not name.islower():
        raise click.BadParameter(
            f"{name!r} is not a lower-case Python identifier", param_hint="--package"
        )
    if name == "kubeforge" or name in sys.stdlib_module_names:
        raise click.BadParameter(
            f"{name!r} would shadow the module of the same name", param_hint="--package"
        )
    return name


def check_group(group: str, domain: str) -> str:
    full = f"{group}.{domain}" if domain else group
    if not group or not is_dns1123_subdomain(full):
        raise click.BadParameter(
            f"the API group {full!r} must be a lower-case DNS subdomain (like ship.example.com)",
            param_hint="--group",
        )
    return group


def check_version(version: str) -> str:
    if not _VERSION.fullmatch(version):
        raise click.BadParameter(
            f"{version!r} is not a Kubernetes API version (v1, v1beta1, v2alpha3, ...)",
            param_hint="--version",
        )
    return version


def check_kind(kind: str) -> str:
    if not _KIND.fullmatch(kind) or len(kind) > 63:
        raise click.BadParameter(
            f"{kind!r} must be PascalCase: a capital letter, then letters and digits",
            param_hint="--kind",
        )
    return kind


def pluralize(kind: str) -> str:
    """The resource name of ``kind``: lower-case English plural (``Policy`` -> ``policies``).

    >>> [pluralize(k) for k in ("Frigate", "Policy", "Bus", "Index", "Gateway")]
    ['frigates', 'policies', 'buses', 'indexes', 'gateways']
    """
    word = kind.lower()
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"
