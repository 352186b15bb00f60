"""generate_models: typed models for third-party CRDs (cert-manager, Prometheus operator)."""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import pytest
from msgspec import Meta

from kubeforge.client._codec import typed_codec
from kubeforge.core.meta import convert
from kubeforge.core.resource import Resource, ResourceInfo
from kubeforge.crd import (
    CEL,
    Default,
    Format,
    ListType,
    PreserveUnknownFields,
    PrinterColumn,
    generate_models,
)
from kubeforge.crd._docs import class_description, field_descriptions

from .conftest import CERTIFICATES, SERVICE_MONITORS, Load, fixture_crd

BOTH = CERTIFICATES.read_text() + "\n---\n" + SERVICE_MONITORS.read_text()

CERTIFICATE = {
    "apiVersion": "cert-manager.io/v1",
    "kind": "Certificate",
    "metadata": {"name": "web", "namespace": "default", "resourceVersion": "7"},
    "spec": {
        "secretName": "web-tls",
        "commonName": "web.example.com",
        "dnsNames": ["web.example.com", "www.example.com"],
        "duration": "2160h",
        "isCA": True,
        "issuerRef": {"name": "letsencrypt", "kind": "ClusterIssuer"},
        "privateKey": {"algorithm": "ECDSA", "size": 256, "encoding": "PKCS8"},
        "usages": ["server auth", "digital signature"],
        "secretTemplate": {"labels": {"team": "web"}},
        "selfSigned": {},
        "keystores": {"pkcs12": {"create": True, "passwordSecretRef": {"name": "pw"}}},
    },
    "status": {
        "conditions": [
            {
                "type": "Ready",
                "status": "True",
                "lastTransitionTime": "2024-05-01T10:00:00Z",
                "observedGeneration": 3,
            }
        ],
        "notAfter": "2024-08-01T10:00:00Z",
        "revision": 2,
    },
}


def test_every_version_of_every_crd_becomes_a_module_holding_its_resource(
    generated: Load,
) -> None:
    modules = generated(BOTH)
    assert sorted(modules) == ["certificate_v1", "certificate_v1alpha2", "servicemonitor_v1"]
    certificate = modules["certificate_v1"].Certificate
    assert issubclass(certificate, Resource)
    assert certificate.info == ResourceInfo(
        group="cert-manager.io",
        version="v1",
        kind="Certificate",
        plural="certificates",
        short_names=("cert", "certs"),
        singular="certificate",
    )
    assert (
        modules["servicemonitor_v1"].ServiceMonitor.info.api_version == "monitoring.coreos.com/v1"
    )


def test_a_realistic_certificate_decodes_typed_and_encodes_back_unchanged(generated: Load) -> None:
    module = generated(CERTIFICATES.read_text())["certificate_v1"]
    cert = msgspec.json.decode(json.dumps(CERTIFICATE), type=module.Certificate)
    assert cert.spec.issuer_ref.name == "letsencrypt"
    assert cert.spec.private_key.algorithm == "ECDSA"
    assert cert.spec.keystores.pkcs12.password_secret_ref.name == "pw"
    assert cert.status.conditions[0].observed_generation == 3
    assert isinstance(cert.spec.self_signed, module.CertificateSpecSelfSigned)
    assert json.loads(msgspec.json.encode(cert)) == CERTIFICATE


def test_field_types_carry_the_schema(generated: Load) -> None:
    module = generated(BOTH)["certificate_v1"]
    hints = typing.get_type_hints(module.CertificateSpecPrivateKey, include_extras=True)
    assert hints["algorithm"] == Literal["RSA", "ECDSA", "Ed25519"] | None
    assert hints["size"] == Annotated[int, Format("int32"), Meta(ge=0)] | None
    assert hints["encoding"] == Annotated[Literal["PKCS1", "PKCS8"], Default("PKCS1")] | None
    # The schema default is the server's: unset, nothing is sent and the server fills it in.
    assert module.CertificateSpecPrivateKey().encoding is None
    spec = typing.get_type_hints(module.CertificateSpec, include_extras=True)
    assert spec["secret_name"] is str  # required: an argument without a default
    assert spec["is_ca"] == Annotated[bool, Default(False)] | None
    assert spec["usages"] == (
        Annotated[
            list[Literal["signing", "digital signature", "server auth", "client auth"]],
            ListType("set"),
        ]
        | None
    )
    assert spec["revision_history_limit"] == (
        Annotated[int, Format("int32"), Meta(ge=1, extra_json_schema={"nullable": True})] | None
    )
    status = typing.get_type_hints(module.CertificateStatus, include_extras=True)
    assert status["conditions"] == (
        Annotated[list[module.CertificateStatusConditionsItem], ListType("map", keys=("type",))]
        | None
    )


def test_free_form_int_or_string_and_rules_in_the_service_monitor(generated: Load) -> None:
    module = generated(SERVICE_MONITORS.read_text())["servicemonitor_v1"]
    spec = typing.get_type_hints(module.ServiceMonitorSpec, include_extras=True)
    assert spec["attach_metadata"] == dict[str, Any] | None
    endpoint = typing.get_type_hints(module.ServiceMonitorSpecEndpointsItem, include_extras=True)
    assert endpoint["target_port"] == int | str | None
    assert endpoint["params"] == dict[str, list[str]] | None
    assert endpoint["tls_config"] == (
        Annotated[module.ServiceMonitorSpecEndpointsItemTlsConfig, PreserveUnknownFields()] | None
    )
    relabeling = typing.get_args(typing.get_args(endpoint["relabelings"])[0])[0]
    assert typing.get_args(relabeling)[1] == CEL(
        "self.action != 'replace' || has(self.targetLabel)", message="replace needs a targetLabel"
    )
    decoded = msgspec.convert(
        {"selector": {}, "endpoints": [{"targetPort": 8080}, {"targetPort": "web"}]},
        module.ServiceMonitorSpec,
    )
    assert [e.target_port for e in decoded.endpoints] == [8080, "web"]


def test_models_check_enums_and_bounds_when_decoding(generated: Load) -> None:
    module = generated(CERTIFICATES.read_text())["certificate_v1"]
    with pytest.raises(msgspec.ValidationError, match="algorithm"):
        msgspec.convert({"algorithm": "DSA"}, module.CertificateSpecPrivateKey)
    with pytest.raises(msgspec.ValidationError, match="commonName"):
        msgspec.convert({"commonName": "x" * 65}, module.CertificateSpec)


def test_required_fields_still_decode_when_absent_so_watch_bookmarks_work(generated: Load) -> None:
    module = generated(CERTIFICATES.read_text())["certificate_v1"]
    bookmark = {"kind": "Certificate", "apiVersion": "cert-manager.io/v1", "metadata": {}}
    # Go's zero values would fill the required fields, but a required issuerRef.name of
    # at least one character cannot be "": the model refuses the bare object ...
    with pytest.raises(msgspec.ValidationError, match=r"issuerRef\.name"):
        convert(bookmark, module.Certificate)
    # ... and the watch decoder answers such a bookmark with the model's zero value
    # and the bookmark's metadata, all a bookmark means.
    line = json.dumps(
        {"type": "BOOKMARK", "object": {**bookmark, "metadata": {"resourceVersion": "9"}}}
    )
    event = typed_codec(module.Certificate).decode_event(line.encode())
    assert event.type == "BOOKMARK" and event.object.metadata.resource_version == "9"
    assert event.object.spec.secret_name == "" and event.object.spec.issuer_ref.name == ""


def test_descriptions_become_docstrings_whole(generated: Load) -> None:
    module = generated(CERTIFICATES.read_text())["certificate_v1"]
    assert class_description(module.Certificate) == (
        "A Certificate asks an issuer for a signed X.509 certificate and keeps it, with its "
        "private key, in a Secret.\n\nThe certificate is renewed before it expires."
    )
    docs = field_descriptions(module.CertificateSpec)
    assert docs["secret_name"] == "The Secret that receives the key pair."
    assert "issuer_ref" not in docs  # its class docstring holds the description
    assert module.CertificateSpecIssuerRef.__doc__ == "The issuer that signs the certificate."


def test_the_crd_options_come_along(generated: Load) -> None:
    modules = generated(CERTIFICATES.read_text())
    options = modules["certificate_v1"].Certificate.crd
    assert options.categories == ("cert-manager",)
    assert options.storage is True
    assert options.printer_columns[2] == PrinterColumn(
        "Issuer", ".spec.issuerRef.name", "string", priority=1
    )
    old = modules["certificate_v1alpha2"].Certificate.crd
    assert (old.deprecated, old.storage) == (True, False)
    assert old.deprecation_warning.startswith("cert-manager.io/v1alpha2 Certificate")


def test_generation_is_deterministic(tmp_path: Path) -> None:
    first = generate_models(BOTH, package="models", directory=tmp_path)
    second = generate_models(
        [fixture_crd(SERVICE_MONITORS), fixture_crd(CERTIFICATES)],
        package="models",
        directory=tmp_path,
    )
    assert first == second


def test_a_kubectl_list_of_crds_is_read_and_other_documents_are_skipped(tmp_path: Path) -> None:
    listed = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [fixture_crd(SERVICE_MONITORS)],
    }
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    assert list(generate_models([other, listed], package="m", directory=tmp_path)) == [
        "servicemonitor_v1"
    ]


def test_nothing_to_generate_or_clashing_modules_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no CustomResourceDefinition"):
        generate_models("kind: ConfigMap\n", package="m", directory=tmp_path)
    twin = fixture_crd(SERVICE_MONITORS)
    twin["metadata"]["name"] = "servicemonitors.example.com"
    twin["spec"]["group"] = "example.com"
    with pytest.raises(ValueError, match="both write the module 'servicemonitor_v1'"):
        generate_models([fixture_crd(SERVICE_MONITORS), twin], package="m", directory=tmp_path)
    with pytest.raises(ValueError, match="not valid YAML"):
        generate_models("a: [", package="m", directory=tmp_path)


def test_generated_models_pass_mypy_strict(tmp_path: Path) -> None:
    package = tmp_path / "thirdparty"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, source in generate_models(BOTH, package="thirdparty", directory=package).items():
        (package / f"{name}.py").write_text(source)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            str(package),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
