"""A pause's deadline: the clock's events for it (remind, escalate, expire), in the order they come.

The times are fixed when the pause opens, so every worker reads the same
schedule; what has been done of it is the pause record's ``woken`` (how many
events), and ``wake_at`` is when the next is due.  A confirm, an ask and a
delegate expire; an outcome_unknown or a saga_stuck states a fact only a person
knows, so its deadline escalates instead and it waits on.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, NotRequired, TypedDict

from ..vocabulary import OnExpiry, PauseKind

EXPIRING: frozenset[PauseKind] = frozenset({"confirm", "ask", "delegate"})
"""The kinds a deadline ends: those whose safe answer is known (not to run the call, not to pass the turn on)."""

Happening = Literal["remind", "escalate", "expire"]


class Deadline(TypedDict):
    """A deadline as its pause keeps it, in seconds since the epoch; never part of the pause's JSON.

    ``escalate_to`` is the ``who`` condition that may answer once it has escalated, and
    ``escalate_label`` who that is in words.
    """

    expires_at: NotRequired[float]
    on_expiry: NotRequired[OnExpiry]
    remind: NotRequired[list[float]]
    escalate_at: NotRequired[float]
    escalate_to: NotRequired[str]
    escalate_label: NotRequired[str]


class Event(NamedTuple):
    """One thing the clock does to a pause: at ``at``, ``what``; a reminder has its number (1, 2...)."""

    at: float
    what: Happening
    reminder: int = 0


def events(deadline: Deadline | None) -> list[Event]:
    """The deadline's events in the order they come: reminders, the escalation, then the expiry, which ends it."""
    if deadline is None:
        return []
    end = deadline.get("expires_at")
    happening = [Event(at, "remind", n) for n, at in enumerate(deadline.get("remind", ()), start=1)]
    if "escalate_at" in deadline:
        happening.append(Event(deadline["escalate_at"], "escalate"))
    happening = sorted((e for e in happening if end is None or e.at < end), key=lambda e: (e.at, e.what != "remind"))
    return happening + ([Event(end, "expire")] if end is not None else [])


def wake_at(deadline: Deadline | None, woken: int) -> float | None:
    """When the ``woken``-th event is due (None where there is none left)."""
    due = events(deadline)
    return due[woken].at if woken < len(due) else None


def escalated(deadline: Deadline | None, woken: int) -> bool:
    """Whether the pause's escalation is among its first ``woken`` events."""
    return any(event.what == "escalate" for event in events(deadline)[:woken])


def reminders(deadline: Deadline | None, woken: int) -> int:
    """How many reminders the first ``woken`` events sent."""
    return sum(1 for event in events(deadline)[:woken] if event.what == "remind")
