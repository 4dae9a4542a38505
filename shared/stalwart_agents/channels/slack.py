"""Slack as a channel: each pause posted as its card, each click answered as the Slack user who clicked.

The first announcement of a pause is a message in the channel agent.yaml names (or
the one its ``channel_for`` picks for the pause), with one button per answer the
card offers; a button carries the pause and the decision, never the pause's token.
A call nothing can undo, and any the team's ``link_only`` names, gets buttons that
open its signed links instead, so one click in a chat never runs it; without links
(no public URL), the message sends the person to the app.  A reminder or the
escalation is a reply in the message's thread, and refreshes the message (its
deadline line, its links).

Once the pause is decided the message becomes the record of the decision ("Fiona
approved: ..." and when); a decided pause always renders its decision, so settling
again, late or out of order, never brings the buttons back.

A person who clicks is a principal to the rules: ``iss`` names the Slack workspace,
``sub`` the user, with their name and e-mail from Slack's users API (kept a few
minutes) and the team's groups agent.yaml gives them.  The click route is
``http/slack.py``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web import SlackResponse

from .. import telemetry
from ..approvals.card import Card, expired_of
from ..approvals.principal import Principal
from ..approvals.rules import about
from ..config import FromEnv, SlackConfig
from ..engine.pause import Pause
from ..errors import ConfigError, StalwartError
from ..reading import cel
from .blocks import Block, decided_blocks, escaped, notice, open_blocks, record_of, woken_blocks

if TYPE_CHECKING:
    from ..storage import PauseRecord
    from . import Receipt

__all__ = ["ISSUER_PREFIX", "Slack", "SlackError"]

ISSUER_PREFIX = "slack:"
"""A Slack user's principal is issued by ``slack:<workspace id>``."""
PEOPLE_SECONDS = 300.0
"""How long what Slack said of a user (name, e-mail) is kept before it is asked again."""
KEPT = 10_000
"""How many users, messages and click signatures one process remembers (the oldest are forgotten first)."""
log = logging.getLogger("stalwart_agents.channels")
T = TypeVar("T")


class SlackError(StalwartError):
    """Slack refused a call or could not be reached; the message names the method and Slack's error code only."""

    code = "slack_failed"
    status = 502


class Slack:
    """The Slack channel of a service: ``Channel`` (``announce``, ``settle``) for ``channels.Channels``, and what
    the click route (``http/slack.py``) needs: the verifier, who clicked, and a word to the clicker alone.

    ``cards`` gives the card a channel reads of a pause; ``links`` the signed link of each decision, where the
    service has a public address.  ``read_pause`` (the click route sets it to the store's) lets a message
    settled while the pause was still open be settled again at once if the pause was decided meanwhile;
    ``shown`` (set with it) shows an open pause with the approvals given so far.
    """

    name = "slack"

    def __init__(
        self,
        config: SlackConfig,
        environ: Mapping[str, str],
        cards: Callable[[Pause], Card],
        links: Callable[[Pause], dict[str, str]] | None = None,
        *,
        clock: Callable[[], float] = time.time,
        timeout: int = 10,
    ) -> None:
        self.config = config
        self.cards, self.links = cards, links
        self.client = WebClient(token=_secret(environ, config.bot_token), base_url=config.api_url, timeout=timeout)
        self.verifier = SignatureVerifier(_secret(environ, config.signing_secret))
        self.read_pause: Callable[[str], PauseRecord | None] | None = None
        self.shown: Callable[[Pause], Pause] | None = None
        """The pause as its approvers see it now, with the approvals given so far (which its record does not keep):
        the click route (``http/slack.attach``) sets it, and ``read_pause``, to the door's."""
        self._clock = clock
        self._people: _Kept[tuple[float, dict[str, Any]]] = _Kept()
        """What Slack said of each user (name, e-mail), and until when it is taken as said."""
        self._shown: _Kept[_Shown] = _Kept()
        self._clicks: _Kept[bool] = _Kept()
        """The signatures of the clicks taken: Slack never sends one request twice, so a second is a replay."""
        self._locks = tuple(threading.Lock() for _ in range(32))

    # --- announcing -----------------------------------------------------------------------------------------

    def announce(self, pause: Pause, receipt: Receipt | None) -> Receipt | None:
        """The card, as a new message; a reminder or the escalation, as a reply in its thread."""
        with telemetry.current().delivery("slack", pause):
            return self._announce(pause, receipt)

    def _announce(self, pause: Pause, receipt: Receipt | None) -> Receipt | None:
        card = self.cards(pause)
        channel, ts = _message(receipt)
        if receipt is None or channel is None or ts is None:
            return self._post(pause, card)
        escalation = pause.escalated and not receipt.get("escalated")
        if self._decided(channel, ts):
            return receipt
        self._refresh(pause, card, channel, ts)
        text, blocks = woken_blocks(card, escalation)
        reply = {"channel": channel, "thread_ts": ts, "text": text, "blocks": blocks, "reply_broadcast": escalation}
        self._called("chat.postMessage", self.client.chat_postMessage, **reply)
        return {**receipt, "escalated": True} if escalation else receipt

    def _post(self, pause: Pause, card: Card) -> Receipt:
        blocks = self.open_blocks(pause, card)
        text = notice(card)
        posted = self._called(
            "chat.postMessage", self.client.chat_postMessage, channel=self.channel_for(pause), text=text, blocks=blocks
        )
        channel, ts = str(posted["channel"]), str(posted["ts"])
        self._shown.put((channel, ts), _Shown(_digest(text, blocks), decided=False))
        return {"channel": channel, "ts": ts}

    def _refresh(self, pause: Pause, card: Card, channel: str, ts: str) -> None:
        """The message again as the card now reads (its deadline, its escalation, links minted afresh); a message
        Slack no longer has is only logged, and the reminder still goes out."""
        try:
            self._update(channel, ts, notice(card), self.open_blocks(pause, card), decided=False)
        except SlackError as exc:
            log.warning("the Slack message of pause %s was not refreshed: %s", pause.id, exc.message)

    def open_blocks(self, pause: Pause, card: Card) -> list[Block]:
        """The message of a pause that waits: buttons that answer, or that open the signed links."""
        return open_blocks(card, pause.id, (self.links(pause) if self.links else {}) if self.link_only(pause) else None)

    def channel_for(self, pause: Pause) -> str:
        """Where ``pause`` is posted: what ``channel_for`` gives for it, else the configured channel."""
        if self.config.channel_for is None:
            return self.config.channel
        chosen = cel.text_or_number(self.config.channel_for, about(pause))
        if isinstance(chosen, str) and chosen.strip():
            return chosen.strip()
        log.error("channels.slack.channel_for gave no channel for pause %s: posted to the channel", pause.id)
        return self.config.channel

    def link_only(self, pause: Pause) -> bool:
        """Whether ``pause`` is answered through its signed link, never one click: nothing undoes it, or the team's
        ``link_only`` holds (or cannot be evaluated: a mistake in it must not hand a click a call it meant to
        guard)."""
        if pause.irreversible:
            return True
        if self.config.link_only is None:
            return False
        holds = cel.evaluate(self.config.link_only, about(pause))
        if holds is None:
            log.error("channels.slack.link_only could not be evaluated for pause %s: its links only", pause.id)
        return holds is not False

    # --- settling -------------------------------------------------------------------------------------------

    def settle(self, pause: Pause, answer: Mapping[str, Any] | None, receipt: Receipt) -> None:
        """The message as the pause now stands: the record of its decision, or (one approval of several given, or
        nothing yet) the card again; a message this process showed decided is never shown open again."""
        channel, ts = _message(receipt)
        if channel is None or ts is None:
            return
        card = self.cards(pause)
        if answer is not None:
            then = expired_of(pause) if answer.get("decision") == "expired" else None
            blocks = decided_blocks(card, answer, then)
            self._update(channel, ts, escaped(record_of(card, answer)), blocks, decided=True)
            return
        if self.shown is not None:
            pause = self.shown(pause)
            card = self.cards(pause)
        self._update(channel, ts, notice(card), self.open_blocks(pause, card), decided=False)
        stored = self.read_pause(pause.id) if self.read_pause is not None else None
        if stored is not None and stored.answer is not None:  # decided while this was sent: the record wins
            self.settle(Pause.from_record(stored), stored.answer, receipt)

    def _update(self, channel: str, ts: str, text: str, blocks: list[Block], *, decided: bool) -> None:
        """``chat.update``, unless the message already says this, or already says who decided and this would not."""
        digest = _digest(text, blocks)
        with self._turn(channel, ts):
            shown = self._shown.get((channel, ts))
            if shown is not None and (shown.digest == digest or (shown.decided and not decided)):
                return
            self._called("chat.update", self.client.chat_update, channel=channel, ts=ts, text=text, blocks=blocks)
            self._shown.put((channel, ts), _Shown(digest, decided))

    def _decided(self, channel: str, ts: str) -> bool:
        shown = self._shown.get((channel, ts))
        return shown is not None and shown.decided

    @contextmanager
    def _turn(self, channel: str, ts: str) -> Iterator[None]:
        """One update of a message at a time in this process, so the later state is the one left standing."""
        with self._locks[hash((channel, ts)) % len(self._locks)]:
            yield

    # --- clicks ---------------------------------------------------------------------------------------------

    def verified(self, body: bytes, headers: Mapping[str, str]) -> bool:
        """Whether Slack signed ``body`` within five minutes (slack_sdk's verifier) and this process has not taken
        the same signed request before: a replayed click is refused as a forged one is."""
        try:
            valid = self.verifier.is_valid_request(body, headers)
        except ValueError:
            return False
        if not valid:
            return False
        signature = {k.lower(): v for k, v in headers.items()}["x-slack-signature"]
        return self._clicks.first(signature, True)

    def principal(self, user: str, team: str) -> Principal:
        """The Slack user ``user`` of the workspace ``team`` as a person to the rules: their name and e-mail as
        Slack's users API gives them, and the groups agent.yaml puts them in."""
        now = self._clock()
        kept = self._people.get((team, user))
        if kept is None or kept[0] <= now:
            kept = (now + PEOPLE_SECONDS, self._person(user))
            self._people.put((team, user), kept)
        claims = dict(kept[1])
        claims["groups"] = self.groups_of(user, claims.get("email"))
        return Principal(issuer=f"{ISSUER_PREFIX}{team}", subject=user, claims=claims)

    def _person(self, user: str) -> dict[str, Any]:
        found = self._called("users.info", self.client.users_info, user=user)
        person = found.get("user") or {}
        profile = person.get("profile") or {}
        name = profile.get("real_name") or profile.get("display_name") or person.get("real_name") or person.get("name")
        claims: dict[str, Any] = {"name": str(name or user)}
        if isinstance(profile.get("email"), str) and profile["email"]:
            claims["email"] = profile["email"]
        return claims

    def groups_of(self, user: str, email: object) -> list[str]:
        """The team's groups agent.yaml puts this Slack user in, by their id or their e-mail."""
        mail = email.casefold() if isinstance(email, str) else None
        return sorted(
            group
            for group, members in self.config.groups.items()
            if user in members or (mail is not None and mail in (m.casefold() for m in members))
        )

    def tell(self, channel: str, user: str, sentence: str) -> None:
        """A reply only ``user`` sees; the message everyone sees stays as it is."""
        self._called(
            "chat.postEphemeral", self.client.chat_postEphemeral, channel=channel, user=user, text=escaped(sentence)
        )

    def _called(self, method: str, call: Callable[..., SlackResponse], **arguments: Any) -> SlackResponse:
        """A Web API call; SlackError naming the method and Slack's error code (never a token) where it failed."""
        try:
            return call(**arguments)
        except SlackApiError as exc:
            raise SlackError(f"Slack refused {method}: {exc.response.get('error', 'no reason given')}") from None
        except (SlackClientError, OSError) as exc:
            raise SlackError(f"Slack could not be reached for {method}: {type(exc).__name__}") from None

    def __repr__(self) -> str:
        return f"Slack(channel={self.config.channel!r}, api_url={self.config.api_url!r})"


@dataclass(frozen=True)
class _Shown:
    """What this process last made a message say: a digest of it, and whether it was the record of a decision."""

    digest: str
    decided: bool


class _Kept(Generic[T]):
    """A small map that forgets its oldest entries past ``KEPT``, safe across threads."""

    def __init__(self) -> None:
        self._items: OrderedDict[Hashable, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> T | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: Hashable, value: T) -> None:
        with self._lock:
            self._put(key, value)

    def first(self, key: Hashable, value: T) -> bool:
        """Keep ``key``; whether it was not kept before (one of two at once is first)."""
        with self._lock:
            if key in self._items:
                return False
            self._put(key, value)
            return True

    def _put(self, key: Hashable, value: T) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > KEPT:
            self._items.popitem(last=False)


def _message(receipt: Mapping[str, Any] | None) -> tuple[str | None, str | None]:
    """The channel and ``ts`` of the message a receipt names."""
    if receipt is None:
        return None, None
    channel, ts = receipt.get("channel"), receipt.get("ts")
    return (channel if isinstance(channel, str) else None), (ts if isinstance(ts, str) else None)


def _digest(text: str, blocks: list[Block]) -> str:
    return hashlib.sha256(json.dumps([text, blocks], sort_keys=True).encode()).hexdigest()


def _secret(environ: Mapping[str, str], given: FromEnv) -> str:
    value = environ.get(given.env, "")
    if not value.strip():
        raise ConfigError(f"channels.slack: the environment variable {given.env} is not set")
    return value
