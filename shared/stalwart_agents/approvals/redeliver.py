"""Redelivery: announcements that failed are tried again in the background until delivered or given up.

A pause whose delivery failed (or that none was ever noted on, a minute after it
opened) is due (``storage.base.delivery_due``).  ``redeliver`` finds what is due
(``Storage.due_deliveries``), claims each with one conditional write
(``claim_delivery``), so that of all workers on the store exactly one sends an
attempt, reads the pause back to check it is still due, and posts it once.  The
outcome is written on the pause with the schedule: ``attempts`` so far, and
``next_at``, after a backoff doubling from ``first`` to ``cap`` with jitter;
past ``give_up_after`` seconds from the pause's opening it is noted ``given_up``.
The schedule lives in the store, so a restart or another worker carries on.

``stalwart serve`` runs a ``Redeliverer`` when a webhook is configured; an app
built with ``make_app`` starts one itself (see ``Redeliverer``).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine.pause import Pause
from ..repeat import Repeating
from ..storage import Storage
from ..storage.base import PauseRecord, delivery_due
from .announce import FIRST_RETRY, Notify, kept, not_notified

__all__ = ["Backoff", "Redelivered", "Redeliverer", "redeliver"]

EVERY = 5.0
"""Seconds between two looks for what is due."""
HOLD = 30.0
"""Seconds a worker's claim on an attempt stands (the fan-out's own): past the longest one post lasts."""
BATCH = 100
"""Pauses tried per look at most: the next look takes the rest."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Backoff:
    """When to try again: ``first`` seconds after the first failure, doubling up to ``cap``, each stretched by up to
    ``jitter`` of itself at random; no more tries once a pause has been open ``give_up_after`` seconds."""

    first: float = FIRST_RETRY
    cap: float = 3600.0
    jitter: float = 0.25
    give_up_after: float = 24 * 3600.0
    random: Callable[[], float] = field(default=random.random, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not 0 < self.first <= self.cap:
            raise ValueError("redelivery backoff must have 0 < first <= cap")
        if self.jitter < 0 or self.give_up_after <= 0:
            raise ValueError("redelivery jitter must be >= 0 and give_up_after positive")

    def delay(self, attempts: int) -> float:
        """Seconds to wait after the ``attempts``-th failed attempt."""
        base = min(self.cap, self.first * 2.0 ** min(max(attempts - 1, 0), 32))
        return base * (1 + self.jitter * self.random())


@dataclass(frozen=True)
class Redelivered:
    """What one look did: pauses delivered, failed again, given up; those another worker had claimed are in none."""

    delivered: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    given_up: list[str] = field(default_factory=list)


def redeliver(
    store: Storage, notify: Notify, now: float, backoff: Backoff | None = None, *, hold: float | None = None
) -> Redelivered:
    """Try once each announcement due at ``now`` that this worker claims first."""
    backoff = backoff or Backoff()
    hold = min(HOLD, backoff.first) if hold is None else hold
    done = Redelivered()
    for listed in store.due_deliveries(now, BATCH):
        if not store.claim_delivery(listed.run, listed.id, now, hold):
            continue
        stored = store.get_pause(listed.id)
        due = None if stored is None else delivery_due(stored)
        if stored is None or due is None or due > now:
            continue  # another worker tried it between the listing and the claim
        _attempt(store, notify, stored, now, backoff, done)
    return done


def _attempt(
    store: Storage, notify: Notify, pause: PauseRecord, now: float, backoff: Backoff, done: Redelivered
) -> None:
    attempts = int((pause.delivery or {}).get("attempts", 0 if pause.delivery is None else 1))
    if now - pause.created_at > backoff.give_up_after:
        last = (pause.delivery or {}).get("error") or "never answered"
        tries = f"{attempts} attempt{'' if attempts == 1 else 's'}"
        given_up = f"gave up after {tries} over {backoff.give_up_after / 3600:g} h; the last: {last}"
        noted = {"delivered": False, "given_up": True, "attempts": attempts, "at": now, "error": given_up}
        _note(store, pause, {**noted, "interrupt": pause.id})
        log.warning("gave up announcing pause %s after %d attempts", pause.id, attempts)
        done.given_up.append(pause.id)
        return
    attempts += 1
    try:
        receipts = notify(pause.thread, Pause.from_record(pause))
    except Exception as exc:
        missed = not_notified(pause.id, exc)
        next_at = now + backoff.delay(attempts)
        failed = {"delivered": False, **missed, "attempts": attempts, "at": now, "next_at": next_at}
        _note(store, pause, failed | kept(exc))
        done.failed.append(pause.id)
        return
    _note(store, pause, {"delivered": True, "attempts": attempts, "at": now} | kept(receipts))
    done.delivered.append(pause.id)


def _note(store: Storage, pause: PauseRecord, delivery: dict[str, Any]) -> None:
    store.note_delivery(pause.run, pause.id, delivery)


class Redeliverer(Repeating):
    """Runs ``redeliver`` every ``every`` seconds in a thread of its own, from ``start`` until ``stop``.

    For an app built with ``make_app``, where ``app.state.desk.on_interrupt`` is the webhook::

        redeliverer = Redeliverer(app.state.desk.storage, app.state.desk.on_interrupt)
        app.router.on_startup.append(redeliverer.start)
        app.router.on_shutdown.append(redeliverer.stop)
    """

    def __init__(
        self,
        store: Storage,
        notify: Notify,
        *,
        backoff: Backoff | None = None,
        every: float = EVERY,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._store, self._notify, self._backoff = store, notify, backoff or Backoff()
        self._clock = clock or store.clock
        super().__init__(self.once, every, "stalwart-redeliver")

    def once(self) -> Redelivered:
        """One look now, by the clock."""
        return redeliver(self._store, self._notify, self._clock(), self._backoff)
