"""The engine: turns become runs, answers move them, and an operator can undo them.

Every request that writes first carries on a run whose worker died (its lease
ran out), so the next turn, answer or rollback on a thread shows what that
worker left uncertain; reading what waits only reports.  Where nobody comes,
the sweep (``sweep.py``) carries such a run on through ``recover``.  Moving a run under a
lease is ``move.py``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NoReturn

from .. import telemetry
from ..agent import Agent
from ..approvals.rules import DECLINES, approval, approved_by, owner_of, same_key
from ..errors import (
    AlreadyApproved,
    BadRequest,
    EditRefused,
    InterruptStale,
    NotAnApprover,
    NotFound,
    PauseExpired,
    RunBusy,
    StalwartError,
    ThreadBusy,
    VersionConflict,
)
from ..reading.selector import Clause
from ..storage import Changes, Event, PauseRecord, RunRecord, Snapshot
from ..tools.python import Parameter, Tool
from ..vocabulary import JSON
from .answer import Answer
from .arguments import by_name, with_origin
from .claim import check_token, claimed_once
from .decided import decided
from .edit import Edit, judged, tainted_by
from .exact import SAFE_INTEGER, unshowable
from .ledger import claiming, journal_outcomes
from .move import Mover, Runtime, open_pauses, reply_of, waiting_pauses
from .pause import Pause, ended_by_clock, iso, run_of
from .progress import Progress
from .reply import Reply
from .sizes import bounded
from .state import PlannedCall, RunState, Saga, Unread


@dataclass(frozen=True)
class Recovery:
    """Whether this worker carried a dead worker's run on (another may have come first), and the pauses it opened:
    none where it carried the run to its end."""

    carried_on: bool
    opened: list[Pause] = field(default_factory=list)


class Engine:
    def __init__(self, runtime: Runtime, *, worker: str) -> None:
        self._runtime, self._store = runtime, runtime.store
        self._runs = Mover(runtime, worker)

    def start(
        self,
        thread: str,
        text: str,
        agent: Agent,
        context: dict[str, JSON] | None = None,
        session: str | None = None,
        owner: str | None = None,
        asker: str | None = None,
        *,
        owned: bool = False,
    ) -> Reply:
        """Read the turn and run it; the run is begun in the same commit as its first durable write.

        ``context`` holds what the application gives (the signed-in customer...), by parameter name.  ``owner``
        (a principal's key), where given, is who the thread must be, or become, the turn's: see ``_refuse_stranger``,
        which ``owned`` skips where the caller has just read the thread as ``owner``'s (a thread never changes
        owner; one nobody owned yet is read again, after its active run).  ``asker`` is who that is, in words, for
        the cards of the run's pauses.
        """
        with telemetry.current().turn(thread, agent.name):
            return self._start(thread, text, agent, context, session, owner, asker, owned)

    def _start(
        self,
        thread: str,
        text: str,
        agent: Agent,
        context: dict[str, JSON] | None,
        session: str | None,
        owner: str | None,
        asker: str | None,
        owned: bool,
    ) -> Reply:
        active = self._store.active_run(thread)
        if owner is not None and not owned:
            self._refuse_stranger(thread, owner)
        active = self._runs.recovered(active)
        if active is not None:
            self._runs.refuse_new_turn(active)
        reading = agent.selector.read(text)
        given = dict(context or {})
        plan = tuple(_planned(agent, clause, given) for clause in reading.clauses)
        unread = None if reading.read else Unread(reading.language)
        state = RunState(turn=text, context=given, plan=plan, unread=unread, asker=asker)
        run = self._runs.new_run(thread, agent.name, state)
        turn = self._runs.event(thread, {"type": "turn", "run": run.id, "text": text})
        lease = self._runs.lease(run, begin=True, owner=owner)
        return self._runs.advance(lease, state, Snapshot(run, [], []), session, (turn,))

    def _refuse_stranger(self, thread: str, owner: str) -> None:
        """NotFound, as for a thread that does not exist, where the thread is another's: a read, so nothing of
        a stranger's turn runs.  Read after the thread's active run, so a run begun meanwhile by another is seen
        with its owner (both are written in one commit).  A thread still nobody's when the turn begins is
        decided in the begin's commit (``Changes.owner``): the first to begin there owns it, and another's begin
        writes nothing."""
        stored = owner_of(self._store, thread)
        if stored is not None and not same_key(stored, owner):
            raise NotFound("no such thread")

    def waiting(self, thread: str) -> list[Pause]:
        """What waits in the thread, as stored.  A read never moves a run, not even one whose worker died."""
        run = self._store.active_run(thread)
        return [] if run is None else waiting_pauses(run, self._store.run_pauses(run.id))

    def recover(self, thread: str) -> Recovery:
        """Carry on the thread's run if its worker died, as its next turn or answer would: the sweep's part.

        The pauses this worker opened (an ``outcome_unknown`` for a call cut off mid-way) are
        returned, to be announced as any new pause is; none where the run was alive, or where
        another worker carried it on first (that worker announces them).
        """
        run = self._store.active_run(thread)
        if run is None or not self._runs.stale(run):
            return Recovery(False)
        reply = self._runs.recover(run)
        return Recovery(False) if reply is None else Recovery(True, reply.opened)

    def answer(self, thread: str, answer: Answer, pause_id: str | None = None, session: str | None = None) -> Reply:
        """Claim a pause in the commit that moves its run; the first answer wins, any other is stale.

        Only a person the pause's approver rules allow may answer it (NotAnApprover).  A pause
        that needs several people counts each approval but the last on its run, and stays open.
        Every answer is audited in the thread's log, with the title of the pause it answers and its
        time: the one taken in the commit that moves the run (and each call that then runs names
        it), a counted approval in the commit that counts it, a refused one on its own.
        """
        try:
            return self._answer(thread, answer, pause_id, session)
        except (NotAnApprover, AlreadyApproved) as refused:
            self._audit_refusal(thread, answer, refused.pause, refused)
            telemetry.current().answer_refused(refused.code)
            raise
        except (InterruptStale, BadRequest, PauseExpired, EditRefused) as refused:
            self._audit_refusal(thread, answer, pause_id, refused)
            telemetry.current().answer_refused(refused.code)
            raise

    def expire(self, thread: str, pause_id: str) -> Reply:
        """The clock's answer to a pause past its deadline: ``expired``, taken through the same claim as a
        person's, so of a late approval and the expiry exactly one wins (the other is InterruptStale).  The run
        then does what the pause's ``on_expiry`` says.  A pause not past its deadline, or of a kind a deadline
        never decides, is InterruptStale and changes nothing.  The clock's answer is audited where it is taken, not
        where it loses a race."""
        return self._answer(thread, Answer.expiry(), pause_id, None)

    def rollback(self, thread: str, session: str | None = None) -> Reply:
        """An operator undoes the thread's run from outside it, by the same saga rules as cancel_all."""
        run = self._runs.recovered(self._store.active_run(thread))
        if run is not None:
            return self._roll_back_active(run, session)
        last = self._store.last_run(thread)
        if last is None:
            raise NotFound("this thread has no run to roll back")
        undoing = RunState.of(last).saga
        target = undoing.target if undoing is not None else last.id
        state = RunState(saga=Saga("operator", target))
        run = self._runs.new_run(thread, last.agent, state)
        rolled = self._runs.event(thread, {"type": "rollback", "run": run.id, "target": target})
        try:
            begun = self._runs.lease(run, begin=True)
            return self._runs.advance(begun, state, Snapshot(run, [], []), session, (rolled,))
        except ThreadBusy as exc:
            raise RunBusy("a new turn began on this thread while rolling back; try again") from exc

    def _answer(self, thread: str, answer: Answer, pause_id: str | None, session: str | None) -> Reply:
        try:
            return claimed_once(lambda: self._answer_once(thread, answer, pause_id, session))
        except InterruptStale:
            if not answer.expires:
                self._refuse_if_expired(pause_id)
            raise

    def _answer_once(self, thread: str, answer: Answer, pause_id: str | None, session: str | None) -> Reply:
        snapshot = self._snapshot_for(thread, pause_id)
        record, others_open = self._pick(snapshot, thread, pause_id)
        pause = Pause.from_record(record)
        if answer.expires or self._overdue(pause):
            return self._expire(snapshot, pause, others_open, late=not answer.expires)
        self._refuse_non_approver(snapshot.run, pause, answer)
        value = self._fitted(snapshot.run, pause, answer.checked(pause, self._filled_by(snapshot.run, pause)))
        check_token(answer, pause)
        edit = self._edit(snapshot, pause, answer)
        if edit is not None:
            return self._observed(
                snapshot.run, pause, answer, self._take_edit(snapshot, edit, answer, others_open, session)
            )
        counted = self._counts_only(snapshot.run, pause, answer)
        stored = answer.stored(value, self._runtime.clock())
        taken = self._take(snapshot, pause, answer, stored, others_open, session, counted=counted)
        return self._observed(snapshot.run, pause, answer, taken, counted=counted)

    def _edit(self, snapshot: Snapshot, pause: Pause, answer: Answer) -> Edit | None:
        """The changes an approval makes to the call, judged (``edit.py``); None for an answer without any.  A
        change the check refuses outright is EditRefused: nothing is answered, and the call waits as it was."""
        if not answer.edits:
            return None
        if answer.decision != "approve":
            raise BadRequest(f"edits: only an approval changes a call; {answer.decision!r} takes none")
        if answer.channel == "link":
            raise BadRequest("edits: a signed link approves exactly what it shows, and never changes it")
        agent = self._runtime.agents[snapshot.run.agent]
        tool = agent.tools.get(pause.tool)
        if tool is None:
            raise BadRequest(f"edits: {pause.title} cannot be changed before it is approved")
        edit = judged(pause, tool, answer.edits, answer.editor, asked_again=_asked_again(snapshot.pauses, pause))
        if edit is None:
            return None
        ruling = agent.check(tool, edit.arguments, tainted_by(pause))
        if ruling.kind == "refuse":
            why = ruling.sentence if ruling.disclosed and ruling.sentence else "a rule of this agent refuses it."
            raise EditRefused(f"{edit.changed.title} would be refused: {why} Nothing was answered; it waits as asked.")
        return edit

    def _take_edit(
        self, snapshot: Snapshot, edit: Edit, answer: Answer, others_open: bool, session: str | None
    ) -> Reply:
        """Take an approval with changes: for the changed call, where this person could approve it alone (or it
        needs nobody's approval); otherwise answered ``edited``, and the run asks about the changed call anew."""
        run = snapshot.run
        alone = self._approves_alone(run, edit.changed, answer)
        taken = replace(answer, decision="approve" if alone else "edited")
        stored = taken.stored(None, self._runtime.clock()) | edit.stored()
        return self._take(snapshot, edit.asked, taken, stored, others_open, session, edit=edit)

    def _approves_alone(self, run: RunRecord, changed: Pause, answer: Answer) -> bool:
        """Whether ``answer``'s giver may approve ``changed`` with no one else: a rule lets them (or none governs
        it and they speak for the owner), and its tool needs one approval."""
        if self._runtime.agents[run.agent].approvers.needed(changed.tool, changed.kind) > 1:
            return False
        try:
            self._refuse_non_approver(run, changed, answer)
        except NotAnApprover:
            return False
        return True

    def _overdue(self, pause: Pause) -> bool:
        return pause.overdue(self._runtime.clock())

    def _expire(self, snapshot: Snapshot, pause: Pause, others_open: bool, *, late: bool) -> Reply:
        """Answer ``pause`` as the clock, and move its run on.  Where a ``late`` person's answer found the deadline
        passed, theirs is refused (PauseExpired) once the expiry is taken: nothing they said is done."""
        if not self._overdue(pause):
            raise InterruptStale("this pause has not reached a deadline that ends it")
        clock = Answer.expiry()
        stored = clock.stored(None, self._runtime.clock(), then=pause.on_expiry)
        reply = self._observed(
            snapshot.run, pause, clock, self._take(snapshot, pause, clock, stored, others_open, None)
        )
        if late:
            raise PauseExpired(_expired_sentence(pause), reply=reply)
        return reply

    def _refuse_if_expired(self, pause_id: str | None) -> None:
        """PauseExpired where the pause a person answered late was ended by the clock: they are told that, rather
        than that someone else answered."""
        stored = self._store.get_pause(pause_id) if pause_id is not None else None
        if stored is not None and ended_by_clock(stored):
            raise PauseExpired(_expired_sentence(Pause.from_record(stored)))

    def _take(
        self,
        snapshot: Snapshot,
        pause: Pause,
        answer: Answer,
        stored: dict[str, object],
        others_open: bool,
        session: str | None,
        *,
        counted: bool = False,
        edit: Edit | None = None,
    ) -> Reply:
        """Take ``answer`` (``stored`` as the pause keeps it) in the commit that moves the run, audited in it, with
        the changes of an approval that made some."""
        thread = snapshot.run.thread
        outcome = "approval" if counted else "taken"
        about = {"run": snapshot.run.id, "pause": pause.id, "title": pause.title}
        changed = edit.audited() if edit is not None else {}
        taken = {**about, **answer.audited(pause), **changed, "outcome": outcome}
        answered = self._decided(snapshot.run, pause, answer, self._runs.event(thread, {"type": "answer", **taken}))
        if counted:
            return self._count_approval(snapshot, pause, answer, answered)
        if others_open:
            one = self._answer_one_of_several(snapshot, pause, stored, answered)
            return replace(one, answered=pause, answered_as=answer.decision)
        lease = self._runs.lease(snapshot.run, claim=(pause.id, stored))
        moved = Snapshot(snapshot.run, _answered(snapshot.pauses, pause.id, stored), snapshot.journal)
        state = RunState.of(snapshot.run)
        reply = self._runs.advance(lease, state, moved, session, (answered,), answering=pause.id)
        return replace(reply, answered=pause, answered_as=answer.decision)

    def _governed(self, run: RunRecord, pause: Pause, answer: Answer) -> tuple[list[str], int]:
        """The names of the approver rules that govern ``pause``, and how many people have approved it with
        ``answer``: what the decision record and the approval span both say of a decision."""
        rules = [rule.name for rule in self._runtime.agents[run.agent].approvers.governing(pause)]
        return rules, len(RunState.approvals_of(run).get(pause.id, ())) + (answer.decision == "approve")

    def _decided(self, run: RunRecord, pause: Pause, answer: Answer, answered: Event) -> Event:
        """The answer's event, with what the decision record keeps of it: the rules that governed the pause, and
        how many people have approved it with this answer, where several must."""
        rules, given = self._governed(run, pause, answer)
        approvals = None if pause.approvals is None else (given, pause.approvals["needed"])
        return replace(answered, decision=decided(answered.body, pause, rules, approvals))

    def _observed(self, run: RunRecord, pause: Pause, answer: Answer, reply: Reply, *, counted: bool = False) -> Reply:
        """``reply``, once telemetry is told of the answer it took: the end of the wait for ``pause`` (its approval
        span), or one approval counted of several."""
        hooks = telemetry.current()
        if not hooks.enabled:
            return reply
        rules, given = self._governed(run, pause, answer)
        decision = reply.answered_as or answer.decision
        approver = answer.reference(self._store)
        hooks.pause_decided(pause, decision, answer.channel, approver, rules, given, final=not counted)
        return reply

    def _refuse_non_approver(self, run: RunRecord, pause: Pause, answer: Answer) -> None:
        """NotAnApprover, unless the pause's approver rules (or, where none governs it, ownership) allow the person.

        The owner may always decline (``DECLINES``): a rule nobody satisfies must not hold the thread.  An answer
        given in-process without a principal speaks for the owner where no rule governs the pause, as it did
        before there were rules (the application has let its caller in), and in declining; a rule judges it
        as anonymous.
        """
        approvers = self._runtime.agents[run.agent].approvers
        if answer.who is None and (answer.decision in DECLINES or not approvers.governing(pause)):
            return
        why = approvers.refusal(pause, answer.person, answer.owner_of(self._store, run.thread), answer.decision)
        if why is not None:
            raise NotAnApprover(f"you may not answer this pause: {why}", pause=pause.id)

    def _counts_only(self, run: RunRecord, pause: Pause, answer: Answer) -> bool:
        """Whether this answer is an approval that others must follow before the call runs.

        The same person approving twice is AlreadyApproved: four eyes are two people.
        """
        if answer.decision != "approve" or pause.approvals is None:
            return False
        given = RunState.approvals_of(run).get(pause.id, ())
        if approved_by(given, answer.person, answer.owner_of(self._store, run.thread)):
            raise AlreadyApproved(
                "you have already approved this; it waits for someone else to approve it too", pause=pause.id
            )
        return len(given) + 1 < pause.approvals["needed"]

    def _count_approval(self, snapshot: Snapshot, pause: Pause, answer: Answer, answered: Event) -> Reply:
        """Keep one approval of several on the run, over the version it was read at; the pause stays open.

        A run being moved right now is not written under its worker, who would then lose its lease.
        """
        run = snapshot.run
        if run.status != "waiting":
            raise RunBusy("this thread's run is being carried on right now; approve again in a moment")
        now = self._runtime.clock()
        state = RunState.of(run).approved(pause.id, approval(answer.by, answer.person, now))
        limit = self._runtime.agents[run.agent].settings.max_value_bytes
        counting = run.replace(state=state.to_json(), updated_at=now)
        saved = self._store.commit(Changes(run=counting, version=run.version, events=[bounded(answered, limit)])).run
        assert saved is not None, "a counted approval saves its run"
        still = waiting_pauses(saved, snapshot.pauses)
        return reply_of(saved, Progress(steps=journal_outcomes(snapshot.journal), waiting=still))

    def _filled_by(self, run: RunRecord, pause: Pause) -> Parameter | None:
        """The parameter an ask's answer fills; None for every other kind."""
        if pause.kind != "ask":
            return None
        callee = self._runtime.agents[run.agent].named(pause.tool)
        return next(p for p in callee.parameters if p.name == pause.argument)

    def _fitted(self, run: RunRecord, pause: Pause, value: JSON) -> JSON:
        """An ask's answer once the tool takes it, as strictly as an edit (``Tool.edited``): 12.5 is no ``str``, and
        a call runs with exactly the value the person gave.  BadRequest naming the parameter otherwise."""
        if pause.kind != "ask" or pause.argument is None:
            return value
        callee = self._runtime.agents[run.agent].named(pause.tool)
        if not isinstance(callee, Tool):
            return value
        try:
            return callee.edited(pause.argument, value, value)
        except ValueError as exc:
            raise BadRequest(f"value: {pause.argument}: {exc}") from None

    def _audit_refusal(self, thread: str, answer: Answer, pause_id: str | None, refused: StalwartError) -> None:
        """Keep a refused answer in the log, for a thread that exists (a made-up thread gets no log)."""
        if self._store.last_run(thread) is None:
            return
        stored = self._store.get_pause(pause_id) if pause_id is not None else None
        pause = Pause.from_record(stored) if stored is not None else None
        body = {
            "type": "answer",
            "pause": pause_id,
            **({"title": pause.title} if pause is not None else {}),
            **answer.audited(pause),
            "outcome": "refused",
            "error": refused.code,
            "message": refused.message,
        }
        self._store.commit(Changes(events=[self._runs.event(thread, body)]))

    def _answer_one_of_several(
        self,
        snapshot: Snapshot,
        pause: Pause,
        stored: dict[str, object],
        answered: Event,
    ) -> Reply:
        """Nothing runs until the last of several pauses is answered: record this one and say what still waits."""
        self._runs.refuse_large_answer(snapshot.run, pause.id, stored)
        claimed = claiming(pause.id, stored, snapshot.run, self._runtime.clock(), events=[answered])
        run = self._store.commit(claimed).run
        assert run is not None, "a claim saves its run"
        others = waiting_pauses(run, [p for p in snapshot.pauses if p.id != pause.id])
        return reply_of(run, Progress(steps=journal_outcomes(snapshot.journal), waiting=others))

    def _roll_back_active(self, run: RunRecord, session: str | None) -> Reply:
        if run.status == "running":
            raise RunBusy("this thread's run is being carried on by a worker; roll it back once it stops")
        stored = RunState.of(run)
        state = stored.replace(saga=stored.saga or Saga("operator", run.id))
        snapshot = self._store.snapshot(run.id)
        assert snapshot is not None, "an active run is in the store"
        rolled = self._runs.event(run.thread, {"type": "rollback", "run": run.id, "target": run.id})
        taken = self._runs.lease(run.replace(state=state.to_json()), version=run.version)
        try:
            return self._runs.advance(taken, state, snapshot, session, (rolled,))
        except VersionConflict as exc:
            raise RunBusy("the run moved while rolling it back; try again") from exc

    def _snapshot_for(self, thread: str, pause_id: str | None) -> Snapshot:
        """The run an answer is for: named by the pause id where given, else the thread's active run."""
        run_id = run_of(pause_id) if pause_id is not None else None
        if run_id is None:
            active = self._store.active_run(thread)
            run_id = active.id if active is not None else None
        snapshot = self._store.snapshot(run_id) if run_id is not None else None
        if snapshot is None or snapshot.run.thread != thread:
            if pause_id is not None:
                raise NotFound(f"nothing in this thread waits with the id {pause_id!r}")
            self._nothing_waits(thread)
        if snapshot.run.status == "running" and self._runs.recovered(snapshot.run) is not snapshot.run:
            reread = self._store.snapshot(snapshot.run.id)
            assert reread is not None, "a recovered run is in the store"
            return reread
        return snapshot

    def _pick(self, snapshot: Snapshot, thread: str, pause_id: str | None) -> tuple[PauseRecord, bool]:
        """The pause answered (the first open one where none is named), and whether others stay open."""
        answerable = open_pauses(snapshot.run, snapshot.pauses)
        if pause_id is None:
            if not answerable:
                self._nothing_waits(thread)
            return answerable[0], len(answerable) > 1
        pause = next((p for p in answerable if p.id == pause_id), None)
        if pause is None:
            if any(p.id == pause_id for p in snapshot.pauses):
                raise InterruptStale("this pause is no longer open: someone else answered it, and the run moved on")
            raise NotFound(f"nothing in this thread waits with the id {pause_id!r}")
        return pause, len(answerable) > 1

    def _nothing_waits(self, thread: str) -> NoReturn:
        if self._store.last_run(thread) is None:
            raise NotFound("this thread has no run")
        raise InterruptStale("nothing in this thread waits for an answer")


def _expired_sentence(pause: Pause) -> str:
    """What a person answering too late is told: when the pause expired, and what the run did instead."""
    expires = pause.expires_at
    when = iso(expires) if expires is not None else "its deadline"
    did = "the whole request was cancelled" if pause.on_expiry == "cancel_all" else f"{pause.title} was not done"
    return f"this pause expired at {when}: nobody answered in time, so {did}; nothing you sent was done"


def _asked_again(pauses: list[PauseRecord], pause: Pause) -> int:
    """How often the call ``pause`` asks about was changed and asked again: its run's pauses at its step, about
    its tool, answered ``edited``."""
    return sum(
        1
        for p in pauses
        if p.step == pause.step and p.payload.get("tool") == pause.tool and (p.answer or {}).get("decision") == "edited"
    )


def _answered(pauses: list[PauseRecord], pause: str, answer: dict[str, object]) -> list[PauseRecord]:
    """The run's pauses as they are once ``pause`` is claimed for ``answer``."""
    return [p.replace(status="answered", answer=answer) if p.id == pause else p for p in pauses]


def _planned(agent: Agent, clause: Clause, context: dict[str, JSON]) -> PlannedCall:
    """A clause as a call: the values the turn gave (``typed``), and those the application gave (``context``)."""
    parameters = agent.named(clause.tool).parameters
    unsafe = unshowable(clause.values)
    if unsafe is not None:
        raise BadRequest(
            f"the turn gives the number {unsafe}, past what a browser shows exactly (at most {SAFE_INTEGER} either "
            "way): a person would approve it rounded, so nothing was run"
        )
    given = with_origin(clause.values, "typed")
    supplied = {p.name: context[p.name] for p in parameters if p.name not in clause.values and p.name in context}
    given += with_origin(supplied, "context")
    return PlannedCall(clause.tool, tuple(by_name(given)))
