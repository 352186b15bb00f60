"""Calling an admission webhook: the ``AdmissionReview`` exchange over HTTPS, and its answers.

A call is ``POST <url>?timeout=<N>s`` with the review, TLS verified against
``clientConfig.caBundle``; a ``clientConfig.service`` is dialled by its in-cluster name,
which does not resolve outside a cluster. A webhook that cannot be called, times out,
answers a status other than 200 or a review without the request's uid fails with the
real server's 500 ``failed calling webhook``; a denial becomes the webhook's own
``Status`` (``webhookerrors.ToStatusErr``); a mutating webhook's JSONPatch is applied
here.

Entry points: ``WebhookClient().post(hook, review, uid)``, ``patched(hook, obj,
response)``, ``denied(name, status)``.
"""

from __future__ import annotations

import base64
import binascii
import ssl
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson

from kubeforge.apiserver import failures
from kubeforge.apiserver.failures import StatusError
from kubeforge.apiserver.patch.formats import (
    JSON_PATCH,
    PatchApplyError,
    PatchDecodeError,
    apply_patch,
)
from kubeforge.core.status import failure

__all__ = ["Hook", "WebhookClient", "call_failed", "denied", "patched"]

_CONTEXTS = 64
"""TLS contexts kept (one per distinct caBundle); past that they are built afresh."""


@dataclass(frozen=True)
class Hook:
    """One webhook of a configuration: its name, the configuration's, and its spec."""

    name: str
    configuration: str
    spec: dict[str, Any]


class WebhookClient:
    """One HTTP session for every webhook call of a server."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None
        self._contexts: dict[str, ssl.SSLContext] = {}

    async def post(self, hook: Hook, review: dict[str, Any], uid: str) -> dict[str, Any]:
        """``review`` POSTed to the webhook; its ``response``, checked to answer ``uid``."""
        config = hook.spec.get("clientConfig") or {}
        timeout = int(hook.spec.get("timeoutSeconds") or 10)
        url = _url(config)
        address = f"{url}?timeout={timeout}s"
        try:
            context = self._context(str(config.get("caBundle") or ""))
            session = self._session_now()
            async with session.post(
                address,
                data=orjson.dumps(review),
                headers={"Content-Type": "application/json", "Accept": "application/json"},
                ssl=context,
                timeout=aiohttp.ClientTimeout(total=timeout),
            ) as answer:
                if answer.status != 200:
                    raise call_failed(
                        hook, f'Post "{address}": unexpected status code {answer.status}'
                    )
                body = orjson.loads(await answer.read())
        except TimeoutError:
            raise call_failed(hook, f'Post "{address}": context deadline exceeded') from None
        except (aiohttp.ClientError, ssl.SSLError, OSError, ValueError) as error:
            raise call_failed(hook, f'Post "{address}": {error}') from None
        response = body.get("response") if isinstance(body, dict) else None
        if not isinstance(response, dict):
            raise call_failed(hook, "the response is not an AdmissionReview with a response")
        if response.get("uid") != uid:
            raise call_failed(
                hook, f'expected response.uid="{uid}", got "{response.get("uid") or ""}"'
            )
        return response

    def _context(self, bundle: str) -> ssl.SSLContext:
        """One TLS context per CA bundle: building one reads the CAs (the system's, for
        none), and calls through the same context reuse their kept-alive connections."""
        context = self._contexts.get(bundle)
        if context is None:
            if len(self._contexts) >= _CONTEXTS:
                self._contexts.clear()
            context = self._contexts[bundle] = _ssl_context(bundle)
        return context

    def _session_now(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession()
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


def patched(hook: Hook, obj: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with a mutating webhook's JSONPatch applied (a bad patch fails the call)."""
    if response.get("patchType") != "JSONPatch":
        raise call_failed(hook, f'unsupported patch type "{response.get("patchType")}"')
    try:
        patch = orjson.loads(base64.b64decode(str(response["patch"])))
        result = apply_patch(JSON_PATCH, obj, patch)
    except (binascii.Error, ValueError, PatchApplyError, PatchDecodeError) as error:
        raise failures.internal_error(
            f'failed calling webhook "{hook.name}": JSON patch failed: {error}'
        ) from None
    if not isinstance(result, dict):
        raise call_failed(hook, "the patch did not produce an object")
    return result


def _url(config: dict[str, Any]) -> str:
    if config.get("url"):
        return str(config["url"])
    service = config.get("service") or {}
    # What the real server would dial; outside a cluster this name does not resolve.
    host = f"{service.get('name')}.{service.get('namespace')}.svc"
    return f"https://{host}:{service.get('port') or 443}{service.get('path') or ''}"


def _ssl_context(bundle: str) -> ssl.SSLContext:
    """The real server's: a ``caBundle`` is the only trust, else the system's roots."""
    if not bundle:
        return ssl.create_default_context()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(cadata=base64.b64decode(bundle).decode())
    return context


def call_failed(hook: Hook, detail: str) -> StatusError:
    """The real server's 500 for a webhook it could not call or understand."""
    return failures.internal_error(
        f'failed calling webhook "{hook.name}": failed to call webhook: {detail}'
    )


def denied(name: str, status: dict[str, Any]) -> StatusError:
    """``webhookerrors.ToStatusErr``: the webhook's own Status, made a proper failure."""
    given = status.get("code")
    code = given if isinstance(given, int) and given >= 400 else 400
    prefix = f'admission webhook "{name}" denied the request'
    if status.get("message"):
        message = f"{prefix}: {status['message']}"
    elif status.get("reason"):
        message = f"{prefix}: {status['reason']}"
    else:
        message = f"{prefix} without explanation"
    body = failure(code, str(status.get("reason") or ""), message, status.get("details") or None)
    return StatusError(body)
