"""``format`` in CRD schemas: the formats kube-apiserver checks, how, and the 422 it answers."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from kf_http import Api

from kubeforge.apiserver.apiextensions import formats
from kubeforge.apiserver.apiextensions.schema import validate

VALID: dict[str, list[str]] = {
    "date-time": [
        "2024-05-01T12:00:00Z",
        "2024-05-01t12:00:00.123+02:00",
        "2024-02-29T23:59:59-07:30",
    ],
    "date": ["2024-05-01", "2024-02-29", "0000-01-01"],
    "duration": ["1h30m", "-1.5s", "0", "300ms", "2µs", "3 days", "1 hour 5 min", "1d"],
    "uuid": ["0b3f6f1e-5c44-4c2a-9d3e-6f1f2a3b4c5d", "0B3F6F1E5C444C2A9D3E6F1F2A3B4C5D"],
    "uuid4": ["0b3f6f1e-5c44-4c2a-9d3e-6f1f2a3b4c5d"],
    "email": ["a@example.com", "Jane Doe <jane.doe@example.com>", "x+tag@sub.example.org"],
    "hostname": ["example.com", "localhost", "sub.my-domain.example"],
    "ipv4": ["10.0.0.1", "255.255.255.255", "::ffff:1.2.3.4"],
    "ipv6": ["::1", "2001:db8::8a2e:370:7334", "::ffff:1.2.3.4"],
    "cidr": ["10.0.0.0/8", "10.1.2.3/32", "2001:db8::/32"],
    "mac": ["00:1a:2b:3c:4d:5e", "00-1A-2B-3C-4D-5E", "001a.2b3c.4d5e"],
    "uri": ["https://example.com/a?b=c", "/just/a/path", "mailto:someone@example.com"],
    "byte": ["aGVsbG8=", "aGVsbG8h", "aGk="],
    "hexcolor": ["#fff", "a0B1c2"],
    "rgbcolor": ["rgb(255, 0, 10)"],
    "isbn10": ["0321751043", "0-321-75104-3"],
    "isbn13": ["978-0321751041"],
    "isbn": ["0321751043", "9780321751041"],
    "creditcard": ["4111 1111 1111 1111"],
    "ssn": ["123-45-6789"],
    "bsonobjectid": ["507f1f77bcf86cd799439011"],
    "password": ["anything at all"],
}

INVALID: dict[str, list[str]] = {
    "date-time": [
        "x",
        "2024-05-01",
        "2024-02-30T10:00:00Z",
        "2024-05-01T24:00:00Z",
        "2024-05-01T12:00:00",
        "2024-05-01 12:00:00Z",
    ],
    "date": ["2024-13-01", "2023-02-29", "24-05-01", "2024-5-1", "2024-05-01T00:00:00Z"],
    "duration": ["", "1x", "h", "1", "1.5"],
    "uuid": ["0b3f6f1e-5c44-4c2a-9d3e", "zb3f6f1e-5c44-4c2a-9d3e-6f1f2a3b4c5d"],
    "uuid4": ["0b3f6f1e-5c44-3c2a-9d3e-6f1f2a3b4c5d"],
    "email": ["not-an-email", "a@", "@example.com", "a b@example.com"],
    "hostname": ["-example.com", "example..com", "a_b.example.com", "a.b"],
    "ipv4": ["10.0.0.256", "10.0.0", "010.0.0.1", "::1"],
    "ipv6": ["10.0.0.1", "2001:db8::g", "fe80::1%eth0"],
    "cidr": ["10.0.0.0", "10.0.0.0/33", "10.0.0.0/255.0.0.0", "::/129"],
    "mac": ["00:1a:2b:3c:4d", "00:1a:2b:3c:4d:5g", "001a2b3c4d5e"],
    "uri": ["relative/path", "://missing", "http://exa mple.com/", "/bad%zzescape"],
    "byte": ["not base64!", "aGVsbG8", ""],
    "hexcolor": ["#ffff", "red"],
    "rgbcolor": ["rgb(256, 0, 0)", "rgba(1, 2, 3, 4)"],
    "isbn10": ["0321751044"],
    "isbn13": ["9780321751042"],
    "creditcard": ["4111 1111 1111 1112"],
    "ssn": ["123456789", "12-345-6789"],
    "bsonobjectid": ["507f1f77bcf86cd79943901", "507f1f77bcf86cd79943901z"],
}


@pytest.mark.parametrize(("fmt", "value"), [(f, v) for f, values in VALID.items() for v in values])
def test_values_of_a_checked_format_pass(fmt: str, value: str) -> None:
    assert formats.check(value, {"type": "string", "format": fmt}) is None


@pytest.mark.parametrize(
    ("fmt", "value"), [(f, v) for f, values in INVALID.items() for v in values]
)
def test_values_of_a_checked_format_fail_naming_the_format_as_written(fmt: str, value: str) -> None:
    assert formats.check(value, {"type": "string", "format": fmt}) == fmt


def test_format_names_are_compared_without_dashes() -> None:
    assert formats.check("x", {"type": "string", "format": "datetime"}) == "datetime"
    assert formats.check("x", {"type": "string", "format": "u-u-i-d"}) == "u-u-i-d"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "format": "k8s-short-name"},  # a v1.34 format: ignored by v1.32
        {"type": "string", "format": "quantity"},
        {"type": "string", "format": "int32"},
        {"type": "string", "format": "my-own-format"},
        {"type": "integer", "format": "date-time"},
        {"type": "array", "format": "uuid"},
    ],
)
def test_formats_the_server_does_not_check_are_ignored(schema: dict[str, Any]) -> None:
    assert formats.check("!!not valid anywhere!!", schema) is None


def test_a_schema_without_a_type_still_checks_its_format() -> None:
    assert formats.check("nope", {"format": "ipv4"}) == "ipv4"


def test_only_strings_are_checked_against_a_string_format() -> None:
    assert formats.check(12, {"format": "date"}) is None


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "date-time"},
                "address": {"type": "string", "format": "ipv4"},
                "owner": {"type": "string", "format": "email"},
                "tag": {"type": "string", "format": "whatever-we-like"},
                "count": {"type": "integer", "format": "int32"},
                "ratio": {"type": "number", "format": "double"},
                "ids": {"type": "array", "items": {"type": "string", "format": "uuid"}},
            },
        }
    },
}


def test_a_format_failure_is_worded_like_kube_openapi() -> None:
    errors = validate(
        {"spec": {"when": "x", "ids": ["ok", "0b3f6f1e5c444c2a9d3e6f1f2a3b4c5d"]}}, SCHEMA
    )
    assert [str(e) for e in errors] == [
        'spec.when: Invalid value: "x": spec.when in body must be of type date-time: "x"',
        'spec.ids[0]: Invalid value: "ok": spec.ids[0] in body must be of type uuid: "ok"',
    ]
    assert errors[0].cause()["reason"] == "FieldValueTypeInvalid"


def test_numbers_are_never_range_checked_against_int32() -> None:
    assert validate({"spec": {"count": 2**40, "ratio": 1}}, SCHEMA) == []


def test_a_wrong_number_type_with_a_numeric_format_names_the_format() -> None:
    errors = validate({"spec": {"count": 1.5, "ratio": True}}, SCHEMA)
    assert [str(e) for e in errors] == [
        'spec.count: Invalid value: "float64": spec.count in body must be of type int32: "float64"',
        'spec.ratio: Invalid value: "": spec.ratio in body must be of type double: ""',
    ]
    strings = validate({"spec": {"count": "7"}}, SCHEMA)
    assert [str(e) for e in strings] == [
        'spec.count: Invalid value: "string": spec.count in body must be of type integer: "string"'
    ]


CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


async def test_the_server_answers_422_for_values_that_fail_their_format(
    api: Api, namespace: str
) -> None:
    plural = "f" + uuid.uuid4().hex[:8] + "s"
    kind = "Formatted" + plural[1:-1]
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.formats.example.com"},
        "spec": {
            "group": "formats.example.com",
            "names": {"plural": plural, "kind": kind},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": SCHEMA},
                }
            ],
        },
    }
    assert (await api.post(CRD_PATH, crd)).status == 201
    path = f"/apis/formats.example.com/v1/namespaces/{namespace}/{plural}"

    def body(name: str, **spec: Any) -> dict[str, Any]:
        return {
            "apiVersion": "formats.example.com/v1",
            "kind": kind,
            "metadata": {"name": name},
            "spec": spec,
        }

    rejected = await api.post(path, body("bad", when="x", address="10.0.0.300", owner="me"))
    assert rejected.status == 422
    assert rejected.body["reason"] == "Invalid"
    causes = [(c["reason"], c["field"], c["message"]) for c in rejected.body["details"]["causes"]]
    assert causes == [
        (
            "FieldValueTypeInvalid",
            "spec.when",
            'Invalid value: "x": spec.when in body must be of type date-time: "x"',
        ),
        (
            "FieldValueTypeInvalid",
            "spec.address",
            'Invalid value: "10.0.0.300": spec.address in body must be of type ipv4: "10.0.0.300"',
        ),
        (
            "FieldValueTypeInvalid",
            "spec.owner",
            'Invalid value: "me": spec.owner in body must be of type email: "me"',
        ),
    ]
    assert rejected.body["message"].startswith(
        f'{kind}.formats.example.com "bad" is invalid: [spec.when: Invalid value: "x": '
    )
    accepted = await api.post(
        path,
        body(
            "good",
            when="2024-05-01T12:00:00Z",
            address="10.0.0.3",
            owner="Jane <jane@example.com>",
            tag="not checked: the format is unknown",
            count=2**40,
        ),
    )
    assert accepted.status == 201, accepted.body


async def test_a_crd_whose_default_fails_its_format_is_refused(api: Api) -> None:
    plural = "f" + uuid.uuid4().hex[:8] + "s"
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {"when": {"type": "string", "format": "date", "default": "soon"}},
            }
        },
    }
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.formats.example.com"},
        "spec": {
            "group": "formats.example.com",
            "names": {"plural": plural, "kind": "Dated" + plural[1:-1]},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }
    reply = await api.post(CRD_PATH, crd)
    assert reply.status == 422
    (cause,) = reply.body["details"]["causes"]
    assert cause["field"].endswith("properties[when].default")
    assert "must be of type date" in cause["message"]
