"""Kubernetes' name rules, in its words: DNS labels and subdomains, qualified names, label values.

One copy for every layer: the selectors, the local server's validation, the CRD
generator and the CLI's scaffolding all ask here. Each function named after a rule
returns what apimachinery's ``util/validation`` (Kubernetes 1.32) returns
for the same input: an empty list when the value is valid, else its messages,
word for word (``IsDNS1123Label``, ``IsDNS1123Subdomain``, ``IsDNS1035Label``,
``IsQualifiedName``, ``IsValidLabelValue``). The ``is_*`` predicates are for
callers that word their own error, such as the CLI.

>>> dns1123_label("web-0")
[]
>>> dns1123_label("Web")[0][:48]
'a lowercase RFC 1123 label must consist of lower'
>>> is_dns1123_subdomain("ship.example.com"), is_dns1123_label("ship.example.com")
(True, False)
>>> qualified_name("app.kubernetes.io/name"), len(qualified_name("example.com/"))
([], 2)
"""

from __future__ import annotations

import re

__all__ = [
    "DNS1035_LABEL_MAX_LENGTH",
    "DNS1123_LABEL_MAX_LENGTH",
    "DNS1123_SUBDOMAIN_MAX_LENGTH",
    "LABEL_VALUE_MAX_LENGTH",
    "QUALIFIED_NAME_MAX_LENGTH",
    "config_map_key",
    "dns1035_label",
    "dns1123_label",
    "dns1123_subdomain",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "label_value",
    "qualified_name",
    "regex_error",
    "wildcard_dns1123_subdomain",
]

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1035_LABEL_MAX_LENGTH = 63
QUALIFIED_NAME_MAX_LENGTH = 63
LABEL_VALUE_MAX_LENGTH = 63

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _QUALIFIED_NAME_FMT + ")?"
_CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+"

# re.ASCII: Go's regexp classes are ASCII-only, and so must ours be.
_DNS1123_LABEL = re.compile(_DNS1123_LABEL_FMT, re.ASCII)
_DNS1123_SUBDOMAIN = re.compile(_DNS1123_SUBDOMAIN_FMT, re.ASCII)
_DNS1035_LABEL = re.compile(_DNS1035_LABEL_FMT, re.ASCII)
_QUALIFIED_NAME = re.compile(_QUALIFIED_NAME_FMT, re.ASCII)
_LABEL_VALUE = re.compile(_LABEL_VALUE_FMT, re.ASCII)
_CONFIG_KEY = re.compile(_CONFIG_KEY_FMT, re.ASCII)

_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
    "an alphabetic character, and end with an alphanumeric character"
)
_QUALIFIED_NAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character"
)


def regex_error(message: str, fmt: str, *examples: str) -> str:
    """apimachinery's ``RegexError``: ``message``, its examples and the regex, as it spells them.

    >>> regex_error("bad", "[a-z]+", "abc")
    "bad (e.g. 'abc', regex used for validation is '[a-z]+')"
    """
    if not examples:
        return f"{message} (regex used for validation is '{fmt}')"
    # Each example is followed by "', " and joined by " or ", hence Kubernetes' double space.
    listed = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {listed}regex used for validation is '{fmt}')"


def _max_length(limit: int) -> str:
    return f"must be no more than {limit} characters"


def dns1123_label(value: str) -> list[str]:
    """Problems with ``value`` as an RFC 1123 label (``my-name``): a Service port or CRD plural."""
    problems = []
    if len(value) > DNS1123_LABEL_MAX_LENGTH:
        problems.append(_max_length(DNS1123_LABEL_MAX_LENGTH))
    if not _DNS1123_LABEL.fullmatch(value):
        problems.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return problems


def dns1123_subdomain(value: str) -> list[str]:
    """Problems with ``value`` as an RFC 1123 subdomain (``example.com``): most object names."""
    problems = []
    if len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        problems.append(_max_length(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN.fullmatch(value):
        problems.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return problems


_WILDCARD_FMT = "\\*\\." + _DNS1123_SUBDOMAIN_FMT
_WILDCARD = re.compile(_WILDCARD_FMT, re.ASCII)
_WILDCARD_MSG = (
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, "
    "which must consist of lower case alphanumeric characters, '-' or '.' and end with an "
    "alphanumeric character"
)


def wildcard_dns1123_subdomain(value: str) -> list[str]:
    """Problems with ``value`` as a wildcard subdomain (``*.example.com``): Ingress hosts."""
    problems = []
    if len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        problems.append(_max_length(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _WILDCARD.fullmatch(value):
        problems.append(regex_error(_WILDCARD_MSG, _WILDCARD_FMT, "*.example.com"))
    return problems


def dns1035_label(value: str) -> list[str]:
    """Problems with ``value`` as an RFC 1035 label (a letter first): Service and version names."""
    problems = []
    if len(value) > DNS1035_LABEL_MAX_LENGTH:
        problems.append(_max_length(DNS1035_LABEL_MAX_LENGTH))
    if not _DNS1035_LABEL.fullmatch(value):
        problems.append(regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return problems


def is_dns1123_label(value: str) -> bool:
    return not dns1123_label(value)


def is_dns1123_subdomain(value: str) -> bool:
    return not dns1123_subdomain(value)


def qualified_name(value: str) -> list[str]:
    """Problems with ``value`` as a qualified name (``[prefix/]name``): label and annotation keys,
    finalizers. Every problem is reported, of the prefix and of the name part alike."""
    parts = value.split("/")
    if len(parts) > 2:
        return [
            "a qualified name "
            + regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    problems = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            problems.append("prefix part must be non-empty")
        else:
            problems += [f"prefix part {p}" for p in dns1123_subdomain(prefix)]
    if not name:
        problems.append("name part must be non-empty")
    elif len(name) > QUALIFIED_NAME_MAX_LENGTH:
        problems.append(f"name part {_max_length(QUALIFIED_NAME_MAX_LENGTH)}")
    if not _QUALIFIED_NAME.fullmatch(name):
        problems.append(
            "name part "
            + regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return problems


def label_value(value: str) -> list[str]:
    """Problems with ``value`` as a label value (may be empty, at most 63 characters)."""
    problems = []
    if len(value) > LABEL_VALUE_MAX_LENGTH:
        problems.append(_max_length(LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE.fullmatch(value):
        problems.append(
            regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return problems


def config_map_key(value: str) -> list[str]:
    """Problems with ``value`` as a ConfigMap or Secret key (``IsConfigMapKey``), in its order."""
    problems = [_max_length(DNS1123_SUBDOMAIN_MAX_LENGTH)] if len(value) > 253 else []
    if not _CONFIG_KEY.fullmatch(value):
        problems.append(
            regex_error(
                "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                _CONFIG_KEY_FMT,
                "key.name",
                "KEY_NAME",
                "key-name",
            )
        )
    if value in (".", ".."):
        problems.append(f"must not be '{value}'")
    elif value.startswith(".."):
        problems.append("must not start with '..'")
    return problems
