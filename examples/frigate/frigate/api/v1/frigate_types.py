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

"""The Frigate custom resource: ship.example.com/v1, namespaced.

Edit the spec and status below, then run ``kubeforge generate`` to rewrite its
CRD (config/crd/bases) and ``kubeforge install`` to apply it. Field docstrings
become the descriptions ``kubectl explain`` shows.
"""

from __future__ import annotations

import msgspec
from kubeforge import Model, Resource, ResourceInfo
from kubeforge.crd import CRDOptions, Subresources

__all__ = ["Frigate", "FrigateSpec", "FrigateStatus"]


class FrigateSpec(Model):
    """The desired state of a Frigate."""

    foo: str = ""
    """An example field of Frigate; edit frigate_types.py to remove or update it."""
    description: str = ""
    """What v1beta1 called ``demo``: the controller logs it on every reconcile."""
    crew: int = 0
    """New in v1: how many sail on her (v1beta1 keeps it in an annotation)."""


class FrigateStatus(Model):
    """The observed state of a Frigate: written by its controller only."""

    created: bool = False
    """True once the controller has seen this Frigate."""


class Frigate(Resource):
    """Frigate is the schema of the frigates API."""

    info = ResourceInfo(
        group="ship.example.com",
        version="v1",
        kind="Frigate",
        plural="frigates",
        namespaced=True,
        singular="frigate",
    )
    crd = CRDOptions(subresources=Subresources(status=True))

    spec: FrigateSpec = msgspec.field(default_factory=FrigateSpec)
    status: FrigateStatus = msgspec.field(default_factory=FrigateStatus)
