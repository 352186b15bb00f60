"""aiohttp's default TLS contexts, imported after kubeforge: same CAs, read on first use.

Each case runs in a fresh interpreter, where kubeforge is imported before aiohttp,
and compares aiohttp's two default contexts with what ``ssl`` builds itself.
"""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, ssl
import kubeforge
import aiohttp.connector as connector

def stored(context):  # the base class's view: asking must not trigger the load
    return ssl._ssl._SSLContext.cert_store_stats(context)["x509_ca"]

verified, unverified = connector._SSL_CONTEXT_VERIFIED, connector._SSL_CONTEXT_UNVERIFIED
before = [stored(verified), stored(unverified)]
verified.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.com")
after_wrap = stored(verified)
print(json.dumps({
    "before": before,
    "after_wrap": after_wrap,
    "asked_unverified": unverified.cert_store_stats()["x509_ca"],
    "system": ssl.create_default_context().cert_store_stats()["x509_ca"],
    "verify_modes": [verified.verify_mode == ssl.CERT_REQUIRED, verified.check_hostname,
                     unverified.verify_mode == ssl.CERT_NONE],
    "patched_left": "set_default_verify_paths" in vars(ssl.SSLContext),
}))
"""


def _probe() -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_aiohttps_default_contexts_read_the_system_cas_when_first_used() -> None:
    result = _probe()
    assert result["before"] == [0, 0]
    assert result["after_wrap"] == result["system"]
    assert result["asked_unverified"] == result["system"]
    assert result["verify_modes"] == [True, True, True]


def test_the_ssl_module_is_left_as_it_was() -> None:
    assert _probe()["patched_left"] is False
