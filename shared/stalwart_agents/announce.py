"""Telling ``on_interrupt`` of a new pause, and writing on the pause how that went.

One way for every door (the Desk, the fan-out from DynamoDB's stream, the
LangGraph server): a receiver that fails never fails the turn, which already
ran; the failure is written on the pause, so what waits can say what was not
notified, and a reply lists it under ``not_notified``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .pause import Delivery, Pause
from .reply import NotNotified
from .storage import Storage

Notify = Callable[[str, Pause], object]
"""``on_interrupt(thread, pause)``: a ``Webhook`` is one."""


def announce(store: Storage, notify: Notify, pause: Pause, told: Pause | None = None) -> NotNotified | None:
    """Tell ``notify`` of ``pause`` (as ``told``, where that says more); what failed, or None."""
    try:
        notify(pause.thread, told or pause)
    except Exception as exc:
        missed = not_notified(pause.id, exc)
        _note(store, pause, {"delivered": False, **missed, "at": time.time()})
        return missed
    _note(store, pause, {"delivered": True, "at": time.time()})
    return None


def not_notified(pause_id: str, exc: Exception) -> NotNotified:
    """What a reply says of a pause it could not announce: our errors' words, or only the kind of a foreign one."""
    return {"interrupt": pause_id, "error": getattr(exc, "message", None) or type(exc).__name__}


def _note(store: Storage, pause: Pause, delivery: Delivery) -> None:
    store.note_delivery(pause.run, pause.id, dict(delivery))
