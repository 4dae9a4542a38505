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
from .pause import ANSWERS, Pause, iso, new_token, pause_id, sorted_arguments
from .reply import Refusal, Step
from .storage.base import Event, JournalEntry, PauseRecord, Storage
from .tools import OutcomeUnknown, Tool

RESEND_ATTEMPTS = 3
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


class Replay:
    """``journal_of`` is the run whose calls this replay reads and writes: its own, or the run an operator rolls back."""

    def __init__(self, context: Context, lease: Lease, pauses: list[PauseRecord], journal: list[JournalEntry], journal_of: str | None = None) -> None:
        self.context = context
        self.lease = lease
        self.run = lease.run
        self.agent = context.agents[self.run.agent]
        self.journal_run = journal_of or self.run.id
        self.pauses = {p.id: p for p in pauses}
        self.journal = {e.key: e for e in journal}
        self.progress = Progress()

    def unread(self) -> None:
        """A turn the selector could not read: say why, then ask whether the model may have it, or refuse."""
        language = self.run.state["unread"].get("language")
        if language and language != "en":
            self.progress.notes.append(f"I read English turns only, and this one looks like {language_name(language)}.")
        else:
            self.progress.notes.append("I couldn't work that out.")
        if self.agent.on_unread == "refuse":
            self.progress.notes.append("I can only do what my tools say they do.")
            return
        reasons = ["unread"] + ([f"language: {language}"] if language else [])
        pause = self.pause("delegate", 0, None, [], reasons, extra={"turn": self.run.state["turn"]}, question="May the assistant have this turn?")
        decision = self.decision(pause)
        if decision is None:
            self.progress.notes.append("Shall I pass it to the assistant?")
        elif decision["decision"] == "decline":
            self.progress.notes.append("Alright, I won't pass it on.")
        else:
            self.progress.notes.append("No model is configured for this agent, so there is no assistant to pass it to.")

    def plan(self) -> None:
        """Take the turn's calls in order, each to its end, stopping where one waits or ends the run."""
        for position, planned in enumerate(self.run.state["plan"], start=1):
            if not self._take(position, planned):
                return

    def _take(self, position: int, planned: dict[str, Any]) -> bool:
        tool = self.agent.tools[planned["tool"]]
        arguments = list(planned["arguments"])
        for parameter in tool.parameters:
            if parameter.required and parameter.name not in {a["name"] for a in arguments}:
                value = self._asked(position, tool, arguments, parameter.name)
                if value is None:
                    return False
                arguments.append({"name": parameter.name, "value": value, "origin": "reply"})
        arguments = sorted_arguments(arguments)
        verdict = self.agent.check(tool, arguments, self.progress.tainted)
        if verdict.kind == "refuse":
            rule = verdict.rule if verdict.disclosed else None
            self.progress.refusals.append(Refusal(position, tool.name, arguments, verdict.sentence or "", rule))
            return False
        if verdict.kind == "confirm":
            decision = self.decision(self.pause("confirm", position, tool, arguments, list(verdict.reasons)))
            if decision is None:
                return False
            if decision["decision"] == "skip":
                self.progress.steps.append(Step(position, tool.name, arguments, "skipped"))
                return True
            if decision["decision"] == "cancel_all":
                self.progress.steps.append(Step(position, tool.name, arguments, "cancelled"))
                self.progress.ending = "cancel_all"
                return False
        return self._execute(position, tool, arguments)

    def _asked(self, position: int, tool: Tool, arguments: list[dict[str, Any]], name: str) -> Any:
        prompt = f"What {name.replace('_', ' ')} should {tool.name} use?"
        extra = {"prompt": prompt, "argument": name}
        pause = self.pause("ask", position, tool, arguments, [f"missing: {name}"], subject=name, extra=extra)
        decision = self.decision(pause)
        return None if decision is None else decision["value"]

    def _execute(self, position: int, tool: Tool, arguments: list[dict[str, Any]]) -> bool:
        key = str(position)
        entry = self.journal.get(key) or self.call(key, tool, arguments)
        entry = self.settle(position, tool, arguments, entry)
        if entry is None:
            return False
        if entry.status == "failed":
            self.progress.steps.append(Step(position, tool.name, arguments, "failed", error=entry.error))
            self.progress.ending = "failed"
            return False
        self.progress.steps.append(Step(position, tool.name, arguments, "done", entry.result))
        if tool.untrusted and tool.name not in self.progress.tainted:
            self.progress.tainted.append(tool.name)
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
        events = (self._step_event(tool, finished),)
        if started is None:
            self.lease.stage(starts=(finished,), events=events)
        else:
            self.lease.stage(updates=((finished, started.status, started.attempt),), events=events)
        self.journal[finished.key] = finished
        return finished

    def _step_event(self, tool: Tool, entry: JournalEntry) -> Event:
        return self.event({"type": "step", "run": self.run.id, "key": entry.key, "tool": tool.name, "status": entry.status})

    def pause(
        self, kind: str, position: int, tool: Tool | None, arguments: list[dict[str, Any]], reasons: list[str],
        subject: str = "", extra: dict[str, Any] | None = None, question: str | None = None,
    ) -> Pause:
        """A pause about ``tool`` (None for one about the turn itself, as delegate is)."""
        run, name = self.run, tool.name if tool else ""
        return Pause(
            id=pause_id(run.thread, run.id, position, name, arguments, kind, subject), kind=kind, thread=run.thread,
            run=run.id, step=position, tool=name, question=question or (tool.question if tool else ""),
            arguments=sorted_arguments(arguments), reasons=reasons, irreversible=bool(tool and tool.irreversible),
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
