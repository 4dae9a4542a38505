"""What a turn or an answer gives back: the agent's words and everything else as data.

The same value is returned in Python and serialised by the HTTP layer, so a
refusal or a rollback is never something a client has to read out of prose.
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field
from typing import Any

from .pause import Pause


@dataclass(frozen=True)
class Step:
    """One call of the run: ``status`` is done, skipped, failed or cancelled.

    ``call`` numbers the calls a team's step made, in the order it made them (None for a plain call).
    """

    step: int
    tool: str
    arguments: list[dict[str, Any]]
    status: str
    result: Any = None
    error: str | None = None
    call: int | None = None


@dataclass(frozen=True)
class Refusal:
    """A call the check refused; ``rule`` is None when the rule is not disclosed."""

    step: int
    tool: str
    arguments: list[dict[str, Any]]
    sentence: str
    rule: str | None


@dataclass(frozen=True)
class Reply:
    thread: str
    run: str
    status: str
    text: str
    steps: list[Step] = field(default_factory=list)
    waiting: list[Pause] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    rollback: dict[str, Any] | None = None
    not_notified: list[dict[str, Any]] = field(default_factory=list)
    id: str = field(default_factory=lambda: "m_" + secrets.token_urlsafe(16))
    opened: list[Pause] = field(default_factory=list, repr=False, compare=False)
    """The pauses this call opened: what ``on_interrupt`` is told of.  Not part of the JSON."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "thread": self.thread,
            "reply": {"id": self.id, "text": self.text},
            "steps": [asdict(s) for s in self.steps],
            "waiting": [w.to_dict() for w in self.waiting],
            "refusals": [asdict(r) for r in self.refusals],
            "rollback": self.rollback,
            "not_notified": list(self.not_notified),
        }
