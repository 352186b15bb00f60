"""CertificateSigningRequests follow 1.32's certificates validation and strategies over
HTTP: the request must be a signed PKCS#10 request, usages and signer names as Go checks
them, conditions only through /approval, a certificate only through /status, once."""

from __future__ import annotations

import base64
import uuid
from typing import Any

from kf_csr import certificate, request, tampered_request
from kf_http import Api
from kf_podspec import causes

PATH = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
LABEL_1123 = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


def csr(name: str, **spec: Any) -> dict[str, Any]:
    fields = {
        "request": request(),
        "signerName": "example.com/signer",
        "usages": ["digital signature", "client auth"],
        **spec,
    }
    return {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {k: v for k, v in fields.items() if v is not None},
    }


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


async def test_the_request_must_be_a_signed_pkcs10_request(api: Api) -> None:
    not_pem = base64.b64encode(b"-\n").decode()
    assert causes(await api.post(PATH, csr(unique("pem"), request=not_pem))) == [
        (
            "spec.request",
            "Invalid value: []byte{0x2d, 0xa}: PEM block type must be CERTIFICATE REQUEST",
        )
    ]
    missing = causes(await api.post(PATH, csr(unique("none"), request=None)))
    assert missing == [
        ("spec.request", "Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST")
    ]
    forged = causes(await api.post(PATH, csr(unique("forged"), request=tampered_request())))
    assert forged[0][0] == "spec.request"
    assert forged[0][1].endswith(": x509: ECDSA verification failure")


async def test_usages_signer_name_and_duration(api: Api) -> None:
    bad = csr(
        unique("fields"),
        usages=["client auth", "flying", "client auth"],
        signerName="Example/Bad_Path",
        expirationSeconds=599,
    )
    usages = (
        '"any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", '
        '"data encipherment", "decipher only", "digital signature", "email protection", '
        '"encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", '
        '"key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", '
        '"server auth", "signing", "timestamping"'
    )
    found = causes(await api.post(PATH, bad))
    assert found[:4] == [
        ("spec.usages[1]", f'Unsupported value: "flying": supported values: {usages}'),
        ("spec.usages[2]", 'Duplicate value: "client auth"'),
        (
            "spec.signerName",
            f'Invalid value: "Example": validating label "Example": {LABEL_1123}',
        ),
        (
            "spec.signerName",
            'Invalid value: "Example": should be a domain with at least two segments separated '
            "by dots",
        ),
    ]
    assert found[4][0] == "spec.signerName"
    assert found[4][1].startswith(
        'Invalid value: "Bad_Path": validating label "Bad_Path": a lowercase RFC 1123 subdomain'
    )
    assert found[5:] == [
        (
            "spec.expirationSeconds",
            "Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)",
        )
    ]
    legacy = csr(unique("legacy"), signerName="kubernetes.io/legacy-unknown", usages=None)
    assert causes(await api.post(PATH, legacy)) == [
        ("spec.usages", "Required value"),
        (
            "spec.signerName",
            'Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not '
            "allowed via this API version",
        ),
    ]
    slashes = csr(unique("slashes"), signerName="example.com/a/b")
    assert causes(await api.post(PATH, slashes)) == [
        (
            "spec.signerName",
            'Invalid value: "example.com/a/b": must be a fully qualified domain and path of the '
            "form 'example.com/signer-name'",
        )
    ]


async def test_conditions_come_through_approval_and_stay(api: Api) -> None:
    name = unique("approve")
    created = await api.post(PATH, csr(name, expirationSeconds=600))
    assert created.status == 201, created.body
    assert created.body["spec"]["usages"] == ["digital signature", "client auth"]
    approved = {"type": "Approved", "status": "True", "reason": "Ok"}
    body = {**created.body, "status": {"conditions": [approved]}}
    through_status = await api.put(f"{PATH}/{name}/status", body)
    assert causes(through_status) == [
        ("status.conditions", 'Forbidden: updates may not add a condition of type "Approved"')
    ]
    both = {**body, "status": {"conditions": [approved, {**approved, "type": "Denied"}]}}
    assert causes(await api.put(f"{PATH}/{name}/approval", both)) == [
        (
            "status.conditions[1].type",
            'Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
        )
    ]
    odd = {**body, "status": {"conditions": [{**approved, "status": "False"}, {"type": ""}]}}
    assert causes(await api.put(f"{PATH}/{name}/approval", odd)) == [
        ("status.conditions[0].status", 'Unsupported value: "False": supported values: "True"'),
        ("status.conditions[1].type", "Required value"),
        ("status.conditions[1].status", "Required value"),
    ]
    done = await api.put(f"{PATH}/{name}/approval", body)
    assert done.status == 200, done.body
    removed = {**done.body, "status": {"conditions": []}}
    assert causes(await api.put(f"{PATH}/{name}/approval", removed)) == [
        ("status.conditions", 'Forbidden: updates may not remove a condition of type "Approved"')
    ]


async def test_a_certificate_is_set_once_through_status(api: Api) -> None:
    name = unique("issue")
    created = await api.post(PATH, csr(name))
    assert created.status == 201, created.body
    garbage = base64.b64encode(b"-----BEGIN KEY-----\nAAAA\n-----END KEY-----\n").decode()
    bad = {**created.body, "status": {"certificate": garbage}}
    assert causes(await api.put(f"{PATH}/{name}/status", bad)) == [
        (
            "status.certificate",
            'Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, '
            'found "KEY"',
        )
    ]
    issued = await api.put(
        f"{PATH}/{name}/status", {**created.body, "status": {"certificate": certificate()}}
    )
    assert issued.status == 200, issued.body
    again = {**issued.body, "status": {"certificate": certificate()}}
    assert causes(await api.put(f"{PATH}/{name}/status", again)) == [
        ("status.certificate", "Forbidden: updates may not modify existing certificate content")
    ]


async def test_the_main_resource_keeps_spec_and_any_name_will_do(api: Api) -> None:
    name = "Node:CSR_" + uuid.uuid4().hex[:6]
    created = await api.post(PATH, csr(name))
    assert created.status == 201, created.body
    changed = {**created.body, "spec": {**created.body["spec"], "usages": ["server auth"]}}
    updated = await api.put(f"{PATH}/{name}", changed)
    assert updated.status == 200, updated.body
    assert updated.body["spec"]["usages"] == ["digital signature", "client auth"]
