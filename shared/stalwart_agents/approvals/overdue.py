"""The clock's part: what becomes of open pauses as their deadlines come.

``tick`` reads the pauses whose next event is due (``Storage.due_pauses``, an
index of those alone) and does each event once of all workers: it claims the
event with one conditional write (``claim_wake``), which also holds it for
``HOLD`` seconds, so a worker that dies mid-way leaves it to the next tick.

- **expire**: the clock answers the pause ``expired`` through the engine's claim,
  the same one a person's answer takes, so of a late approval and the expiry one
  wins; the run goes on as the pause's ``on_expiry`` says.
- **escalate**: whoever the escalation names may answer from this moment (the
  event is marked done before anything is posted), and the pause is announced
  again, with ``escalated``.
- **remind**: the pause is announced again, with ``reminder: n`` and links minted
  afresh; a post that fails keeps the reminder due and is tried again after ``RETRY``
  seconds, so no reminder is lost to a receiver that was down, and none sent twice
  by two workers (a receiver still dedupes on the delivery id, for a worker that
  died between posting and noting it).

``stalwart serve`` ticks every second (``Clock``); on AWS a function runs
``tick`` every minute, and a late answer that finds its pause past the deadline
expires it itself, so no approval is taken late however seldom the clock ticks.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..engine.deadline import Event, events, wake_at
from ..engine.pause import Pause
from ..errors import InterruptStale, NotFound
from ..repeat import Repeating
from .announce import Notify, announce, kept, not_notified

if TYPE_CHECKING:
    from ..desk import Desk
    from ..storage import Storage

__all__ = ["Clock", "Ticked", "tick"]

EVERY = 1.0
"""Seconds between two ticks of ``stalwart serve``: a deadline is kept to the second."""
HOLD = 30.0
"""Seconds a worker's claim on an event stands: past the longest a post or a move lasts."""
RETRY = 60.0
"""Seconds after a reminder that could not be posted before it is tried again."""
BATCH = 100
"""Events done per tick at most: the next tick takes the rest."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Ticked:
    """What one tick did, by pause id; an event another worker claimed first is in none."""

    expired: list[str] = field(default_factory=list)
    escalated: list[str] = field(default_factory=list)
    reminded: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    answered_first: list[str] = field(default_factory=list)
    """Pauses a person answered (or the run moved past) before the clock could end them."""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def tick(desk: Desk, notify: Notify | None = None, now: float | None = None) -> Ticked:
    """Do each clock event due at ``now`` (the desk's clock) that this worker claims first; reminders and
    escalations are told to ``notify`` (the desk's ``on_interrupt`` where not given)."""
    now = desk.clock() if now is None else now
    notify = notify or desk.on_interrupt
    done = Ticked()
    store = desk.storage
    for record in store.due_pauses(now, BATCH):
        pause = Pause.from_record(record)
        due = events(pause.deadline)
        if record.woken >= len(due):
            store.set_wake(record.run, record.id, record.woken, (record.woken, None))
            continue
        if not store.claim_wake(record.run, record.id, record.woken, now, now + HOLD):
            continue
        latest = max(n for n in range(record.woken, len(due)) if n == record.woken or due[n].at <= now)
        try:
            _happen(desk, notify, pause, due[latest], latest, done)
        except Exception:  # one pause must not stop the others; its claim lapses, and it is tried again
            log.exception("the clock could not %s pause %s", due[latest].what, record.id)
            done.failed.append(record.id)
    if any(dataclasses.astuple(done)):
        log.info("ticked: %s", done.to_dict())
    return done


def _happen(desk: Desk, notify: Notify | None, pause: Pause, event: Event, latest: int, done: Ticked) -> None:
    """Do ``event``, the ``latest`` due: where a clock that did not tick for a while finds several due, the last one
    stands for them all (one reminder, not three; an escalation passed over still widens who may answer)."""
    store, woken = desk.storage, pause.woken
    if event.what == "expire":
        try:
            desk.expire(pause)
        except (InterruptStale, NotFound):
            done.answered_first.append(pause.id)
            return
        done.expired.append(pause.id)
        return
    moved_on = (latest + 1, wake_at(pause.deadline, latest + 1))
    told = dataclasses.replace(pause, woken=latest + 1)
    if event.what == "escalate":
        if store.set_wake(pause.run, pause.id, woken, moved_on):
            done.escalated.append(pause.id)
            if notify is not None:
                announce(store, notify, pause, told)
        return
    if notify is not None and not _told(store, notify, told):
        store.set_wake(pause.run, pause.id, woken, (woken, desk.clock() + RETRY))
        done.failed.append(pause.id)
        return
    if store.set_wake(pause.run, pause.id, woken, moved_on):
        done.reminded.append(pause.id)


def _told(store: Storage, notify: Notify, pause: Pause) -> bool:
    """Whether a reminder was posted; one that was not is tried again by the clock itself, never noted on the pause
    for redelivery, which would post it a second time.  What channels kept of it is noted, so a channel that took
    it is not sent it again when another failed."""
    try:
        receipts = notify(pause.thread, pause)
    except Exception as exc:
        _keep(store, pause, kept(exc))
        log.warning(
            "reminder %d of pause %s was not posted: %s", pause.reminders, pause.id, not_notified(pause.id, exc)
        )
        return False
    _keep(store, pause, kept(receipts))
    return True


def _keep(store: Storage, pause: Pause, receipts: dict[str, object]) -> None:
    if receipts:
        store.note_delivery(pause.run, pause.id, {**(pause.delivery or {}), **receipts})


class Clock(Repeating):
    """Ticks a desk every ``every`` seconds in a thread of its own, from ``start`` until ``stop``; ``notify`` is told
    of each reminder and escalation (the desk's ``on_interrupt`` where not given)."""

    def __init__(self, desk: Desk, notify: Notify | None = None, every: float = EVERY) -> None:
        super().__init__(lambda: tick(desk, notify), every, "stalwart-clock")
