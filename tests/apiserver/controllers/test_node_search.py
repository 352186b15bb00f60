"""The scheduler's node search: how many nodes it tries, where it starts, and its kept verdicts.

``num_feasible_nodes_to_find`` is 1.32's ``numFeasibleNodesToFind`` with the adaptive
``percentageOfNodesToScore``; the search starts where the last one stopped
(``nextStartNodeIndex``). The verdicts it keeps per node and shape of pod must be, after
every write of a random history (binds, finishes, deletes, a node tainted or made
unschedulable), what the filters say afresh, and the best rank kept with them the best
of the fitting nodes' ranks worked out afresh.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

from kubeforge.apiserver.controllers.feasible import NodeSearch, num_feasible_nodes_to_find
from kubeforge.apiserver.controllers.loop import key_of
from kubeforge.apiserver.controllers.nodeinfo import PodIndex
from kubeforge.apiserver.controllers.placement import Placement
from kubeforge.apiserver.controllers.scheduler import NodeScores
from kubeforge.apiserver.controllers.scheduling import filter_node
from kubeforge.apiserver.storage.journal import Event

_PODS = ("", "pods")


def _node(index: int, version: int = 1, **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {
            "name": f"n{index:03d}",
            "resourceVersion": str(version),
            "labels": {"zone": "abc"[index % 3], "disk": "ssd" if index % 2 else "hdd"},
        },
        "spec": spec,
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "5"}},
    }


def _pod(name: str, cpu: str = "100m", **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}], **spec},
        "status": {"phase": "Pending"},
    }


def test_how_many_feasible_nodes_end_the_search() -> None:
    # Below 100 nodes every node; then 50% less 1% per 125 nodes, at least 5% and
    # never fewer than 100 nodes (schedule_one.go's numFeasibleNodesToFind, 1.32).
    assert [num_feasible_nodes_to_find(n) for n in (0, 1, 99, 100, 101, 199, 250)] == [
        0,
        1,
        99,
        100,
        100,
        100,
        120,
    ]
    assert [num_feasible_nodes_to_find(n) for n in (1000, 5000, 5625, 6000, 20000)] == [
        420,
        500,
        281,
        300,
        1000,
    ]
    assert num_feasible_nodes_to_find(1000, percentage=30) == 300
    assert num_feasible_nodes_to_find(1000, percentage=5) == 100


def test_the_search_starts_where_the_last_one_stopped() -> None:
    nodes = [_node(i) for i in range(250)]
    nodes[3]["spec"]["unschedulable"] = True
    search, index = NodeSearch(), PodIndex()
    pod = _pod("p")
    feasible, refused, _ = search.find(pod, nodes, index.placement(nodes, pod))
    # 120 feasible nodes end it; node 3 was tried and refused on the way.
    assert [n["metadata"]["name"] for n in feasible] == [f"n{i:03d}" for i in range(121) if i != 3]
    assert list(refused) == ["n003"]
    feasible, refused, _ = search.find(pod, nodes, index.placement(nodes, pod))
    assert feasible[0]["metadata"]["name"] == "n121" and not refused
    # The next search wraps around the end of the list, past node 3 again.
    feasible, refused, _ = search.find(pod, nodes, index.placement(nodes, pod))
    names = [n["metadata"]["name"] for n in feasible]
    assert names[:9] == [f"n{i:03d}" for i in range(241, 250)]
    assert names[9:12] == ["n000", "n001", "n002"] and list(refused) == ["n003"]


def test_with_no_node_fitting_every_node_is_tried_and_refused() -> None:
    nodes = [_node(i) for i in range(120)]
    search, index = NodeSearch(), PodIndex()
    search.find(_pod("first"), nodes, index.placement(nodes, _pod("first")))
    big = _pod("big", cpu="3")
    feasible, refused, _ = search.find(big, nodes, index.placement(nodes, big))
    assert feasible == [] and sorted(refused) == sorted(n["metadata"]["name"] for n in nodes)
    assert {v.reasons for v in refused.values()} == {("Insufficient cpu",)}


def _shapes() -> list[dict[str, Any]]:
    toleration = {"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}
    return [
        _pod("plain"),
        _pod("heavy", cpu="900m"),
        _pod("ssd", nodeSelector={"disk": "ssd"}),
        _pod("tolerant", tolerations=[toleration]),
    ]


def test_kept_verdicts_are_what_the_filters_say_afresh() -> None:
    rng = random.Random(5)
    nodes = [_node(i) for i in range(8)]
    search, index, scores = NodeSearch(), PodIndex(), NodeScores()
    stored: dict[Any, dict[str, Any]] = {}
    for step in range(400):
        roll = rng.random()
        if roll < 0.08:  # a node changes: tainted, made unschedulable, or back to plain
            i = rng.randrange(len(nodes))
            version = int(nodes[i]["metadata"]["resourceVersion"]) + 1
            spec = rng.choice(
                [
                    {},
                    {"unschedulable": True},
                    {"taints": [{"key": "dedicated", "effect": "NoSchedule"}]},
                ]
            )
            nodes[i] = _node(i, version, **spec)
        elif roll < 0.6 or not stored:  # a pod is bound somewhere
            pod = rng.choice(_shapes())
            bound = {**pod, "metadata": {**pod["metadata"], "name": f"b{step}", "uid": f"u{step}"}}
            bound["spec"] = {**pod["spec"], "nodeName": f"n{rng.randrange(8):03d}"}
            stored[key_of(bound)] = bound
            index.observe(Event(step, "ADDED", _PODS, bound, None))
        else:  # a pod finishes or goes
            key = rng.choice(sorted(stored))
            old = stored.pop(key)
            if rng.random() < 0.5:
                index.observe(Event(step, "DELETED", _PODS, old, None))
            else:
                done = {**old, "status": {"phase": "Succeeded"}}
                index.observe(Event(step, "MODIFIED", _PODS, done, old))
        for number, pod in enumerate(_shapes()):
            plain = Placement.of(nodes, list(stored.values()))
            view = index.placement(nodes, pod)
            # Searches that rank and searches that do not share the kept verdicts.
            ranked = (step + number) % 2 == 0
            rank = partial(scores.rank, view=view, spread=0.0) if ranked else None
            feasible, refused, best = search.find(pod, nodes, view, rank)
            fresh = {n["metadata"]["name"]: filter_node(pod, n, plain) for n in nodes}
            assert {n["metadata"]["name"] for n in feasible} == {
                name for name, verdict in fresh.items() if verdict.fits
            }, step
            assert refused == {name: v for name, v in fresh.items() if not v.fits}, step
            fitting = [n for n in nodes if fresh[n["metadata"]["name"]].fits]
            if ranked and fitting:
                assert best == min(NodeScores().rank(n, plain, 0.0) for n in fitting), step
            else:
                assert best is None, step
