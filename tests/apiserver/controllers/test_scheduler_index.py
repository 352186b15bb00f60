"""The scheduler's pod index against a view built from every stored pod.

``PodIndex`` keeps the bound pods per node and namespace, their summed requests and the
waiting pods up to date from storage events; the scheduler filters and scores with the
view it gives. Here a random history of pod writes (creates, binds, nominations, label
changes, finishes, deletes, a recreate under the same name) is fed to it, and after every
write each node's verdict for a set of pods with requests, anti-affinity, affinity and
topology spread must be what the plain view built from every stored pod says, each node's
rank (the least-allocated score the scheduler keeps between attempts) must be the one
worked out afresh, and the waiting keys must be the waiting pods.
"""

from __future__ import annotations

import random
from typing import Any

from kubeforge.apiserver.controllers.loop import key_of
from kubeforge.apiserver.controllers.nodeinfo import PodIndex, holds_node, is_waiting
from kubeforge.apiserver.controllers.placement import Placement
from kubeforge.apiserver.controllers.preemption import priority
from kubeforge.apiserver.controllers.scheduler import NodeScores
from kubeforge.apiserver.controllers.scheduling import filter_node
from kubeforge.apiserver.storage.journal import Event

_PODS = ("", "pods")
_ZONES = ("a", "b", "c")


def _node(index: int) -> dict[str, Any]:
    return {
        "metadata": {
            "name": f"n{index}",
            "labels": {"zone": _ZONES[index % 3], "kubernetes.io/hostname": f"n{index}"},
        },
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "6"}},
    }


def _pod(rng: random.Random, name: str, uid: int) -> dict[str, Any]:
    app = rng.choice(["web", "db", "cache"])
    spec: dict[str, Any] = {
        "containers": [
            {"name": "c", "resources": {"requests": {"cpu": rng.choice(["100m", "300m", "1"])}}}
        ],
        "priority": rng.choice([0, 10]),
    }
    if rng.random() < 0.3:
        term = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "zone"}
        spec["affinity"] = {
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
        }
    return {
        "metadata": {
            "name": name,
            "namespace": rng.choice(["default", "other"]),
            "uid": f"uid-{uid}",
            "labels": {"app": app},
        },
        "spec": spec,
        "status": {"phase": "Pending"},
    }


def _incoming() -> list[dict[str, Any]]:
    """Pods to place: plain, with anti-affinity, with affinity, spread across zones."""
    base = {"name": "new", "namespace": "default", "uid": "uid-new", "labels": {"app": "web"}}
    requests = {"resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}
    selector = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone"}
    spread = {**selector, "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}
    shapes: list[dict[str, Any]] = [
        {},
        {
            "affinity": {
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [selector]}
            }
        },
        {
            "affinity": {
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [selector]}
            }
        },
        {"topologySpreadConstraints": [spread]},
        {"priority": 10},
    ]
    return [
        {"metadata": dict(base), "spec": {"containers": [{"name": "c", **requests}], **shape}}
        for shape in shapes
    ]


def _plain_view(
    nodes: list[dict[str, Any]], stored: dict[Any, dict[str, Any]], pod: dict[str, Any]
) -> Placement:
    """The view from scratch: every live bound pod, in key order, then
    the waiting pods nominated to a node with at least ``pod``'s priority, as if placed."""
    ordered = [stored[key] for key in sorted(stored)]
    live = [p for p in ordered if holds_node(p)]
    nominated = [
        {**p, "spec": {**p["spec"], "nodeName": p["status"]["nominatedNodeName"]}}
        for p in ordered
        if is_waiting(p)
        and p["status"].get("nominatedNodeName")
        and p["metadata"]["uid"] != pod["metadata"]["uid"]
        and priority(p) >= priority(pod)
    ]
    return Placement.of(nodes, [*live, *nominated])


def _change(rng: random.Random, pod: dict[str, Any]) -> dict[str, Any]:
    changed = {**pod, "metadata": dict(pod["metadata"]), "spec": dict(pod["spec"])}
    changed["status"] = dict(pod["status"])
    roll = rng.random()
    if not changed["spec"].get("nodeName") and roll < 0.5:
        changed["spec"]["nodeName"] = f"n{rng.randrange(6)}"
    elif roll < 0.6:
        changed["status"]["nominatedNodeName"] = f"n{rng.randrange(6)}"
    elif roll < 0.75:
        changed["metadata"]["labels"] = {"app": rng.choice(["web", "db"])}
    elif roll < 0.85:
        changed["status"]["phase"] = rng.choice(["Succeeded", "Failed"])
    else:
        changed["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return changed


def test_the_index_gives_the_verdicts_of_a_view_built_from_every_pod() -> None:
    rng = random.Random(19)
    nodes = [_node(i) for i in range(6)]
    index = PodIndex()
    stored: dict[Any, dict[str, Any]] = {}
    preexisting = [_pod(rng, f"old-{i}", i) for i in range(4)]
    preexisting[0]["spec"]["nodeName"] = "n0"
    for pod in preexisting:
        stored[key_of(pod)] = pod
    index.load(preexisting)
    said: set[str] = set()
    scores = NodeScores()  # kept across the history, as the scheduler keeps it
    for step in range(300):
        names = sorted({key[1] for key in stored} | {f"p{i}" for i in range(25)})
        name = rng.choice(names)
        namespace_keys = [key for key in stored if key[1] == name]
        if namespace_keys and rng.random() < 0.85:
            key = namespace_keys[0]
            old = stored[key]
            if rng.random() < 0.15:
                del stored[key]
                index.observe(Event(step, "DELETED", _PODS, old, None))
            else:
                stored[key] = new = _change(rng, old)
                index.observe(Event(step, "MODIFIED", _PODS, new, old))
        else:
            new = _pod(rng, name, 1000 + step)
            if key_of(new) in stored:
                continue  # a name is created again only once its pod is gone
            stored[key_of(new)] = new
            index.observe(Event(step, "ADDED", _PODS, new, None))
        assert index.waiting_keys() == sorted(k for k, p in stored.items() if is_waiting(p))
        for pod in _incoming():
            indexed, plain = index.placement(nodes, pod), _plain_view(nodes, stored, pod)
            for node in nodes:
                name_ = node["metadata"]["name"]
                verdict = filter_node(pod, node, indexed)
                assert verdict == filter_node(pod, node, plain), (step, name_)
                said.update(verdict.reasons)
                spread = float(step % 3)
                assert scores.rank(node, indexed, spread) == NodeScores().rank(node, plain, spread)
                assert indexed.count(name_) == plain.count(name_)
                assert indexed.usage(name_) == {
                    **dict.fromkeys(indexed.usage(name_), 0),
                    **plain.usage(name_),
                }
            assert [p["metadata"]["name"] for p in indexed.placed] == [
                p["metadata"]["name"] for p in plain.placed
            ]
    # The history reached every rule the index feeds.
    assert {
        "Too many pods",
        "Insufficient cpu",
        "node(s) didn't match pod anti-affinity rules",
        "node(s) didn't satisfy existing pods anti-affinity rules",
        "node(s) didn't match pod affinity rules",
        "node(s) didn't match pod topology spread constraints",
    } <= said, said
