"""Signed links: one URL per answer a pause takes, for a person to click in a mail or a chat message.

A link names the pause, the decision and a digest of the pause's token, with
an expiry, under an HMAC-SHA256 whose key the run store keeps (so every worker
reads any worker's links without a lookup).  It never carries the token itself
nor the thread: a link that leaks through a log, a forward or a proxy is good
only for its one decision on its one pause, until it expires or the pause is
answered, whichever comes first.  Opening one shows a page; only its POST acts
(``link_page.py``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..engine.pause import Pause, iso
from ..errors import LinkExpired, NotALink
from ..http.boundary import LOOPBACK_HOSTS
from ..storage import Storage

__all__ = ["Link", "Links"]

DEFAULT_HOURS = 24.0
MAX_HOURS = 30 * 24.0
MAX_LINK = 1024
"""Characters a link may have: far past any we mint, so a huge path is refused before it is decoded."""
PATH = "/links/"
_CONTEXT = b"stalwart link v1\x00"


def link_hours(text: str) -> float | None:
    """Hours as a person writes them (``--link-hours``, ``STALWART_LINK_HOURS``); None for anything that is not
    a number above 0 and at most ``MAX_HOURS``, for the caller to say where it came from."""
    try:
        hours = float(text)
    except ValueError:
        return None
    return hours if 0 < hours <= MAX_HOURS else None


@dataclass(frozen=True)
class Link:
    """What a verified link says: answer ``pause`` with ``decision``, if its token still digests to ``token``."""

    pause: str
    decision: str
    token: str
    expires: int

    def matches(self, token: str) -> bool:
        """Whether the pause's stored token is the one this link was minted for."""
        return hmac.compare_digest(self.token, token_digest(token))


class Links:
    """Mints and reads the links of one service, whose public address is ``base`` (``https://approvals.example``).

    Each link is good for ``hours`` from when it is minted; ``clock`` is injectable so tests expire one at will.
    """

    def __init__(
        self,
        store: Storage,
        base: str,
        *,
        hours: float = DEFAULT_HOURS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not 0 < hours <= MAX_HOURS:
            raise ValueError(f"links last from a moment to {MAX_HOURS:g} hours, not {hours:g}")
        self.base = public_base(base)
        self.hours = hours
        self._clock = clock
        self._key = store.secret("links", secrets.token_hex(32)).encode()

    def mint(self, pause: Pause) -> dict[str, str]:
        """One absolute URL per answer ``pause`` takes; none for an ask, whose answer is a value a link cannot hold,
        nor for a pause past its deadline.  A link never outlives the pause's deadline."""
        now, deadline = self._clock(), pause.expires_at
        expires = int(now + self.hours * 3600 if deadline is None else min(now + self.hours * 3600, deadline))
        if pause.kind == "ask" or expires <= now:
            return {}
        return {decision: self.url(self._sealed(pause, decision, expires)) for decision in pause.answers}

    def url(self, link: str) -> str:
        return f"{self.base}{PATH}{link}"

    def read(self, link: str) -> Link:
        """What ``link`` says, once its MAC verifies and it has not expired; ``NotALink`` or ``LinkExpired`` if not."""
        body, _, mac = link.partition(".")
        if len(link) > MAX_LINK or not body or not hmac.compare_digest(_text(mac), _text(self._mac(body))):
            raise NotALink("this is not a link this service made, or it was changed after it was made")
        read = _fields(body)
        if self._clock() >= read.expires:
            said = f"this link expired at {iso(read.expires)}; ask for the pause to be sent again"
            raise LinkExpired(said, pause=read.pause)
        return read

    def _sealed(self, pause: Pause, decision: str, expires: int) -> str:
        fields = [pause.id, decision, token_digest(pause.token), expires]
        body = _b64(json.dumps(fields, separators=(",", ":")).encode())
        return f"{body}.{self._mac(body)}"

    def _mac(self, body: str) -> str:
        return _b64(hmac.new(self._key, _CONTEXT + body.encode(), hashlib.sha256).digest())


def token_digest(token: str) -> str:
    """What a link keeps of the pause's token: enough to bind it, nothing that answers the pause elsewhere."""
    return hashlib.sha256(b"stalwart link token\x00" + token.encode()).hexdigest()[:32]


def public_base(url: str) -> str:
    """``scheme://host[:port][/path]`` without a trailing slash: https, or http on loopback only."""
    try:
        parts = urlsplit(url)
        valid = parts.port is None or parts.port > 0
    except ValueError:
        valid = False
    if not valid:
        raise ValueError(f"the public URL is not a valid URL: {url!r}")
    loopback = parts.hostname in LOOPBACK_HOSTS
    if parts.scheme != "https" and not (parts.scheme == "http" and loopback):
        raise ValueError(f"the public URL must be https (http only on loopback), not {url!r}")
    if not parts.hostname or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"the public URL is scheme://host[:port][/path], nothing more, not {url!r}")
    return url.rstrip("/")


def _fields(body: str) -> Link:
    """A body whose MAC verified is one we made; anything else in it is still refused, never a crash."""
    try:
        pause, decision, token, expires = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (ValueError, TypeError, binascii.Error):
        raise NotALink("this is not a link this service made") from None
    if not all(isinstance(v, str) for v in (pause, decision, token)) or not isinstance(expires, int):
        raise NotALink("this is not a link this service made")
    return Link(pause, decision, token, expires)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _text(part: str) -> bytes:
    return part.encode("utf-8", "surrogatepass")
