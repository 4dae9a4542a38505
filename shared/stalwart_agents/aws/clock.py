"""The clock on AWS: a function EventBridge runs every minute, doing what pauses' deadlines make due.

Each invocation is one ``tick`` (``approvals.overdue``): it reads the due pauses from
the table's sparse ``wake`` index, claims each event with a conditional write, and
expires, escalates or reminds; an expiry is the engine's own commit, the one a
person's answer makes.  A minute is EventBridge's finest rate, and enough: an answer
that comes after the deadline expires its pause itself, in the request, so nothing is
ever approved late; the clock only finishes the runs nobody answers and posts
reminders, within the minute.  Two invocations that overlap (a slow tick, Lambda's
retry of a failed one) do each event once, through the same claims.

Where the stack has a webhook, reminders and escalations are posted to it, signed
with its secret and with links where there is a ``PublicUrl``, as the fan-out posts a
new pause, and on the channels agent.yaml names (a reply in the Slack message's
thread, a mail); without any, the clock still expires what is due and counts
reminders as told.  An expiry is settled on the channels by the fan-out, which the
pause's change reaches through the stream.  Desk, what it posts with and observer
are built once, at cold start, from the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from ..approvals.announce import Notify
from ..approvals.overdue import BATCH, tick
from .channels import announcing
from .handlers import FunctionEnvironment
from .observe import Observer, observer_from_environ

if TYPE_CHECKING:
    from ..desk import Desk

__all__ = ["handler"]


def handler(event: Mapping[str, Any], context: Any) -> dict[str, Any]:
    """The Lambda entry, run by the schedule: ticks until nothing more is due or a minute of its time is left (a
    tick does at most ``BATCH`` events, and a burst of deadlines must not wait a minute per hundred); the pauses
    it expired, escalated, reminded... in all."""
    desk, notify, observer = _cold_start()
    done: dict[str, list[str]] = {}
    with observer.invocation(event, context):
        while True:
            ticked = tick(desk, notify).to_dict()
            for what, ids in ticked.items():
                done.setdefault(what, []).extend(ids)
            if sum(len(ids) for ids in ticked.values()) < BATCH or _remaining(context) < RESERVE:
                break
        observer.info("ticked", **{what: len(ids) for what, ids in done.items()})
    return done


RESERVE = 60.0
"""Seconds of the invocation's time a tick is not begun in: one tick's worst case, with room to spare."""


def _remaining(context: Any) -> float:
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    return remaining() / 1000 if callable(remaining) else 0.0


@cache
def _cold_start() -> tuple[Desk, Notify | None, Observer]:
    environ = os.environ
    observer = observer_from_environ(environ)
    desk = FunctionEnvironment.from_environ(environ).desk(observer.meter)
    return desk, announcing(desk, environ), observer
