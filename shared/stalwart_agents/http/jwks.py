"""An OpenID Connect provider's signing keys, fetched from its JWKS and cached.

Keys are fetched on first use and kept for ``Keys.TTL`` seconds.  A token naming a key
id the cache lacks makes one fetch again (the provider may have rotated), but no
more often than once per ``Keys.REFETCH`` seconds, so a stream of made-up key ids costs
the provider nothing.  Only https is fetched, except from a loopback address.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..errors import IssuerUnavailable, Unauthorized

TIMEOUT = 5.0
LOOPBACK = ("127.0.0.1", "localhost", "::1")
log = logging.getLogger("stalwart_agents")


class Keys:
    """``key(kid)``: the provider's public key with that id, as PyJWT takes it."""

    TTL = 3600.0
    REFETCH = 30.0

    def __init__(self, url: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        _check_url(url, "JWKS")
        self.url, self.clock = url, clock
        self._keys: dict[str | None, Any] = {}
        self._fetched: float | None = None
        self._tried = float("-inf")
        self._lock = threading.Lock()

    @staticmethod
    def discover(issuer: str) -> str:
        """The ``jwks_uri`` of the issuer's OpenID Connect discovery document."""
        url = issuer.rstrip("/") + "/.well-known/openid-configuration"
        _check_url(url, "issuer")
        try:
            document = httpx.get(url, timeout=TIMEOUT).raise_for_status().json()
        except (httpx.HTTPError, ValueError) as exc:
            raise ValueError(f"could not read the issuer's discovery document at {url}: {type(exc).__name__}") from None
        jwks_uri = document.get("jwks_uri") if isinstance(document, dict) else None
        if not isinstance(jwks_uri, str):
            raise ValueError(f"the issuer's discovery document at {url} names no jwks_uri")
        return jwks_uri

    def key(self, kid: str | None) -> Any:
        with self._lock:
            now = self.clock()
            stale = self._fetched is None or now - self._fetched > self.TTL
            if (stale or kid not in self._keys) and now - self._tried >= self.REFETCH:
                self._fetch(now)
            if kid not in self._keys:
                if self._fetched is None:
                    raise IssuerUnavailable("the issuer's keys could not be read; try again shortly")
                raise Unauthorized("the bearer token is signed with a key the issuer does not publish")
            return self._keys[kid]

    def _fetch(self, now: float) -> None:
        import jwt

        self._tried = now
        try:
            document = httpx.get(self.url, timeout=TIMEOUT).raise_for_status().json()
            if not isinstance(document, dict):
                raise ValueError("the JWKS is not a JSON object")
            found = jwt.PyJWKSet.from_dict(document)
        except (httpx.HTTPError, ValueError, jwt.PyJWTError) as exc:
            log.warning("could not read the JWKS at %s: %s", _shown(self.url), type(exc).__name__)
            return
        self._keys = {jwk.key_id: jwk for jwk in found.keys if jwk.public_key_use in (None, "sig")}
        self._fetched = now


def _shown(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}{parts.path}"


def _check_url(url: str, what: str) -> None:
    parts = urlsplit(url)
    if parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK):
        return
    raise ValueError(
        f"the {what} URL must be https (http only on a loopback address): {parts.scheme}://{parts.hostname}"
    )
