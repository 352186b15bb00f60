"""Warning headers always go out, whatever the text they carry."""

from __future__ import annotations

from kf_http import Api


async def test_an_unknown_field_with_control_characters_is_warned_about_escaped(
    api: Api, namespace: str
) -> None:
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "odd"},
        "\x1fweird\u00e9": 1,
    }
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", body)
    assert reply.status == 201
    warnings = reply.headers.getall("Warning", [])
    assert warnings == ['299 - "unknown field \\"\\x1fweird\\xe9\\""']


async def test_a_refused_write_still_carries_the_warnings_made_before_it(
    api: Api, namespace: str
) -> None:
    # The unknown field is warned of while the body is decoded; the bad name then makes
    # the create a 422, and a real server's warning recorder still writes the header.
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "Not_Valid"},
        "bogus": 1,
    }
    reply = await api.post(f"/api/v1/namespaces/{namespace}/configmaps", body)
    assert reply.status == 422
    assert reply.headers.getall("Warning", []) == ['299 - "unknown field \\"bogus\\""']
