"""Sessions: ids the service hands out in ``Stalwart-Session``, signed so a client cannot choose its own.

A session id is a random part and its HMAC under a key kept in the run store,
so every worker and every Lambda checks it without a lookup, and an id the
service never issued is replaced rather than adopted.  The edge's one pass
(``crossing.py``) reads or issues a request's session and hands a new one out.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

HEADER = "Stalwart-Session"


class Sessions:
    def __init__(self, key: str) -> None:
        self._key = key.encode()

    def issue(self) -> str:
        part = secrets.token_urlsafe(24)
        return f"{part}.{self._mac(part)}"

    def valid(self, session: str | None) -> bool:
        part, dot, mac = (session or "").partition(".")
        return bool(part and dot) and hmac.compare_digest(mac.encode(), self._mac(part).encode())

    def _mac(self, part: str) -> str:
        return hmac.digest(self._key, part.encode(), "sha256").hex()[:32]


def digest(session: str) -> str:
    """What the store keeps of a session: enough to match it, nothing to replay."""
    return hashlib.sha256(session.encode()).hexdigest()
