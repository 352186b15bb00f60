# Copyright 2026 The kubeforge authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""The Frigate v1 conversion webhook: v1beta1 and v1 objects convert both ways, losing nothing.

The conversion is checked on its own, and through the local API server with kubectl:
the server calls the webhook that ``kube_webhooks`` serves to read a stored v1beta1
Frigate as v1.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from kubeforge import Client, ObjectMeta
from kubeforge.client import to_dict
from kubeforge.testing import LocalApiServer

from frigate.api.v1.frigate_types import Frigate, FrigateSpec
from frigate.api.v1beta1.frigate_conversion import CREW_ANNOTATION
from frigate.api.v1beta1.frigate_types import Frigate as FrigateV1beta1
from frigate.api.v1beta1.frigate_types import FrigateSpec as FrigateSpecV1beta1
from frigate.webhooks.frigate_v1_webhook import setup, webhooks


def kubectl(server: LocalApiServer, *args: str) -> subprocess.CompletedProcess[str]:
    command = ["kubectl", f"--kubeconfig={server.kubeconfig}", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_a_frigate_converts_to_every_version_and_back() -> None:
    conversion = webhooks.conversion
    assert conversion is not None
    sent = to_dict(
        Frigate(
            metadata=ObjectMeta(name="sample", namespace="default", annotations={"a": "b"}),
            spec=FrigateSpec(foo="bar", description="flagship", crew=250),
        )
    )
    for version in conversion.versions:
        there = conversion.convert(sent, f"ship.example.com/{version}")
        assert there["apiVersion"] == f"ship.example.com/{version}"
        assert conversion.convert(there, sent["apiVersion"]) == sent


def test_v1beta1_keeps_the_crew_in_an_annotation() -> None:
    conversion = webhooks.conversion
    assert conversion is not None
    spec = FrigateSpec(foo="bar", description="flagship", crew=250)
    v1 = to_dict(Frigate(metadata=ObjectMeta(name="s"), spec=spec))
    old = conversion.convert(v1, "ship.example.com/v1beta1")
    assert old["spec"] == {"foo": "bar", "demo": "flagship"}
    assert old["metadata"]["annotations"] == {CREW_ANNOTATION: "250"}


async def test_a_v1beta1_frigate_is_read_as_v1_through_kubectl(
    client: Client, namespace: str, kube_rbac_apiserver: LocalApiServer, kube_webhooks: Any
) -> None:
    kube_webhooks(setup)
    old = FrigateV1beta1(
        metadata=ObjectMeta(
            name="veteran", namespace=namespace, annotations={CREW_ANNOTATION: "180"}
        ),
        spec=FrigateSpecV1beta1(foo="bar", demo="a frigate from the kubebuilder walkthrough"),
    )
    await client.api(FrigateV1beta1, namespace=namespace).create(old)
    done = kubectl(
        kube_rbac_apiserver,
        "-n",
        namespace,
        "get",
        "frigates.v1.ship.example.com",
        "veteran",
        "-o=json",
    )
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    assert read["apiVersion"] == "ship.example.com/v1"
    assert read["spec"] == {
        "foo": "bar",
        "description": "a frigate from the kubebuilder walkthrough",
        "crew": 180,
    }
