"""The executor: the policy of one move of a run, replayed from its plan, doing only what was never done.

Each call is asked for what is missing, checked, confirmed where the check
says so, made, and settled if its outcome is unknown; the walk stops where a
call waits for a person or ends the run.  What was done comes from the ledger
(``ledger.py``), which also keeps whatever this move does, so replaying is
safe on any worker, any number of times.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..agent import Agent
from ..reading.check import Ruling
from ..tools.python import Tool
from ..tools.steps import NondeterministicStep, Run, StepFunction
from ..vocabulary import JSON, CallStatus
from .answer import Decision
from .arguments import Argument, by_name, keywords, shown
from .calls import Caller, jsonable
from .edit import EDITED
from .ledger import KindDetails, Ledger, call_of, title_of
from .pause import PausePoint
from .progress import WAITING, Attempted, Report
from .reply import CallOutcome, Refusal
from .state import PlannedCall
from .step_calls import StepCalls, Stopped


@dataclass(frozen=True)
class Asked:
    """A call as it was asked before a person changed it and could not approve the change alone: its arguments,
    who changed them, and how many such changes the call has had (each changed call is a pause of its own)."""

    arguments: tuple[Argument, ...]
    editor: str | None
    edit: int


class Replay:
    """Takes the turn's calls in order, each to its end; what it finds goes into ``report``."""

    def __init__(self, agent: Agent, agents: Mapping[str, Agent], ledger: Ledger, report: Report) -> None:
        self._agent, self._agents = agent, agents
        self._ledger = ledger
        self._caller = Caller(ledger)
        self._report = report

    def plan(self, plan: Sequence[PlannedCall]) -> None:
        """Each planned call (or team's step) in turn, stopping at the first that waits or ends the run."""
        for position, planned in enumerate(plan, start=1):
            step = self._agent.steps.get(planned.tool)
            if step is not None:
                going = self._step(position, step, planned.arguments)
            else:
                going = self.attempt(position, str(position), self._agent.tools[planned.tool], planned.arguments).going
            if not going:
                return

    def attempt(
        self,
        position: int,
        key: str,
        tool: Tool,
        arguments: Sequence[Argument],
        agent: Agent | None = None,
        asked: Asked | None = None,
    ) -> Attempted:
        """One call at ``key``: ask for what is missing, check it, wait for a person if it must, make it.

        ``agent`` is the agent whose check applies: the run's own, or one a step handed the call to.  ``asked`` is
        the call as asked before a person changed it (``edit.py``), where this is the changed call asked anew.
        """
        given = self._completed(position, key, tool, arguments)
        if isinstance(given, Attempted):
            return given
        arguments = by_name(given)
        ruling = (agent or self._agent).check(tool, arguments, self._report.tainted)
        if ruling.kind == "refuse":
            self._refused(position, tool, arguments, ruling)
            return Attempted("refused")
        if ruling.kind == "confirm" or asked is not None:
            # A changed call someone could not approve alone is asked again, whatever the check now says of it.
            point = PausePoint.call(position, key, asked.edit if asked else 0)
            before: KindDetails = {"proposed": shown(asked.arguments), "edited_by": asked.editor} if asked else {}
            reasons = (*ruling.reasons, EDITED) if asked else ruling.reasons
            decision = self._ledger.wait_for("confirm", point, tool, arguments, reasons, **before)
            if decision is None:
                return WAITING
            if decision.edits:
                return self._changed(position, key, tool, arguments, agent, decision, point.edit)
            if decision.choice == "expired":
                return self._expired(position, key, tool, arguments, decision)
            if decision.choice == "skip":
                self._called(position, key, tool, arguments, "skipped")
                return Attempted("skipped", going=True)
            if decision.choice == "cancel_all":
                self._called(position, key, tool, arguments, "cancelled")
                self._report.ending = "cancel_all"
                return Attempted("cancelled")
        return self._made(position, key, tool, arguments)

    def _changed(
        self,
        position: int,
        key: str,
        tool: Tool,
        arguments: Sequence[Argument],
        agent: Agent | None,
        decision: Decision,
        edits: int,
    ) -> Attempted:
        """The call as a person changed it: asked anew where they could not approve it alone (``edited``), else
        checked again (a rule that now refuses it still does) and made with exactly the changed arguments."""
        changed = decision.applied(arguments)
        if decision.choice == "edited":
            asked = Asked(tuple(arguments), decision.editor, edits + 1)
            return self.attempt(position, key, tool, changed, agent, asked)
        ruling = (agent or self._agent).check(tool, changed, self._report.tainted)
        if ruling.kind == "refuse":
            self._refused(position, tool, changed, ruling)
            return Attempted("refused")
        return self._made(position, key, tool, changed)

    def _completed(
        self,
        position: int,
        key: str,
        callee: Tool | StepFunction,
        arguments: Sequence[Argument],
    ) -> tuple[Argument, ...] | Attempted:
        """The arguments with each required one nobody gave asked for; what came of the call instead while a
        person is asked (WAITING), or where nobody answered in time."""
        given = list(arguments)
        named = {argument.name for argument in given}
        for parameter in callee.parameters:
            if parameter.required and parameter.name not in named:
                decision = self._asked(position, key, callee, given, parameter.name)
                if decision is None:
                    return WAITING
                if decision.choice == "expired":
                    return self._expired(position, key, callee, given, decision)
                given.append(Argument(parameter.name, decision.value, "reply"))
        return tuple(given)

    def _expired(
        self,
        position: int,
        key: str,
        callee: Tool | StepFunction,
        arguments: Sequence[Argument],
        decision: Decision,
    ) -> Attempted:
        """Nobody answered before the deadline: the call is not made, and the run goes on without it or, where
        the pause's ``on_expiry`` says ``cancel_all``, undoes what it did."""
        self._report.steps.append(CallOutcome(position, callee.name, shown(arguments), "expired", call=call_of(key)))
        if decision.then == "cancel_all":
            self._report.ending = "cancel_all"
            return Attempted("cancelled")
        return Attempted("skipped", going=True)

    def _asked(
        self,
        position: int,
        key: str,
        callee: Tool | StepFunction,
        given: Sequence[Argument],
        name: str,
    ) -> Decision | None:
        label = callee.labels.get(name) if isinstance(callee, Tool) else None
        prompt = f"{title_of(callee, keywords(given))}: what {_noun(label) if label else name.replace('_', ' ')}?"
        point = PausePoint.missing(position, key, name)
        return self._ledger.wait_for("ask", point, callee, given, [f"missing: {name}"], prompt=prompt)

    def _made(self, position: int, key: str, tool: Tool, arguments: Sequence[Argument]) -> Attempted:
        """The call made (or found made) and settled; a call that failed for certain ends the run."""
        entry = self._caller.settle(position, tool, arguments, self._caller.made(key, tool, arguments))
        if entry is None:
            return WAITING
        if entry.status == "failed":
            self._called(position, key, tool, arguments, "failed", error=entry.error)
            self._report.ending = "failed"
            return Attempted("failed")
        self._called(position, key, tool, arguments, "done", result=entry.result)
        if tool.untrusted and tool.name not in self._report.tainted:
            self._report.tainted.append(tool.name)
        return Attempted("done", entry.result, going=True)

    def _step(self, position: int, step: StepFunction, arguments: Sequence[Argument]) -> bool:
        """Run a team's step from its start; its calls already made come from the journal."""
        given = self._completed(position, str(position), step, arguments)
        if isinstance(given, Attempted):
            return given.going
        calls = StepCalls(self.attempt, self._agent, self._agents, self._ledger, position, given)
        try:
            result = step.fn(Run(calls), **keywords(given))
        except Stopped:
            return False
        except NondeterministicStep as exc:
            self._report.steps.append(CallOutcome(position, step.name, shown(given), "failed", error=exc.message))
            self._report.ending = "failed"
            return False
        self._report.steps.append(CallOutcome(position, step.name, shown(given), "done", jsonable(result)))
        return True

    def _called(
        self,
        position: int,
        key: str,
        tool: Tool,
        arguments: Sequence[Argument],
        status: CallStatus,
        *,
        result: JSON = None,
        error: str | None = None,
    ) -> None:
        outcome = CallOutcome(position, tool.name, shown(arguments), status, result, error, call=call_of(key))
        self._report.steps.append(outcome)

    def _refused(self, position: int, tool: Tool, arguments: Sequence[Argument], ruling: Ruling) -> None:
        rule = ruling.rule if ruling.disclosed else None
        self._report.refusals.append(Refusal(position, tool.name, shown(arguments), ruling.sentence or "", rule))


def _noun(label: str) -> str:
    """A parameter's label in the middle of a sentence: ``Amount`` reads ``amount``, ``ID`` stays ``ID``."""
    return label if label[:2].isupper() else label[:1].lower() + label[1:]
