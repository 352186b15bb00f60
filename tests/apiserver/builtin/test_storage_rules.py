"""StorageClasses, CSIDrivers and VolumeAttachments are defaulted, validated and warned of as
1.32's storage validation and strategies do, over HTTP."""

from __future__ import annotations

import uuid
from typing import Any

from kf_http import Api
from kf_podspec import causes

MERGE = "application/merge-patch+json"
GROUP = "/apis/storage.k8s.io/v1"


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def test_a_storage_class_checks_its_policies_and_topologies(api: Api) -> None:
    body: dict[str, Any] = {
        "metadata": {"name": unique("sc")},
        "provisioner": "example.com/disk",
        "reclaimPolicy": "Recycle",
        "volumeBindingMode": "Later",
        "allowedTopologies": [
            {
                "matchLabelExpressions": [
                    {"key": "topology.kubernetes.io/zone", "values": ["a", "a"]},
                    {"key": "topology.kubernetes.io/zone", "values": []},
                ]
            }
        ],
    }
    found = causes(await api.post(f"{GROUP}/storageclasses", body))
    at = "allowedTopologies[0].matchLabelExpressions"
    assert found == [
        ("reclaimPolicy", 'Unsupported value: "Recycle": supported values: "Delete", "Retain"'),
        (
            "volumeBindingMode",
            'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
        ),
        (f"{at}[0].values[1]", 'Duplicate value: "a"'),
        (f"{at}[1].values", "Required value"),
        (f"{at}[1].key", 'Duplicate value: "topology.kubernetes.io/zone"'),
    ]


async def test_a_storage_class_is_fixed_once_created_and_warns_of_old_labels(api: Api) -> None:
    name = unique("sc")
    body = {
        "metadata": {"name": name},
        "provisioner": "example.com/disk",
        "parameters": {"type": "ssd"},
        "allowedTopologies": [
            {
                "matchLabelExpressions": [
                    {"key": "failure-domain.beta.kubernetes.io/zone", "values": ["a"]}
                ]
            }
        ],
    }
    created = await api.post(f"{GROUP}/storageclasses", body)
    assert created.status == 201, created.body
    assert created.headers["Warning"] == (
        '299 - "allowedTopologies[0].matchLabelExpressions[0].key: '
        "failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "
        '\\"topology.kubernetes.io/zone\\" instead"'
    )
    change = {
        "parameters": {"type": "hdd"},
        "reclaimPolicy": "Retain",
        "volumeBindingMode": "WaitForFirstConsumer",
    }
    reply = await api.patch(f"{GROUP}/storageclasses/{name}", change, MERGE)
    assert causes(reply) == [
        ("parameters", "Forbidden: updates to parameters are forbidden."),
        ("reclaimPolicy", "Forbidden: updates to reclaimPolicy are forbidden."),
        ("volumeBindingMode", 'Invalid value: "WaitForFirstConsumer": field is immutable'),
    ]
    expandable = await api.patch(
        f"{GROUP}/storageclasses/{name}", {"allowVolumeExpansion": True}, MERGE
    )
    assert expandable.status == 200, expandable.body


async def test_a_csi_driver_gets_its_defaults_and_keeps_attach_required(api: Api) -> None:
    name = unique("csi") + ".example.com"
    token = {"audience": "vault", "expirationSeconds": 60}
    spec = {"fsGroupPolicy": "Always", "tokenRequests": [token, {"audience": "vault"}]}
    bad = {"metadata": {"name": name}, "spec": spec}
    assert causes(await api.post(f"{GROUP}/csidrivers", bad)) == [
        (
            "spec.fsGroupPolicy",
            'Unsupported value: "Always": supported values: "File", "None", '
            '"ReadWriteOnceWithFSType"',
        ),
        (
            "spec.tokenRequests[0].expirationSeconds",
            "Invalid value: 60: may not specify a duration less than 10 minutes",
        ),
        ("spec.tokenRequests[1].audience", 'Duplicate value: "vault"'),
    ]
    created = await api.post(f"{GROUP}/csidrivers", {"metadata": {"name": name}, "spec": {}})
    assert created.status == 201, created.body
    assert created.body["spec"] == {
        "attachRequired": True,
        "podInfoOnMount": False,
        "storageCapacity": False,
        "fsGroupPolicy": "ReadWriteOnceWithFSType",
        "volumeLifecycleModes": ["Persistent"],
        "requiresRepublish": False,
        "seLinuxMount": False,
    }
    flipped = await api.patch(
        f"{GROUP}/csidrivers/{name}", {"spec": {"attachRequired": False}}, MERGE
    )
    assert causes(flipped) == [
        ("spec.attachedRequired", "Invalid value: false: field is immutable")
    ]


async def test_a_volume_attachment_names_one_source_and_keeps_its_spec(api: Api) -> None:
    name = unique("va")
    spec = {"attacher": "csi.example.com", "nodeName": "node-1", "source": {}}
    refused = await api.post(
        f"{GROUP}/volumeattachments", {"metadata": {"name": name}, "spec": spec}
    )
    assert causes(refused) == [
        (
            "spec.source",
            "Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName",
        )
    ]
    spec["source"] = {"persistentVolumeName": "pv-1"}
    created = await api.post(
        f"{GROUP}/volumeattachments", {"metadata": {"name": name}, "spec": spec}
    )
    assert created.status == 201, created.body
    moved = await api.patch(
        f"{GROUP}/volumeattachments/{name}", {"spec": {"nodeName": "node-2"}}, MERGE
    )
    ((field, message),) = causes(moved)
    assert field == "spec"
    assert message == (
        'Invalid value: storage.VolumeAttachmentSpec{Attacher:"csi.example.com", '
        "Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)(0xc000010000), "
        'InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"node-2"}: '
        "field is immutable"
    )
