"""The profile-like parts of a security context, shared by pods and containers: seccomp
(``validateSeccompProfileField``), AppArmor (``ValidateAppArmorProfileField``) and the
Windows options (``validateWindowsSecurityContextOptions``) of kubernetes 1.32, with the
relative-path rule (``validateLocalDescendingPath``) that seccomp and volume subpaths
share.

Go prints a whole ``core.SeccompProfile`` in one message; its ``%#v`` holds a pointer
address that differs from run to run, so the address shown here is only a stand-in.

Entry points: ``seccomp_profile(value, path)``, ``apparmor_profile(value, path)``,
``windows_options(value, path)``, ``local_descending_path(value, path)``.

>>> [str(e) for e in seccomp_profile({"type": "Localhost"}, "spec.securityContext.seccompProfile")]
['spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost']
"""  # noqa: E501

from __future__ import annotations

import re
from typing import Any

from kubeforge.apiserver.failures import FieldError, GoValue
from kubeforge.core.names import dns1123_subdomain

__all__ = ["apparmor_profile", "local_descending_path", "seccomp_profile", "windows_options"]

_PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
_MAX_LOCALHOST_PROFILE = 4095  # PATH_MAX - 1
_MAX_CREDENTIAL_SPEC_KIB = 64
_MAX_DOMAIN = 256
_MAX_USER = 104
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
_NETBIOS = re.compile(r'[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}')
_DNS_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_DNS_DOMAIN = re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*")
_BAD_USER_CHARS = re.compile(r'["/\\:;|=,+*?<>@\[\]]')
_DOTS_AND_SPACES = re.compile(r"[. ]+")


def local_descending_path(value: str, path: str) -> list[FieldError]:
    """Relative, and no ``..`` element (one error for any number of them)."""
    errors = []
    if value.startswith("/"):
        errors.append(FieldError.invalid(path, value, "must be a relative path"))
    if ".." in value.split("/"):  # the server runs on Linux: a backslash is no separator
        errors.append(FieldError.invalid(path, value, "must not contain '..'"))
    return errors


def _go_profile(profile: dict[str, Any]) -> GoValue:
    """``%#v`` of a ``core.SeccompProfile`` (its pointer's address is a stand-in)."""
    kind = GoValue.quote(str(profile.get("type") or ""))
    pointer = "(*string)(0xc000a1c2d0)" if profile.get("localhostProfile") is not None else "nil"
    return GoValue(f"core.SeccompProfile{{Type:{kind}, LocalhostProfile:{pointer}}}")


def seccomp_profile(profile: Any, path: str) -> list[FieldError]:
    if not isinstance(profile, dict):
        return []
    kind = profile.get("type") or ""
    errors: list[FieldError] = []
    if not kind:
        errors.append(
            FieldError.required(f"{path}.type", "type is required when seccompProfile is set")
        )
    elif kind not in _PROFILE_TYPES:
        errors.append(FieldError.not_supported(f"{path}.type", kind, _PROFILE_TYPES))
    local = profile.get("localhostProfile")
    at = f"{path}.localhostProfile"
    if kind == "Localhost":
        if local is None:
            detail = "must be set when seccomp type is Localhost"
            errors.append(FieldError.required(at, detail))
        else:
            errors += local_descending_path(str(local), at)
    elif local is not None:
        detail = "can only be set when seccomp type is Localhost"
        errors.append(FieldError.invalid(at, _go_profile(profile), detail))
    return errors


def apparmor_profile(profile: Any, path: str) -> list[FieldError]:
    if not isinstance(profile, dict):
        return []
    kind = profile.get("type") or ""
    local = profile.get("localhostProfile")
    at = f"{path}.localhostProfile"
    if kind == "Localhost":
        required = FieldError.required(at, "must be set when AppArmor type is Localhost")
        if local is None:
            return [required]
        text = str(local)
        errors = []
        if text.strip() != text:
            errors.append(FieldError.invalid(at, text, "must not be padded with whitespace"))
        elif not text:
            errors.append(required)
        if len(text.encode()) > _MAX_LOCALHOST_PROFILE:
            errors.append(FieldError.too_long(at, "", _MAX_LOCALHOST_PROFILE))
        return errors
    if kind in ("RuntimeDefault", "Unconfined"):
        if local is not None:
            detail = "can only be set when AppArmor type is Localhost"
            return [FieldError.invalid(at, local, detail)]
        return []
    if not kind:
        detail = "type is required when appArmorProfile is set"
        return [FieldError.required(f"{path}.type", detail)]
    return [FieldError.not_supported(f"{path}.type", kind, _PROFILE_TYPES)]


def _user_name_errors(name: str) -> list[str]:
    """What is wrong with ``runAsUserName`` (``DOMAIN\\USER``, the domain optional)."""
    if not name:
        return ["runAsUserName cannot be an empty string"]
    if _CONTROL.search(name):
        return ["runAsUserName cannot contain control characters"]
    parts = name.split("\\")
    if len(parts) > 2:
        return ["runAsUserName cannot contain more than one backslash"]
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    problems = []
    if len(domain) >= _MAX_DOMAIN:
        problems.append(f"runAsUserName's Domain length must be under {_MAX_DOMAIN} characters")
    if len(parts) == 2 and not (_NETBIOS.fullmatch(domain) or _DNS_DOMAIN.fullmatch(domain)):
        problems.append("runAsUserName's Domain doesn't match the NetBios nor the DNS format")
    if not user:
        problems.append("runAsUserName's User cannot be empty")
    elif len(user) > _MAX_USER:
        problems.append(
            f"runAsUserName's User length must not be longer than {_MAX_USER} characters"
        )
    if _DOTS_AND_SPACES.fullmatch(user):
        problems.append("runAsUserName's User cannot contain only periods or spaces")
    if _BAD_USER_CHARS.search(user):
        problems.append(
            "runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]"
        )
    return problems


def windows_options(options: Any, path: str) -> list[FieldError]:
    if not isinstance(options, dict):
        return []
    errors: list[FieldError] = []
    spec_name = options.get("gmsaCredentialSpecName")
    if spec_name is not None:
        at = f"{path}.gmsaCredentialSpecName"
        errors += [FieldError.invalid(at, spec_name, m) for m in dns1123_subdomain(spec_name)]
    credential = options.get("gmsaCredentialSpec")
    if credential is not None:
        at = f"{path}.gmsaCredentialSpec"
        if not credential:
            detail = "gmsaCredentialSpec cannot be an empty string"
            errors.append(FieldError.invalid(at, credential, detail))
        elif len(credential.encode()) > _MAX_CREDENTIAL_SPEC_KIB * 1024:
            detail = f"gmsaCredentialSpec size must be under {_MAX_CREDENTIAL_SPEC_KIB} KiB"
            errors.append(FieldError.invalid(at, credential, detail))
    user = options.get("runAsUserName")
    if user is not None:
        at = f"{path}.runAsUserName"
        errors += [FieldError.invalid(at, user, m) for m in _user_name_errors(user)]
    return errors
