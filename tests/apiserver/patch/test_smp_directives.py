"""Strategic merge patch for built-in kinds: merge keys from the Kubernetes OpenAPI and every
directive, with the real server's ordering and error codes."""

from __future__ import annotations

from typing import Any

import pytest
from kf_http import Api, pod

from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.patch.strategic import strategic_merge
from kubeforge.apiserver.smd.schema import ANY, SCALAR, Atom, builtin_root

# A small schema shaped like the upstream test fixtures: a list merged by "name", a merged
# list of scalars, a replaced list, a retainKeys map and a plain map.
_ITEM = Atom("map", element=ANY)
_ROOT = Atom(
    "map",
    element=ANY,
    fields={
        "items": Atom(
            "list",
            element=_ITEM,
            list_type="map",
            keys=("name",),
            strategy="merge",
            merge_key="name",
        ),
        "numbers": Atom("list", element=SCALAR, list_type="set", strategy="merge"),
        "plainNumbers": Atom("list", element=SCALAR),
        "retained": Atom("map", element=ANY, strategy="retainKeys"),
    },
)

CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    ("scalars merge as a set", {"numbers": [1, 2]}, {"numbers": [2, 3]}, {"numbers": [1, 2, 3]}),
    (
        "a merge collapses duplicates already in the list",
        {"numbers": [1, 1, 2]},
        {"numbers": [3]},
        {"numbers": [3, 1, 2]},
    ),
    (
        "a new item without a neighbour in the live list comes first",
        {"items": [{"name": "a"}, {"name": "b"}]},
        {"items": [{"name": "c"}]},
        {"items": [{"name": "c"}, {"name": "a"}, {"name": "b"}]},
    ),
    (
        "patch items follow the patch order, server-only items keep their place",
        {"items": [{"name": "1"}, {"name": "2", "v": "b"}, {"name": "3"}]},
        {"items": [{"name": "3", "v": "c"}, {"name": "1", "v": "a"}]},
        {"items": [{"name": "2", "v": "b"}, {"name": "3", "v": "c"}, {"name": "1", "v": "a"}]},
    ),
    (
        "a null inside a merged item deletes that field",
        {"items": [{"name": "a", "image": "x", "tag": "1"}]},
        {"items": [{"name": "a", "image": None}]},
        {"items": [{"name": "a", "tag": "1"}]},
    ),
    (
        "$patch delete removes every item with the key",
        {"items": [{"name": "1"}, {"name": "1"}, {"name": "2", "v": "a"}, {"name": "3"}]},
        {"items": [{"name": "1", "$patch": "delete"}, {"name": "3", "$patch": "delete"}]},
        {"items": [{"name": "2", "v": "a"}]},
    ),
    (
        "$patch replace as a list item replaces the whole list",
        {"items": [{"name": "a"}, {"name": "b"}]},
        {"items": [{"$patch": "replace"}, {"name": "c"}]},
        {"items": [{"name": "c"}]},
    ),
    (
        "$patch replace alone empties the list",
        {"items": [{"name": "a"}]},
        {"items": [{"$patch": "replace"}]},
        {"items": []},
    ),
    (
        "$patch replace on a map keeps only the patch's keys",
        {"name": 1, "value": 1},
        {"other": "a", "$patch": "replace"},
        {"other": "a"},
    ),
    (
        "$patch delete on a nested map leaves it empty",
        {"m": {"k1": 1, "k2": 1}},
        {"m": {"$patch": "delete"}},
        {"m": {}},
    ),
    (
        "$retainKeys clears the keys it does not list",
        {"retained": {"name": "foo", "value": "a", "old": True}},
        {"retained": {"$retainKeys": ["name", "value"], "value": "b"}},
        {"retained": {"name": "foo", "value": "b"}},
    ),
    (
        "a retainKeys map without the directive merges normally",
        {"retained": {"name": "foo"}},
        {"retained": {"value": "bar"}},
        {"retained": {"name": "foo", "value": "bar"}},
    ),
    (
        "$deleteFromPrimitiveList removes values",
        {"numbers": [1, 2, 3]},
        {"$deleteFromPrimitiveList/numbers": [2]},
        {"numbers": [1, 3]},
    ),
    (
        "$deleteFromPrimitiveList works on lists that do not merge too",
        {"plainNumbers": [1, 2, 3]},
        {"$deleteFromPrimitiveList/plainNumbers": [2]},
        {"plainNumbers": [1, 3]},
    ),
    (
        "$deleteFromPrimitiveList of an absent value changes nothing",
        {"numbers": [1, 2]},
        {"$deleteFromPrimitiveList/numbers": [3]},
        {"numbers": [1, 2]},
    ),
    (
        "$deleteFromPrimitiveList on a missing list does not create it",
        {"foo": ["bar"]},
        {"$deleteFromPrimitiveList/numbers": [3]},
        {"foo": ["bar"]},
    ),
    (
        "$setElementOrder orders the merged list and ignores names it does not find",
        {"items": [{"name": "1"}, {"name": "3"}]},
        {
            "$setElementOrder/items": [{"name": "3"}, {"name": "2"}, {"name": "1"}],
            "items": [{"name": "3", "v": 3}, {"name": "1", "v": 1}],
        },
        {"items": [{"name": "3", "v": 3}, {"name": "1", "v": 1}]},
    ),
    (
        "$setElementOrder of scalars without a patch list reorders",
        {"numbers": [1, 3]},
        {"$setElementOrder/numbers": [3, 2, 1]},
        {"numbers": [3, 1]},
    ),
    (
        "$setElementOrder keeps server-only items next to their live neighbours",
        {"items": [{"name": "1"}, {"name": "2"}, {"name": "3"}]},
        {
            "$setElementOrder/items": [{"name": "3"}, {"name": "1"}],
            "items": [{"name": "3", "v": 1}],
        },
        # 2 stays before 3, which followed it live; 3 and 1 take the directive's order
        {"items": [{"name": "2"}, {"name": "3", "v": 1}, {"name": "1"}]},
    ),
    (
        "lists without a merge strategy are replaced",
        {"plainNumbers": [1, 2]},
        {"plainNumbers": [3]},
        {"plainNumbers": [3]},
    ),
]


@pytest.mark.parametrize(
    ("original", "patch", "expected"),
    [pytest.param(o, p, e, id=name) for name, o, p, e in CASES],
)
def test_strategic_merge_follows_the_real_servers_rules(
    original: dict[str, Any], patch: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert strategic_merge(original, patch, _ROOT) == expected


@pytest.mark.parametrize(
    ("patch", "code", "text"),
    [
        pytest.param(
            {"items": [{"v": "b"}]},
            500,
            "does not contain declared merge key: name",
            id="missing merge key",
        ),
        pytest.param(
            {
                "$setElementOrder/items": [{"name": "1"}, {"name": "2"}, {"name": "3"}],
                "items": [{"name": "3"}, {"name": "1"}],
            },
            500,
            "doesn't match $setElementOrder list",
            id="order contradicts the patch",
        ),
        pytest.param(
            {"retained": {"$retainKeys": "name"}},
            400,
            "invalid patch format of retainKeys",
            id="retainKeys not a list",
        ),
        pytest.param(
            {"retained": {"$retainKeys": ["name"], "value": "x"}},
            400,
            "invalid patch format of retainKeys",
            id="patch key missing from retainKeys",
        ),
        pytest.param(
            {"$setElementOrder/items": "x"},
            400,
            "invalid patch format of setElementOrder list",
            id="order not a list",
        ),
        pytest.param(
            {"items": [{"name": "1", "$patch": "merge"}]},
            500,
            "merging lists cannot yet be specified",
            id="$patch merge in a list",
        ),
        pytest.param(
            {"numbers": [[1]]}, 422, "lists of lists are not supported", id="list of lists"
        ),
    ],
)
def test_malformed_strategic_patches_fail_with_the_real_codes(
    patch: dict[str, Any], code: int, text: str
) -> None:
    original = {"items": [{"name": "1"}], "numbers": [1], "retained": {"name": "a"}}
    with pytest.raises(StatusError) as failed:
        strategic_merge(original, patch, _ROOT)
    assert failed.value.code == code
    assert text in failed.value.status["message"]
    if code == 500:
        assert "reason" not in failed.value.status


def _pod_atom() -> Atom:
    atom = builtin_root("", "v1", "Pod")
    assert atom is not None
    return atom


def test_pod_lists_merge_by_their_openapi_merge_keys() -> None:
    live = {
        "metadata": {
            "finalizers": ["x"],
            "ownerReferences": [{"uid": "u1", "name": "a"}, {"uid": "u2", "name": "b"}],
        },
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "image": "nginx:1",
                    "ports": [{"containerPort": 80, "name": "http"}],
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    "volumeMounts": [{"mountPath": "/data", "name": "data"}],
                    "args": ["--a"],
                }
            ],
            "volumes": [{"name": "data", "emptyDir": {}}],
        },
        "status": {"conditions": [{"type": "Ready", "status": "False"}]},
    }
    patch = {
        "metadata": {"ownerReferences": [{"uid": "u2", "name": "b2"}], "finalizers": ["y"]},
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "ports": [{"containerPort": 80, "name": "web"}],
                    "env": [{"name": "B", "value": "3"}],
                    "volumeMounts": [{"mountPath": "/cache", "name": "cache"}],
                    "args": ["--b"],
                }
            ],
            "volumes": [
                {"name": "data", "$retainKeys": ["name", "hostPath"], "hostPath": {"path": "/x"}}
            ],
        },
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }
    merged = strategic_merge(live, patch, _pod_atom())
    container = merged["spec"]["containers"][0]
    assert container["image"] == "nginx:1"
    assert container["ports"] == [{"containerPort": 80, "name": "web"}]
    assert container["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}]
    assert [m["mountPath"] for m in container["volumeMounts"]] == ["/cache", "/data"]
    assert container["args"] == ["--b"]  # atomic: replaced
    assert merged["spec"]["volumes"] == [{"name": "data", "hostPath": {"path": "/x"}}]
    assert merged["metadata"]["ownerReferences"][1] == {"uid": "u2", "name": "b2"}
    assert merged["metadata"]["finalizers"] == ["y", "x"]
    assert merged["status"]["conditions"] == [{"type": "Ready", "status": "True"}]


def test_deployment_strategy_retain_keys_clears_the_rolling_update_union_member() -> None:
    atom = builtin_root("apps", "v1", "Deployment")
    assert atom is not None
    live = {"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}}
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}
    assert strategic_merge(live, patch, atom)["spec"]["strategy"] == {"type": "Recreate"}


def test_a_patch_strategy_of_replace_replaces_a_map_and_other_maps_merge() -> None:
    budget = builtin_root("policy", "v1", "PodDisruptionBudget")
    deployment = builtin_root("apps", "v1", "Deployment")
    assert budget is not None and deployment is not None
    live = {"spec": {"selector": {"matchLabels": {"a": "1"}}}}
    patch = {"spec": {"selector": {"matchLabels": {"b": "2"}}}}
    replaced = strategic_merge(live, patch, budget)  # patchStrategy=replace on this selector
    assert replaced["spec"]["selector"] == {"matchLabels": {"b": "2"}}
    merged = strategic_merge(live, patch, deployment)  # no strategy: maps merge
    assert merged["spec"]["selector"] == {"matchLabels": {"a": "1", "b": "2"}}


async def test_strategic_patch_over_http_merges_a_pods_containers_and_labels(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    await api.post(path, pod("web", app="web", tier="front"))
    patch = {
        "metadata": {"labels": {"tier": None, "track": "stable"}},
        "spec": {"containers": [{"name": "main", "image": "nginx:1.28"}]},
    }
    reply = await api.patch(f"{path}/web", patch, "application/strategic-merge-patch+json")
    assert reply.status == 200, reply.body
    assert reply.body["metadata"]["labels"] == {"app": "web", "track": "stable"}
    (container,) = reply.body["spec"]["containers"]
    assert container["image"] == "nginx:1.28"
    assert container["terminationMessagePath"] == "/dev/termination-log"  # defaults kept


async def test_a_strategic_patch_missing_a_merge_key_is_a_500_without_reason(
    api: Api, namespace: str
) -> None:
    path = f"/api/v1/namespaces/{namespace}/pods"
    await api.post(path, pod("nokey"))
    patch = {"spec": {"containers": [{"image": "nginx:1.28"}]}}
    reply = await api.patch(f"{path}/nokey", patch, "application/strategic-merge-patch+json")
    assert reply.status == 500
    assert "reason" not in reply.body
    assert reply.body["message"] == (
        "map: map[image:nginx:1.28] does not contain declared merge key: name"
    )
