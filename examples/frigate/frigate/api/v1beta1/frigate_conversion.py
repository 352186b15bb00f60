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

"""How ship.example.com/v1beta1 Frigate objects convert to and from the hub version v1.

Every version converts through the hub (see ``frigate.webhooks.frigate_v1_webhook``),
so each spoke needs just these two functions. ``metadata`` (with its labels and
annotations) and fields the models do not declare are carried over by kubeforge;
a field the other version lacks can be kept in an annotation.

v1 renamed ``spec.demo`` to ``spec.description`` and added ``spec.crew``, which a
v1beta1 object keeps in the ``ship.example.com/crew`` annotation, so that a v1
object read as v1beta1 and written back loses nothing.
"""

from __future__ import annotations

from kubeforge.core.meta import is_set

from ..v1.frigate_types import Frigate as FrigateHub
from ..v1.frigate_types import FrigateSpec as HubSpec
from ..v1.frigate_types import FrigateStatus as HubStatus
from .frigate_types import Frigate, FrigateSpec, FrigateStatus

__all__ = ["CREW_ANNOTATION", "from_hub", "to_hub"]

CREW_ANNOTATION = "ship.example.com/crew"


def to_hub(src: Frigate) -> FrigateHub:
    """``src`` as the hub version v1."""
    metadata = src.metadata
    annotations = dict(metadata.annotations or {})
    crew = int(annotations.pop(CREW_ANNOTATION, "0") or 0)
    metadata.annotations = annotations
    hub = FrigateHub(
        metadata=metadata, spec=HubSpec(foo=src.spec.foo, description=src.spec.demo, crew=crew)
    )
    if is_set(src, "status"):  # reading an unset status gives an empty one: do not invent it
        hub.status = HubStatus(created=src.status.created)
    return hub


def from_hub(hub: FrigateHub) -> Frigate:
    """The hub object ``hub`` as v1beta1."""
    metadata = hub.metadata
    annotations = dict(metadata.annotations or {})
    if hub.spec.crew:
        annotations[CREW_ANNOTATION] = str(hub.spec.crew)
    metadata.annotations = annotations
    spoke = Frigate(
        metadata=metadata, spec=FrigateSpec(foo=hub.spec.foo, demo=hub.spec.description)
    )
    if is_set(hub, "status"):
        spoke.status = FrigateStatus(created=hub.status.created)
    return spoke
