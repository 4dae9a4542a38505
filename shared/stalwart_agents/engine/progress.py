"""What one move of a run found: gathered as it goes (``Report``), handed over when it ends (``Progress``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from ..vocabulary import JSON, RunStatus
from .pause import Pause
from .reply import CallOutcome, Refusal, RollbackReport
from .state import Saga


@dataclass
class Report:
    """What the executor gathers while the move goes: each call's outcome, refusals, its words,
    the untrusted tools whose results it read, and why the run ends early, if it does."""

    steps: list[CallOutcome] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tainted: list[str] = field(default_factory=list)
    ending: Literal["cancel_all", "failed"] | None = None


@dataclass(frozen=True)
class Progress:
    """What one move found: it becomes the reply, and the run's new status and saga."""

    steps: list[CallOutcome] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    waiting: list[Pause] = field(default_factory=list)
    opened: list[Pause] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    saga: Saga | None = None
    rollback: RollbackReport | None = None
    too_large: str | None = None
    """Why a value over the size limit stopped a call of the run, which then ended; None where none did."""

    @cached_property
    def status(self) -> RunStatus:
        """Waiting while anything waits; otherwise done, or failed or cancelled for a run that undid itself."""
        if self.waiting:
            return "waiting"
        if self.saga is None:
            return "done"
        return "failed" if self.saga.reason == "failed" else "cancelled"


@dataclass(frozen=True, slots=True)
class Attempted:
    """What attempting one call came to; ``going`` says whether what follows it may run."""

    kind: Literal["done", "skipped", "refused", "cancelled", "failed", "waiting"]
    result: JSON = None
    going: bool = False


WAITING = Attempted("waiting")
