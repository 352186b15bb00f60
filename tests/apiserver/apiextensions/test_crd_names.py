"""CRD naming conflicts, as kube-apiserver's naming controller settles them."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest
from kf_http import Api

from kubeforge.apiserver.apiextensions.names import group_names, negotiate, requested_names
from kubeforge.testing import LocalApiServer

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _group() -> str:
    return f"n{uuid.uuid4().hex[:8]}.example.com"


def _crd(group: str, plural: str, kind: str, **names: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": {"plural": plural, "kind": kind, **names},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": True,
                        }
                    },
                }
            ],
        },
    }


def _conditions(crd: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {
        c["type"]: (c["status"], c["reason"], c["message"]) for c in crd["status"]["conditions"]
    }


async def _create(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    reply = await api.post(CRD_PATH, body)
    assert reply.status == 201, reply.body
    return dict(reply.body)


async def _discovered(api: Api, group: str) -> set[str]:
    reply = await api.get(f"/apis/{group}/v1")
    assert reply.status == 200, reply.body
    return {r["name"] for r in reply.body["resources"]}


async def test_a_crd_whose_kind_is_taken_is_neither_accepted_nor_served_until_the_other_goes(
    api: Api, namespace: str
) -> None:
    group = _group()
    await _create(api, _crd(group, "dogs", "Dog"))
    second = await _create(api, _crd(group, "hounds", "Dog"))
    # singular "dog", kind "Dog" and list kind "DogList" all clash; the last check shows.
    assert _conditions(second) == {
        "NamesAccepted": ("False", "ListKindConflict", '"DogList" is already in use'),
        "Established": ("False", "NotAccepted", "not all names are accepted"),
    }
    assert second["status"]["acceptedNames"] == {"plural": "hounds"}
    path = f"/apis/{group}/v1/namespaces/{namespace}/hounds"
    assert (await api.get(path)).status == 404
    assert await _discovered(api, group) == {"dogs"}

    assert (await api.delete(f"{CRD_PATH}/dogs.{group}")).status == 200
    settled = (await api.get(f"{CRD_PATH}/hounds.{group}")).body
    assert _conditions(settled) == {
        "NamesAccepted": ("True", "NoConflicts", "no conflicts found"),
        "Established": ("True", "InitialNamesAccepted", "the initial names have been accepted"),
    }
    assert settled["status"]["acceptedNames"] == {
        "plural": "hounds",
        "singular": "dog",
        "kind": "Dog",
        "listKind": "DogList",
    }
    assert (await api.get(path)).status == 200
    assert await _discovered(api, group) == {"hounds"}


async def test_a_plural_taken_as_another_crd_s_singular_is_a_plural_conflict(api: Api) -> None:
    group = _group()
    await _create(api, _crd(group, "geese", "Goose", singular="flock"))
    clash = await _create(api, _crd(group, "flock", "Flock", singular="flocksingle"))
    assert _conditions(clash)["NamesAccepted"] == (
        "False",
        "PluralConflict",
        '"flock" is already in use',
    )
    assert "plural" not in clash["status"]["acceptedNames"]
    assert (await api.get(f"/apis/{group}/v1/flock")).status == 404


async def test_several_short_names_in_use_are_reported_together(api: Api) -> None:
    group = _group()
    await _create(api, _crd(group, "cats", "Cat", shortNames=["ct", "kt"]))
    clash = await _create(api, _crd(group, "lions", "Lion", shortNames=["ct", "ln", "cats"]))
    assert _conditions(clash)["NamesAccepted"] == (
        "False",
        "ShortNamesConflict",
        '["ct" is already in use, "cats" is already in use]',
    )
    # The other names were taken; the short names keep their (empty) accepted value.
    assert clash["status"]["acceptedNames"] == {
        "plural": "lions",
        "singular": "lion",
        "kind": "Lion",
        "listKind": "LionList",
    }


async def test_an_update_that_clashes_keeps_the_accepted_names_and_stays_served(
    api: Api, namespace: str
) -> None:
    group = _group()
    await _create(api, _crd(group, "owls", "Owl"))
    hawk = await _create(api, _crd(group, "hawks", "Hawk"))
    established_at = _established_time(hawk)
    path = f"/apis/{group}/v1/namespaces/{namespace}/hawks"
    made = {"apiVersion": f"{group}/v1", "kind": "Hawk", "metadata": {"name": "h"}}
    assert (await api.post(path, made)).status == 201

    hawk["spec"]["names"].update(kind="Owl", singular="hawk", listKind="HawkList")
    clashed = (await api.put(f"{CRD_PATH}/hawks.{group}", hawk)).body
    assert _conditions(clashed) == {
        "NamesAccepted": ("False", "KindConflict", '"Owl" is already in use'),
        "Established": ("True", "InitialNamesAccepted", "the initial names have been accepted"),
    }
    assert clashed["status"]["acceptedNames"]["kind"] == "Hawk"
    assert _established_time(clashed) == established_at
    served = await api.get(f"{path}/h")
    assert served.status == 200
    assert served.body["kind"] == "Hawk"

    # A third CRD wants "Falcon"; the hawks CRD takes it first, then lets it go.
    clashed["spec"]["names"]["kind"] = "Falcon"
    assert (await api.put(f"{CRD_PATH}/hawks.{group}", clashed)).status == 200
    falcon = await _create(api, _crd(group, "falcons", "Falcon"))
    assert _conditions(falcon)["NamesAccepted"][1] == "KindConflict"
    renamed = (await api.get(f"{CRD_PATH}/hawks.{group}")).body
    renamed["spec"]["names"]["kind"] = "Hawk"
    assert (await api.put(f"{CRD_PATH}/hawks.{group}", renamed)).status == 200
    freed = (await api.get(f"{CRD_PATH}/falcons.{group}")).body
    assert _conditions(freed)["NamesAccepted"] == ("True", "NoConflicts", "no conflicts found")
    assert _conditions(freed)["Established"][0] == "True"
    assert (await api.get(f"/apis/{group}/v1/namespaces/{namespace}/falcons")).status == 200


def _established_time(crd: dict[str, Any]) -> str:
    return next(
        c["lastTransitionTime"] for c in crd["status"]["conditions"] if c["type"] == "Established"
    )


async def test_the_same_names_in_different_groups_do_not_clash(api: Api) -> None:
    first, second = _group(), _group()
    await _create(api, _crd(first, "bees", "Bee", shortNames=["bz"]))
    other = await _create(api, _crd(second, "bees", "Bee", shortNames=["bz"]))
    assert _conditions(other)["NamesAccepted"][0] == "True"


def _kubectl(server: LocalApiServer, cache: Path, *args: str, stdin: str = "") -> tuple[int, str]:
    command = ["kubectl", "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(cache), *args]
    done = subprocess.run(
        command, input=stdin, capture_output=True, text=True, timeout=60, check=False
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.kubectl
def test_kubectl_sees_the_conflict_and_only_the_accepted_resource(
    kube_apiserver: LocalApiServer, tmp_path: Path
) -> None:
    group = _group()
    for manifest in (_crd(group, "dogs", "Dog"), _crd(group, "hounds", "Dog", shortNames=["hd"])):
        code, out = _kubectl(
            kube_apiserver, tmp_path, "apply", "-f", "-", stdin=json.dumps(manifest)
        )
        assert code == 0, out
    code, reason = _kubectl(
        kube_apiserver,
        tmp_path,
        "get",
        "crd",
        f"hounds.{group}",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="NamesAccepted")].reason}',
    )
    assert (code, reason) == (0, "ListKindConflict")
    code, names = _kubectl(
        kube_apiserver, tmp_path, "api-resources", f"--api-group={group}", "-o", "name"
    )
    assert (code, names.split()) == (0, [f"dogs.{group}"])
    code, out = _kubectl(kube_apiserver, tmp_path, "get", f"hounds.{group}", "-A")
    assert code != 0
    assert "the server doesn't have a resource type" in out


# --- the rules, without a server -------------------------------------------------------------


def _stored(**accepted: Any) -> dict[str, Any]:
    return {"status": {"acceptedNames": accepted}}


def test_names_equal_to_the_ones_already_accepted_never_conflict_with_themselves() -> None:
    mine = {"plural": "moles", "singular": "mole", "kind": "Mole", "listKind": "MoleList"}
    in_group = group_names([_stored(**mine)])
    accepted, names_ok, _ = negotiate(
        {**mine, "shortNames": ["moles", "mole"]}, {"acceptedNames": mine}, in_group
    )
    assert names_ok["status"] == "True"
    assert accepted["shortNames"] == ["moles", "mole"]


def test_renaming_a_kind_to_one_s_own_list_kind_clashes_as_in_the_real_controller() -> None:
    mine = {"plural": "moles", "singular": "mole", "kind": "Mole", "listKind": "MoleList"}
    accepted, names_ok, established = negotiate(
        {**mine, "kind": "MoleList", "listKind": "MoleListList"},
        {"acceptedNames": mine, "conditions": [{"type": "Established", "status": "True"}]},
        group_names([_stored(**mine)]),
    )
    assert (names_ok["reason"], names_ok["message"]) == (
        "KindConflict",
        '"MoleList" is already in use',
    )
    assert accepted["kind"] == "Mole"
    assert accepted["listKind"] == "MoleListList"
    assert established["status"] == "True"


def test_categories_are_always_taken_and_defaults_fill_singular_and_list_kind() -> None:
    requested = requested_names({"names": {"plural": "ants", "kind": "Ant", "categories": ["all"]}})
    accepted, names_ok, established = negotiate(requested, {}, (set(), set()))
    assert accepted == {
        "plural": "ants",
        "singular": "ant",
        "kind": "Ant",
        "listKind": "AntList",
        "categories": ["all"],
    }
    assert names_ok["reason"] == "NoConflicts"
    assert established["reason"] == "InitialNamesAccepted"


_DNS1035 = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
    "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)


async def test_names_are_dns1035_labels_as_apiextensions_validation_words_it(api: Api) -> None:
    group = _group()
    body = _crd(group, "1dogs", "Dog.Hound", singular="dog_", shortNames=["ok", "9x"])
    body["spec"]["names"]["listKind"] = "DogList"
    reply = await api.post(CRD_PATH, body)
    assert reply.status == 422, reply.body
    causes = {c["field"]: c["message"] for c in reply.body["details"]["causes"]}
    assert causes == {
        "spec.names.plural": f'Invalid value: "1dogs": {_DNS1035}',
        "spec.names.singular": f'Invalid value: "dog_": {_DNS1035}',
        "spec.names.shortNames[1]": f'Invalid value: "9x": {_DNS1035}',
        "spec.names.kind": 'Invalid value: "Dog.Hound": may have mixed case, but should '
        f"otherwise match: {_DNS1035}",
    }
