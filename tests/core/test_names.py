"""kubeforge.core.names answers as apimachinery's util/validation (1.32) does, word for word."""

from __future__ import annotations

import doctest

import pytest

import kubeforge.core.names
from kubeforge.core import names
from kubeforge.core.selectors import SelectorError, parse_label_selector

LABEL_REGEX = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
LABEL_MESSAGE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    f"used for validation is '{LABEL_REGEX}')"
)
SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    f"for validation is '{LABEL_REGEX}(\\.{LABEL_REGEX})*')"
)
DNS1035_MESSAGE = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
NAME_PART_MESSAGE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE_MESSAGE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def test_docstring_examples_hold() -> None:
    result = doctest.testmod(kubeforge.core.names)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize("value", ["a", "0", "a-b", "1-2", "a" * 63, "web-0"])
def test_good_labels_pass_as_labels_and_subdomains(value: str) -> None:
    assert names.dns1123_label(value) == []
    assert names.dns1123_subdomain(value) == []


@pytest.mark.parametrize("value", ["", "A", "-a", "a-", "a_b", "a b", "ü", "a.b"])
def test_bad_labels_get_the_regex_message(value: str) -> None:
    assert names.dns1123_label(value) == [LABEL_MESSAGE]


def test_a_label_too_long_gets_both_problems_when_it_is_also_malformed() -> None:
    assert names.dns1123_label("a" * 64) == ["must be no more than 63 characters"]
    assert names.dns1123_label("A" * 64) == ["must be no more than 63 characters", LABEL_MESSAGE]


@pytest.mark.parametrize("value", ["", ".a", "a.", "a..b", "A.b", "a_b.c"])
def test_bad_subdomains_get_the_regex_message(value: str) -> None:
    assert names.dns1123_subdomain(value) == [SUBDOMAIN_MESSAGE]
    assert not names.is_dns1123_subdomain(value)


def test_a_subdomain_may_be_253_characters() -> None:
    longest = ".".join(["a" * 63] * 4)[:253]
    assert names.dns1123_subdomain(longest) == []
    assert names.dns1123_subdomain(longest + "a") == ["must be no more than 253 characters"]


def test_dns1035_labels_start_with_a_letter() -> None:
    assert names.dns1035_label("v1beta1") == []
    assert names.dns1035_label("1abc") == [DNS1035_MESSAGE]


@pytest.mark.parametrize(
    "value", ["simple", "now-with-dashes", "1-starts-with-num", "example.com/Name", "a/b_c.d"]
)
def test_good_qualified_names(value: str) -> None:
    assert names.qualified_name(value) == []


def test_a_qualified_name_reports_the_prefix_and_the_name_part_together() -> None:
    assert names.qualified_name("Bad.Prefix/-bad-name") == [
        f"prefix part {SUBDOMAIN_MESSAGE}",
        NAME_PART_MESSAGE,
    ]
    assert names.qualified_name("/name") == ["prefix part must be non-empty"]
    assert names.qualified_name("example.com/") == [
        "name part must be non-empty",
        NAME_PART_MESSAGE,
    ]
    assert names.qualified_name("x" * 64) == ["name part must be no more than 63 characters"]


def test_more_than_one_slash_is_one_problem() -> None:
    (problem,) = names.qualified_name("a/b/c")
    assert problem.startswith("a qualified name must consist of alphanumeric characters")
    assert problem.endswith(
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
    )


def test_label_values_may_be_empty() -> None:
    assert names.label_value("") == []
    assert names.label_value("MyValue_1.2") == []
    assert names.label_value("-bad") == [LABEL_VALUE_MESSAGE]


def test_a_selector_joins_a_keys_problems_into_one_field_error() -> None:
    with pytest.raises(SelectorError) as caught:
        parse_label_selector("Bad.Prefix/-bad-name=x")
    assert str(caught.value) == (
        "unable to parse requirement: "
        f'key: Invalid value: "Bad.Prefix/-bad-name": prefix part {SUBDOMAIN_MESSAGE}; '
        f"{NAME_PART_MESSAGE}"
    )
