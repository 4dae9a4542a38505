"""Posting a pause to a team's webhook, signed (``signature.py``) so the receiver knows it came from us.

Errors name the target as ``scheme://host[:port]`` only: a path, a query string or
userinfo may carry a credential (a capability URL is one), and these messages end up
in replies, ``not_notified`` and logs.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .. import telemetry
from ..engine.pause import Pause, canonical
from ..errors import StalwartError
from .card import Card
from .signature import HEADER, BadSignature, sign, standard_signature, verify_signature

if TYPE_CHECKING:
    import httpx

    from .links import Links

__all__ = ["BadSignature", "Webhook", "WebhookError", "sign", "verify_signature"]

DELIVERY_HEADER = "Stalwart-Delivery"
USER_AGENT = "stalwart-agents"
RETRY_PAUSE = 0.2


class WebhookError(StalwartError):
    """Every attempt to deliver failed; ``target`` is the URL's scheme, host and port, nothing more."""

    code = "not_notified"
    status = 502

    def __init__(self, message: str, *, target: str, delivery: str, causes: list[str]) -> None:
        super().__init__(message)
        self.target, self.delivery, self.causes = target, delivery, causes


def target_of(url: str) -> str:
    """``scheme://host[:port]``: what of a URL may be shown; ValueError where there is no http(s) host."""
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
    return f"{parts.scheme}://{host}{'' if port is None else f':{port}'}"


def _cause(exc: httpx.TransportError) -> str:
    """What went wrong, from the operating system's words where there are some: never the URL."""
    import httpx

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
    delivery id stays the same, so a receiver can drop a duplicate.  With ``links``, the
    body also carries ``links``: a signed URL per answer the pause takes, minted afresh
    for each delivery, so a redelivered pause never carries links that expired waiting.  With
    ``cards`` (the service sets it), the body carries ``card``: the pause as a channel's reader sees it
    (``approvals/card.py``), for a receiver to render instead of the raw pause.
    """

    def __init__(
        self,
        url: str,
        secret: str,
        *,
        timeout: float = 5.0,
        attempts: int = 2,
        clock: Callable[[], float] = time.time,
        transport: httpx.BaseTransport | None = None,
        links: Links | None = None,
        cards: Callable[[Pause], Card] | None = None,
    ) -> None:
        if not isinstance(url, str):
            raise ValueError("webhook url must be a string")
        self.target = target_of(url)
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
        self.links = links
        self.cards = cards
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def __call__(self, thread: str, pause: Pause) -> None:
        with telemetry.current().delivery("webhook", pause):
            self.deliver(*self.payload(thread, pause))

    def payload(self, thread: str, pause: Pause) -> tuple[str, bytes]:
        """The delivery id and the JSON body.  The id depends on the URL, the pause and how far its deadline has
        gone only: a reminder (``reminder: n``) or an escalation (``escalated``) is a delivery of its own."""
        woken = f"#{pause.woken}" if pause.woken else ""
        delivery = "d_" + hashlib.sha256((self._url + pause.id + woken).encode()).hexdigest()[:32]
        body: dict[str, object] = {
            "delivery": delivery,
            "type": "interrupt",
            "thread": thread,
            "interrupt": pause.to_dict(),
        }
        if pause.reminders:
            body["reminder"] = pause.reminders
        if pause.escalated:
            body["escalated"] = True
        if self.cards is not None:
            body["card"] = self.cards(pause)
        links = self.links.mint(pause) if self.links is not None else {}
        if links:
            body["links"] = links
        return delivery, canonical(body).encode()

    def deliver(self, delivery: str, body: bytes) -> None:
        """POST ``body``; any 2xx is delivered.  Redirects are not followed: the signed body goes where it was sent.
        Where telemetry is on, the ``traceparent`` header carries the delivery's span, in the trace the pause was
        opened in, for the receiver to answer within."""
        import httpx  # here, not at import: only what posts pays for it (a route function's cold start does not)

        causes: list[str] = []
        for attempt in range(1, self.attempts + 1):
            now = int(self._clock())
            headers = {
                "Content-Type": "application/json",
                HEADER: sign(self._secret, body, timestamp=now),
                DELIVERY_HEADER: delivery,
                "webhook-id": delivery,
                "webhook-timestamp": str(now),
                "webhook-signature": standard_signature(self._secret, delivery, now, body),
                "User-Agent": USER_AGENT,
                **telemetry.current().outgoing(),
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
            target=self.target,
            delivery=delivery,
            causes=causes,
        )

    @property
    def client(self) -> httpx.Client:
        """One client per webhook, made on first use, so connections are reused across pauses."""
        import httpx

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
