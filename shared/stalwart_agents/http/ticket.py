"""Stream tickets: how a browser's EventSource, which cannot send headers, proves who it is.

An authenticated call on a thread (what waits, a turn, an answer) hands back a
ticket in ``Stalwart-Stream-Ticket``: the thread, the principal and an expiry,
under an HMAC with a key kept in the run store, so any worker or Lambda checks
it without a lookup.  It opens that one thread's stream, for that principal,
for ``LIFETIME`` seconds, and nothing else: a ticket that leaks through a URL
log cannot answer a pause or read another thread.  A cookie was the other way;
it would ride along on requests a hostile page makes, and a chat embedded on
another origin would need third-party cookies, which browsers block.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

HEADER = "Stalwart-Stream-Ticket"
LIFETIME = 600
_COMPACT = json.JSONEncoder(separators=(",", ":"))
"""``json.dumps(..., separators=(",", ":"))``, whose encoder is built once rather than for every ticket."""


class Tickets:
    def __init__(self, key: bytes) -> None:
        self._key = hmac.new(key, b"stalwart stream ticket", hashlib.sha256).digest()

    def mint(self, thread: str, owner: str, now: float) -> str:
        body = _COMPACT.encode([thread, owner, int(now) + LIFETIME]).encode()
        part = base64.urlsafe_b64encode(body).decode().rstrip("=")
        return f"{part}.{self._mac(part)}"

    def owner(self, ticket: str, thread: str, now: float) -> str | None:
        """The principal (its key) a ticket was minted for, if it is ours, for this thread and not expired."""
        part, _, mac = ticket.partition(".")
        if not part or not hmac.compare_digest(mac.encode(), self._mac(part).encode()):
            return None
        try:
            given, owner, expires = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
        except (ValueError, TypeError):
            return None
        return owner if given == thread and isinstance(owner, str) and now < expires else None

    def _mac(self, part: str) -> str:
        return hmac.digest(self._key, part.encode(), "sha256").hex()[:32]
