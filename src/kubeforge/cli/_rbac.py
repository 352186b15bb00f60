"""A project's manager RBAC: the roles it needs, as manifests, and what its config lacks.

Entry points: ``rbac_manifests(project, needs)`` -> the manager's roles and
bindings (``config/rbac/role.yaml`` and ``role_binding.yaml``), and
``rbac_gaps(project, needs)`` -> one line per permission the manifests in
``config/rbac`` do not grant the manager's ServiceAccount (what ``kubeforge check
rbac`` prints). Cluster-wide needs go into a ClusterRole; needs restricted to a
namespace go into a Role there (kubebuilder's ``+kubebuilder:rbac:...,namespace=``),
each bound to the manager's ServiceAccount.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kubeforge.cli._project import Project
from kubeforge.crd import generate_rbac
from kubeforge.crd.needs import Need
from kubeforge.crd.rbac_check import grants_for, missing

__all__ = ["RBAC_DIR", "rbac_gaps", "rbac_manifests"]

RBAC_DIR = Path("config") / "rbac"
_API = "rbac.authorization.k8s.io"


def _labels(project: Project) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": project.project_name,
        "app.kubernetes.io/managed-by": "kubeforge",
    }


def rbac_manifests(
    project: Project, needs: list[Need]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The manager's (cluster) roles and their bindings to its ServiceAccount."""
    mine = [n for n in needs if n.role == "manager"]
    cluster = [n.rule for n in mine if n.namespace is None]
    namespaces = sorted({n.namespace for n in mine if n.namespace is not None})
    name = f"{project.project_name}-manager-role"
    roles: list[dict[str, Any]] = []
    bindings: list[dict[str, Any]] = []
    if cluster or not namespaces:
        roles.append(generate_rbac(cluster, name=name))
        bindings.append(_binding(project, "ClusterRoleBinding", "ClusterRole", None))
    for namespace in namespaces:
        rules = [n.rule for n in mine if n.namespace == namespace]
        roles.append(generate_rbac(rules, name=name, namespace=namespace))
        bindings.append(_binding(project, "RoleBinding", "Role", namespace))
    for role in roles:
        role["metadata"]["labels"] = _labels(project)
    return roles, bindings


def _binding(project: Project, kind: str, role_kind: str, namespace: str | None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": f"{project.project_name}-manager-rolebinding"}
    if namespace is not None:
        metadata["namespace"] = namespace
    metadata["labels"] = _labels(project)
    return {
        "apiVersion": f"{_API}/v1",
        "kind": kind,
        "metadata": metadata,
        "roleRef": {
            "apiGroup": _API,
            "kind": role_kind,
            "name": f"{project.project_name}-manager-role",
        },
        "subjects": [
            {
                "kind": "ServiceAccount",
                "name": project.manager_name,
                "namespace": project.namespace,
            }
        ],
    }


def rbac_objects(project: Project) -> list[dict[str, Any]]:
    """Every object in ``config/rbac/*.yaml`` (the kustomization excluded)."""
    found: list[dict[str, Any]] = []
    directory = project.root / RBAC_DIR
    for path in sorted(directory.glob("*.yaml")) if directory.is_dir() else ():
        if path.name == "kustomization.yaml":
            continue
        found += [doc for doc in yaml.safe_load_all(path.read_text()) if isinstance(doc, dict)]
    return found


def rbac_gaps(project: Project, needs: list[Need]) -> list[str]:
    """One line per permission ``config/rbac`` does not grant the manager."""
    grants = grants_for(
        rbac_objects(project), namespace=project.namespace, name=project.manager_name
    )
    lines = []
    for need, verbs in missing(needs, grants):
        rule = need.rule
        what = ", ".join(rule.resources or rule.urls)
        group = ", ".join(g or "core" for g in rule.groups) or "non-resource"
        where = f"in namespace {need.namespace}" if need.namespace else "cluster-wide"
        lines.append(f"{', '.join(verbs)} on {what} ({group}) {where}: {need.reason}")
    return lines
