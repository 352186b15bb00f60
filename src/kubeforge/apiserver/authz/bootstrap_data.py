"""The default RBAC objects of a 1.32 server, read from ``bootstrap_policy.yaml``.

The data file holds the facts of kubernetes'
``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/*.yaml`` in a compact form;
this module expands them into the full objects the server installs, and checks them.

Which stored revisions of the testdata were read: kubernetes/kubernetes' history is
not reachable here at a tag, so the nearest revisions were chosen by what they hold.
``cluster-roles.yaml`` (policy.go at the same revision) and ``controller-roles.yaml``
come from a fork at the 1.31-1.32 policy: it has the CoordinatedLeaderElection
``leasecandidates`` rules (1.31+), and none of what later releases enable by default
(DynamicResourceAllocation rules, 1.34; KubeletFineGrainedAuthz's ``nodes/configz``,
beta in 1.33; ``/statusz``; VolumeAttachment reads for the scheduler, 1.33).
``namespace-roles.yaml`` is kubernetes/kubernetes 1892e4d (configmap and lease leader
locks, leasecandidates); ``cluster-role-bindings.yaml`` and
``namespace-role-bindings.yaml`` are the revisions whose objects match those roles.
Controller role bindings are one per controller role, as
``controller-role-bindings.yaml`` lists them.

``python -m kubeforge.apiserver.authz.bootstrap_data --check [TESTDATA_DIR]`` checks
the objects ``bootstrap_policy()`` gives the server (each named once, each rule with
verbs, each binding's role present) and, given a folder holding the six testdata files,
that they equal them (kinds, names, labels, annotations, aggregation rules, rules in
order, role refs, subjects).

Entry points: ``bootstrap_policy``, ``BootstrapPolicy``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from kubeforge.apiserver.storage.sqlite import clone

__all__ = ["BootstrapPolicy", "bootstrap_policy"]

_DATA = Path(__file__).with_name("bootstrap_policy.yaml")
_GROUP = "rbac.authorization.k8s.io"
_AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"
_CONTROLLER_PREFIX = "system:controller:"
_CONTROLLER_NAMESPACE = "kube-system"


@dataclass(frozen=True)
class BootstrapPolicy:
    """Every default RBAC object, by kind, in the testdata's order."""

    cluster_roles: list[dict[str, Any]]
    cluster_role_bindings: list[dict[str, Any]]
    roles: list[dict[str, Any]]
    role_bindings: list[dict[str, Any]]

    def by_plural(self) -> list[tuple[str, list[dict[str, Any]]]]:
        """``(resource, objects)`` in the order the real hook reconciles them."""
        return [
            ("clusterroles", self.cluster_roles),
            ("clusterrolebindings", self.cluster_role_bindings),
            ("roles", self.roles),
            ("rolebindings", self.role_bindings),
        ]


def _metadata(name: str, namespace: str = "", labels: dict[str, str] | None = None) -> Any:
    meta: dict[str, Any] = {
        "annotations": {_AUTOUPDATE: "true"},
        "labels": {"kubernetes.io/bootstrapping": "rbac-defaults", **(labels or {})},
        "name": name,
    }
    if namespace:
        meta["namespace"] = namespace
    return meta


def _rule(compact: Any) -> dict[str, Any]:
    if isinstance(compact, dict):
        return {"nonResourceURLs": list(compact["urls"]), "verbs": list(compact["verbs"])}
    groups, resources, verbs, *names = compact
    rule: dict[str, Any] = {"apiGroups": list(groups)}
    if names:
        rule["resourceNames"] = list(names[0])
    rule["resources"] = list(resources)
    rule["verbs"] = list(verbs)
    return rule


def _role(kind: str, entry: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    name = prefix + entry["name"]
    role: dict[str, Any] = {"apiVersion": f"{_GROUP}/v1", "kind": kind}
    if "aggregate" in entry:
        label = f"{_GROUP}/aggregate-to-{entry['aggregate']}"
        role["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {label: "true"}}]}
    role["metadata"] = _metadata(name, entry.get("namespace", ""), entry.get("labels"))
    role["rules"] = [_rule(r) for r in entry["rules"]] if "rules" in entry else None
    return role


def _subject(compact: list[str]) -> dict[str, str]:
    if compact[0] == "ServiceAccount":
        return {"kind": "ServiceAccount", "name": compact[1], "namespace": compact[2]}
    return {"apiGroup": _GROUP, "kind": compact[0], "name": compact[1]}


def _binding(kind: str, entry: dict[str, Any]) -> dict[str, Any]:
    role_kind = "ClusterRole" if kind == "ClusterRoleBinding" else "Role"
    binding: dict[str, Any] = {
        "apiVersion": f"{_GROUP}/v1",
        "kind": kind,
        "metadata": _metadata(entry["name"], entry.get("namespace", "")),
        "roleRef": {
            "apiGroup": _GROUP,
            "kind": role_kind,
            "name": entry.get("role", entry["name"]),
        },
    }
    if entry.get("subjects"):
        binding["subjects"] = [_subject(s) for s in entry["subjects"]]
    return binding


def _controller_binding(name: str) -> dict[str, Any]:
    short = name.removeprefix(_CONTROLLER_PREFIX)
    entry = {"name": name, "subjects": [["ServiceAccount", short, _CONTROLLER_NAMESPACE]]}
    return _binding("ClusterRoleBinding", entry)


@cache
def _expanded() -> BootstrapPolicy:
    # libyaml's loader when PyYAML has it: the file parses several times faster
    data = yaml.load(_DATA.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    controllers = [_role("ClusterRole", e, _CONTROLLER_PREFIX) for e in data["controllerRoles"]]
    return BootstrapPolicy(
        cluster_roles=[_role("ClusterRole", e) for e in data["clusterRoles"]] + controllers,
        cluster_role_bindings=[
            _binding("ClusterRoleBinding", e) for e in data["clusterRoleBindings"]
        ]
        + [_controller_binding(r["metadata"]["name"]) for r in controllers],
        roles=[_role("Role", e) for e in data["roles"]],
        role_bindings=[_binding("RoleBinding", e) for e in data["roleBindings"]],
    )


def bootstrap_policy() -> BootstrapPolicy:
    """A fresh copy of every default RBAC object of a 1.32 server.

    >>> policy = bootstrap_policy()
    >>> [r["metadata"]["name"] for r in policy.roles][:2]
    ['system:controller:bootstrap-signer', 'extension-apiserver-authentication-reader']
    """
    policy = _expanded()
    return BootstrapPolicy(*([clone(o) for o in objects] for _, objects in policy.by_plural()))


# The testdata files: which of the policy's lists each one is, and whether it holds the
# system:controller:* objects of that list (True), the others (False) or all (None).
_TESTDATA: dict[str, tuple[str, bool | None]] = {
    "cluster-roles.yaml": ("cluster_roles", False),
    "controller-roles.yaml": ("cluster_roles", True),
    "cluster-role-bindings.yaml": ("cluster_role_bindings", False),
    "controller-role-bindings.yaml": ("cluster_role_bindings", True),
    "namespace-roles.yaml": ("roles", None),
    "namespace-role-bindings.yaml": ("role_bindings", None),
}


def _is_controller(obj: dict[str, Any]) -> bool:
    return str(obj["metadata"]["name"]).startswith(_CONTROLLER_PREFIX)


def _comparable(obj: dict[str, Any]) -> dict[str, Any]:
    """What the testdata and the data file both state (the testdata's creationTimestamp:
    null is the server's to set)."""
    out = clone(obj)
    out.get("metadata", {}).pop("creationTimestamp", None)
    if "rules" in out and not out["rules"]:
        out["rules"] = None
    return out


def _consistency(policy: BootstrapPolicy) -> list[str]:
    """Each object named once, each rule with verbs, each binding's role present."""
    problems = []
    roles = {(r["kind"], r["metadata"].get("namespace", ""), r["metadata"]["name"])
             for r in policy.cluster_roles + policy.roles}  # fmt: skip
    for plural, objects in policy.by_plural():
        keys = [(o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in objects]
        if len(set(keys)) != len(keys):
            problems.append(f"{plural}: a name is listed twice")
    for role in policy.cluster_roles + policy.roles:
        if any(not rule.get("verbs") for rule in role["rules"] or []):
            problems.append(f"{role['metadata']['name']}: a rule without verbs")
    for binding in policy.cluster_role_bindings + policy.role_bindings:
        ref = binding["roleRef"]
        namespace = binding["metadata"].get("namespace", "") if ref["kind"] == "Role" else ""
        if (ref["kind"], namespace, ref["name"]) not in roles:
            problems.append(f"{binding['metadata']['name']}: binds a role that is not there")
    return problems


def check(testdata: Path | None = None) -> list[str]:
    """Problems found in the data file, and against the testdata folder when given."""
    policy = bootstrap_policy()
    problems = _consistency(policy)
    if testdata is None:
        return problems
    for filename, (field, controllers) in _TESTDATA.items():
        expected = yaml.safe_load((testdata / filename).read_text())["items"]
        objects: list[dict[str, Any]] = getattr(policy, field)
        ours = [o for o in objects if controllers in (None, _is_controller(o))]
        names = [o["metadata"]["name"] for o in expected]
        if [o["metadata"]["name"] for o in ours] != names:
            problems.append(f"{filename}: names differ")
        for theirs, mine in zip(expected, ours, strict=False):
            if _comparable(theirs) != _comparable(mine):
                problems.append(f"{filename}: {theirs['metadata']['name']} differs")
    return problems


def main(argv: list[str]) -> int:
    """``--check [TESTDATA_DIR]``: print each problem, exit 1 when there is one."""
    if not argv or argv[0] != "--check":
        print("usage: python -m kubeforge.apiserver.authz.bootstrap_data --check [TESTDATA_DIR]")
        return 2
    problems = check(Path(argv[1]) if len(argv) > 1 else None)
    for problem in problems:
        print(problem)
    if not problems:
        counts = ", ".join(f"{len(o)} {p}" for p, o in bootstrap_policy().by_plural())
        print(f"bootstrap policy: {counts}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
