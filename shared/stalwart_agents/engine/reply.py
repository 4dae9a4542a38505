"""What a turn or an answer gives back: the agent's words and everything else as data.

The same value is returned in Python and serialised by the HTTP layer, so a
refusal or a rollback is never something a client has to read out of prose.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal, NotRequired

from typing_extensions import TypedDict  # pydantic builds schemas of these: before 3.12, from this one

from ..vocabulary import JSON, CallStatus, RunStatus, SagaReason
from .arguments import ArgumentDict
from .pause import Pause, UndoLine


@dataclass(frozen=True)
class CallOutcome:
    """What became of one call of the run (a reply's ``steps``): done, skipped, failed or cancelled.

    ``step`` is the call's place in the turn; ``call`` numbers the calls a team's
    step made, in the order it made them (None for a plain call).
    """

    step: int
    tool: str
    arguments: list[ArgumentDict]
    status: CallStatus
    result: JSON = None
    error: str | None = None
    call: int | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "step": self.step,
            "tool": self.tool,
            "arguments": self.arguments,
            "status": self.status,
            "result": self.result,
            "error": self.error,
            "call": self.call,
        }


@dataclass(frozen=True)
class Refusal:
    """A call the check refused; ``rule`` is None when the rule is not disclosed."""

    step: int
    tool: str
    arguments: list[ArgumentDict]
    sentence: str
    rule: str | None

    def to_dict(self) -> dict[str, object]:
        return {
            "step": self.step,
            "tool": self.tool,
            "arguments": self.arguments,
            "sentence": self.sentence,
            "rule": self.rule,
        }


class RollbackReport(TypedDict):
    """What undoing a run did to each of its writes, newest first; ``pending`` while an undo waits for a person."""

    reason: SagaReason
    status: Literal["complete", "waiting", "abandoned"]
    undone: list[UndoLine]
    not_undone: list[UndoLine]
    pending: NotRequired[list[UndoLine]]


class NotNotified(TypedDict):
    """A pause ``on_interrupt`` was not told of, and the error that stopped it."""

    interrupt: str
    error: str


@dataclass(frozen=True)
class Reply:
    thread: str
    run: str
    status: RunStatus
    text: str
    steps: list[CallOutcome] = field(default_factory=list)
    waiting: list[Pause] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    rollback: RollbackReport | None = None
    not_notified: list[NotNotified] = field(default_factory=list)
    id: str = field(default_factory=lambda: "m_" + secrets.token_urlsafe(16))
    opened: list[Pause] = field(default_factory=list, repr=False, compare=False)
    """The pauses this call opened: what ``on_interrupt`` is told of.  Not part of the JSON."""
    answered: Pause | None = field(default=None, repr=False, compare=False)
    """The pause an answer was taken for, which says how long it waited.  Not part of the JSON."""
    answered_as: str | None = field(default=None, repr=False, compare=False)
    """The decision taken, which a person's changes may make ``edited``.  Not part of the JSON."""

    def seen_by_approver(self, answered_step: int | None, may_answer: Callable[[Pause], bool]) -> Reply:
        """This reply as someone who answered a pause of another person's conversation sees it.

        They approved one call: they see what became of it, and only what now waits for them, with
        its token; the agent's words, the other calls' results, refusals and pauses are the owner's.
        """
        waiting = [pause for pause in self.waiting if may_answer(pause)]
        shown = {pause.id for pause in waiting}
        return replace(
            self,
            text="",
            steps=[step for step in self.steps if step.step == answered_step],
            waiting=waiting,
            refusals=[],
            not_notified=[missed for missed in self.not_notified if missed["interrupt"] in shown],
        )

    def to_dict(self, waiting: list[dict[str, object]] | None = None) -> dict[str, object]:
        """The reply's JSON, built field by field: it is encoded at once, so its values are shared, not copied
        (``dataclasses.asdict`` deep-copied every argument and result on every answer).  ``waiting``, where given,
        is its pauses' JSON as a reader is shown them (each with its card), in their place."""
        return {
            "thread": self.thread,
            "reply": {"id": self.id, "text": self.text},
            "steps": [step.to_dict() for step in self.steps],
            "waiting": [pause.to_dict() for pause in self.waiting] if waiting is None else waiting,
            "refusals": [refusal.to_dict() for refusal in self.refusals],
            "rollback": self.rollback,
            "not_notified": list(self.not_notified),
        }
