"""Render a project's ``config/`` the way ``kubectl kustomize`` does, for the subset it uses.

Entry point: ``build(directory, images=...)``. A kustomization here may list
``resources`` (YAML files, or directories with a kustomization of their own),
``images`` (``name`` -> ``newName``/``newTag``/``digest``) and ``patches`` (files
or inline, with an optional ``target``: a list is a JSON 6902 patch, a mapping a
strategic merge patch, as kustomize tells them apart); that is all that ``kubeforge
init`` and ``generate`` write, so ``kubeforge deploy`` needs no kustomize binary.
Any other field is refused with a pointer to ``kubectl kustomize``, rather than
being ignored. Objects come out in kustomize's legacy order (namespaces and CRDs
first, webhooks last), which is also a safe order to apply them in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import click
import yaml

from kubeforge.apiserver.patch.formats import (
    PatchApplyError,
    PatchDecodeError,
    apply_json_patch,
    apply_strategic_merge_patch,
)

__all__ = ["ImageOverride", "build", "parse_image", "sort_objects"]

ImageOverride = Mapping[str, Any]

_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
_KNOWN = {"apiVersion", "kind", "resources", "images", "patches"}
_TARGET_KEYS = {"group", "version", "kind", "name", "namespace"}
# kustomize's legacy resource order (api/resid/gvk.go): these first, in this order ...
_FIRST = [
    "Namespace",
    "ResourceQuota",
    "StorageClass",
    "CustomResourceDefinition",
    "ServiceAccount",
    "PodSecurityPolicy",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "Secret",
    "Endpoints",
    "Service",
    "LimitRange",
    "PriorityClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Deployment",
    "StatefulSet",
    "CronJob",
    "PodDisruptionBudget",
]
# ... these last, everything else in between.
_LAST = ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]


def build(directory: Path, *, images: Iterable[ImageOverride] = ()) -> list[dict[str, Any]]:
    """The objects ``directory``'s kustomization renders, with ``images`` applied last."""
    objects = _build(directory, seen=())
    _set_images(objects, list(images))
    return sort_objects(objects)


def parse_image(reference: str) -> dict[str, str]:
    """``registry:5000/team/app:v1`` as an ``images`` entry for the name ``controller``.

    >>> parse_image("registry:5000/team/app:v1")
    {'name': 'controller', 'newName': 'registry:5000/team/app', 'newTag': 'v1'}
    >>> parse_image("app@sha256:abc")
    {'name': 'controller', 'newName': 'app', 'digest': 'sha256:abc'}
    """
    name, tag, digest = _split(reference)
    entry = {"name": "controller", "newName": name}
    if digest:
        entry["digest"] = digest
    elif tag:
        entry["newTag"] = tag
    return entry


def sort_objects(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Kustomize's legacy order; ties keep a stable order by group/version, namespace, name."""

    def rank(obj: dict[str, Any]) -> tuple[int, str, str, str, str]:
        kind = str(obj.get("kind", ""))
        if kind in _FIRST:
            position = _FIRST.index(kind)
        elif kind in _LAST:
            position = len(_FIRST) + 1 + _LAST.index(kind)
        else:
            position = len(_FIRST)
        meta = obj.get("metadata") or {}
        return (
            position,
            kind,
            str(obj.get("apiVersion", "")),
            str(meta.get("namespace") or ""),
            str(meta.get("name") or ""),
        )

    return sorted(objects, key=rank)


def _build(directory: Path, seen: tuple[Path, ...]) -> list[dict[str, Any]]:
    directory = directory.resolve()
    if directory in seen:
        raise click.ClickException(f"{directory}: kustomizations include each other in a cycle")
    file = next((directory / f for f in _FILES if (directory / f).is_file()), None)
    if file is None:
        raise click.ClickException(f"{directory}: no kustomization.yaml")
    documents = _load(file)
    body = documents[0] if documents else {}
    unknown = sorted(set(body) - _KNOWN)
    if unknown:
        raise click.ClickException(
            f"{file}: {', '.join(unknown)} not supported by kubeforge (it reads resources and "
            f"images); render with `kubectl kustomize {directory}` instead"
        )
    objects: list[dict[str, Any]] = []
    for entry in body.get("resources") or []:
        path = directory / str(entry)
        if path.is_dir():
            objects += _build(path, (*seen, directory))
        elif path.is_file():
            objects += _load(path)
        else:
            raise click.ClickException(f"{file}: resource {entry} does not exist")
    for entry in body.get("patches") or []:
        _apply_patch(objects, entry, directory, file)
    _set_images(objects, list(body.get("images") or []))
    return objects


def _apply_patch(objects: list[dict[str, Any]], entry: Any, directory: Path, file: Path) -> None:
    """One ``patches`` entry, applied to every object its target (or its own id) selects."""
    if not isinstance(entry, dict) or ("path" in entry) == ("patch" in entry):
        raise click.ClickException(f"{file}: a patch needs exactly one of path and patch")
    where = f"{file}: patch {entry.get('path') or '(inline)'}"
    if "path" in entry:
        documents = _load_any(directory / str(entry["path"]), where)
    else:
        documents = list(yaml.safe_load_all(str(entry["patch"])))
    patch = documents[0] if len(documents) == 1 else documents
    target = entry.get("target")
    unknown = sorted(set(target or {}) - _TARGET_KEYS)
    if unknown:
        raise click.ClickException(f"{where}: target {', '.join(unknown)} not supported")
    if isinstance(patch, list):
        if not target:
            raise click.ClickException(f"{where}: a JSON 6902 patch needs a target")
    elif isinstance(patch, dict):
        target = target or _identity(patch)
    else:
        raise click.ClickException(f"{where}: neither a JSON 6902 nor a strategic merge patch")
    matched = [i for i, obj in enumerate(objects) if _selected(obj, target)]
    if not matched:
        raise click.ClickException(f"{where}: no resource matches {target}")
    for index in matched:
        try:
            if isinstance(patch, list):
                objects[index] = apply_json_patch(objects[index], patch)
            else:
                objects[index] = apply_strategic_merge_patch(objects[index], patch)
        except (PatchApplyError, PatchDecodeError) as exc:
            raise click.ClickException(f"{where}: {exc}") from exc


def _identity(patch: dict[str, Any]) -> dict[str, str]:
    group, _, version = str(patch.get("apiVersion") or "").rpartition("/")
    name = str((patch.get("metadata") or {}).get("name") or "")
    identity = {"group": group, "version": version, "kind": str(patch.get("kind") or "")}
    return {**identity, "name": name} if name else identity


def _selected(obj: dict[str, Any], target: dict[str, Any]) -> bool:
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    meta = obj.get("metadata") or {}
    actual = {
        "group": group,
        "version": version,
        "kind": obj.get("kind"),
        "name": meta.get("name"),
        "namespace": meta.get("namespace"),
    }
    return all(str(actual[key] or "") == str(value) for key, value in target.items())


def _load_any(path: Path, where: str) -> list[Any]:
    try:
        return list(yaml.safe_load_all(path.read_text()))
    except (OSError, yaml.YAMLError) as exc:
        raise click.ClickException(f"{where}: not readable YAML ({exc})") from exc


def _load(path: Path) -> list[dict[str, Any]]:
    try:
        documents = list(yaml.safe_load_all(path.read_text()))
    except (OSError, yaml.YAMLError) as exc:
        raise click.ClickException(f"{path}: not readable YAML ({exc})") from exc
    return [doc for doc in documents if isinstance(doc, dict)]


def _set_images(objects: list[dict[str, Any]], images: list[ImageOverride]) -> None:
    for obj in objects:
        for container in _containers(obj):
            for override in images:
                container["image"] = _override(str(container.get("image", "")), override)


def _containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    spec = obj.get("spec") or {}
    kind = obj.get("kind")
    if kind == "CronJob":
        spec = ((spec.get("jobTemplate") or {}).get("spec") or {}).get("template", {}).get(
            "spec"
        ) or {}
    elif kind != "Pod":
        spec = (spec.get("template") or {}).get("spec") or {}
    return [
        c
        for key in ("initContainers", "containers")
        for c in spec.get(key) or []
        if isinstance(c, dict)
    ]


def _override(image: str, override: ImageOverride) -> str:
    name, tag, digest = _split(image)
    if name != override.get("name"):
        return image
    name = str(override.get("newName") or name)
    if override.get("digest"):
        return f"{name}@{override['digest']}"
    if override.get("newTag"):
        return f"{name}:{override['newTag']}"
    return f"{name}@{digest}" if digest else (f"{name}:{tag}" if tag else name)


def _split(image: str) -> tuple[str, str, str]:
    """(name, tag, digest); a ``:`` inside the registry host (``host:5000/x``) is no tag."""
    name, _, digest = image.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    tag = ""
    if colon > slash:
        name, tag = name[:colon], name[colon + 1 :]
    return name, tag, digest
