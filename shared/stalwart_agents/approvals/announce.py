"""Telling ``on_interrupt`` of a new pause, and writing on the pause how that went.

One way for every door (the Desk, the fan-out from DynamoDB's stream, the
LangGraph server): a receiver that fails never fails the turn, which already
ran; the failure is written on the pause, so what waits can say what was not
notified, and a reply lists it under ``not_notified``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from ..engine.pause import Pause
from ..engine.reply import NotNotified
from ..storage import Storage

Notify = Callable[[str, Pause], object]
"""``on_interrupt(thread, pause)``: a ``Webhook`` is one."""
FIRST_RETRY = 30.0
"""Seconds after a failed announcement before the background tries again (``redeliver.Backoff.first``): a
receiver that just failed is rarely back within the few seconds between two looks."""


def announce(store: Storage, notify: Notify, pause: Pause, told: Pause | None = None) -> NotNotified | None:
    """Tell ``notify`` of ``pause`` (as ``told``, where that says more); what failed, or None."""
    try:
        receipts = notify(pause.thread, told or pause)
    except Exception as exc:
        missed, at = not_notified(pause.id, exc), time.time()
        failed = {"delivered": False, **missed, "at": at, "attempts": 1, "next_at": at + FIRST_RETRY}
        _note(store, pause, failed | kept(exc))
        return missed
    _note(store, pause, {"delivered": True, "at": time.time(), "attempts": 1} | kept(receipts))
    return None


def kept(told: object) -> dict[str, object]:
    """What a delivery record keeps of the channels' receipts (``channels.Channels``): what they returned, or what
    those that posted had kept where another failed."""
    receipts = getattr(told, "receipts", told)
    return {"receipts": receipts} if isinstance(receipts, Mapping) and receipts else {}


def not_notified(pause_id: str, exc: Exception) -> NotNotified:
    """What a reply says of a pause it could not announce: our errors' words, or only the kind of a foreign one."""
    return {"interrupt": pause_id, "error": getattr(exc, "message", None) or type(exc).__name__}


def _note(store: Storage, pause: Pause, delivery: Mapping[str, object]) -> None:
    store.note_delivery(pause.run, pause.id, dict(delivery))
