"""Where a webhook is called, checked as ``k8s.io/apiserver``'s ``util/webhook`` checks it.

Admission webhook configurations and a CRD's conversion webhook share these rules
(``ValidateWebhookURL`` with https forced, ``ValidateWebhookService``) and the
"exactly one of url or service" choice around them, so they live here, below both.

One quirk is kept on purpose: 1.32 declares ``ValidateWebhookService(fldPath,
namespace, name, ...)`` but every caller passes the service's name first, so a missing
namespace is reported at ``service.name`` and a missing name at ``service.namespace``
(kubernetes/kubernetes#141353, still open): clients of a real server see that.

Entry points: ``client_config_errors(config, path)``, ``webhook_url_errors(url, path)``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from kubeforge.apiserver.failures import FieldError
from kubeforge.core.names import dns1123_subdomain

__all__ = ["URL_FORM", "client_config_errors", "webhook_url_errors"]

URL_FORM = "; desired format: https://host[/path]"


def client_config_errors(config: Any, path: str) -> list[FieldError]:
    """A URL or a service, exactly one, at ``path`` (the ``clientConfig``)."""
    config = config if isinstance(config, dict) else {}
    url, service = config.get("url"), config.get("service")
    if (url is None) == (service is None):
        return [FieldError.required(path, "exactly one of url or service is required")]
    if url is not None:
        return webhook_url_errors(str(url), f"{path}.url")
    service = service if isinstance(service, dict) else {}
    return _service_errors(service, f"{path}.service")


def webhook_url_errors(url: str, path: str) -> list[FieldError]:
    """``ValidateWebhookURL`` with https forced."""
    if url.startswith(":"):
        detail = f'url must be a valid URL: parse "{url}": missing protocol scheme{URL_FORM}'
        return [FieldError.required(path, detail)]
    parts = urlsplit(url)
    user, _, host = parts.netloc.rpartition("@")
    errors: list[FieldError] = []
    if parts.scheme != "https":
        detail = "'https' is the only allowed URL scheme" + URL_FORM
        errors.append(FieldError.invalid(path, parts.scheme, detail))
    if not host:
        errors.append(FieldError.invalid(path, host, "host must be specified" + URL_FORM))
    if "@" in parts.netloc:
        detail = "user information is not permitted in the URL"
        errors.append(FieldError.invalid(path, user, detail))
    if parts.fragment:
        detail = "fragments are not permitted in the URL"
        errors.append(FieldError.invalid(path, parts.fragment, detail))
    if parts.query:
        detail = "query parameters are not permitted in the URL"
        errors.append(FieldError.invalid(path, parts.query, detail))
    return errors


def _service_errors(service: dict[str, Any], path: str) -> list[FieldError]:
    """``ValidateWebhookService`` as its callers call it: name, namespace (each reported at
    the other's path, see above), port, and a path of DNS segments."""
    errors: list[FieldError] = []
    if not service.get("namespace"):
        errors.append(FieldError.required(f"{path}.name"))
    if not service.get("name"):
        errors.append(FieldError.required(f"{path}.namespace"))
    port = service.get("port")
    if isinstance(port, int) and not 1 <= port <= 65535:
        detail = "port is not valid: must be between 1 and 65535, inclusive"
        errors.append(FieldError.invalid(f"{path}.port", port, detail))
    route = service.get("path")
    if not isinstance(route, str) or route in ("", "/"):
        return errors
    if route == "//":
        return [*errors, FieldError.invalid(f"{path}.path", route, "segment[0] may not be empty")]
    if not route.startswith("/"):
        errors.append(FieldError.invalid(f"{path}.path", route, "must start with a '/'"))
    rest = route[1:]
    rest = rest[:-1] if rest.endswith("/") else rest
    for i, step in enumerate(rest.split("/")):
        if not step:
            errors.append(
                FieldError.invalid(f"{path}.path", route, f"segment[{i}] may not be empty")
            )
            continue
        for problem in dns1123_subdomain(step):
            errors.append(FieldError.invalid(f"{path}.path", route, f"segment[{i}]: {problem}"))
    return errors
