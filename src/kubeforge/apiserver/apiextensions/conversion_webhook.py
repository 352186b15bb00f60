"""Calling a CRD's conversion webhook as a 1.32 API server does.

``WebhookConverter(crd)`` reads ``spec.conversion.webhook`` (``clientConfig.url`` and
``caBundle``; a ``service`` cannot be reached from outside a cluster and fails like an
unreachable URL) and ``conversionReviewVersions`` (``v1`` is sent; a CRD that only
accepts ``v1beta1`` gets ``v1beta1``). ``convert(objects, api_version)`` sends one
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
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["ConversionFailed", "WebhookConverter"]

TIMEOUT_SECONDS = 30


class ConversionFailed(Exception):
    """The webhook could not convert; ``str()`` is the API server's message."""


@dataclass(frozen=True)
class _Target:
    url: str
    ca_bundle: bytes | None
    review_version: str


class WebhookConverter:
    def __init__(self, crd: dict[str, Any]) -> None:
        spec = crd.get("spec") or {}
        conversion = spec.get("conversion") or {}
        webhook = conversion.get("webhook") or {}
        config = webhook.get("clientConfig") or {}
        versions = webhook.get("conversionReviewVersions") or ["v1"]
        self.kind = str((spec.get("names") or {}).get("kind", ""))
        self.group = str(spec.get("group", ""))
        bundle = config.get("caBundle")
        url = str(config.get("url") or "")
        if not url and config.get("service"):
            service = config["service"]
            path = service.get("path") or ""
            host = f"{service.get('name')}.{service.get('namespace')}.svc"
            url = f"https://{host}:{service.get('port', 443)}{path}"
        review = "v1" if "v1" in versions else ("v1beta1" if "v1beta1" in versions else "")
        self.target = _Target(url, base64.b64decode(bundle) if bundle else None, review)

    def convert(self, objects: list[dict[str, Any]], api_version: str) -> list[dict[str, Any]]:
        pending = [i for i, obj in enumerate(objects) if obj.get("apiVersion") != api_version]
        if not pending:
            return objects
        gvk = _gvk(objects[pending[0]])
        if not self.target.review_version:
            raise ConversionFailed("no supported conversion review versions")
        uid = str(uuid.uuid4())
        review = {
            "apiVersion": f"apiextensions.k8s.io/{self.target.review_version}",
            "kind": "ConversionReview",
            "request": {
                "uid": uid,
                "desiredAPIVersion": api_version,
                "objects": [objects[i] for i in pending],
            },
        }
        try:
            response = self._post(review)
            converted = _converted(response, uid, self.target.review_version)
        except ConversionFailed as error:
            raise ConversionFailed(f"conversion webhook for {gvk} failed: {error}") from None
        if len(converted) != len(pending):
            raise ConversionFailed(
                f"conversion webhook for {gvk} returned {len(converted)} objects, "
                f"expected {len(pending)}"
            )
        out = list(objects)
        for n, (i, result) in enumerate(zip(pending, converted, strict=True)):
            out[i] = _checked(objects[i], result, api_version, gvk, n, single=len(objects) == 1)
        return out

    def _post(self, review: dict[str, Any]) -> dict[str, Any]:
        parts = urlsplit(self.target.url)
        query = (
            f"?{parts.query}&timeout={TIMEOUT_SECONDS}s"
            if parts.query
            else f"?timeout={TIMEOUT_SECONDS}s"
        )
        shown = f"{parts.scheme}://{parts.netloc}{parts.path}{query}"
        if parts.scheme != "https":
            raise ConversionFailed(f'Post "{shown}": unsupported protocol scheme "{parts.scheme}"')
        context = ssl.create_default_context(
            cadata=self.target.ca_bundle.decode() if self.target.ca_bundle else None
        )
        connection = http.client.HTTPSConnection(
            parts.hostname or "", parts.port or 443, timeout=TIMEOUT_SECONDS, context=context
        )
        body = json.dumps(review).encode()
        try:
            headers = {"Content-Type": "application/json", "Accept": "application/json"}
            connection.request("POST", f"{parts.path or '/'}{query}", body, headers)
            reply = connection.getresponse()
            data = reply.read()
        except ConnectionRefusedError:
            raise ConversionFailed(
                f'Post "{shown}": dial tcp {parts.hostname}:{parts.port}: '
                "connect: connection refused"
            ) from None
        except TimeoutError:
            raise ConversionFailed(
                f'Post "{shown}": context deadline exceeded '
                "(Client.Timeout exceeded while awaiting headers)"
            ) from None
        except ssl.SSLCertVerificationError as error:
            raise ConversionFailed(
                f'Post "{shown}": tls: failed to verify certificate: {error.verify_message}'
            ) from None
        except OSError as error:
            raise ConversionFailed(f'Post "{shown}": {error}') from None
        finally:
            connection.close()
        if reply.status >= 300:
            text = data.decode(errors="replace").strip()
            silent = (
                f"the server responded with the status code {reply.status} "
                "but did not return more information"
            )
            raise ConversionFailed(text or silent)
        try:
            parsed = json.loads(data)
        except ValueError as error:
            raise ConversionFailed(
                f"couldn't get version/kind; json parse error: {error}"
            ) from None
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
