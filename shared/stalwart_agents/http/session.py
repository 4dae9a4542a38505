"""Sessions: ids the service hands out in ``Stalwart-Session``, signed so a client cannot choose its own.

A session id is a random part and its HMAC under a key kept in the run store,
so every worker and every Lambda checks it without a lookup, and an id the
service never issued is replaced rather than adopted.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
        return hmac.new(self._key, part.encode(), hashlib.sha256).hexdigest()[:32]


def digest(session: str) -> str:
    """What the store keeps of a session: enough to match it, nothing to replay."""
    return hashlib.sha256(session.encode()).hexdigest()


class SessionMiddleware:
    """Puts the request's session in ``scope["state"]["session"]`` and hands out a new one where needed."""

    def __init__(self, app: ASGIApp, sessions: Sessions) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get(HEADER)
        session = given if given is not None and self.sessions.valid(given) else self.sessions.issue()
        scope.setdefault("state", {})["session"] = session

        async def send_with_session(message: Message) -> None:
            if message["type"] == "http.response.start" and session != given:
                MutableHeaders(scope=message).append(HEADER, session)
            await send(message)

        await self.app(scope, receive, send_with_session)
