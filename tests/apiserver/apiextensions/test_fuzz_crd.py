"""Random bodies for a custom resource: the server answers 2xx, or 4xx with a Status whose
code is the HTTP code; never 5xx, and it keeps serving (hypothesis, bounded and seeded)."""

from __future__ import annotations

import http.client
import json
import urllib.parse
import uuid
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubeforge.testing import LocalApiServer

_GROUP = "fuzz.example.com"
_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["size"],
            "x-kubernetes-validations": [
                {"rule": "!has(self.low) || !has(self.high) || self.low <= self.high"},
                {"rule": "!has(self.mode) || self.mode == oldSelf.mode", "message": "immutable"},
            ],
            "properties": {
                "size": {"x-kubernetes-int-or-string": True},
                "low": {"type": "integer", "minimum": 0},
                "high": {"type": "integer", "maximum": 1000, "default": 10},
                "ratio": {"type": "number", "multipleOf": 0.5, "nullable": True},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8},
                "tags": {
                    "type": "array",
                    "items": {"type": "string"},
                    "x-kubernetes-list-type": "set",
                },
                "ports": {
                    "type": "array",
                    "maxItems": 4,
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
                    },
                },
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "nested": {
                    "type": "object",
                    "properties": {
                        "deep": {"type": "object", "properties": {"x": {"type": "boolean"}}}
                    },
                },
            },
        },
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    },
}
_FIELDS = [
    "size",
    "low",
    "high",
    "ratio",
    "mode",
    "name",
    "tags",
    "ports",
    "labels",
    "free",
    "nested",
]

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
_json = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.one_of(st.sampled_from(_FIELDS), st.text(max_size=6)), children, max_size=4
        ),
    ),
    max_leaves=12,
)
_specs = st.dictionaries(st.sampled_from(_FIELDS), _json, max_size=6)
_names = st.one_of(st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True), st.text(max_size=12))
_metadata = st.fixed_dictionaries(
    {"name": _names},
    optional={
        "labels": st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=2),
        "finalizers": st.lists(st.text(max_size=10), max_size=2),
        "resourceVersion": st.text(max_size=4),
        "generateName": st.text(max_size=5),
    },
)
_bodies = st.one_of(
    st.fixed_dictionaries(
        {"apiVersion": st.just(f"{_GROUP}/v1"), "kind": st.just("Probe"), "metadata": _metadata},
        optional={"spec": st.one_of(_specs, _json), "status": _json, "extra": _json},
    ),
    _json,
)
_requests = st.tuples(
    st.sampled_from(["POST", "PUT", "PATCH-merge", "PATCH-json", "PUT-status"]), _bodies
)


class _Http:
    """A keep-alive connection to the server (sync: hypothesis drives plain functions)."""

    def __init__(self, server: LocalApiServer) -> None:
        self.server = server
        self.connection = http.client.HTTPSConnection(
            "127.0.0.1", server.port, context=server.ssl_context(), timeout=30
        )

    def send(self, method: str, path: str, body: bytes, content_type: str) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {self.server.token}", "Content-Type": content_type}
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else None


@pytest.fixture(scope="module")
def fuzz_target(kube_apiserver: LocalApiServer) -> Iterator[tuple[_Http, str]]:
    client = _Http(kube_apiserver)
    namespace = f"fuzz-{uuid.uuid4().hex[:8]}"
    client.send(
        "POST",
        "/api/v1/namespaces",
        json.dumps({"metadata": {"name": namespace}}).encode(),
        "application/json",
    )
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"probes.{_GROUP}"},
        "spec": {
            "group": _GROUP,
            "names": {"plural": "probes", "kind": "Probe"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": _SCHEMA},
                    "subresources": {"status": {}},
                }
            ],
        },
    }
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    status, body = client.send("POST", path, json.dumps(crd).encode(), "application/json")
    assert status == 201, body
    yield client, f"/apis/{_GROUP}/v1/namespaces/{namespace}/probes"
    client.connection.close()


def _check(status: int, body: Any) -> None:
    assert status < 500, body
    if status >= 300:
        assert isinstance(body, dict) and body.get("kind") == "Status", body
        assert body["code"] == status and body["status"] == "Failure", body


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(request=_requests)
def test_random_custom_resource_bodies_never_get_a_server_error(
    fuzz_target: tuple[_Http, str], request: tuple[str, Any]
) -> None:
    client, path = fuzz_target
    method, body = request
    # A few fixed names, so updates and patches meet objects that exist.
    name = "p" + str(zlib.crc32(json.dumps(body, sort_keys=True, default=str).encode()) % 3)
    payload = json.dumps(body, default=str).encode()
    if method == "POST":
        _check(*client.send("POST", path, payload, "application/json"))
    elif method == "PUT":
        _check(*client.send("PUT", f"{path}/{name}", payload, "application/json"))
    elif method == "PUT-status":
        _check(*client.send("PUT", f"{path}/{name}/status", payload, "application/json"))
    elif method == "PATCH-merge":
        _check(*client.send("PATCH", f"{path}/{name}", payload, "application/merge-patch+json"))
    else:
        ops = [
            {"op": "add", "path": "/spec", "value": body},
            {"op": "replace", "path": "/x", "value": 1},
        ]
        _check(
            *client.send(
                "PATCH",
                f"{path}/{name}",
                json.dumps(ops, default=str).encode(),
                "application/json-patch+json",
            )
        )
    status, _ = client.send("GET", path, b"", "application/json")
    assert status == 200  # still serving


def test_garbled_bytes_are_400_not_500(fuzz_target: tuple[_Http, str]) -> None:
    client, path = fuzz_target
    for raw in (b"{", b"\xff\xfe", b"[1, 2", b'{"apiVersion": 1}', b"null"):
        status, body = client.send("POST", path, raw, "application/json")
        _check(status, body)
        assert 400 <= status < 500


_queries = st.dictionaries(
    st.sampled_from(
        [
            "labelSelector",
            "fieldSelector",
            "resourceVersion",
            "resourceVersionMatch",
            "limit",
            "continue",
            "sendInitialEvents",
            "allowWatchBookmarks",
            "includeObject",
        ]
    ),
    st.one_of(
        st.text(max_size=20),
        st.sampled_from(["0", "1", "Exact", "NotOlderThan", "true", "a in (b", "!x,y=z", "-1"]),
    ),
    max_size=4,
)


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(query=_queries)
def test_random_list_queries_never_get_a_server_error(
    fuzz_target: tuple[_Http, str], query: dict[str, str]
) -> None:
    client, path = fuzz_target
    target = f"{path}?{urllib.parse.urlencode(query)}"
    rv = query.get("resourceVersion", "")
    if rv.isdigit() and int(rv) > 1:
        query["resourceVersion"] = "1"  # an RV ahead of the store waits 3 s, by design
        target = f"{path}?{urllib.parse.urlencode(query)}"
    _check(*client.send("GET", target, b"", "application/json"))
