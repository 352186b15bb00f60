"""Calling a CRD's conversion webhook as a 1.32 API server does.

``WebhookConverter(crd, lookup)`` reads ``spec.conversion.webhook`` (``clientConfig.url``
and ``caBundle``; a ``service`` has no cluster network behind it here and fails at once
with the endpoint resolver's reason, found with ``lookup``) and
``conversionReviewVersions`` (``v1`` is sent; a CRD that only accepts ``v1beta1`` gets
``v1beta1``). ``await convert_async(objects, api_version)`` (or the blocking
``convert``) sends one
``ConversionReview`` for all objects not yet at ``api_version`` and returns the
converted list in order, after the checks Kubernetes makes: the response's ``uid``,
``result.status``, the count, each object's ``apiVersion``, ``kind``, ``name``,
``namespace`` and ``uid``; ``metadata`` is restored from the original except labels
and annotations. The request times out after 30 s (the webhook client's timeout).

Every failure raises ``ConversionFailed`` with Kubernetes' text, for example
``conversion webhook for example.com/v1, Kind=Widget failed: Post
"https://127.0.0.1:9443/convert?timeout=30s": dial tcp 127.0.0.1:9443: connect:
connection refused``.

Written from apiextensions-apiserver v0.32.0 ``pkg/apiserver/conversion/webhook_converter.go``.
"""

from __future__ import annotations

import base64
import copy
import http.client
import json
import ssl
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import yarl

__all__ = ["ConversionFailed", "WebhookConverter"]

TIMEOUT_SECONDS = 30


class ConversionFailed(Exception):
    """The webhook could not convert; ``str()`` is the API server's message."""


Lookup = Callable[[tuple[str, str], str, str], "dict[str, Any] | None"]
"""``(storage key, namespace, name) -> stored object``: finds a ``clientConfig.service``."""


@dataclass(frozen=True)
class _Service:
    namespace: str
    name: str
    port: int


@dataclass(frozen=True)
class _Target:
    url: str
    ca_bundle: bytes | None
    review_version: str
    service: _Service | None


def _nothing(key: tuple[str, str], namespace: str, name: str) -> dict[str, Any] | None:
    return None


class WebhookConverter:
    def __init__(self, crd: dict[str, Any], lookup: Lookup = _nothing) -> None:
        self._lookup = lookup
        spec = crd.get("spec") or {}
        conversion = spec.get("conversion") or {}
        webhook = conversion.get("webhook") or {}
        config = webhook.get("clientConfig") or {}
        versions = webhook.get("conversionReviewVersions") or ["v1"]
        self.kind = str((spec.get("names") or {}).get("kind", ""))
        self.group = str(spec.get("group", ""))
        bundle = config.get("caBundle")
        url = str(config.get("url") or "")
        service: _Service | None = None
        if not url and config.get("service"):
            ref = config["service"]
            port = ref.get("port", 443)
            service = _Service(str(ref.get("namespace")), str(ref.get("name")), port)
            host = f"{service.name}.{service.namespace}.svc"
            url = f"https://{host}:{service.port}{ref.get('path') or ''}"
        review = "v1" if "v1" in versions else ("v1beta1" if "v1beta1" in versions else "")
        ca = base64.b64decode(bundle) if bundle else None
        self.target = _Target(url, ca, review, service)

    def convert(self, objects: list[dict[str, Any]], api_version: str) -> list[dict[str, Any]]:
        """Blocking: only for callers that cannot wait (the server's requests await
        ``convert_async``)."""
        planned = self._review(objects, api_version)
        if planned is None:
            return objects
        try:
            response = self._post(planned[1])
        except ConversionFailed as error:
            raise _failed(objects, planned[0], error) from None
        return self._result(objects, api_version, planned, response)

    async def convert_async(
        self, objects: list[dict[str, Any]], api_version: str
    ) -> list[dict[str, Any]]:
        """``convert`` awaiting the webhook, so the event loop serves others meanwhile."""
        planned = self._review(objects, api_version)
        if planned is None:
            return objects
        try:
            response = await self._post_async(planned[1])
        except ConversionFailed as error:
            raise _failed(objects, planned[0], error) from None
        return self._result(objects, api_version, planned, response)

    def _review(
        self, objects: list[dict[str, Any]], api_version: str
    ) -> tuple[list[int], dict[str, Any]] | None:
        """The indexes of the objects to convert and the ConversionReview asking for them."""
        pending = [i for i, obj in enumerate(objects) if obj.get("apiVersion") != api_version]
        if not pending:
            return None
        if not self.target.review_version:
            raise ConversionFailed("no supported conversion review versions")
        review = {
            "apiVersion": f"apiextensions.k8s.io/{self.target.review_version}",
            "kind": "ConversionReview",
            "request": {
                "uid": str(uuid.uuid4()),
                "desiredAPIVersion": api_version,
                "objects": [objects[i] for i in pending],
            },
        }
        return pending, review

    def _result(
        self,
        objects: list[dict[str, Any]],
        api_version: str,
        planned: tuple[list[int], dict[str, Any]],
        response: dict[str, Any],
    ) -> list[dict[str, Any]]:
        pending, review = planned
        try:
            converted = _converted(response, review["request"]["uid"], self.target.review_version)
        except ConversionFailed as error:
            raise _failed(objects, pending, error) from None
        gvk = _gvk(objects[pending[0]])
        if len(converted) != len(pending):
            raise ConversionFailed(
                f"conversion webhook for {gvk} returned {len(converted)} objects, "
                f"expected {len(pending)}"
            )
        out = list(objects)
        for n, (i, result) in enumerate(zip(pending, converted, strict=True)):
            out[i] = _checked(objects[i], result, api_version, gvk, n, single=len(objects) == 1)
        return out

    def _endpoint(self) -> tuple[str, str]:
        """The host and port to dial, and the URL as Kubernetes shows it in errors."""
        parts = urlsplit(self.target.url)
        query = (
            f"?{parts.query}&timeout={TIMEOUT_SECONDS}s"
            if parts.query
            else f"?timeout={TIMEOUT_SECONDS}s"
        )
        shown = f"{parts.scheme}://{parts.netloc}{parts.path}{query}"
        if parts.scheme != "https":
            raise ConversionFailed(f'Post "{shown}": unsupported protocol scheme "{parts.scheme}"')
        if self.target.service is not None:
            raise ConversionFailed(f'Post "{shown}": {self._unreachable(self.target.service)}')
        return shown, f"{parts.path or '/'}{query}"

    def _unreachable(self, service: _Service) -> str:
        """Why a Service cannot be dialled, in the words of the API server's endpoint
        resolver (apiserver ``util/proxy`` ResolveEndpoint): the local server has
        Services but no cluster network behind them."""
        found = self._lookup(("", "services"), service.namespace, service.name)
        if found is None:
            return f'service "{service.name}" not found'
        ports = (found.get("spec") or {}).get("ports") or []
        if not any(p.get("port") == service.port for p in ports if isinstance(p, dict)):
            return f'no service port {service.port} found for service "{service.name}"'
        if self._lookup(("", "endpoints"), service.namespace, service.name) is None:
            return f'endpoints "{service.name}" not found'
        return f'no endpoints available for service "{service.name}"'

    def _tls(self) -> ssl.SSLContext:
        bundle = self.target.ca_bundle
        return ssl.create_default_context(cadata=bundle.decode() if bundle else None)

    def _post(self, review: dict[str, Any]) -> dict[str, Any]:
        shown, target = self._endpoint()
        parts = urlsplit(shown)
        connection = http.client.HTTPSConnection(
            parts.hostname or "", parts.port or 443, timeout=TIMEOUT_SECONDS, context=self._tls()
        )
        try:
            connection.request("POST", target, json.dumps(review).encode(), _HEADERS)
            reply = connection.getresponse()
            data = reply.read()
        except ConnectionRefusedError:
            raise _refused(shown) from None
        except TimeoutError:
            raise _deadline(shown) from None
        except ssl.SSLCertVerificationError as error:
            raise _untrusted(shown, error) from None
        except OSError as error:
            raise ConversionFailed(f'Post "{shown}": {error}') from None
        finally:
            connection.close()
        return _parsed(reply.status, data)

    async def _post_async(self, review: dict[str, Any]) -> dict[str, Any]:
        shown, _ = self._endpoint()
        timeout = aiohttp.ClientTimeout(total=TIMEOUT_SECONDS)
        try:
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.post(
                    yarl.URL(shown, encoded=True),
                    data=json.dumps(review).encode(),
                    headers=_HEADERS,
                    ssl=self._tls(),
                ) as reply,
            ):
                data = await reply.read()
        except aiohttp.ClientConnectorCertificateError as error:
            certificate_error = error.certificate_error
            if isinstance(certificate_error, ssl.SSLCertVerificationError):
                raise _untrusted(shown, certificate_error) from None
            raise ConversionFailed(f'Post "{shown}": {certificate_error}') from None
        except aiohttp.ClientConnectorError as error:
            if isinstance(error.os_error, ConnectionRefusedError):
                raise _refused(shown) from None
            raise ConversionFailed(f'Post "{shown}": {error.os_error}') from None
        except TimeoutError:
            raise _deadline(shown) from None
        except (aiohttp.ClientError, OSError) as error:
            raise ConversionFailed(f'Post "{shown}": {error}') from None
        return _parsed(reply.status, data)


_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}


def _failed(objects: list[dict[str, Any]], pending: list[int], error: Exception) -> Exception:
    gvk = _gvk(objects[pending[0]])
    return ConversionFailed(f"conversion webhook for {gvk} failed: {error}")


def _refused(shown: str) -> ConversionFailed:
    parts = urlsplit(shown)
    return ConversionFailed(
        f'Post "{shown}": dial tcp {parts.hostname}:{parts.port}: connect: connection refused'
    )


def _deadline(shown: str) -> ConversionFailed:
    return ConversionFailed(
        f'Post "{shown}": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)"
    )


def _untrusted(shown: str, error: ssl.SSLCertVerificationError) -> ConversionFailed:
    return ConversionFailed(
        f'Post "{shown}": tls: failed to verify certificate: {error.verify_message}'
    )


def _parsed(status: int, data: bytes) -> dict[str, Any]:
    """The webhook's answer as JSON, or the error its status or body makes."""
    if status >= 300:
        text = data.decode(errors="replace").strip()
        silent = (
            f"the server responded with the status code {status} "
            "but did not return more information"
        )
        raise ConversionFailed(text or silent)
    try:
        parsed = json.loads(data)
    except ValueError as error:
        raise ConversionFailed(f"couldn't get version/kind; json parse error: {error}") from None
    if not isinstance(parsed, dict):
        raise ConversionFailed("couldn't get version/kind; json parse error")
    return parsed


def _gvk(obj: dict[str, Any]) -> str:
    return f"{obj.get('apiVersion', '')}, Kind={obj.get('kind', '')}"


def _converted(response: dict[str, Any], uid: str, version: str) -> list[Any]:
    expected = f"apiextensions.k8s.io/{version}"
    got = f"{response.get('apiVersion', '')}, Kind={response.get('kind', '')}"
    if version == "v1" and got != f"{expected}, Kind=ConversionReview":
        raise ConversionFailed(
            f"expected webhook response of {expected}, Kind=ConversionReview, got {got}"
        )
    body = response.get("response")
    if not isinstance(body, dict):
        raise ConversionFailed("no response provided")
    if version == "v1" and body.get("uid") != uid:
        raise ConversionFailed(f'expected response.uid="{uid}", got "{body.get("uid", "")}"')
    result = body.get("result") or {}
    if result.get("status") != "Success":
        if result.get("message"):
            raise ConversionFailed(str(result["message"]))
        raise ConversionFailed(
            f"response.result.status was '{result.get('status', '')}', not 'Success'"
        )
    objects = body.get("convertedObjects")
    return objects if isinstance(objects, list) else []


def _checked(
    original: dict[str, Any], converted: Any, api_version: str, gvk: str, index: int, single: bool
) -> dict[str, Any]:
    where = "invalid object at index 0" if single else f"invalid converted object at index {index}"
    if not isinstance(converted, dict):
        raise ConversionFailed(f"conversion webhook for {gvk} returned {where}: invalid type")
    if converted.get("apiVersion") != api_version:
        raise ConversionFailed(
            f"conversion webhook for {gvk} returned {where}: invalid groupVersion "
            f"(expected {api_version}, received {converted.get('apiVersion', '')})"
        )
    if converted.get("kind") != original.get("kind"):
        raise ConversionFailed(
            f"conversion webhook for {gvk} returned {where}: invalid kind "
            f"(expected {original.get('kind')}, received {converted.get('kind', '')})"
        )
    problem = _metadata_problem(original, converted)
    if problem:
        prefix = "invalid object" if single else f"invalid converted object at index {index}"
        raise ConversionFailed(f"conversion webhook for {gvk} returned {prefix}: {problem}")
    return _restore_metadata(original, converted, gvk, single, index)


def _metadata_problem(original: dict[str, Any], converted: dict[str, Any]) -> str:
    old = original.get("metadata") or {}
    found = converted.get("metadata")
    new: dict[str, Any] = found if isinstance(found, dict) else {}
    for key in ("name", "namespace", "uid"):
        if (old.get(key) or "") != (new.get(key) or ""):
            shown = "UID" if key == "uid" else key
            return f"must have the same {shown}: {old.get(key) or ''} != {new.get(key) or ''}"
    return ""


def _restore_metadata(
    original: dict[str, Any], converted: dict[str, Any], gvk: str, single: bool, index: int
) -> dict[str, Any]:
    response_meta = converted.get("metadata")
    where = "invalid metadata" if single else f"invalid metadata in object at index {index}"
    if not isinstance(response_meta, dict):
        raise ConversionFailed(
            f"conversion webhook for {gvk} returned {where}: missing metadata in converted object"
        )
    meta = copy.deepcopy(original.get("metadata") or {})
    for key in ("labels", "annotations"):
        value = response_meta.get(key)
        if value is None:
            meta.pop(key, None)
            continue
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise ConversionFailed(
                f"conversion webhook for {gvk} returned {where}: "
                f"invalid metadata.{key} in converted object"
            )
        meta[key] = dict(value)
    return {**converted, "metadata": meta}
