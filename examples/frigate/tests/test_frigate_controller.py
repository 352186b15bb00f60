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

"""The Frigate controller against kubeforge's local API server (a real server process)."""

from __future__ import annotations

from kubeforge import Client, ObjectMeta, Request, Result

from frigate.api.v1beta1.frigate_types import Frigate, FrigateSpec
from frigate.controllers.frigate_controller import FrigateReconciler


async def test_reconcile_succeeds_for_an_existing_frigate(
    client: Client,
    namespace: str,
) -> None:
    frigate = Frigate(metadata=ObjectMeta(name="sample", namespace=namespace))
    await client.api(Frigate, namespace=namespace).create(frigate)

    result = await FrigateReconciler(client).reconcile(Request(namespace, "sample"))

    assert result == Result()


async def test_reconcile_marks_a_frigate_created_through_its_status(
    client: Client,
    namespace: str,
) -> None:
    frigates = client.api(Frigate, namespace=namespace)
    spec = FrigateSpec(foo="bar", demo="demo")
    await frigates.create(Frigate(metadata=ObjectMeta(name="new", namespace=namespace), spec=spec))
    assert (await frigates.get("new")).status.created is False

    await FrigateReconciler(client).reconcile(Request(namespace, "new"))
    marked = await frigates.get("new")

    assert marked.status.created is True
    assert marked.spec == spec
    assert marked.metadata.generation == 1  # a status write leaves the spec's generation alone


async def test_reconcile_ignores_a_frigate_that_is_gone(
    client: Client,
    namespace: str,
) -> None:
    result = await FrigateReconciler(client).reconcile(Request(namespace, "gone"))

    assert result == Result()
