"""One move of one run: replay it from its plan, and do only what was never done.

Calls already made come from the journal and answers from the pauses, so
replaying is safe on any worker, any number of times.  A write is journaled
``started`` before it runs and finished after; one found ``started`` (its
worker died) or ``unknown`` (the tool could not tell) is sent again only when
the tool is idempotent or a person says it did not happen.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .agent import Agent
from .language import language_name
from .lease import Lease
from .model import ModelError, tool_schema
from .pause import ANSWERS, Pause, iso, new_token, pause_id, sorted_arguments
from .reply import Refusal, Step
from .storage.base import Event, JournalEntry, PauseRecord, Storage
from .steps import Later, NondeterministicStep, Run, StepFunction
from .tools import OutcomeUnknown, Tool

RESEND_ATTEMPTS = 3
MODEL = "model"
UNSETTLED = ("started", "unknown")


@dataclass(frozen=True)
class Context:
    """What every replay needs from the engine: the store, and time as the caller sees it."""

    store: Storage
    clock: Callable[[], float]
    sleep: Callable[[float], None]
    agents: dict[str, Agent]


@dataclass
class Progress:
    """What one replay found; it becomes the reply and the run's new status."""

    steps: list[Step] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    waiting: list[Pause] = field(default_factory=list)
    opened: list[Pause] = field(default_factory=list)
    tainted: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ending: str | None = None
    rollback: dict[str, Any] | None = None


@dataclass(frozen=True)
class Outcome:
    """How one call went: ``going`` says whether what follows it may run."""

    kind: str
    result: Any = None
    going: bool = False


WAITING = Outcome("waiting")


class Stopped(BaseException):
    """Unwinds a step whose call waits for a person, was refused, or ended the run.

    A BaseException, so a step's own ``except Exception`` cannot swallow it.
    """


class Replay:
    """``journal_of`` is the run whose calls this replay reads and writes: its own, or the run an operator rolls back."""

    def __init__(
        self, context: Context, lease: Lease, pauses: list[PauseRecord], journal: list[JournalEntry],
        journal_of: str | None = None, answering: str | None = None,
    ) -> None:
        """``answering``: the pause whose answer started this move; each call it runs names it in the log."""
        self.context = context
        self.answering = answering
        self.lease = lease
        self.run = lease.run
        self.agent = context.agents[self.run.agent]
        self.journal_run = journal_of or self.run.id
        self.pauses = {p.id: p for p in pauses}
        self.journal = {e.key: e for e in journal}
        self.progress = Progress()
        self.tools = {name: t for other in context.agents.values() for name, t in other.tools.items()} | self.agent.tools
        """Every tool a call of this run may have named: its agent's first, then those another agent was handed."""

    def unread(self) -> None:
        """A turn the selector could not read: say why, then give it to the model, ask whether it may, or refuse."""
        language = self.run.state["unread"].get("language")
        if language and language != "en":
            self.progress.notes.append(f"I read English turns only, and this one looks like {language_name(language)}.")
        else:
            self.progress.notes.append("I couldn't work that out.")
        if self.agent.on_unread == "refuse":
            self.progress.notes.append("I can only do what my tools say they do.")
            return
        if self.agent.on_unread == "ask" and not self._may_delegate("", "Shall I pass it to the assistant?"):
            return
        self._delegated()

    def _may_delegate(self, subject: str, asking: str) -> bool:
        language = self.run.state["unread"].get("language")
        reasons = ["unread"] + ([f"language: {language}"] if language else [])
        pause = self.pause(
            "delegate", 0, None, [], reasons, subject=subject, extra={"turn": self.run.state["turn"]},
            question="May the assistant have this turn?",
        )
        decision = self.decision(pause)
        if decision is None:
            self.progress.notes.append(asking)
        elif decision["decision"] == "decline":
            self.progress.notes.append("Alright, I won't pass it on.")
        return decision is not None and decision["decision"] == "approve"

    def _delegated(self) -> None:
        """The model reads the turn; its answer is journaled, and each call it proposes is taken like a planned one."""
        if self.agent.model is None:
            self.progress.notes.append("No model is configured for this agent, so there is no assistant to pass it to.")
            return
        entry = self.journal.get(MODEL) or self._ask_model(None)
        while entry.status == "failed":
            self.progress.notes.append(f"The assistant could not answer: {entry.error}.")
            if self.agent.on_unread != "ask" or not self._may_delegate(f"retry#{entry.attempt}", "Shall I try again?"):
                return
            entry = self._ask_model(entry)
        if entry.result["text"]:
            self.progress.notes.append(entry.result["text"])
        for position, proposed in enumerate(entry.result["calls"], start=1):
            tool = self.agent.tools.get(proposed["tool"])
            if tool is None or not set(proposed["arguments"]) <= {p.name for p in tool.parameters}:
                self.progress.notes.append(f"The assistant proposed {proposed['tool']} with arguments it does not take; I did not run it.")
                return
            arguments = [{"name": k, "value": v, "origin": "model"} for k, v in proposed["arguments"].items()]
            if not self.attempt(position, str(position), tool, arguments).going:
                return

    def _ask_model(self, previous: JournalEntry | None) -> JournalEntry:
        """One question to the model, journaled as a read: finished, whatever it answered or failed with."""
        turn = self.run.state["turn"]
        schemas = [tool_schema(tool) for tool in self.agent.tools.values()]
        now = self.context.clock()
        attempt = previous.attempt + 1 if previous is not None else 1
        entry = JournalEntry(self.journal_run, MODEL, MODEL, [{"name": "turn", "value": turn, "origin": "typed"}], "started",
                             attempt=attempt, started_at=now)
        try:
            answer = self.agent.model.answer(self.agent.name, turn, schemas)
            finished = entry.replace(status="done", result={"text": answer.text, "calls": answer.calls})
        except ModelError as exc:
            finished = entry.replace(status="failed", error=exc.message)
        finished = finished.replace(finished_at=self.context.clock())
        event = self._step_event(MODEL, finished)
        if previous is None:
            self.lease.stage(starts=(finished,), events=(event,))
        else:
            self.lease.stage(updates=((finished, previous.status, previous.attempt),), events=(event,))
        self.journal[MODEL] = finished
        return finished

    def plan(self) -> None:
        """Take the turn's calls in order, each to its end, stopping where one waits or ends the run."""
        for position, planned in enumerate(self.run.state["plan"], start=1):
            if planned["tool"] in self.agent.steps:
                going = self._step(position, planned)
            else:
                going = self.attempt(position, str(position), self.agent.tools[planned["tool"]], planned["arguments"]).going
            if not going:
                return

    def attempt(self, position: int, key: str, tool: Tool, arguments: list[dict[str, Any]], agent: Agent | None = None) -> Outcome:
        """One call at ``key`` of the run: ask for what is missing, check it, wait for a person if it must, run it."""
        agent = agent or self.agent
        arguments = list(arguments)
        for parameter in tool.parameters:
            if parameter.required and parameter.name not in {a["name"] for a in arguments}:
                value = self._asked(position, key, tool, arguments, parameter.name)
                if value is None:
                    return WAITING
                arguments.append({"name": parameter.name, "value": value, "origin": "reply"})
        arguments = sorted_arguments(arguments)
        verdict = agent.check(tool, arguments, self.progress.tainted)
        if verdict.kind == "refuse":
            rule = verdict.rule if verdict.disclosed else None
            self.progress.refusals.append(Refusal(position, tool.name, arguments, verdict.sentence or "", rule))
            return Outcome("refused")
        if verdict.kind == "confirm":
            decision = self.decision(self.pause("confirm", position, tool, arguments, list(verdict.reasons), subject=key))
            if decision is None:
                return WAITING
            if decision["decision"] == "skip":
                self.progress.steps.append(Step(position, tool.name, arguments, "skipped", call=_call_of(key)))
                return Outcome("skipped", going=True)
            if decision["decision"] == "cancel_all":
                self.progress.steps.append(Step(position, tool.name, arguments, "cancelled", call=_call_of(key)))
                self.progress.ending = "cancel_all"
                return Outcome("cancelled")
        return self._execute(position, key, tool, arguments)

    def _asked(self, position: int, key: str, tool: Tool | StepFunction, arguments: list[dict[str, Any]], name: str) -> Any:
        prompt = f"What {name.replace('_', ' ')} should {tool.name} use?"
        extra = {"prompt": prompt, "argument": name}
        pause = self.pause("ask", position, tool, arguments, [f"missing: {name}"], subject=f"{key}:{name}", extra=extra)
        decision = self.decision(pause)
        return None if decision is None else decision["value"]

    def _execute(self, position: int, key: str, tool: Tool, arguments: list[dict[str, Any]]) -> Outcome:
        entry = self.journal.get(key) or self.call(key, tool, arguments)
        entry = self.settle(position, tool, arguments, entry)
        if entry is None:
            return WAITING
        if entry.status == "failed":
            self.progress.steps.append(Step(position, tool.name, arguments, "failed", error=entry.error, call=_call_of(key)))
            self.progress.ending = "failed"
            return Outcome("failed")
        self.progress.steps.append(Step(position, tool.name, arguments, "done", entry.result, call=_call_of(key)))
        if tool.untrusted and tool.name not in self.progress.tainted:
            self.progress.tainted.append(tool.name)
        return Outcome("done", entry.result, going=True)

    def _step(self, position: int, planned: dict[str, Any]) -> bool:
        """Run a team's step from its start; its calls already made come from the journal."""
        step = self.agent.steps[planned["tool"]]
        arguments = list(planned["arguments"])
        for parameter in step.parameters:
            if parameter.required and parameter.name not in {a["name"] for a in arguments}:
                value = self._asked(position, str(position), step, arguments, parameter.name)
                if value is None:
                    return False
                arguments.append({"name": parameter.name, "value": value, "origin": "reply"})
        calls = StepCalls(self, position, arguments)
        try:
            result = step.fn(Run(calls), **{a["name"]: a["value"] for a in arguments})
        except Stopped:
            return False
        except NondeterministicStep as exc:
            self.progress.steps.append(Step(position, step.name, sorted_arguments(arguments), "failed", error=exc.message))
            self.progress.ending = "failed"
            return False
        self.progress.steps.append(Step(position, step.name, sorted_arguments(arguments), "done", _jsonable(result)))
        return True

    def settle(self, position: int, tool: Tool, arguments: list[dict[str, Any]], entry: JournalEntry) -> JournalEntry | None:
        """A write that may or may not have happened is sent again only if it is idempotent, or a person says so.

        Returns the settled entry, or None while a person is asked.
        """
        while entry.status in UNSETTLED:
            if tool.idempotent and entry.attempt < RESEND_ATTEMPTS:
                entry = self.call(entry.key, tool, arguments, previous=entry)
                continue
            cause = entry.error or "the worker stopped mid-call"
            subject = f"{entry.key}#{entry.attempt}"
            pause = self.pause("outcome_unknown", position, tool, arguments, [f"outcome_unknown: {cause}"], subject=subject)
            decision = self.decision(pause)
            if decision is None:
                return None
            if decision["decision"] == "happened":
                return self._happened(tool, entry)
            entry = self.call(entry.key, tool, arguments, previous=entry)
        return entry

    def _happened(self, tool: Tool, entry: JournalEntry) -> JournalEntry:
        """A person's word that the write took effect; its result stays unknown (None)."""
        happened = entry.replace(status="done", result=None, error="a person said it happened", finished_at=self.context.clock())
        return self._record(happened, entry, tool)

    def call(self, key: str, tool: Tool, arguments: list[dict[str, Any]], previous: JournalEntry | None = None) -> JournalEntry:
        """Journal ``started`` (committed) before a write and its outcome after; a read, safe to repeat, is journaled once, finished."""
        now = self.context.clock()
        if previous is not None:
            entry = previous.replace(status="started", attempt=previous.attempt + 1, started_at=now, error=None, result=None)
            self.lease.stage(updates=((entry, previous.status, previous.attempt),))
            self.lease.commit()
        else:
            entry = JournalEntry(
                self.journal_run, key, tool.name, arguments, "started", idempotency_key=f"{self.journal_run}:{key}", started_at=now,
            )
            if tool.write:
                self.lease.stage(starts=(entry,))
                self.lease.commit()
        finished = _invoke(tool, arguments, entry).replace(finished_at=self.context.clock())
        return self._record(finished, entry if tool.write or previous is not None else None, tool)

    def _record(self, finished: JournalEntry, started: JournalEntry | None, tool: Tool) -> JournalEntry:
        """Stage a call's outcome: over its ``started`` entry, or as a new entry for a read."""
        events = (self._step_event(tool.name, finished),)
        if started is None:
            self.lease.stage(starts=(finished,), events=events)
        else:
            self.lease.stage(updates=((finished, started.status, started.attempt),), events=events)
        self.journal[finished.key] = finished
        return finished

    def _step_event(self, name: str, entry: JournalEntry) -> Event:
        body = {"type": "step", "run": self.run.id, "key": entry.key, "tool": name, "status": entry.status, "arguments": entry.arguments}
        return self.event(body | ({"answer": self.answering} if self.answering else {}))

    def pause(
        self, kind: str, position: int, tool: Tool | StepFunction | None, arguments: list[dict[str, Any]], reasons: list[str],
        subject: str = "", extra: dict[str, Any] | None = None, question: str | None = None,
    ) -> Pause:
        """A pause about ``tool`` (None for one about the turn itself, as delegate is)."""
        run, name = self.run, tool.name if tool else ""
        return Pause(
            id=pause_id(run.thread, run.id, position, name, arguments, kind, subject), kind=kind, thread=run.thread,
            run=run.id, step=position, tool=name, question=question or (tool.question if tool else ""),
            arguments=sorted_arguments(arguments), reasons=reasons, irreversible=isinstance(tool, Tool) and tool.irreversible,
            answers=list(ANSWERS[kind]), token=new_token(),
            created_at=iso(self.context.clock()), extra=extra or {},
        )

    def decision(self, pause: Pause) -> dict[str, Any] | None:
        """The answer to this pause, or None after making sure it is open and listed as waiting."""
        stored: PauseRecord | None = self.pauses.get(pause.id)
        if stored is not None and stored.status == "answered":
            return stored.answer
        if stored is None:
            opened = self.event({"type": "pause", "run": pause.run, "pause": pause.to_dict(token=False)})
            stored = pause.record().replace(created_at=self.context.clock())
            self.lease.stage(pauses=(stored,), events=(opened,))
            self.pauses[pause.id] = stored
            self.progress.opened.append(pause)
        self.progress.waiting.append(Pause.from_record(stored))
        return None

    def event(self, body: dict[str, Any]) -> Event:
        return Event(self.run.thread, {**body, "at": iso(self.context.clock())})


def _invoke(tool: Tool, arguments: list[dict[str, Any]], entry: JournalEntry) -> JournalEntry:
    kwargs = {a["name"]: a["value"] for a in arguments}
    if tool.takes("idempotency_key"):
        kwargs["idempotency_key"] = entry.idempotency_key
    try:
        result = tool.fn(**kwargs)
    except (OutcomeUnknown, TimeoutError) as exc:
        return entry.replace(status="unknown" if tool.write else "failed", error=_describe(exc))
    except Exception as exc:
        return entry.replace(status="failed", error=_describe(exc))
    return entry.replace(status="done", result=_jsonable(result))


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _jsonable(value: Any) -> Any:
    """Results are kept as JSON; what JSON cannot hold is kept as its text rather than lost."""
    return json.loads(json.dumps(value, default=str))


def is_call(key: str) -> bool:
    """Whether a journal key is a call of the run (``2``, ``2.1``), not an undo or the model's answer."""
    return all(part.isdigit() for part in key.split("."))


def call_position(key: str) -> int:
    return int(key.split(".")[0])


def _call_of(key: str) -> int | None:
    """The call's number within its step, for a key ``<step>.<call>``; None for a plain call."""
    head, dot, call = key.partition(".")
    return int(call) if dot and call.isdigit() else None


class StepCalls:
    """A step's calls, made through the replay at keys ``<step>.<call>`` and checked against the journal."""

    def __init__(self, replay: Replay, position: int, arguments: list[dict[str, Any]]) -> None:
        self.replay, self.position = replay, position
        self.given = {a["name"]: a for a in arguments}

    def step_call(self, index: int, tool: str, arguments: dict[str, Any]) -> Any:
        [result] = self.step_calls(index, [Later(tool, arguments)])
        return result

    def step_calls(self, first: int, calls: list[Later]) -> list[Any]:
        outcomes = [self._attempt(first + offset, later) for offset, later in enumerate(calls)]
        if any(not outcome.going for outcome in outcomes):
            raise Stopped
        return [outcome.result for outcome in outcomes]

    def _attempt(self, index: int, later: Later) -> Outcome:
        key = f"{self.position}.{index}"
        agent, tool = self._resolve(later.tool)
        arguments = [self._argument(name, value, agent) for name, value in later.arguments.items()]
        self._same_as_journal(key, tool.name, arguments)
        outcome = self.replay.attempt(self.position, key, tool, arguments, agent)
        if outcome.kind in ("refused", "cancelled", "failed"):
            raise Stopped
        return outcome

    def _resolve(self, name: str) -> tuple[Agent, Tool]:
        agents = self.replay.context.agents
        agent_name, colon, tool_name = name.rpartition(":")
        agent = agents.get(agent_name) if colon else self.replay.agent
        if agent is None or tool_name not in agent.tools:
            raise NondeterministicStep(f"a step called {name!r}, which is not a tool of {agent_name or self.replay.agent.name}")
        return agent, agent.tools[tool_name]

    def _argument(self, name: str, value: Any, agent: Agent) -> dict[str, Any]:
        """Where a value came from: another agent, the step's own arguments, an earlier call's result, or computed."""
        if agent is not self.replay.agent:
            return {"name": name, "value": value, "origin": "agent"}
        given = next((a for a in self.given.values() if a["value"] == value and type(a["value"]) is type(value)), None)
        if given is not None:
            return {"name": name, "value": value, "origin": given["origin"]}
        source = next((e.key for e in self.replay.journal.values() if e.key.startswith(f"{self.position}.") and _holds_value(e.result, value)), None)
        return {"name": name, "value": value, "origin": f"result:{source}" if source else "computed"}

    def _same_as_journal(self, key: str, tool: str, arguments: list[dict[str, Any]]) -> None:
        entry = self.replay.journal.get(key)
        if entry is None:
            return
        values = {a["name"]: a["value"] for a in arguments}
        made = {a["name"]: a["value"] for a in entry.arguments}
        if entry.tool != tool or any(made.get(name) != value for name, value in values.items()):
            raise NondeterministicStep(
                f"step call {key} is {tool}({_shown(values)}) on replay, but the run's journal has "
                f"{entry.tool}({_shown(made)}) there: a step must make the same calls in the same order every time it runs"
            )


def _holds_value(result: Any, value: Any) -> bool:
    if isinstance(result, dict):
        return any(_holds_value(v, value) for v in result.values())
    if isinstance(result, list):
        return any(_holds_value(v, value) for v in result)
    return result == value and type(result) is type(value)


def _shown(values: dict[str, Any]) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in values.items())
