"""One move of a run: taken under a lease, walked up to where it waits or ends, let go in its last commit.

``Mover`` takes the run (a new one, one an answer claims, or one whose worker
died) and lets go of it; ``move`` is what happens in between.  A run that reads
its turn walks its plan (``replay.py``), or gives a turn nothing read to the
model (``delegation.py``); a run that ends early, or that an operator rolls
back, then undoes what it did (``saga.py``).  Every write of the move goes
through its ledger (``ledger.py``), staged on the lease (``lease.py``) and
committed only where it must be durable.

What a move would keep is bounded by ``settings.max_value_bytes`` (``sizes.py``):
a turn or an answer over it is refused (413) before anything is stored; a call
a value over it stopped ends the run failed, which is committed whole, and the
turn then answers 413 naming the call, so the thread takes a new turn.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import NoReturn

from ..agent import Agent
from ..approvals.parties import pause_parties
from ..errors import (
    JournalConflict,
    JournalExists,
    PauseExists,
    RunBusy,
    RunWaiting,
    ThreadBusy,
    ValueTooLarge,
    VersionConflict,
)
from ..storage import FINISHED, Event, PauseRecord, RunRecord, ShownMessage, Snapshot, Storage
from ..storage.base import encoded_as, utf8_size
from ..storage.keys import PAUSE_ID, keys_of
from ..tools.python import Tool
from .arguments import shown
from .delegation import Delegation
from .lease import Lease
from .ledger import Ledger, journal_outcomes
from .pause import Pause, iso
from .progress import Progress, Report
from .replay import Replay
from .reply import Reply
from .saga import Rollback
from .sizes import bounded, call_named, measure, refuse
from .state import RunState, Saga
from .words import words


@dataclass(frozen=True)
class Runtime:
    """What every move needs from the engine: the store, the agents, and time as the caller sees it."""

    store: Storage
    clock: Callable[[], float]
    sleep: Callable[[float], None]
    agents: Mapping[str, Agent]


def move(runtime: Runtime, lease: Lease, state: RunState, snapshot: Snapshot, answering: str | None) -> Progress:
    """``snapshot`` is the run as read; ``answering`` the pause whose answer started this move, if one did."""
    run = lease.run
    target = state.saga.target if state.saga is not None else run.id
    journal = snapshot.journal if target == run.id else runtime.store.journal(target)
    agent, report, saga = runtime.agents[run.agent], Report(), state.saga
    limit = agent.settings.max_value_bytes
    ledger = Ledger(
        lease,
        runtime.clock,
        snapshot.pauses,
        journal,
        journal_of=target,
        answering=answering,
        limit=limit,
        pause_key=keys_of(runtime.store).key(PAUSE_ID),
        needed=agent.approvers.needed,
        timing=agent.deadlines.of,
        parties=partial(pause_parties, agent.approvers),
    )
    if saga is None:
        saga = _walk(agent, runtime.agents, ledger, report, state, run.id)
    else:
        report.steps = journal_outcomes(journal)
    rollback = None
    if saga is not None and not ledger.waiting:
        undoing = Rollback(ledger, _every_tool(runtime.agents, agent), agent.settings, runtime.sleep)
        rollback = undoing.undo_all(saga.reason)
    return Progress(
        steps=report.steps,
        refusals=report.refusals,
        waiting=ledger.waiting,
        opened=ledger.opened,
        notes=report.notes,
        saga=saga,
        rollback=rollback,
        too_large=ledger.too_large.error if ledger.too_large is not None else None,
    )


SORTED_ALPHABET = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
"""base64url's 64 characters in the order their bytes sort."""


def run_id(now: float) -> str:
    """A new run's id: ``r_``, the time in milliseconds (8 characters), then 84 random bits (14).

    Ids made later sort later, so the store's indexes of runs, of their pauses (whose ids begin with their run's)
    and of their journals grow at one end, whose pages are in memory, rather than at a random place among a
    million; a store of a million threads then costs a cycle what an empty one does.
    """
    number = (int(now * 1000) % 2**48) << 84 | secrets.randbits(84)
    return "r_" + "".join(SORTED_ALPHABET[number >> shift & 63] for shift in range(126, -1, -6))


class Mover:
    """Takes runs under leases for one worker, moves them, and lets go of them in each move's last commit."""

    def __init__(self, runtime: Runtime, worker: str) -> None:
        self._runtime, self._store, self._worker = runtime, runtime.store, worker

    def new_run(self, thread: str, agent: str, state: RunState) -> RunRecord:
        """A run to begin: it is stored in the same commit as its move's first durable write."""
        now = self._runtime.clock()
        return RunRecord(
            id=run_id(now), thread=thread, agent=agent, status="running", state=state.to_json(), created_at=now
        )

    def lease(
        self,
        run: RunRecord,
        *,
        begin: bool = False,
        claim: tuple[str, dict[str, object]] | None = None,
        version: int | None = None,
        owner: str | None = None,
    ) -> Lease:
        """This worker's hold on ``run``: a new run (``begin``, in a thread that is ``owner``'s or nobody's yet), or
        one stored at ``version`` (a pause ``claim``ed)."""
        clock = self._runtime.clock
        settings = self._runtime.agents[run.agent].settings
        if begin:
            _refuse_large_turn(run, settings.max_value_bytes)
        answer_bytes = 0 if claim is None else self.refuse_large_answer(run, *claim)
        seconds = settings.lease_seconds
        now = clock()
        held = run.replace(status="running", lease_owner=self._worker, lease_until=now + seconds, updated_at=now)
        return Lease(
            self._store,
            held,
            seconds=seconds,
            clock=clock,
            begin=begin,
            claim=claim,
            claim_bytes=answer_bytes,
            version=version,
            owner=owner,
        )

    def advance(
        self,
        lease: Lease,
        state: RunState,
        snapshot: Snapshot,
        session: str | None,
        events: tuple[Event, ...] = (),
        answering: str | None = None,
    ) -> Reply:
        """One move of the run under ``lease``, from ``state`` and what ``snapshot`` read, in as few commits as can be.

        ``answering`` is the pause whose answer the move takes, if one is; ``session``
        is told the reply was shown to it, in the same commit.  A run a value over the size
        limit ended is committed, then answered as ValueTooLarge (413), naming the call.
        """
        limit = self._runtime.agents[lease.run.agent].settings.max_value_bytes
        lease.stage(events=tuple(bounded(event, limit) for event in events))
        try:
            with lease:
                progress = move(self._runtime, lease, state, snapshot, answering)
                reply = self._let_go(lease, state, progress, session, _moved_past(snapshot, progress, answering))
            if progress.too_large is not None and reply.status in FINISHED:
                raise ValueTooLarge(
                    f"{progress.too_large}; the run ended {reply.status}, and the thread takes a new turn"
                )
            return reply
        except ThreadBusy:
            self.refuse_new_turn(self._store.active_run(lease.run.thread))
        except VersionConflict as exc:
            if lease.held:
                sentence = "another worker took this run over after this one's lease ran out; read the thread again"
                raise RunBusy(sentence) from exc
            raise
        except (PauseExists, JournalExists, JournalConflict) as exc:
            raise RunBusy("another worker moved this run at the same moment; read the thread again") from exc

    def recovered(self, run: RunRecord | None) -> RunRecord | None:
        """Carry on ``run`` if its worker stopped without letting go, and return it as it then is (itself where
        it was alive).  Only a request that writes calls this: a read never moves a run."""
        if run is None or not self.stale(run):
            return run
        self.recover(run)
        return self._store.get_run(run.id)

    def stale(self, run: RunRecord) -> bool:
        """Whether ``run``'s worker stopped without letting go: running, its lease run out unrenewed."""
        return run.status == "running" and (run.lease_until or 0) <= self._runtime.clock()

    def recover(self, run: RunRecord) -> Reply | None:
        """Carry on a stale ``run``: the reply of this worker's move, or None where another worker carried it on."""
        snapshot = self._store.snapshot(run.id)
        assert snapshot is not None, "an active run is in the store"
        recovered = self.event(run.thread, {"type": "recovered", "run": run.id})
        lease = self.lease(run, version=run.version)
        try:
            return self.advance(lease, RunState.of(run), snapshot, None, events=(recovered,))
        except (VersionConflict, RunBusy):
            return None

    def refuse_large_answer(self, run: RunRecord, pause: str, answer: dict[str, object]) -> int:
        """An answer a store could not keep, refused (413) naming the call it answers: the pause stays open.  The
        answer's bytes as the stores keep it, where it is kept."""
        limit = self._runtime.agents[run.agent].settings.max_value_bytes
        over = measure("the answer", answer, limit)
        if isinstance(over, str):
            return utf8_size(over)
        stored = self._store.get_pause(pause)
        named = call_named(str(stored.payload.get("tool") or "the turn"), str(stored.step)) if stored else pause
        sentence = replace(over, what=f"the answer to {named}").sentence
        raise ValueTooLarge(f"{sentence}; it was not taken, and the question still waits")

    def refuse_new_turn(self, run: RunRecord | None) -> NoReturn:
        """A turn on a thread whose run waits (listing what waits) or is being moved right now."""
        if run is not None and run.status == "waiting":
            waiting = waiting_pauses(run, self._store.run_pauses(run.id))
            sentence = "this thread's run waits for a decision; answer it (or cancel_all) before a new turn"
            raise RunWaiting(sentence, waiting)
        raise RunBusy("another turn on this thread is being run; try again in a moment")

    def event(self, thread: str, body: dict[str, object]) -> Event:
        return Event(thread, {**body, "at": iso(self._runtime.clock())})

    def _let_go(
        self, lease: Lease, state: RunState, progress: Progress, session: str | None, passed: tuple[PauseRecord, ...]
    ) -> Reply:
        """Save the run as the move left it, no longer held, in the move's last commit, closing the pauses it
        ``passed`` (it finished, or was rolled back, or went on past them) so none is listed or woken again."""
        run = lease.run
        moved = state.replace(saga=progress.saga, waiting=[pause.id for pause in progress.waiting])
        now = self._runtime.clock()
        finished = run.replace(
            status=progress.status,
            state=moved.to_json(),
            lease_owner=None,
            lease_until=None,
            updated_at=now,
        )
        if progress.status in FINISHED:
            lease.stage(events=(self.event(run.thread, {"type": "run", "run": run.id, "status": progress.status}),))
        reply = reply_of(finished, progress)
        if session is not None:
            lease.stage(shown=(ShownMessage(reply.id, session, run.thread, reply.text, now),))
        lease.stage(closes=passed)
        lease.commit(finished)
        return reply


def reply_of(run: RunRecord, progress: Progress) -> Reply:
    return Reply(
        thread=run.thread,
        run=run.id,
        status=progress.status,
        text=words(progress),
        steps=progress.steps,
        waiting=_with_approvals(run, progress.waiting),
        refusals=progress.refusals,
        rollback=progress.rollback,
        opened=_with_approvals(run, progress.opened),
    )


def _moved_past(snapshot: Snapshot, progress: Progress, answering: str | None) -> tuple[PauseRecord, ...]:
    """The run's pauses open as read that its move left behind: not waiting any more, nor the one it answers."""
    waiting = {pause.id for pause in progress.waiting}
    return tuple(p for p in snapshot.pauses if p.status == "open" and p.id not in waiting and p.id != answering)


def open_pauses(run: RunRecord, pauses: list[PauseRecord]) -> list[PauseRecord]:
    """Open pauses the run's last move reached; one it moved past is no longer answerable."""
    reached = set(RunState.reached(run))
    return [p for p in pauses if p.status == "open" and p.id in reached]


def waiting_pauses(run: RunRecord, pauses: list[PauseRecord]) -> list[Pause]:
    """The open pauses the run's last move reached, as a person is shown them (with the approvals given so far)."""
    return _with_approvals(run, [Pause.from_record(p) for p in open_pauses(run, pauses)])


def _with_approvals(run: RunRecord, pauses: list[Pause]) -> list[Pause]:
    """The pauses as shown: with the approvals given so far, and who asked, where the run knows."""
    given, asker = RunState.approvals_of(run), run.state.get("asker")
    return [pause.with_approvals(given.get(pause.id, ())).asked(asker) for pause in pauses]


def _walk(
    agent: Agent,
    agents: Mapping[str, Agent],
    ledger: Ledger,
    report: Report,
    state: RunState,
    run: str,
) -> Saga | None:
    """The turn's calls, or the model's for a turn nothing read; the saga ``run`` must then go on to, if any."""
    replay = Replay(agent, agents, ledger, report)
    if state.unread is not None:
        Delegation(agent, state, ledger, report, replay.attempt).take()
    else:
        replay.plan(state.plan)
    _stopped_by_size(ledger, report)
    return Saga(report.ending, run) if report.ending is not None else None


def _stopped_by_size(ledger: Ledger, report: Report) -> None:
    """End the run failed where a value over the size limit stopped a call the walk could not report itself.

    A read refused, or a call whose arguments were refused, failed as any call does; a pause whose
    arguments were refused was not opened, and a write whose result was refused ran (and says so).
    """
    refused = ledger.too_large
    if refused is None or report.ending is not None:
        return
    report.steps.append(refused)
    if refused.status == "done" and refused.error is not None:
        report.notes.append(refused.error)
    report.ending = "failed"


ARGUMENT_FRAME = 25
"""Bytes a call's arguments as shown (``{"name":N,"value":V,"origin":O}``) take beyond what the same argument takes in
a run's state (``N:[V,O]``), its comma included."""


def _refuse_large_turn(run: RunRecord, limit: int) -> None:
    """A turn a store could not keep, refused (413) before anything is stored: a call's arguments by its name.

    The turn's state is measured first, and its encoding kept as the run's.  Every call's arguments are read from
    the state, so where it is keepable and its bytes, with ``ARGUMENT_FRAME`` more for each argument and two for the
    brackets, are within the limit, so is each call's, nested less deep: they are measured one by one only where it
    is not, to name the call that is over.
    """
    plan = RunState.of(run).plan
    what = "this turn, with what the application gave it,"
    state = measure(what, run.state, limit)
    if isinstance(state, str):
        encoded_as(run, "state", state)
        framed = sum(len(planned.arguments) for planned in plan) * ARGUMENT_FRAME + 2
        if utf8_size(state) + framed <= limit:
            return
    for position, planned in enumerate(plan, start=1):
        refuse(f"the arguments of {call_named(planned.tool, str(position))}", shown(planned.arguments), limit)
    if not isinstance(state, str):
        refuse(what, run.state, limit)


def _every_tool(agents: Mapping[str, Agent], agent: Agent) -> dict[str, Tool]:
    """Every tool a call of the run may have named: its agent's first, then those a step handed to another agent."""
    return {name: tool for other in agents.values() for name, tool in other.tools.items()} | agent.tools
