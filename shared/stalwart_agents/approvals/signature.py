"""The ``Stalwart-Signature`` scheme: Stripe's, so a receiver can verify it with a library it already has.

    Stalwart-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">

Several ``v1=`` values may stand in one header and several secrets may be tried,
so a secret can be rotated without a moment in which deliveries fail.  This
module needs nothing but the standard library, so the service can check signed
resumes without importing an HTTP client.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time
from collections.abc import Sequence

from ..errors import StalwartError

HEADER = "Stalwart-Signature"
SCHEME = "v1"
MAX_HEADER_LENGTH = 4096
STANDARD_PREFIX = "whsec_"

_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_SIGNATURE = re.compile(r"[0-9a-f]{64}")


class BadSignature(StalwartError):
    """A delivery that cannot be shown to come from the holder of the secret, and why."""

    code = "bad_signature"
    status = 401


def standard_signature(secret: str, delivery: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` of Standard Webhooks (standardwebhooks.com), sent beside ours.

    Its key is what a secret written as Standard Webhooks writes theirs
    (``whsec_<base64>``) encodes, so a receiver hands its library that same secret;
    any other secret's bytes, so a receiver hands its library ``"whsec_" + base64(secret)``.
    """
    mac = hmac.new(standard_key(secret), f"{delivery}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return f"v1,{base64.b64encode(mac).decode()}"


def standard_key(secret: str) -> bytes:
    """The key ``standard_signature`` signs with: what a ``whsec_<base64>`` secret encodes, else the secret's bytes."""
    if secret.startswith(STANDARD_PREFIX):
        try:
            return base64.b64decode(secret[len(STANDARD_PREFIX) :], validate=True)
        except ValueError:
            pass
    return secret.encode()


def _mac(secret: str, timestamp: int, body: bytes) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def sign(secret: str, body: bytes, *, timestamp: int | None = None) -> str:
    """The ``Stalwart-Signature`` header value for ``body``, at ``timestamp`` (now by default)."""
    if timestamp is None:
        timestamp = int(time.time())
    return f"t={timestamp},{SCHEME}={_mac(secret, timestamp, body)}"


def _parse(header: object) -> tuple[int, list[str]]:
    """The timestamp and the ``v1`` signatures of a header; anything else it carries is ignored.

    Strict about what it reads, so that no input from the network reaches ``int()`` or
    ``compare_digest`` in a shape they would raise on.
    """
    if header is None or header == "":
        raise BadSignature(f"missing {HEADER} header")
    if not isinstance(header, str):
        raise BadSignature(f"malformed {HEADER} header: not text")
    if len(header) > MAX_HEADER_LENGTH:
        raise BadSignature(f"malformed {HEADER} header: longer than {MAX_HEADER_LENGTH} characters")
    timestamp: int | None = None
    signatures: list[str] = []
    for item in header.split(","):
        key, equals, value = item.strip(" \t").partition("=")
        if not equals:
            raise BadSignature(f"malformed {HEADER} header: an element is not key=value")
        if key == "t":
            if timestamp is not None:
                raise BadSignature(f"malformed {HEADER} header: more than one timestamp")
            if not _TIMESTAMP.fullmatch(value):
                raise BadSignature(f"malformed {HEADER} header: the timestamp is not a whole number of seconds")
            timestamp = int(value)
        elif key == SCHEME:
            if not _SIGNATURE.fullmatch(value):
                raise BadSignature(f"malformed {HEADER} header: a {SCHEME} value is not 64 lowercase hex digits")
            signatures.append(value)
    if timestamp is None:
        raise BadSignature(f"malformed {HEADER} header: no timestamp")
    if not signatures:
        raise BadSignature(f"malformed {HEADER} header: no {SCHEME} signature")
    return timestamp, signatures


def verify_signature(
    secret: str | Sequence[str],
    header: str | None,
    body: bytes,
    tolerance: int = 300,
    *,
    now: float | None = None,
) -> int:
    """The timestamp the sender signed ``body`` at; BadSignature unless a secret signed it within ``tolerance``.

    Every signature is compared against every secret, in constant time and without
    stopping at the first match, so timing tells nothing about which came close.  The
    timestamp is judged only once the signature holds, as only then is it the sender's;
    it is refused when too old (a replay) and when too far ahead (a replay prepared for later).
    """
    keys = [secret] if isinstance(secret, str) else list(secret)
    if not keys or not all(isinstance(key, str) and key for key in keys):
        raise ValueError("verify_signature needs at least one non-empty secret")
    if tolerance < 0:
        raise ValueError("tolerance must not be negative")
    timestamp, signatures = _parse(header)
    matched = False
    for key in keys:
        expected = _mac(key, timestamp, body).encode()
        for signature in signatures:
            matched |= hmac.compare_digest(expected, signature.encode())
    if not matched:
        raise BadSignature(f"no {SCHEME} signature matches the body under the secret")
    age = (time.time() if now is None else now) - timestamp
    if age > tolerance:
        raise BadSignature(f"timestamp too old: signed {int(age)} s ago, tolerance {tolerance} s")
    if -age > tolerance:
        raise BadSignature(f"timestamp in the future: {int(-age)} s ahead, tolerance {tolerance} s")
    return timestamp
