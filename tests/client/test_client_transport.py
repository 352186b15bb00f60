"""TLS contexts, bearer credentials and the mapping of failed answers to exceptions."""

from __future__ import annotations

import os
import ssl
import tempfile
from pathlib import Path

import orjson
import pytest
from kf_tls import TlsMaterial

from kubeforge.client import BearerAuth, Client
from kubeforge.client._transport import api_error, ssl_context
from kubeforge.config import ClientConfig
from kubeforge.core.errors import (
    AlreadyExists,
    ApiError,
    ConfigError,
    Conflict,
    Gone,
    NotFound,
    ServiceUnavailable,
    Unauthorized,
)
from kubeforge.core.status import failure

# --- errors ----------------------------------------------------------------------------------


def test_a_status_body_becomes_the_error_its_reason_names() -> None:
    status = failure(409, "AlreadyExists", 'configmaps "a" already exists')
    error = api_error(409, orjson.dumps(status))
    assert isinstance(error, AlreadyExists)
    assert error.status == status


def test_a_conflict_status_is_a_conflict_but_not_already_exists() -> None:
    error = api_error(409, orjson.dumps(failure(409, "Conflict", "the object has been modified")))
    assert isinstance(error, Conflict) and not isinstance(error, AlreadyExists)


def test_a_body_that_is_not_a_status_gets_a_synthesized_one() -> None:
    error = api_error(404, b"404 page not found\n")
    assert isinstance(error, NotFound)
    assert (error.code, error.reason, error.message) == (404, "NotFound", "404 page not found")
    assert error.status["kind"] == "Status"


def test_an_empty_error_body_is_described_by_the_http_phrase() -> None:
    error = api_error(503, b"")
    assert isinstance(error, ServiceUnavailable)
    assert error.message == "Service Unavailable"


def test_an_unusual_code_still_becomes_an_api_error() -> None:
    error = api_error(418, b"teapot")
    assert type(error) is ApiError and error.code == 418


def test_a_status_without_code_takes_the_http_code() -> None:
    error = api_error(410, orjson.dumps({"kind": "Status", "message": "expired"}))
    assert isinstance(error, Gone) and error.code == 410


def test_a_401_is_unauthorized() -> None:
    assert isinstance(
        api_error(401, orjson.dumps(failure(401, "Unauthorized", "no"))), Unauthorized
    )


# --- bearer tokens ----------------------------------------------------------------------------


async def test_a_static_token_becomes_a_bearer_header() -> None:
    assert await BearerAuth("abc").authorization() == "Bearer abc"


async def test_no_token_means_no_header() -> None:
    assert await BearerAuth().authorization() is None


async def test_a_token_file_is_re_read_when_it_changes(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("first\n")
    auth = BearerAuth(token_file=token_file)
    assert await auth.authorization() == "Bearer first"
    token_file.write_text("second-and-longer\n")
    assert await auth.authorization() == "Bearer second-and-longer"


async def test_a_token_file_wins_over_a_static_token(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("from-file")
    assert await BearerAuth("static", token_file).authorization() == "Bearer from-file"


async def test_a_vanished_token_file_keeps_the_last_token(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("kept")
    auth = BearerAuth(token_file=token_file)
    await auth.authorization()
    token_file.unlink()
    assert await auth.authorization() == "Bearer kept"


# --- TLS ---------------------------------------------------------------------------------------


def test_a_plain_http_server_needs_no_tls() -> None:
    assert ssl_context(ClientConfig(server="http://127.0.0.1:8080")) is None


def test_inline_ca_data_is_trusted(tls_material: TlsMaterial) -> None:
    context = ssl_context(ClientConfig(server="https://x", ca_data=tls_material.ca_pem))
    assert context is not None
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.cert_store_stats()["x509_ca"] >= 1


def test_a_ca_file_is_trusted(tls_material: TlsMaterial, tmp_path: Path) -> None:
    ca_file = tmp_path / "ca.pem"
    ca_file.write_bytes(tls_material.ca_pem)
    context = ssl_context(ClientConfig(server="https://x", ca_file=ca_file))
    assert context is not None and context.cert_store_stats()["x509_ca"] >= 1


def test_a_clusters_own_ca_is_the_only_root_trusted(tls_material: TlsMaterial) -> None:
    # client-go's rootCertPool: the CA data, when given, is the whole pool.
    context = ssl_context(ClientConfig(server="https://x", ca_data=tls_material.ca_pem))
    assert context is not None and context.cert_store_stats()["x509_ca"] == 1


def test_without_a_ca_the_systems_roots_are_trusted() -> None:
    context = ssl_context(ClientConfig(server="https://x"))
    system = ssl.create_default_context().cert_store_stats()["x509_ca"]
    assert context is not None and context.cert_store_stats()["x509_ca"] == system


def test_insecure_skip_verify_turns_off_certificate_checks() -> None:
    context = ssl_context(ClientConfig(server="https://x", verify_tls=False))
    assert context is not None
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_NONE, False)


def test_inline_client_cert_data_loads_and_leaves_no_file_behind(
    tls_material: TlsMaterial, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    config = ClientConfig(
        server="https://x",
        ca_data=tls_material.ca_pem,
        client_cert_data=tls_material.client_cert_pem,
        client_key_data=tls_material.client_key_pem,
    )
    assert ssl_context(config) is not None
    assert os.listdir(scratch) == []


def test_client_cert_files_load(tls_material: TlsMaterial, tmp_path: Path) -> None:
    (tmp_path / "c.crt").write_bytes(tls_material.client_cert_pem)
    (tmp_path / "c.key").write_bytes(tls_material.client_key_pem)
    config = ClientConfig(
        server="https://x", client_cert_file=tmp_path / "c.crt", client_key_file=tmp_path / "c.key"
    )
    assert ssl_context(config) is not None


def test_a_garbage_ca_is_a_config_error_naming_the_source() -> None:
    config = ClientConfig(server="https://x", ca_data=b"not a pem", source="/tmp/k.yaml")
    with pytest.raises(ConfigError, match=r"^/tmp/k\.yaml: cannot load the certificate authority"):
        Client(config)


def test_a_mismatched_client_key_is_a_config_error(tls_material: TlsMaterial) -> None:
    config = ClientConfig(
        server="https://x",
        client_cert_data=tls_material.client_cert_pem,
        client_key_data=tls_material.ca_pem,  # not a key at all
        source="k.yaml",
    )
    with pytest.raises(ConfigError, match="cannot load the client certificate"):
        Client(config)


async def test_a_closed_client_refuses_further_requests() -> None:
    client = Client(ClientConfig(server="http://127.0.0.1:1"))
    await client.close()
    with pytest.raises(RuntimeError, match="closed"):
        await client.request("GET", "/version")
