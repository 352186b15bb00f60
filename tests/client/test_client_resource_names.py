"""How discovery matches what a user types to a resource type, in discovery order."""

from __future__ import annotations

import pytest

from kubeforge.client.discovery import _find
from kubeforge.core.resource import ResourceInfo

CORE_EVENTS = ResourceInfo("", "v1", "Event", "events", short_names=("ev",), singular="event")
GROUP_EVENTS = ResourceInfo("events.k8s.io", "v1", "Event", "events", singular="event")
PTP_V1 = ResourceInfo(
    "example.com", "v1", "PodToIp", "podtoips", short_names=("ptp",), singular="podtoip"
)
PTP_V1BETA1 = ResourceInfo("example.com", "v1beta1", "PodToIp", "podtoips", singular="podtoip")
# A short name that collides with another resource's plural must not shadow it.
SHADOW = ResourceInfo("other.io", "v1", "Thing", "things", short_names=("events",))

RESOURCES = (SHADOW, CORE_EVENTS, GROUP_EVENTS, PTP_V1, PTP_V1BETA1)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("podtoips", PTP_V1),
        ("podtoip", PTP_V1),
        ("PodToIp", PTP_V1),
        ("PODTOIP", PTP_V1),
        ("ptp", PTP_V1),
        ("podtoips.example.com", PTP_V1),
        ("podtoips.v1beta1.example.com", PTP_V1BETA1),
        ("events", CORE_EVENTS),
        ("events.events.k8s.io", GROUP_EVENTS),
        ("ev", CORE_EVENTS),
    ],
)
def test_a_name_resolves_to_the_first_matching_resource(typed: str, expected: ResourceInfo) -> None:
    assert _find(RESOURCES, typed) == expected


def test_an_unknown_name_or_group_matches_nothing() -> None:
    assert _find(RESOURCES, "widgets") is None
    assert _find(RESOURCES, "podtoips.example.org") is None
