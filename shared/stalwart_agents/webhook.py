"""Posting a pause to a team's webhook, signed so the receiver knows it came from us.

The signature is Stripe's scheme, so a receiver can verify it with a library it
already has::

    Stalwart-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">

Several ``v1=`` values may stand in one header and several secrets may be tried,
so a secret can be rotated without a moment in which deliveries fail.  Errors
name the target as ``scheme://host[:port]/path`` only: a query string or userinfo
may carry a credential, and these messages end up in replies and logs.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
import time
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

import httpx

from .errors import StalwartError
from .pause import Pause, canonical

HEADER = "Stalwart-Signature"
DELIVERY_HEADER = "Stalwart-Delivery"
USER_AGENT = "stalwart-agents"
SCHEME = "v1"
MAX_HEADER_LENGTH = 4096
RETRY_PAUSE = 0.2

_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_SIGNATURE = re.compile(r"[0-9a-f]{64}")


class BadSignature(StalwartError):
    """A delivery that cannot be shown to come from the holder of the secret, and why."""

    code = "bad_signature"


class WebhookError(StalwartError):
    """Every attempt to deliver failed; ``target`` is the URL without query or userinfo."""

    code = "not_notified"

    def __init__(self, message: str, *, target: str, delivery: str, causes: list[str]) -> None:
        super().__init__(message)
        self.target, self.delivery, self.causes = target, delivery, causes


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
    secret: str | Sequence[str], header: str | None, body: bytes, tolerance: int = 300, *, now: float | None = None,
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


def _target(url: str) -> str:
    """``scheme://host[:port]/path``: what of a URL may be shown; ValueError where there is no http(s) host."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ValueError("webhook url is not a valid URL") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError("webhook url must be http or https")
    if not parts.hostname:
        raise ValueError("webhook url has no host")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}{'' if port is None else f':{port}'}{parts.path}"


def _cause(exc: httpx.TransportError) -> str:
    """What went wrong, from the operating system's words where there are some: never the URL."""
    if isinstance(exc, httpx.TimeoutException):
        return "timed out"
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.strerror:
            return seen.strerror.lower()
        seen = seen.__cause__ or seen.__context__
    return type(exc).__name__


class Webhook:
    """``on_interrupt`` for a Desk: posts each new pause to a URL, signed with ``secret``.

    The body carries the pause's token, because the channel that receives it answers
    with it.  Each attempt is signed afresh, so a retry is never refused as stale; the
    delivery id stays the same, so a receiver can drop a duplicate.
    """

    def __init__(
        self, url: str, secret: str, *, timeout: float = 5.0, attempts: int = 2,
        clock: Callable[[], float] = time.time, transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not isinstance(url, str):
            raise ValueError("webhook url must be a string")
        self.target = _target(url)
        if not isinstance(secret, str) or not secret:
            raise ValueError("webhook secret must be a non-empty string")
        if timeout <= 0:
            raise ValueError("webhook timeout must be positive")
        if attempts < 1:
            raise ValueError("webhook attempts must be at least 1")
        self._url = url
        self._secret = secret
        self.timeout = timeout
        self.attempts = attempts
        self._clock = clock
        self._transport = transport
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def __call__(self, thread: str, interrupt: Pause) -> None:
        self.deliver(*self.payload(thread, interrupt))

    def payload(self, thread: str, interrupt: Pause) -> tuple[str, bytes]:
        """The delivery id and the JSON body; the id depends on the URL and the pause only."""
        delivery = "d_" + hashlib.sha256((self._url + interrupt.id).encode()).hexdigest()[:32]
        body = {"delivery": delivery, "type": "interrupt", "thread": thread, "interrupt": interrupt.to_dict()}
        return delivery, canonical(body).encode()

    def deliver(self, delivery: str, body: bytes) -> None:
        """POST ``body``; any 2xx is delivered.  Redirects are not followed: the signed body goes where it was sent."""
        causes: list[str] = []
        for attempt in range(1, self.attempts + 1):
            headers = {
                "Content-Type": "application/json",
                HEADER: sign(self._secret, body, timestamp=int(self._clock())),
                DELIVERY_HEADER: delivery,
                "User-Agent": USER_AGENT,
            }
            try:
                with self.client.stream("POST", self._url, content=body, headers=headers) as response:
                    if 200 <= response.status_code < 300:
                        return
                    causes.append(f"status {response.status_code}")
            except httpx.TransportError as exc:
                causes.append(_cause(exc))
            if attempt < self.attempts:
                time.sleep(RETRY_PAUSE)
        tried = f"{self.attempts} attempt{'s' if self.attempts > 1 else ''}"
        raise WebhookError(
            f"webhook {self.target} not notified after {tried}: {'; '.join(causes)}",
            target=self.target, delivery=delivery, causes=causes,
        )

    @property
    def client(self) -> httpx.Client:
        """One client per webhook, made on first use, so connections are reused across pauses."""
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(timeout=self.timeout, transport=self._transport, follow_redirects=False)
            return self._client

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def __enter__(self) -> Webhook:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Webhook({self.target!r}, timeout={self.timeout}, attempts={self.attempts})"
