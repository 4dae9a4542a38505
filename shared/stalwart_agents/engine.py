"""The engine: turns become runs, answers move them, and an operator can undo them.

Every entry point first carries on a run whose worker died (its lease ran
out), so the next request on a thread shows what that worker left uncertain.
Each move of a run is one replay (``replay.py``) under a lease (``lease.py``),
whose writes are staged and committed only where they must be durable.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any, NoReturn

from .agent import Agent
from .errors import (
    BadRequest, InterruptStale, JournalConflict, JournalExists, NotFound, PauseClosed, PauseExists, RunBusy, RunWaiting,
    StalwartError, ThreadBusy, VersionConflict,
)
from .lease import Lease
from .pause import ANSWERS, Pause, iso, run_of, sorted_arguments
from .replay import Context, Progress, Replay, _call_of, call_position, is_call
from .reply import Reply, Step
from .saga import undo_all
from .storage.base import FINISHED, Event, JournalEntry, PauseRecord, RunRecord, ShownMessage, Snapshot
from .words import words

CLAIM_ATTEMPTS = 8


@dataclass(frozen=True)
class Answer:
    """A person's decision, with who gave it and through which channel (kept on the pause)."""

    decision: str
    value: Any = None
    token: str | None = None
    channel: str = "python"
    by: str | None = None
    principal: dict[str, Any] | None = None


class Engine:
    def __init__(self, context: Context, *, worker: str) -> None:
        self.context = context
        self.store = context.store
        self.worker = worker

    def start(self, thread: str, text: str, agent: Agent, context: dict[str, Any] | None = None, session: str | None = None) -> Reply:
        """Read the turn and run it; the run is begun in the same commit as its first durable write."""
        active = self._recovered(self.store.active_run(thread))
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
        turn = self._event(thread, {"type": "turn", "run": run.id, "text": text})
        return self._advance(self._lease(run, begin=True), Snapshot(run, [], []), session, events=(turn,))

    def waiting(self, thread: str) -> list[Pause]:
        run = self._recovered(self.store.active_run(thread))
        return [] if run is None else _waiting(run, self.store.run_pauses(run.id))

    def answer(self, thread: str, answer: Answer, waiting: str | None = None, session: str | None = None) -> Reply:
        """Claim a pause in the commit that moves its run; the first answer wins, any other is stale.

        Every answer is audited in the thread's log: the one taken in the commit that
        moves the run (and each call that then runs names it), a refused one on its own.
        """
        try:
            return self._answer(thread, answer, waiting, session)
        except (InterruptStale, BadRequest) as refused:
            self._audit_refusal(thread, answer, waiting, refused)
            raise

    def _answer(self, thread: str, answer: Answer, waiting: str | None, session: str | None) -> Reply:
        for _ in range(CLAIM_ATTEMPTS):
            snapshot = self._snapshot_for(thread, waiting)
            pause, others_open = self._pick(snapshot, thread, waiting)
            value = self._validate(snapshot.run, pause, answer)
            if answer.token is not None and not hmac.compare_digest(answer.token.encode(), pause.token.encode()):
                raise InterruptStale("this answer carries a token other than the one shown; read what waits again")
            body = {"decision": answer.decision, "value": value, "channel": answer.channel, "by": answer.by, "principal": answer.principal, "at": self.context.clock()}
            answered = self._event(thread, {"type": "answer", "run": snapshot.run.id, "pause": pause.id, **_audited(answer, pause), "outcome": "taken"})
            try:
                if others_open:
                    return self._answer_one_of_several(snapshot, pause, body, answered)
                lease = self._lease(snapshot.run, claim=(pause.id, body))
                pauses = [p.replace(status="answered", answer=body) if p.id == pause.id else p for p in snapshot.pauses]
                return self._advance(lease, Snapshot(snapshot.run, pauses, snapshot.journal), session, events=(answered,), answering=pause.id)
            except PauseClosed as exc:
                raise InterruptStale("this pause was already answered and the run moved on") from exc
            except VersionConflict:
                continue
        raise RunBusy("the run kept changing while this answer was taken; try again")

    def _audit_refusal(self, thread: str, answer: Answer, waiting: str | None, refused: StalwartError) -> None:
        """Keep a refused answer in the log, for a thread that exists (a made-up thread gets no log)."""
        if self.store.last_run(thread) is None:
            return
        pause = self.store.get_pause(waiting) if waiting is not None else None
        body = {"type": "answer", "pause": waiting, **_audited(answer, pause), "outcome": "refused", "error": refused.code, "message": refused.message}
        self.store.append_event(thread, self._event(thread, body).body)

    def _answer_one_of_several(self, snapshot: Snapshot, pause: PauseRecord, body: dict[str, Any], answered: Event) -> Reply:
        """Nothing runs until the last of several pauses is answered: record this one and say what still waits."""
        run = self.store.claim(pause.id, body, snapshot.run.replace(updated_at=self.context.clock()), expected_version=snapshot.run.version, events=[answered])
        progress = Progress(waiting=_waiting(run, [p for p in snapshot.pauses if p.id != pause.id]))
        progress.steps = _journal_steps(snapshot.journal)
        return self._reply(run, progress)

    def rollback(self, thread: str, session: str | None = None) -> Reply:
        """An operator undoes the thread's run from outside it, by the same saga rules as cancel_all."""
        run = self._recovered(self.store.active_run(thread))
        if run is not None:
            return self._roll_back_active(run, session)
        last = self.store.last_run(thread)
        if last is None:
            raise NotFound("this thread has no run to roll back")
        target = (last.state.get("saga") or {}).get("target", last.id)
        state = {"turn": None, "plan": [], "unread": None, "saga": {"reason": "operator", "target": target}}
        run = self._new_run(thread, last.agent, state)
        rolled = self._event(thread, {"type": "rollback", "run": run.id, "target": target})
        try:
            return self._advance(self._lease(run, begin=True), Snapshot(run, [], []), session, events=(rolled,))
        except ThreadBusy as exc:
            raise RunBusy("a new turn began on this thread while rolling back; try again") from exc

    def _roll_back_active(self, run: RunRecord, session: str | None) -> Reply:
        if run.status == "running":
            raise RunBusy("this thread's run is being carried on by a worker; roll it back once it stops")
        saga = run.state.get("saga") or {"reason": "operator", "target": run.id}
        snapshot = self.store.snapshot(run.id)
        assert snapshot is not None
        rolled = self._event(run.thread, {"type": "rollback", "run": run.id, "target": run.id})
        taken = self._lease(run.replace(state={**run.state, "saga": saga}), version=run.version)
        try:
            return self._advance(taken, snapshot, session, events=(rolled,))
        except VersionConflict as exc:
            raise RunBusy("the run moved while rolling it back; try again") from exc

    def _recovered(self, run: RunRecord | None) -> RunRecord | None:
        """Carry on a run whose worker stopped without letting go (its lease ran out, unrenewed); return it as it then is."""
        if run is None or run.status != "running" or (run.lease_until or 0) > self.context.clock():
            return run
        snapshot = self.store.snapshot(run.id)
        assert snapshot is not None
        recovered = self._event(run.thread, {"type": "recovered", "run": run.id})
        try:
            self._advance(self._lease(run, version=run.version), snapshot, None, events=(recovered,))
        except (VersionConflict, RunBusy):
            pass
        return self.store.get_run(run.id)

    def _lease(self, run: RunRecord, *, begin: bool = False, claim: tuple[str, dict[str, Any]] | None = None, version: int | None = None) -> Lease:
        now = self.context.clock()
        seconds = self.context.agents[run.agent].settings.lease_seconds
        held = run.replace(status="running", lease_owner=self.worker, lease_until=now + seconds, updated_at=now)
        return Lease(self.store, held, seconds=seconds, clock=self.context.clock, begin=begin, claim=claim, version=version)

    def _new_run(self, thread: str, agent: str, state: dict[str, Any]) -> RunRecord:
        return RunRecord(id="r_" + secrets.token_urlsafe(16), thread=thread, agent=agent, status="running", state=state, created_at=self.context.clock())

    def _snapshot_for(self, thread: str, waiting: str | None) -> Snapshot:
        """The run an answer is for: named by the pause id where given, else the thread's active run."""
        run_id = run_of(waiting) if waiting is not None else None
        if run_id is None:
            active = self.store.active_run(thread)
            run_id = active.id if active is not None else None
        snapshot = self.store.snapshot(run_id) if run_id is not None else None
        if snapshot is None or snapshot.run.thread != thread:
            if waiting is not None:
                raise NotFound(f"nothing in this thread waits with the id {waiting!r}")
            self._nothing_waits(thread)
        if snapshot.run.status == "running" and self._recovered(snapshot.run) is not snapshot.run:
            snapshot = self.store.snapshot(snapshot.run.id)
        return snapshot

    def _pick(self, snapshot: Snapshot, thread: str, waiting: str | None) -> tuple[PauseRecord, bool]:
        open_pauses = _open(snapshot.run, snapshot.pauses)
        if waiting is None:
            if not open_pauses:
                self._nothing_waits(thread)
            return open_pauses[0], len(open_pauses) > 1
        pause = next((p for p in open_pauses if p.id == waiting), None)
        if pause is None:
            if any(p.id == waiting for p in snapshot.pauses):
                raise InterruptStale("this pause is no longer open: someone else answered it, and the run moved on")
            raise NotFound(f"nothing in this thread waits with the id {waiting!r}")
        return pause, len(open_pauses) > 1

    def _nothing_waits(self, thread: str) -> None:
        if self.store.last_run(thread) is None:
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
        tool = self.context.agents[run.agent].named(pause.payload["tool"])
        parameter = next(p for p in tool.parameters if p.name == pause.payload["argument"])
        return _coerce(answer.value, parameter.annotation, parameter.name)

    def _refuse_new_turn(self, run: RunRecord | None) -> NoReturn:
        if run is not None and run.status == "waiting":
            waiting = _waiting(run, self.store.run_pauses(run.id))
            raise RunWaiting("this thread's run waits for a decision; answer it (or cancel_all) before a new turn", waiting)
        raise RunBusy("another turn on this thread is being run; try again in a moment")

    def _advance(self, lease: Lease, snapshot: Snapshot, session: str | None, events: tuple[Event, ...] = (), answering: str | None = None) -> Reply:
        """One move of the run under ``lease``, from what ``snapshot`` read; its writes land in as few commits as can be."""
        run = lease.run
        saga = run.state.get("saga")
        journal = snapshot.journal if saga is None or saga["target"] == run.id else self.store.journal(saga["target"])
        lease.stage(events=events)
        try:
            with lease:
                replay = Replay(self.context, lease, snapshot.pauses, journal, journal_of=saga["target"] if saga else None, answering=answering)
                if saga is None:
                    replay.unread() if run.state["unread"] is not None else replay.plan()
                    if replay.progress.ending is not None:
                        saga = {"reason": replay.progress.ending, "target": run.id}
                else:
                    replay.progress.steps = _journal_steps(journal)
                if saga is not None and not replay.progress.waiting:
                    replay.progress.rollback = undo_all(replay, saga["reason"])
                return self._finish(lease, replay.progress, saga, session)
        except ThreadBusy:
            self._refuse_new_turn(self.store.active_run(run.thread))
        except VersionConflict as exc:
            if lease.held:
                raise RunBusy("another worker took this run over after this one's lease ran out; read the thread again") from exc
            raise
        except (PauseExists, JournalExists, JournalConflict) as exc:
            raise RunBusy("another worker moved this run at the same moment; read the thread again") from exc

    def _finish(self, lease: Lease, progress: Progress, saga: dict[str, Any] | None, session: str | None) -> Reply:
        run = lease.run
        status = "waiting" if progress.waiting else _ending(saga)
        state = {**run.state, "saga": saga, "waiting": [p.id for p in progress.waiting]}
        finished = run.replace(status=status, state=state, lease_owner=None, lease_until=None, updated_at=self.context.clock())
        if status in FINISHED:
            lease.stage(events=(self._event(run.thread, {"type": "run", "run": run.id, "status": status}),))
        reply = self._reply(finished, progress)
        if session is not None:
            lease.stage(shown=(ShownMessage(reply.id, session, run.thread, reply.text, self.context.clock()),))
        saved = lease.commit(finished)
        return dataclasses.replace(reply, status=saved.status)

    def _reply(self, run: RunRecord, progress: Progress) -> Reply:
        return Reply(
            thread=run.thread, run=run.id, status=run.status, text=words(run.status, progress),
            steps=progress.steps, waiting=progress.waiting, refusals=progress.refusals, rollback=progress.rollback,
            opened=progress.opened,
        )

    def _event(self, thread: str, body: dict[str, Any]) -> Event:
        return Event(thread, {**body, "at": iso(self.context.clock())})


def _audited(answer: Answer, pause: PauseRecord | None) -> dict[str, Any]:
    """What the log keeps of an answer: never the token itself, only enough of its digest to match it."""
    carried = hashlib.sha256(answer.token.encode()).hexdigest()[:16] if answer.token is not None else None
    shown = {"kind": pause.kind, "tool": pause.payload.get("tool"), "arguments": pause.payload.get("arguments")} if pause else {}
    verified = bool(answer.principal and answer.principal.get("verified"))
    return {
        **shown, "decision": answer.decision, "value": answer.value, "token": carried, "channel": answer.channel,
        "by": answer.by, "principal": answer.principal, "verified": verified,
    }


def _journal_steps(journal: list[JournalEntry]) -> list[Step]:
    """The run's calls as the journal has them, for a reply that does not replay the plan."""
    return [
        Step(call_position(e.key), e.tool, e.arguments, e.status, e.result, e.error, call=_call_of(e.key))
        for e in journal if is_call(e.key)
    ]


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
    tool = agent.named(tool_name)
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
