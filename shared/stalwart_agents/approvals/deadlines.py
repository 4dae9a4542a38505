"""How long a pause waits: the ``deadlines:`` of agent.yaml, and an approver rule's own ``deadline:``.

A pause's timing is the governing approver rule's where one sets it (the rule that
gives a charge to finance says how long finance has), else the first entry of
``deadlines:`` covering its tool and kind.  The times are fixed as the pause opens
(``engine.deadline.Deadline``), so every worker reads one schedule.

An ``expires`` expression that cannot be evaluated to a duration fails closed: the
pause expires at once (a confirm is then not run, as its ``on_expiry`` says), and the
team is told in the log; a deadline that cannot be read must never let a pause wait
unwatched, nor run anything.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ..config import MAX_WAIT_DAYS, DeadlineConfig, TimingConfig, duration
from ..engine.deadline import EXPIRING, Deadline
from ..engine.pause import Pause
from ..reading import cel
from .rules import Approvers, about

log = logging.getLogger("stalwart_agents")


class Deadlines:
    """One agent's timing of its pauses."""

    def __init__(self, entries: Sequence[DeadlineConfig] = (), approvers: Approvers | None = None) -> None:
        self.entries = tuple(entries)
        self._approvers = approvers or Approvers()

    def of(self, pause: Pause, opened: float) -> Deadline | None:
        """The deadline of ``pause``, opened at ``opened``; None where nothing times it."""
        timing = self.timing(pause)
        if timing is None:
            return None
        deadline: Deadline = {}
        waits = self._seconds(timing, pause) if timing.expires is not None else None
        escalates = duration(timing.escalate.after) if timing.escalate is not None else None
        if pause.kind in EXPIRING:
            if waits is not None:
                deadline |= {"expires_at": opened + waits, "on_expiry": timing.on_expiry}
        elif waits is not None:
            escalates = min(waits, escalates) if escalates is not None else waits
        if escalates is not None:
            deadline["escalate_at"] = opened + escalates
            if timing.escalate is not None:
                deadline["escalate_to"] = timing.escalate.to
                deadline["escalate_label"] = timing.escalate.label or "someone else"
        reminders = sorted(opened + (duration(after) or 0.0) for after in timing.remind)
        if reminders:
            deadline["remind"] = reminders
        return deadline or None

    def timing(self, pause: Pause) -> TimingConfig | None:
        """What times ``pause``: the first governing approver rule with a ``deadline:``, else the first entry of
        ``deadlines:`` that covers it."""
        for rule in self._approvers.governing(pause) if self._approvers.rules else ():
            if rule.deadline is not None:
                return rule.deadline
        return next((entry for entry in self.entries if entry.covers(pause.tool, pause.kind)), None)

    def _seconds(self, timing: TimingConfig, pause: Pause) -> float:
        assert timing.expires is not None, "only an expiring timing is read"
        fixed = duration(timing.expires)
        if fixed is not None:
            return fixed
        given = cel.text_or_number(timing.expires, about(pause))
        seconds = duration(given) if isinstance(given, str) else given
        if seconds is None or not 0 < seconds <= MAX_WAIT_DAYS * 86400:
            sentence = "the deadline %r gave %r for pause %s, not a duration: it expires at once"
            log.error(sentence, timing.expires, given, pause.id)
            return 0.0
        return float(seconds)
