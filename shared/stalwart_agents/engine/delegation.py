"""A turn the selector could not read: say why, then refuse it, ask whether the model may have it, or give it.

The model only proposes: its answer is journaled (so a replay never asks it
twice), and each call it proposes is taken like a planned one, each argument
with origin ``model``, which the check does not trust.  A model that fails
says so, and under ``on_unread: ask`` the run waits on a fresh ``delegate``
so the person can try again.  An answer over the run's size limit is a
failure of the model's like any other: it is not kept.
"""

from __future__ import annotations

from ..agent import Agent
from ..reading.language import language_name
from ..reading.model import ModelAnswer, ModelError, tool_schema
from ..storage import JournalEntry
from .arguments import Argument, with_origin
from .exact import unshowable
from .ledger import Ledger
from .pause import PausePoint
from .progress import Report
from .sizes import oversize
from .state import RunState
from .step_calls import Attempt

MODEL = "model"
"""The journal key of the model's answer, and the name it is journaled under."""


class Delegation:
    """The move of a run whose turn nothing read, by the agent's ``on_unread``: refuse, ask, or go to the model."""

    def __init__(self, agent: Agent, state: RunState, ledger: Ledger, report: Report, attempt: Attempt) -> None:
        """``attempt`` takes each call the model proposes, as the executor takes a planned one."""
        assert state.unread is not None and state.turn is not None, "only a turn nothing read is delegated"
        self._agent, self._ledger, self._notes, self._attempt = agent, ledger, report.notes, attempt
        self._turn, self._language = state.turn, state.unread.language

    def take(self) -> None:
        """Do what ``on_unread`` says, saying why the turn was not read where the person is told anything about it:
        with the refusal, with the question, or before the model's answer; not again once they said yes."""
        if self._language and self._language != "en":
            why = f"I read English turns only, and this one looks like {language_name(self._language)}."
        else:
            why = "I couldn't work that out."
        if self._agent.on_unread == "refuse":
            self._notes += [why, "I can only do what my tools say they do."]
            return
        if self._agent.on_unread == "ask":
            if not self._may_delegate(PausePoint.turn(), f"{why} Shall I pass it to the assistant?"):
                return
        else:
            self._notes.append(why)
        self._delegated()

    def _may_delegate(self, point: PausePoint, asking: str) -> bool:
        """Whether the person lets the model have the turn; ``asking`` is said while the question waits."""
        reasons = ["unread"] + ([f"language: {self._language}"] if self._language else [])
        question = "May the assistant have this turn?"
        decision = self._ledger.wait_for("delegate", point, None, [], reasons, question=question, turn=self._turn)
        if decision is None:
            self._notes.append(asking)
        elif decision.choice == "expired":
            self._notes.append("Nobody answered in time, so I won't pass it on.")
        elif decision.choice == "decline":
            self._notes.append("Alright, I won't pass it on.")
        return decision is not None and decision.choice == "approve"

    def _delegated(self) -> None:
        if self._agent.model is None:
            self._notes.append("No model is configured for this agent, so there is no assistant to pass it to.")
            return
        entry = self._ledger.entry(MODEL) or self._asked(None)
        while entry.status == "failed":
            self._notes.append(f"The assistant could not answer: {entry.error}.")
            again = PausePoint.turn(failed_attempt=entry.attempt)
            if self._agent.on_unread != "ask" or not self._may_delegate(again, "Shall I try again?"):
                return
            entry = self._asked(entry)
        self._proposed(ModelAnswer.of(entry.result))

    def _asked(self, previous: JournalEntry | None) -> JournalEntry:
        """One question to the model, journaled as a read: finished, whatever it answered or failed with."""
        assert self._agent.model is not None
        if previous is None:
            started = self._ledger.start(MODEL, MODEL, [Argument("turn", self._turn, "typed")], durable=False)
        else:
            started = self._ledger.restart(previous, durable=False)
        schemas = [tool_schema(tool) for tool in self._agent.tools.values()]
        try:
            answer = self._agent.model.answer(self._agent.name, self._turn, schemas)
        except ModelError as exc:
            return self._ledger.finish(started.replace(status="failed", error=exc.message))
        said = answer.to_json()
        over = oversize("the model's answer", said, self._ledger.limit)
        if over is not None:
            return self._ledger.finish(started.replace(status="failed", error=f"{over.sentence}; it was not kept"))
        return self._ledger.finish(started.replace(status="done", result=said))

    def _proposed(self, answer: ModelAnswer) -> None:
        """The model's words, then each call it proposed, in order, until one waits, fails or does not fit its tool."""
        if answer.text:
            self._notes.append(answer.text)
        for position, proposed in enumerate(answer.calls, start=1):
            tool = self._agent.tools.get(proposed["tool"])
            if tool is None or not set(proposed["arguments"]) <= {p.name for p in tool.parameters}:
                said = f"The assistant proposed {proposed['tool']} with arguments it does not take; I did not run it."
                self._notes.append(said)
                return
            unsafe = unshowable(proposed["arguments"])
            if unsafe is not None:
                said = (
                    f"The assistant proposed {proposed['tool']} with the number {unsafe}, which a browser would show "
                    "rounded; I did not run it."
                )
                self._notes.append(said)
                return
            arguments = with_origin(proposed["arguments"], "model")
            if not self._attempt(position, str(position), tool, arguments, self._agent).going:
                return
