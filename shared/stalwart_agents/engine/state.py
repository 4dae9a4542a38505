"""What the engine keeps in a run between its moves, typed; the run record stores it as JSON.

A run is a turn read into a plan (or a turn nothing read), the values the
application gave, the saga it is undoing if any, and the pauses its last
move reached.  ``RunState.of`` reads the stored JSON, ``to_json`` writes it,
in the shape runs already in a store were written with.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..storage import RunRecord
from ..vocabulary import JSON, SagaReason
from .arguments import Argument, from_dicts
from .pause import Approval


@dataclass(frozen=True)
class PlannedCall:
    """A clause of the turn, read as a call of a tool (or a team's step) with the arguments the turn gave."""

    tool: str
    arguments: tuple[Argument, ...]

    def to_json(self) -> dict[str, object]:
        """The call as a run keeps it: each argument's value and origin by its name (``of`` also reads the
        ``{name, value, origin}`` list a run kept before, with the clause's text, which nothing read)."""
        return {"tool": self.tool, "arguments": {a.name: [a.value, a.origin] for a in self.arguments}}


@dataclass(frozen=True)
class Saga:
    """A run undoing what ``target`` did (itself, or the run an operator rolls back), and why."""

    reason: SagaReason
    target: str

    def to_json(self) -> dict[str, object]:
        return {"reason": self.reason, "target": self.target}


@dataclass(frozen=True)
class Unread:
    """A turn the selector could not read; ``language`` is the one it looked like, where it could tell."""

    language: str | None


@dataclass(frozen=True)
class RunState:
    """A run between moves: its turn read into a plan (or not read), the application's values, and its saga.

    A rollback run of an operator's has no turn, only the saga.
    """

    turn: str | None = None
    context: Mapping[str, JSON] = field(default_factory=dict)
    plan: tuple[PlannedCall, ...] = ()
    unread: Unread | None = None
    saga: Saga | None = None
    waiting: tuple[str, ...] = ()
    """The ids of the pauses the run's last move reached: the only ones an answer may take."""
    approvals: Mapping[str, tuple[Approval, ...]] = field(default_factory=dict)
    """The approvals given so far, by pause id, of pauses that need several people to approve."""
    asker: str | None = None
    """Who began the turn, in words (their name, else their e-mail), where a service knew: what a card says of them."""

    @classmethod
    def of(cls, run: RunRecord) -> RunState:
        """The state of a stored run, written by this version or an earlier one."""
        stored = run.state
        unread, saga = stored.get("unread"), stored.get("saga")
        return cls(
            turn=stored.get("turn"),
            context=stored.get("context") or {},
            plan=tuple(_planned(call) for call in stored.get("plan") or ()),
            unread=Unread(unread.get("language")) if unread is not None else None,
            saga=Saga(saga["reason"], saga["target"]) if saga is not None else None,
            waiting=cls.reached(run),
            approvals=cls.approvals_of(run),
            asker=stored.get("asker"),
        )

    @staticmethod
    def reached(run: RunRecord) -> tuple[str, ...]:
        """The run's ``waiting`` alone, for a read that needs nothing else of its state."""
        return tuple(run.state.get("waiting") or ())

    @staticmethod
    def approvals_of(run: RunRecord) -> dict[str, tuple[Approval, ...]]:
        """The run's ``approvals`` alone, for showing its pauses."""
        return {pause: tuple(given) for pause, given in (run.state.get("approvals") or {}).items()}

    def to_json(self) -> dict[str, object]:
        """The state as stored: what is not empty, since ``of`` reads what is absent as empty (``approvals`` only once
        some are given, no context, no saga); every run keeps its turn, plan and waiting."""
        stored: dict[str, object] = {
            "turn": self.turn,
            "plan": [call.to_json() for call in self.plan],
            "waiting": list(self.waiting),
        }
        if self.context:
            stored["context"] = dict(self.context)
        if self.unread is not None:
            stored["unread"] = {"language": self.unread.language}
        if self.saga is not None:
            stored["saga"] = self.saga.to_json()
        if self.approvals:
            stored["approvals"] = {pause: [dict(a) for a in given] for pause, given in self.approvals.items()}
        if self.asker is not None:
            stored["asker"] = self.asker
        return stored

    def approved(self, pause: str, approval: Approval) -> RunState:
        """This state with one more approval of ``pause``."""
        given = (*self.approvals.get(pause, ()), approval)
        return dataclasses.replace(self, approvals={**self.approvals, pause: given})

    def replace(self, *, saga: Saga | None, waiting: Sequence[str] | None = None) -> RunState:
        """This state undoing ``saga`` (and having reached ``waiting``, where given)."""
        reached = self.waiting if waiting is None else tuple(waiting)
        return dataclasses.replace(self, saga=saga, waiting=reached)


def _planned(stored: Mapping[str, Any]) -> PlannedCall:
    arguments = stored["arguments"]
    if isinstance(arguments, Mapping):
        return PlannedCall(stored["tool"], tuple(Argument(name, *kept) for name, kept in arguments.items()))
    return PlannedCall(stored["tool"], from_dicts(arguments))
