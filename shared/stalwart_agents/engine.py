"""The engine: turns become runs, runs become calls, and calls that need a person wait.

A run is replayed from its plan every time it moves: calls already made come
from the journal, answers from the pauses.  So any worker can carry any run on,
nothing lives in the process between a question and its answer, and a call is
never made twice because a run was replayed.
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .agent import Agent
from .errors import BadRequest, InterruptStale, JournalExists, NotFound, PauseClosed, RunBusy, RunWaiting, ThreadBusy, VersionConflict
from .pause import ANSWERS, Pause, iso, new_token, pause_id, sorted_arguments
from .reply import Refusal, Reply, Step
from .storage.base import FINISHED, Event, JournalEntry, PauseRecord, RunRecord, Storage
from .tools import OutcomeUnknown, Tool

CLAIM_ATTEMPTS = 8
RESEND_ATTEMPTS = 3


@dataclass
class Progress:
    """What one replay of a run found; turned into the reply and the run's new status."""

    steps: list[Step] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    waiting: list[Pause] = field(default_factory=list)
    tainted: list[str] = field(default_factory=list)
    ending: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Answer:
    """A person's decision, with who gave it and through which channel (kept on the pause)."""

    decision: str
    value: Any = None
    token: str | None = None
    channel: str = "python"
    by: str | None = None


class Engine:
    def __init__(self, agents: dict[str, Agent], store: Storage, *, clock: Callable[[], float], worker: str) -> None:
        self.agents = agents
        self.store = store
        self.clock = clock
        self.worker = worker

    def start(self, thread: str, text: str, agent: Agent, context: dict[str, Any] | None = None) -> Reply:
        active = self.store.active_run(thread)
        if active is not None:
            self._refuse_new_turn(active)
        reading = agent.selector.read(text)
        state = {
            "turn": text,
            "context": dict(context or {}),
            "plan": [self._planned(agent, clause.tool, clause.text, clause.values, context or {}) for clause in reading.clauses],
            "unread": None if reading.read else {"language": reading.language},
        }
        now = self.clock()
        run = RunRecord(
            id="r_" + secrets.token_urlsafe(16), thread=thread, agent=agent.name, status="running", state=state,
            lease_owner=self.worker, lease_until=now + agent.settings.lease_seconds, created_at=now, updated_at=now,
        )
        try:
            run = self.store.begin_run(run, events=[self._event(thread, {"type": "turn", "run": run.id, "text": text})])
        except ThreadBusy as exc:
            current = self.store.get_run(exc.active_run) if exc.active_run else None
            if current is not None:
                self._refuse_new_turn(current)
            raise RunBusy("another turn on this thread is being run; try again in a moment") from exc
        return self._advance(run)

    def waiting(self, thread: str) -> list[Pause]:
        run = self.store.active_run(thread)
        if run is None:
            return []
        return [Pause.from_record(p) for p in self.store.run_pauses(run.id) if p.status == "open"]

    def answer(self, thread: str, answer: Answer, waiting: str | None = None) -> Reply:
        """Claim a pause with a conditional write; the first answer wins, any other is stale."""
        for _ in range(CLAIM_ATTEMPTS):
            run, pause, others_open = self._pick(thread, waiting)
            value = self._validate(run, pause, answer)
            if answer.token is not None and not hmac.compare_digest(answer.token.encode(), pause.token.encode()):
                raise InterruptStale("this answer carries a token other than the one shown; read what waits again")
            claimed = self._claimed(run, others_open)
            body = {"decision": answer.decision, "value": value, "channel": answer.channel, "by": answer.by, "at": self.clock()}
            answered = self._event(thread, {"type": "answer", "run": run.id, "pause": pause.id, "decision": answer.decision})
            try:
                run = self.store.claim(pause.id, body, claimed, expected_version=run.version, events=[answered])
            except PauseClosed as exc:
                raise InterruptStale("this pause was already answered and the run moved on") from exc
            except VersionConflict:
                continue
            return self._advance(run) if run.status == "running" else self._view(run)
        raise RunBusy("the run kept changing while this answer was taken; try again")

    def _claimed(self, run: RunRecord, others_open: bool) -> RunRecord:
        if others_open:
            return run.replace(updated_at=self.clock())
        agent = self.agents[run.agent]
        now = self.clock()
        return run.replace(status="running", lease_owner=self.worker, lease_until=now + agent.settings.lease_seconds, updated_at=now)

    def _pick(self, thread: str, waiting: str | None) -> tuple[RunRecord, PauseRecord, bool]:
        run = self.store.active_run(thread)
        if run is None or run.status != "waiting":
            self._no_open_pause(thread, waiting, run)
        pauses = self.store.run_pauses(run.id)
        open_pauses = [p for p in pauses if p.status == "open"]
        if waiting is None:
            if not open_pauses:
                self._no_open_pause(thread, waiting, run)
            pause = open_pauses[0]
        else:
            pause = next((p for p in pauses if p.id == waiting), None)
            if pause is None:
                self._no_open_pause(thread, waiting, run)
            if pause.status != "open":
                raise InterruptStale("this pause was already answered and the run moved on")
        return run, pause, any(p.id != pause.id for p in open_pauses)

    def _no_open_pause(self, thread: str, waiting: str | None, run: RunRecord | None) -> None:
        if waiting is not None:
            known = self.store.get_pause(waiting)
            if known is not None and known.thread == thread:
                raise InterruptStale("this pause is no longer open: someone else answered it, and the run moved on")
            raise NotFound(f"nothing in this thread waits with the id {waiting!r}")
        if run is None and self.store.last_run(thread) is None:
            raise NotFound("this thread has no run")
        raise InterruptStale("nothing in this thread waits for an answer")

    def _validate(self, run: RunRecord, pause: PauseRecord, answer: Answer) -> Any:
        taken = ANSWERS[pause.kind]
        if answer.decision not in taken:
            raise BadRequest(f"a {pause.kind} pause takes {', '.join(taken)}, not {answer.decision!r}")
        if pause.kind != "ask":
            return None
        if not isinstance(answer.value, (str, int, float)) or isinstance(answer.value, bool) or str(answer.value).strip() == "":
            raise BadRequest("an ask is answered with a value: the text that answers its question")
        tool = self.agents[run.agent].tools[pause.payload["tool"]]
        parameter = next(p for p in tool.parameters if p.name == pause.payload["argument"])
        return _coerce(answer.value, parameter.annotation, parameter.name)

    def _refuse_new_turn(self, run: RunRecord) -> None:
        if run.status == "waiting":
            waiting = [Pause.from_record(p) for p in self.store.run_pauses(run.id) if p.status == "open"]
            raise RunWaiting("this thread's run waits for a decision; answer it (or cancel_all) before a new turn", waiting)
        raise RunBusy("another turn on this thread is being run; try again in a moment")

    def _planned(self, agent: Agent, tool_name: str, clause: str, values: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        tool = agent.tools[tool_name]
        arguments = [{"name": k, "value": v, "origin": "typed"} for k, v in values.items()]
        arguments += [
            {"name": p.name, "value": context[p.name], "origin": "context"}
            for p in tool.parameters if p.name not in values and p.name in context
        ]
        return {"tool": tool_name, "clause": clause, "arguments": sorted_arguments(arguments)}

    def _advance(self, run: RunRecord) -> Reply:
        agent = self.agents[run.agent]
        pauses = {p.id: p for p in self.store.run_pauses(run.id)}
        journal = {e.key: e for e in self.store.journal(run.id)}
        progress = Progress()
        if run.state.get("unread") is not None:
            self._unread(run, agent, pauses, progress)
        else:
            for position, planned in enumerate(run.state["plan"], start=1):
                if not self._take(run, agent, position, planned, pauses, journal, progress):
                    break
        return self._finish(run, agent, progress)

    def _take(self, run, agent: Agent, position: int, planned: dict, pauses: dict, journal: dict, progress: Progress) -> bool:
        tool = agent.tools[planned["tool"]]
        arguments = list(planned["arguments"])
        for parameter in tool.parameters:
            if parameter.required and parameter.name not in {a["name"] for a in arguments}:
                reply = self._asked(run, position, tool, arguments, parameter.name, pauses, progress)
                if reply is None:
                    return False
                arguments.append({"name": parameter.name, "value": reply, "origin": "reply"})
        arguments = sorted_arguments(arguments)
        verdict = agent.check(tool, arguments, progress.tainted)
        if verdict.kind == "refuse":
            progress.refusals.append(Refusal(position, tool.name, arguments, verdict.sentence or "", verdict.rule if verdict.disclosed else None))
            progress.ending = "done"
            return False
        if verdict.kind == "confirm":
            pause = self._pause(run, "confirm", position, tool, arguments, list(verdict.reasons))
            decision = self._decision(pause, pauses, progress)
            if decision is None:
                return False
            if decision["decision"] == "skip":
                progress.steps.append(Step(position, tool.name, arguments, "skipped"))
                return True
            if decision["decision"] == "cancel_all":
                progress.steps.append(Step(position, tool.name, arguments, "cancelled"))
                progress.ending = "cancelled"
                return False
        return self._execute(run, position, tool, arguments, pauses, journal, progress)

    def _asked(self, run, position: int, tool: Tool, arguments: list, name: str, pauses: dict, progress: Progress) -> Any:
        prompt = f"What {name.replace('_', ' ')} should {tool.name} use?"
        pause = self._pause(run, "ask", position, tool, arguments, [f"missing: {name}"], subject=name, extra={"prompt": prompt, "argument": name})
        decision = self._decision(pause, pauses, progress)
        return None if decision is None else decision["value"]

    def _execute(self, run, position: int, tool: Tool, arguments: list, pauses: dict, journal: dict, progress: Progress) -> bool:
        key = str(position)
        entry = journal.get(key) or self._call(run, key, tool, arguments, None)
        entry = self._settled(run, position, tool, arguments, entry, pauses, progress)
        if entry is None:
            return False
        journal[key] = entry
        if entry.status == "failed":
            progress.steps.append(Step(position, tool.name, arguments, "failed", error=entry.error))
            progress.ending = "failed"
            return False
        progress.steps.append(Step(position, tool.name, arguments, "done", entry.result))
        if tool.untrusted and tool.name not in progress.tainted:
            progress.tainted.append(tool.name)
        return True

    def _settled(self, run, position, tool: Tool, arguments, entry: JournalEntry, pauses: dict, progress: Progress) -> JournalEntry | None:
        """A write that may or may not have happened is sent again only if it is idempotent, or a person says so."""
        while entry.status in ("started", "unknown"):
            if tool.idempotent and entry.attempt < RESEND_ATTEMPTS:
                entry = self._call(run, entry.key, tool, arguments, entry)
                continue
            cause = entry.error or "the worker stopped mid-call"
            pause = self._pause(run, "outcome_unknown", position, tool, arguments, [f"outcome_unknown: {cause}"], subject=str(entry.attempt))
            decision = self._decision(pause, pauses, progress)
            if decision is None:
                return None
            if decision["decision"] == "happened":
                happened = entry.replace(status="done", result=None, finished_at=self.clock())
                return self.store.journal_update(happened, expected_status=entry.status, events=[self._step_event(run, tool, happened)])
            entry = self._call(run, entry.key, tool, arguments, entry)
        return entry

    def _call(self, run, key: str, tool: Tool, arguments: list, previous: JournalEntry | None) -> JournalEntry:
        """Journal ``started`` before a write and its outcome after; a read, safe to repeat, is journaled once, finished."""
        now = self.clock()
        values = {a["name"]: a["value"] for a in arguments}
        if previous is None:
            entry = JournalEntry(run.id, key, tool.name, values, "started", idempotency_key=f"{run.id}:{key}", started_at=now)
            if tool.write:
                try:
                    entry = self.store.journal_start(entry)
                except JournalExists as exc:
                    return exc.current
        else:
            entry = self.store.journal_update(previous.replace(status="started", attempt=previous.attempt + 1, started_at=now, error=None), expected_status=previous.status)
        finished = _invoke(tool, values, entry).replace(finished_at=self.clock())
        events = [self._step_event(run, tool, finished)]
        if tool.write:
            return self.store.journal_update(finished, expected_status="started", events=events)
        try:
            return self.store.journal_start(finished, events=events)
        except JournalExists as exc:
            return exc.current

    def _step_event(self, run: RunRecord, tool: Tool, entry: JournalEntry) -> Event:
        return self._event(run.thread, {"type": "step", "run": run.id, "step": int(entry.key), "tool": tool.name, "status": entry.status})

    def _pause(self, run, kind: str, position: int, tool: Tool, arguments: list, reasons: list[str], subject: str = "", extra: dict | None = None) -> Pause:
        now = self.clock()
        return Pause(
            id=pause_id(run.thread, run.id, position, tool.name, arguments, kind, subject), kind=kind, thread=run.thread,
            run=run.id, step=position, tool=tool.name, question=tool.question, arguments=sorted_arguments(arguments),
            reasons=reasons, irreversible=tool.irreversible, answers=list(ANSWERS[kind]), token=new_token(), created_at=iso(now),
            extra=extra or {},
        )

    def _decision(self, pause: Pause, pauses: dict[str, PauseRecord], progress: Progress) -> dict[str, Any] | None:
        """The answer to this pause, or None after making sure it is open and listed as waiting."""
        stored = pauses.get(pause.id)
        if stored is not None and stored.status == "answered":
            return stored.answer
        if stored is None:
            opened = self._event(pause.thread, {"type": "pause", "run": pause.run, "pause": pause.to_dict(token=False)})
            stored = self.store.open_pause(pause.record().replace(created_at=self.clock()), events=[opened])
            pauses[pause.id] = stored
        progress.waiting.append(Pause.from_record(stored))
        return None

    def _unread(self, run: RunRecord, agent: Agent, pauses: dict, progress: Progress) -> None:
        language = run.state["unread"].get("language")
        if language and language != "en":
            from .language import language_name

            progress.notes.append(f"I read English turns only, and this one looks like {language_name(language)}.")
        else:
            progress.notes.append("I couldn't work that out.")
        if agent.on_unread == "refuse":
            progress.notes.append("I can only do what my tools say they do.")
            return
        pause = Pause(
            id=pause_id(run.thread, run.id, 0, "", [], "delegate"), kind="delegate", thread=run.thread, run=run.id, step=0,
            tool="", question="May the assistant have this turn?", arguments=[], reasons=["unread"] + ([f"language: {language}"] if language else []),
            irreversible=False, answers=list(ANSWERS["delegate"]), token=new_token(), created_at=iso(self.clock()), extra={"turn": run.state["turn"]},
        )
        decision = self._decision(pause, pauses, progress)
        if decision is None:
            progress.notes.append("Shall I pass it to the assistant?")
        elif decision["decision"] == "decline":
            progress.notes.append("Alright, I won't pass it on.")
        else:
            progress.notes.append("No model is configured for this agent, so there is no assistant to pass it to.")

    def _finish(self, run: RunRecord, agent: Agent, progress: Progress) -> Reply:
        status = "waiting" if progress.waiting else (progress.ending or "done")
        finished = run.replace(status=status, lease_owner=None, lease_until=None, updated_at=self.clock())
        events = [self._event(run.thread, {"type": "run", "run": run.id, "status": status})] if status in FINISHED else []
        try:
            saved = self.store.save_run(finished, expected_version=run.version, events=events)
        except VersionConflict as exc:
            raise RunBusy("another worker took this run over; read the thread again") from exc
        return self._reply(saved, progress)

    def _view(self, run: RunRecord) -> Reply:
        """The reply for an answer that leaves other pauses open: nothing runs until the last is answered."""
        journal = self.store.journal(run.id)
        progress = Progress(
            steps=[Step(int(e.key), e.tool, [], e.status, e.result, e.error) for e in journal if e.status in ("done", "failed")],
            waiting=[Pause.from_record(p) for p in self.store.run_pauses(run.id) if p.status == "open"],
        )
        return self._reply(run, progress)

    def _reply(self, run: RunRecord, progress: Progress) -> Reply:
        return Reply(
            thread=run.thread, run=run.id, status=run.status, text=_words(run, progress),
            steps=progress.steps, waiting=progress.waiting, refusals=progress.refusals,
        )

    def _event(self, thread: str, body: dict[str, Any]) -> Event:
        return Event(thread, {**body, "at": iso(self.clock())})


def _invoke(tool: Tool, values: dict[str, Any], entry: JournalEntry) -> JournalEntry:
    kwargs = dict(values)
    if tool.takes("idempotency_key"):
        kwargs["idempotency_key"] = entry.idempotency_key
    try:
        result = tool.fn(**kwargs)
    except (OutcomeUnknown, TimeoutError) as exc:
        status = "unknown" if tool.write else "failed"
        return entry.replace(status=status, error=_describe(exc))
    except Exception as exc:
        return entry.replace(status="failed", error=_describe(exc))
    return entry.replace(status="done", result=_jsonable(result))


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _jsonable(value: Any) -> Any:
    """Results are kept as JSON; what JSON cannot hold is kept as its text rather than lost."""
    return json.loads(json.dumps(value, default=str))


def _coerce(value: Any, annotation: Any, name: str) -> Any:
    if annotation in (int, float, "int", "float") and isinstance(value, str):
        text = value.strip().lstrip("$€£")
        try:
            number = float(text)
        except ValueError:
            raise BadRequest(f"{name} must be a number, not {value!r}") from None
        return int(number) if number.is_integer() and "." not in text else number
    return value.strip() if isinstance(value, str) else value


def _words(run: RunRecord, progress: Progress) -> str:
    """The agent's own words: short, and never the only place a fact is reported."""
    words = list(progress.notes)
    done = [s.tool for s in progress.steps if s.status == "done"]
    if done:
        words.append(f"Done: {', '.join(done)}.")
    words += [f"Skipped {s.tool}, as you asked." for s in progress.steps if s.status == "skipped"]
    words += [f"{s.tool} failed: {s.error}." for s in progress.steps if s.status == "failed"]
    words += [r.sentence for r in progress.refusals]
    if run.status == "cancelled":
        words.append("Cancelled: nothing more of this run will happen.")
    for pause in progress.waiting:
        if pause.kind == "ask":
            words.append(pause.extra["prompt"])
        elif pause.kind != "delegate":
            words.append(f"{pause.tool} waits for your decision.")
    return " ".join(words)
