"""Channels: where a new pause is announced besides the chat (the webhook, Slack, mail), each once per pause.

A channel posts a pause (its first announcement, and each reminder or escalation the
clock makes of it) and keeps a receipt of what it posted (Slack's message), which the
pause's delivery record holds; once the pause is answered, expired or closed, each
channel settles what it posted (the message says who decided and when).  ``Channels``
is the one ``on_interrupt`` that fans a pause out to them: a channel that took the
pause is not sent it again when another failed and the pause is retried.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..engine.pause import Pause
from ..errors import StalwartError
from ..storage import PauseRecord
from ..vocabulary import JSON

if TYPE_CHECKING:
    from ..approvals.card import Card
    from ..config import ChannelsConfig

log = logging.getLogger("stalwart_agents.channels")

Receipt = dict[str, JSON]
"""What a channel keeps of what it posted about a pause (Slack's channel and ``ts``), to settle it later."""


class Channel(Protocol):
    """One way of asking people: it posts a pause and, once the pause is decided, settles what it posted."""

    name: str

    def announce(self, pause: Pause, receipt: Receipt | None) -> Receipt | None:
        """Post ``pause``: its first announcement, or a reminder (``pause.reminders``) or escalation
        (``pause.escalated``) of it; ``receipt`` is what this channel kept of the pause so far (None before its
        first post).  Raises where it could not: the pause is retried later."""
        ...

    def settle(self, pause: Pause, answer: Mapping[str, Any] | None, receipt: Receipt) -> None:
        """``pause`` was decided (``answer`` as the pause keeps it: decision, by, principal, channel, at) or closed
        unanswered (None): update what was posted, and never erase a decision already shown."""
        ...


class NotAllAnnounced(StalwartError):
    """Some channels could not post a pause; ``receipts`` holds what those that did kept."""

    code = "not_announced"
    status = 502

    def __init__(self, message: str, receipts: dict[str, Receipt]) -> None:
        super().__init__(message)
        self.receipts = receipts


class Channels:
    """Every channel a pause is announced on, as one ``on_interrupt``; each announces each event of a pause once."""

    def __init__(self, channels: Sequence[Channel]) -> None:
        self.channels = tuple(channels)

    def __call__(self, thread: str, pause: Pause) -> dict[str, Receipt]:
        """Announce ``pause`` on each channel that has not yet for this event (its first, or the clock's ``woken``-th);
        the receipts of all, to keep on the pause.  NotAllAnnounced, carrying them, where any failed."""
        receipts: dict[str, Receipt] = dict(receipts_of(pause.delivery))
        failed: list[str] = []
        for channel in self.channels:
            kept = receipts.get(channel.name)
            if kept is not None and kept.get("woken") == pause.woken:
                continue
            try:
                posted = channel.announce(pause, kept)
            except Exception as exc:
                failed.append(f"{channel.name}: {getattr(exc, 'message', None) or type(exc).__name__}")
                continue
            receipts[channel.name] = {**(posted or kept or {}), "woken": pause.woken}
        if failed:
            raise NotAllAnnounced("; ".join(failed), receipts)
        return receipts

    def settled(self, record: PauseRecord) -> None:
        """Tell each channel that posted ``record``'s pause how it was decided; a channel that fails is logged, never
        failing the answer, which was taken."""
        receipts = receipts_of(record.delivery)
        pause = Pause.from_record(record)
        for channel in self.channels:
            if channel.name not in receipts:
                continue
            try:
                channel.settle(pause, record.answer, receipts[channel.name])
            except Exception:
                log.exception("channel %s could not settle pause %s", channel.name, record.id)


def receipts_of(delivery: Mapping[str, Any] | None) -> dict[str, Receipt]:
    """The channels' receipts a pause's delivery record keeps."""
    kept = (delivery or {}).get("receipts")
    return dict(kept) if isinstance(kept, Mapping) else {}


class Posted:
    """An ``on_interrupt`` that only posts (the webhook) as a channel: announced like the others, nothing to settle."""

    def __init__(self, name: str, notify: Callable[[str, Pause], object]) -> None:
        self.name, self.notify = name, notify

    def announce(self, pause: Pause, receipt: Receipt | None) -> Receipt | None:
        self.notify(pause.thread, pause)
        return None

    def settle(self, pause: Pause, answer: Mapping[str, Any] | None, receipt: Receipt) -> None:
        return None


def channels_of(
    config: ChannelsConfig,
    environ: Mapping[str, str],
    cards: Callable[[Pause], Card],
    links: Callable[[Pause], dict[str, str]] | None,
    webhook: Callable[[str, Pause], object] | None = None,
) -> Channels | None:
    """The channels agent.yaml names, and the webhook where one is set, as one ``on_interrupt``; None for none."""
    made: list[Channel] = [Posted("webhook", webhook)] if webhook is not None else []
    if config.slack is not None:
        from .slack import Slack

        made.append(Slack(config.slack, environ, cards, links))
    if config.mail is not None:
        from .mail import Mail

        made.append(Mail(config.mail, environ, cards, links))
    return Channels(made) if made else None
