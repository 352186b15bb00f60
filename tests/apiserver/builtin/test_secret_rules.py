"""Secrets and ConfigMaps are validated as 1.32's ValidateSecret/ValidateConfigMap (and their
updates) do, over HTTP: each type's required keys, the JSON of docker configs worded as Go's
encoding/json words it, the 1 MiB total, immutability, and the TLS key-pair warning."""

from __future__ import annotations

import base64
import datetime
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from kf_http import Api
from kf_podspec import causes

MERGE = "application/merge-patch+json"


def b64(raw: bytes | str) -> str:
    return base64.b64encode(raw.encode() if isinstance(raw, str) else raw).decode()


def secret(name: str, secret_type: str = "Opaque", **data: bytes | str) -> dict[str, Any]:
    body: dict[str, Any] = {"metadata": {"name": name}, "type": secret_type}
    body["data"] = {key.replace("_", "."): b64(value) for key, value in data.items()}
    return body


async def post(api: Api, namespace: str, body: dict[str, Any], plural: str = "secrets") -> Any:
    return await api.post(f"/api/v1/namespaces/{namespace}/{plural}", body)


async def test_each_secret_type_requires_its_keys(api: Api, namespace: str) -> None:
    cases = [
        (
            "kubernetes.io/service-account-token",
            "metadata.annotations[kubernetes.io/service-account.name]",
        ),
        ("kubernetes.io/dockercfg", "data[.dockercfg]"),
        ("kubernetes.io/dockerconfigjson", "data[.dockerconfigjson]"),
        ("kubernetes.io/ssh-auth", "data[ssh-privatekey]"),
    ]
    for i, (secret_type, field) in enumerate(cases):
        reply = await post(api, namespace, secret(f"s{i}", secret_type))
        assert causes(reply) == [(field, "Required value")], secret_type
    basic = await post(api, namespace, secret("basic", "kubernetes.io/basic-auth"))
    assert causes(basic) == [
        ("data[username]", "Required value"),
        ("data[password]", "Required value"),
    ]
    tls = await post(api, namespace, secret("tls", "kubernetes.io/tls", tls_crt="x"))
    assert tls.body["message"] == 'Secret "tls" is invalid: data[tls.key]: Required value'
    # An empty password is enough for basic-auth; any other type is not checked.
    ok = await post(api, namespace, secret("basic-ok", "kubernetes.io/basic-auth", password=""))
    assert ok.status == 201, ok.body
    custom = await post(api, namespace, secret("custom", "example.com/thing"))
    assert custom.status == 201 and custom.body["type"] == "example.com/thing"


async def test_docker_configs_must_be_json_objects_worded_as_go_does(
    api: Api, namespace: str
) -> None:
    cases = [
        ("{'auths': {}}", "invalid character '\\'' looking for beginning of object key string"),
        ('{"auths": }', "invalid character '}' looking for beginning of value"),
        ('{"auths": {}', "unexpected end of JSON input"),
        ("[]", "json: cannot unmarshal array into Go value of type map[string]interface {}"),
    ]
    for i, (text, problem) in enumerate(cases):
        body = {
            "metadata": {"name": f"d{i}"},
            "type": "kubernetes.io/dockerconfigjson",
            "data": {".dockerconfigjson": b64(text)},
        }
        reply = await post(api, namespace, body)
        message = f'Invalid value: "<secret contents redacted>": {problem}'
        assert causes(reply) == [("data[.dockerconfigjson]", message)]
    good = secret("cfg", "kubernetes.io/dockercfg", **{"_dockercfg": '{"r.io": {}}'})
    assert (await post(api, namespace, good)).status == 201


async def test_a_secret_over_one_mebibyte_is_too_long(api: Api, namespace: str) -> None:
    half = b"x" * (512 * 1024)
    reply = await post(api, namespace, secret("big", a=half, b=half + b"!"))
    assert reply.body["message"] == (
        'Secret "big" is invalid: data: Too long: may not be more than 1048576 bytes'
    )
    assert (await post(api, namespace, secret("fits", a=half, b=half))).status == 201
    config = {"metadata": {"name": "big"}, "data": {"a": "x" * (1024 * 1024 + 1)}}
    refused = await post(api, namespace, config, "configmaps")
    assert causes(refused) == [("", "Too long: may not be more than 1048576 bytes")]


async def test_secret_type_and_immutable_data_never_change(api: Api, namespace: str) -> None:
    path = f"/api/v1/namespaces/{namespace}/secrets/frozen"
    body = {**secret("frozen", a="1"), "immutable": True}
    assert (await post(api, namespace, body)).status == 201
    change = {"type": "kubernetes.io/tls", "immutable": False, "data": {"a": b64("2")}}
    reply = await api.patch(path, change, MERGE)
    assert causes(reply) == [
        ("type", 'Invalid value: "kubernetes.io/tls": field is immutable'),
        ("immutable", "Forbidden: field is immutable when `immutable` is set"),
        ("data", "Forbidden: field is immutable when `immutable` is set"),
        ("data[tls.crt]", "Required value"),
        ("data[tls.key]", "Required value"),
    ]
    labelled = await api.patch(path, {"metadata": {"labels": {"a": "b"}}}, MERGE)
    assert labelled.status == 200, labelled.body


async def test_a_config_map_key_may_not_be_in_both_maps(api: Api, namespace: str) -> None:
    body = {"metadata": {"name": "dup"}, "data": {"k": "v"}, "binaryData": {"k": b64("v")}}
    reply = await post(api, namespace, body, "configmaps")
    assert causes(reply) == [
        ("data[k]", 'Invalid value: "k": duplicate of key present in binaryData')
    ]


def _tls_pair() -> tuple[bytes, bytes, bytes]:
    """A self-signed certificate, its key, and a key of another pair."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "example.com")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )

    def pem(private: ec.EllipticCurvePrivateKey) -> bytes:
        return private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    other = ec.generate_private_key(ec.SECP256R1())
    return cert.public_bytes(serialization.Encoding.PEM), pem(key), pem(other)


async def test_a_tls_secret_warns_when_its_key_and_certificate_are_no_pair(
    api: Api, namespace: str
) -> None:
    cert, key, other = _tls_pair()
    good = await post(
        api, namespace, secret("good", "kubernetes.io/tls", tls_crt=cert, tls_key=key)
    )
    assert good.status == 201 and "Warning" not in good.headers
    wrong = secret("wrong", "kubernetes.io/tls", tls_crt=cert, tls_key=other)
    reply = await post(api, namespace, wrong)
    assert reply.status == 201
    assert reply.headers["Warning"] == '299 - "tls: private key does not match public key"'
    swapped = secret("swapped", "kubernetes.io/tls", tls_crt=key, tls_key=cert)
    reply = await post(api, namespace, swapped)
    assert reply.headers["Warning"] == (
        '299 - "tls: failed to find certificate PEM data in certificate input, but did find '
        'a private key; PEM inputs may have been switched"'
    )


async def test_over_large_annotations_are_too_long_in_1_32s_words(api: Api, namespace: str) -> None:
    notes = {"example.com/blob": "x" * (256 * 1024)}
    body = {"metadata": {"name": "noted", "annotations": notes}, "data": {}}
    reply = await post(api, namespace, body, "configmaps")
    assert causes(reply) == [
        ("metadata.annotations", "Too long: may not be more than 262144 bytes")
    ]
