"""The engine: turns become runs, answers move them, and an operator can undo them.

Every entry point first carries on a run whose worker died (its lease ran
out), so the next request on a thread shows what that worker left uncertain.
Each move of a run happens under a lease and is one replay (``replay.py``);
the run's state and what waits are saved with a compare-and-set at its end.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from .agent import Agent
from .errors import BadRequest, InterruptStale, NotFound, PauseClosed, RunBusy, RunWaiting, ThreadBusy, VersionConflict
from .lease import Lease
from .pause import ANSWERS, Pause, iso, sorted_arguments
from .replay import Context, Progress, Replay
from .reply import Reply
from .saga import undo_all
from .storage.base import FINISHED, Event, PauseRecord, RunRecord

CLAIM_ATTEMPTS = 8


@dataclass(frozen=True)
class Answer:
    """A person's decision, with who gave it and through which channel (kept on the pause)."""

    decision: str
    value: Any = None
    token: str | None = None
    channel: str = "python"
    by: str | None = None


class Engine:
    def __init__(self, context: Context, *, worker: str) -> None:
        self.context = context
        self.store = context.store
        self.worker = worker

    def start(self, thread: str, text: str, agent: Agent, context: dict[str, Any] | None = None) -> Reply:
        self._recover(thread)
        active = self.store.active_run(thread)
        if active is not None:
            self._refuse_new_turn(active)
        reading = agent.selector.read(text)
        state = {
            "turn": text,
            "context": dict(context or {}),
            "plan": [_planned(agent, clause.tool, clause.text, clause.values, context or {}) for clause in reading.clauses],
            "unread": None if reading.read else {"language": reading.language},
        }
        run = self._new_run(thread, agent.name, state)
        try:
            run = self.store.begin_run(run, events=[self._event(thread, {"type": "turn", "run": run.id, "text": text})])
        except ThreadBusy as exc:
            self._refuse_new_turn(self.store.get_run(exc.active_run or ""))
        return self._advance(run)

    def waiting(self, thread: str) -> list[Pause]:
        self._recover(thread)
        run = self.store.active_run(thread)
        return [] if run is None else _waiting(run, self.store.run_pauses(run.id))

    def answer(self, thread: str, answer: Answer, waiting: str | None = None) -> Reply:
        """Claim a pause with a conditional write; the first answer wins, any other is stale."""
        self._recover(thread)
        for _ in range(CLAIM_ATTEMPTS):
            run, pause, others_open = self._pick(thread, waiting)
            value = self._validate(run, pause, answer)
            if answer.token is not None and not hmac.compare_digest(answer.token.encode(), pause.token.encode()):
                raise InterruptStale("this answer carries a token other than the one shown; read what waits again")
            body = {"decision": answer.decision, "value": value, "channel": answer.channel, "by": answer.by, "at": self.context.clock()}
            answered = self._event(thread, {"type": "answer", "run": run.id, "pause": pause.id, "decision": answer.decision})
            try:
                run = self.store.claim(pause.id, body, self._claimed(run, others_open), expected_version=run.version, events=[answered])
            except PauseClosed as exc:
                raise InterruptStale("this pause was already answered and the run moved on") from exc
            except VersionConflict:
                continue
            return self._advance(run) if run.status == "running" else self._view(run)
        raise RunBusy("the run kept changing while this answer was taken; try again")

    def rollback(self, thread: str) -> Reply:
        """An operator undoes the thread's run from outside it, by the same saga rules as cancel_all."""
        self._recover(thread)
        run = self.store.active_run(thread)
        if run is not None:
            return self._roll_back_active(run)
        last = self.store.last_run(thread)
        if last is None:
            raise NotFound("this thread has no run to roll back")
        target = (last.state.get("saga") or {}).get("target", last.id)
        state = {"turn": None, "plan": [], "unread": None, "saga": {"reason": "operator", "target": target}}
        run = self._new_run(thread, last.agent, state)
        try:
            run = self.store.begin_run(run, events=[self._event(thread, {"type": "rollback", "run": run.id, "target": target})])
        except ThreadBusy as exc:
            raise RunBusy("a new turn began on this thread while rolling back; try again") from exc
        return self._advance(run)

    def _roll_back_active(self, run: RunRecord) -> Reply:
        if run.status == "running":
            raise RunBusy("this thread's run is being carried on by a worker; roll it back once it stops")
        saga = run.state.get("saga") or {"reason": "operator", "target": run.id}
        moved = self._leased(run).replace(state={**run.state, "saga": saga})
        try:
            run = self.store.save_run(moved, expected_version=run.version, events=[self._event(run.thread, {"type": "rollback", "run": run.id, "target": run.id})])
        except VersionConflict as exc:
            raise RunBusy("the run moved while rolling it back; try again") from exc
        return self._advance(run)

    def _recover(self, thread: str) -> None:
        """Carry on a run whose worker stopped without letting go: its lease ran out, unrenewed."""
        run = self.store.active_run(thread)
        if run is None or run.status != "running" or (run.lease_until or 0) > self.context.clock():
            return
        try:
            run = self.store.save_run(self._leased(run), expected_version=run.version, events=[self._event(thread, {"type": "recovered", "run": run.id})])
        except VersionConflict:
            return
        self._advance(run)

    def _leased(self, run: RunRecord) -> RunRecord:
        now = self.context.clock()
        seconds = self.context.agents[run.agent].settings.lease_seconds
        return run.replace(status="running", lease_owner=self.worker, lease_until=now + seconds, updated_at=now)

    def _new_run(self, thread: str, agent: str, state: dict[str, Any]) -> RunRecord:
        now = self.context.clock()
        run = RunRecord(id="r_" + secrets.token_urlsafe(16), thread=thread, agent=agent, status="running", state=state, created_at=now)
        return self._leased(run)

    def _claimed(self, run: RunRecord, others_open: bool) -> RunRecord:
        return run.replace(updated_at=self.context.clock()) if others_open else self._leased(run)

    def _pick(self, thread: str, waiting: str | None) -> tuple[RunRecord, PauseRecord, bool]:
        run = self.store.active_run(thread)
        if run is None or run.status != "waiting":
            self._no_open_pause(thread, waiting, run)
        open_pauses = _open(run, self.store.run_pauses(run.id))
        pause = open_pauses[0] if open_pauses and waiting is None else next((p for p in open_pauses if p.id == waiting), None)
        if pause is None:
            self._no_open_pause(thread, waiting, run)
        return run, pause, len(open_pauses) > 1

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
        tool = self.context.agents[run.agent].tools[pause.payload["tool"]]
        parameter = next(p for p in tool.parameters if p.name == pause.payload["argument"])
        return _coerce(answer.value, parameter.annotation, parameter.name)

    def _refuse_new_turn(self, run: RunRecord | None) -> None:
        if run is not None and run.status == "waiting":
            waiting = _waiting(run, self.store.run_pauses(run.id))
            raise RunWaiting("this thread's run waits for a decision; answer it (or cancel_all) before a new turn", waiting)
        raise RunBusy("another turn on this thread is being run; try again in a moment")

    def _advance(self, run: RunRecord) -> Reply:
        settings = self.context.agents[run.agent].settings
        with Lease(self.store, run, seconds=settings.lease_seconds, clock=self.context.clock) as lease:
            saga = run.state.get("saga")
            replay = Replay(self.context, run, journal_of=saga["target"] if saga else None)
            if saga is None:
                replay.unread() if run.state["unread"] is not None else replay.plan()
                if replay.progress.ending is not None:
                    saga = {"reason": replay.progress.ending, "target": run.id}
            else:
                replay.progress.steps = replay.journal_steps()
            if saga is not None and not replay.progress.waiting:
                replay.progress.rollback = undo_all(replay, saga["reason"])
            return self._finish(lease, replay.progress, saga)

    def _finish(self, lease: Lease, progress: Progress, saga: dict[str, Any] | None) -> Reply:
        run = lease.run
        status = "waiting" if progress.waiting else _ending(saga)
        state = {**run.state, "saga": saga, "waiting": [p.id for p in progress.waiting]}
        finished = run.replace(status=status, state=state, lease_owner=None, lease_until=None, updated_at=self.context.clock())
        events = [self._event(run.thread, {"type": "run", "run": run.id, "status": status})] if status in FINISHED else []
        try:
            saved = lease.save(finished, events=events)
        except VersionConflict as exc:
            raise RunBusy("another worker took this run over after this one's lease ran out; read the thread again") from exc
        return self._reply(saved, progress)

    def _view(self, run: RunRecord) -> Reply:
        """The reply for an answer that leaves other pauses open: nothing runs until the last is answered."""
        progress = Progress(waiting=_waiting(run, self.store.run_pauses(run.id)))
        progress.steps = Replay(self.context, run).journal_steps()
        return self._reply(run, progress)

    def _reply(self, run: RunRecord, progress: Progress) -> Reply:
        return Reply(
            thread=run.thread, run=run.id, status=run.status, text=_words(run, progress),
            steps=progress.steps, waiting=progress.waiting, refusals=progress.refusals, rollback=progress.rollback,
            opened=progress.opened,
        )

    def _event(self, thread: str, body: dict[str, Any]) -> Event:
        return Event(thread, {**body, "at": iso(self.context.clock())})


def _ending(saga: dict[str, Any] | None) -> str:
    if saga is None:
        return "done"
    return "failed" if saga["reason"] == "failed" else "cancelled"


def _open(run: RunRecord, pauses: list[PauseRecord]) -> list[PauseRecord]:
    """Open pauses the run's last move reached; one it moved past is no longer answerable."""
    reached = set(run.state.get("waiting", ()))
    return [p for p in pauses if p.status == "open" and p.id in reached]


def _waiting(run: RunRecord, pauses: list[PauseRecord]) -> list[Pause]:
    return [Pause.from_record(p) for p in _open(run, pauses)]


def _planned(agent: Agent, tool_name: str, clause: str, values: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    tool = agent.tools[tool_name]
    arguments = [{"name": k, "value": v, "origin": "typed"} for k, v in values.items()]
    arguments += [
        {"name": p.name, "value": context[p.name], "origin": "context"}
        for p in tool.parameters if p.name not in values and p.name in context
    ]
    return {"tool": tool_name, "clause": clause, "arguments": sorted_arguments(arguments)}


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
    if progress.rollback is not None:
        words += _rollback_words(progress.rollback)
    elif run.status == "cancelled":
        words.append("Cancelled: nothing more of this run will happen.")
    for pause in progress.waiting:
        if pause.kind == "ask":
            words.append(pause.extra["prompt"])
        elif pause.kind == "saga_stuck":
            words.append(pause.question)
        elif pause.kind == "outcome_unknown":
            words.append(f"I can't tell whether {pause.tool} took effect. Did it?")
        elif pause.kind != "delegate":
            words.append(f"{pause.tool} waits for your decision.")
    return " ".join(words)


def _rollback_words(report: dict[str, Any]) -> list[str]:
    words = []
    if report["undone"]:
        words.append(f"Undone: {', '.join(line['tool'] for line in report['undone'])}.")
    if report["not_undone"]:
        words.append(f"Could not be undone: {', '.join(line['tool'] for line in report['not_undone'])}.")
    if not report["undone"] and not report["not_undone"] and report["status"] == "complete":
        words.append("Nothing this run did needed undoing.")
    return words
