"""The door for a LangGraph graph: its turns, its ``interrupt()`` pauses and an operator's rollback, served by the
same routes as ``stalwart serve``.

The graph keeps its own state in the team's own checkpointer; this door keeps,
in a stalwart run store, what LangGraph does not: a token per pause, a claim so
that two answers at once give one resume and one ``interrupt_stale``, each answer
in the thread's log (with a person's changes to the call, as asked and as
approved), a hold on the thread while its graph runs, who owns the thread, and
who was told of each pause.  Pause ids are LangGraph's own interrupt ids.

    from stalwart_agents.langchain.server import Webhook, langgraph_app

    app.mount("/agent", langgraph_app(graph, storage="sqlite:///runs.db",
                                      on_interrupt=Webhook(url, secret)))

An answer is claimed in the store before the graph is resumed with it.  Where
the graph then raises while LangGraph still shows the interrupt pending, the
node that took the answer may have made its write before it raised (a payment,
then a timeout): the door cannot know, so it never sends it again by itself.  It
opens an ``outcome_unknown`` pause naming the call; a person answers
``happened`` (the graph carries on past that node, which does not run again) or
``did_not_happen`` (the node runs again with the same answer).  A node the team
declares safe to re-run (``rerun=``) is instead given the kept answer again on
the thread's next write.  Reads never drive the graph.  docs/langgraph.md has
the rest; ``interrupts.py`` describes the pauses.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Unpack

from fastapi import FastAPI

from .. import telemetry
from ..approvals.admission import Admission, admit, enter, resolve
from ..approvals.announce import Notify, announce
from ..approvals.card import Verdict
from ..approvals.inbox import Inbox, read_inbox
from ..approvals.principal import ANONYMOUS, Principal
from ..approvals.rules import owner_of, owns, same_key
from ..approvals.webhook import Webhook
from ..door import Described
from ..engine.answer import Answer
from ..engine.arguments import ArgumentDict
from ..engine.claim import ANSWERED, check_token, claimed_once
from ..engine.decided import decided
from ..engine.lease import RENEWER, extended
from ..engine.ledger import claiming, opening
from ..engine.pause import Pause, iso, new_token
from ..engine.reply import CallOutcome, NotNotified, Reply, RollbackReport
from ..errors import (
    BadRequest,
    InterruptStale,
    NotAnApprover,
    NotFound,
    PauseClosed,
    PauseExists,
    RunBusy,
    RunWaiting,
    StalwartError,
    ThreadBusy,
    VersionConflict,
)
from ..storage import Changes, Event, InboxEntry, PauseRecord, RunRecord, ShownMessage, Storage, open_storage
from ..vocabulary import JSON
from .graph_state import Happened, ReplyWords, TurnInput, happened, last_words, said, tool_steps
from .interrupts import Schemas, edit_in, inputs_of, judged, pause_of, resumed, schemas_of, unknown_of

if TYPE_CHECKING:
    from ..http.app import Service

__all__ = ["GraphDoor", "GraphFailed", "InterruptServer", "Webhook", "langgraph_app"]

HOLD_SECONDS = 300.0
"""How long a request holds a thread while its graph runs; a worker that dies holding it frees it after this."""
ROLLBACK = "cancel_all"
INTERRUPT = "__interrupt__"
"""The key of the interrupts the graph stopped on in what ``invoke`` returns, beside the state's values."""
UNKNOWN = ".outcome"
"""What an ``outcome_unknown`` pause's id adds to its interrupt's id, before the count of such pauses."""
SCHEMAS_KEPT = 1024
"""How many interrupts' argument schemas a door keeps in memory, so a card need not read the checkpoint again."""
log = logging.getLogger("stalwart_agents")


class GraphFailed(StalwartError):
    """The graph raised while it ran a turn, or after an answer it took; nothing it may have written is sent again."""

    code = "graph_failed"
    status = 503


class GraphDoor:
    """A graph's turns and pauses, each pause with a token and a claim kept in ``storage``.

    ``turn(text)`` is the graph's input for a person's text (``{"messages": [("user", text)]}`` by
    default); ``reply(values)`` the words of the reply, from the graph's state values (the last
    message's text by default).  ``rerun`` names the nodes that are safe to run again with an answer
    they failed to take (they write nothing, or nothing twice); every other node's failure asks a person.
    ``settled(values)`` is what is written as a node a person said made its write (``happened``: a tool
    message for each call left without one, for a graph of messages).
    """

    def __init__(
        self,
        graph: Any,
        *,
        storage: Storage | str,
        on_interrupt: Notify | None = None,
        turn: TurnInput = said,
        reply: ReplyWords = last_words,
        rerun: Collection[str] = (),
        settled: Happened = happened,
        hold_seconds: float = HOLD_SECONDS,
        clock: Callable[[], float] = time.time,
        name: str = "langgraph",
        description: str = "",
    ) -> None:
        """``graph`` is a compiled LangGraph graph, typed loosely so that importing this never imports LangGraph."""
        self.graph = graph
        self.storage = open_storage(storage) if isinstance(storage, str) else storage
        self.on_interrupt = on_interrupt
        telemetry.start(os.environ)
        self.turn, self.words, self.rerun, self.settled = turn, reply, frozenset(rerun), settled
        self.hold_seconds = hold_seconds
        self.clock, self.name, self.description = clock, name, description
        self._schemas: dict[str, Schemas] = {}
        self._schemas_lock = threading.Lock()

    def describe(self) -> Described:
        return {"agent": self.name, "description": self.description, "examples": []}

    def admit(self, thread: str, principal: Principal, *, pause: str | None = None) -> Admission:
        """Only the thread's owner answers a graph's pauses: a graph has no approver rules.  A thread the graph ran
        outside the door (from Python, a job) is the anonymous principal's, as a Desk's thread begun from Python is.
        The id names the caller's own thread as it does at a Desk (``approvals/admission.py``)."""
        return admit(self.storage, thread, principal, None, pause=pause, read_owner=self._owner_of)

    def _owner_of(self, store: Storage, thread: str) -> str | None:
        """The thread's owner, a thread the graph ran outside the door registered first (as the anonymous's)."""
        owner = owner_of(store, thread)
        if owner is None and self._pending(thread):
            self._sync(thread)
            owner = owner_of(store, thread)
        return owner

    def enter(self, user: str, owner: str, *, start: bool = False) -> str:
        return enter(self.storage, user, owner, start=start)

    def may_answer(self, pause: Pause, principal: Principal, owner: str | None) -> bool:
        """The thread's owner, or a signed link, which stands for them: a graph has no approver rules."""
        return owns(principal, owner or ANONYMOUS.key)

    def verdict(self, pause: Pause, reader: Admission | None) -> Verdict:
        """Every answer for the thread's owner (or a channel, which answers for them), and how they type in what
        the interrupt lets them change; nothing for anyone else."""
        if reader is not None and not self.may_answer(pause, reader.principal, reader.owner):
            return Verdict(())
        return Verdict(tuple(pause.answers), inputs=inputs_of(pause, self._schemas_of(pause)))

    def send(
        self,
        thread: str,
        text: str,
        *,
        owner: str = ANONYMOUS.key,
        session: str | None = None,
        asker: str | None = None,
    ) -> Reply:
        """A person's turn: the graph invoked on ``turn(text)``, in the thread the id names for ``owner`` (their own,
        begun now where they have none); refused (run_waiting) while a pause waits."""
        thread = self._entered(thread, owner)
        self.redrive(thread)
        with self._released(self._begun_held(thread, owner, asker)) as hold:
            pending = _interrupts_of(self.graph.get_state(_config(thread)))
            waiting = self._sync(thread, pending, held=True)[0]
            if waiting:
                raise RunWaiting("this thread's graph waits for a decision; answer it before a new turn", waiting)
            if pending:
                raise RunBusy("an answer in this thread is being taken; try again in a moment")
            after = self._invoke(self.turn(text), thread, "on this turn")
            ending = self._ending(hold.run, session, after, hold=hold)
        return self._told(ending, hold.written)

    def waiting_for(self, admitted: Admission) -> list[Pause]:
        """What waits in the thread, each by LangGraph's interrupt id; new interrupts are registered (and announced)
        first.  The graph is never run: a read only reads."""
        return self._sync(admitted.thread)[0]

    def answer(self, admitted: Admission, answer: Answer, pause: str, *, session: str | None = None) -> Reply:
        """Claim the pause, then resume the graph with the answer: the one answer rule (``engine/claim.py``).

        An approval may change the arguments the interrupt names ``editable`` (``answer.edits``); a graph has no
        approver rules, so its owner's changed call is approved at once, and the graph is given it as approved.
        """
        thread = admitted.thread
        pending = _interrupts_of(self.graph.get_state(_config(thread)))
        run, known, _ = self._registered(thread, pending)
        stored = known.get(pause)
        if run is None or stored is None:
            raise NotFound(f"nothing in this thread waits with the id {pause!r}")
        shown = Pause.from_record(stored)
        if not self.may_answer(shown, admitted.principal, admitted.owner):
            # Refused here, whoever admitted the caller: a link's page lets a signed-in stranger reach the answer.
            raise NotAnApprover(
                "you may not answer this pause: only the person whose conversation this is may", pause=pause
            )
        check_token(answer, shown)
        value = answer.checked(shown)
        if answer.decision not in shown.answers:
            raise BadRequest(f"this pause takes {', '.join(shown.answers)}, not {answer.decision!r}")
        edits = self._judged(shown, answer, pending)
        if stored.status != "open":
            if self._redriven(thread, stored, answer.decision, value, edits):
                return self._reply(run, session)
            raise InterruptStale(ANSWERED)

        read = iter([run])  # the run just read, then read afresh for each attempt after one lost to a move

        def claim() -> RunRecord:
            now = self.clock()
            current = next(read, None) or self.storage.get_run(run.id) or run
            kept = answer.stored(value, now) | ({"edits": edits, "editor": answer.editor} if edits else {})
            event = _answered(run, shown, answer, edits, now)
            claimed = self.storage.commit(claiming(pause, kept, self._held(current, now), now, [event]))
            assert claimed.run is not None, "a claim saves its run"
            return claimed.run

        approved = edit_in(shown, edits, answer.editor).changed.arguments if edits else None
        with self._released(claimed_once(claim)) as hold:
            telemetry.current().pause_decided(
                shown, answer.decision, answer.channel, answer.reference(self.storage), (), 0
            )
            if shown.kind == "outcome_unknown":
                after = self._settle(thread, shown, answer.decision)
            else:
                asked = next((i.value for i in pending if i.id == shown.id), None)
                after = self._take(thread, shown, resumed(asked, shown.kind, answer.decision, value, edits))
            changed = (shown, approved) if approved is not None else None
            ending = self._ending(hold.run, session, after, changed, hold=hold)
        return self._told(ending, hold.written)

    def rollback(self, user: str, *, session: str | None = None) -> Reply:
        """An operator's rollback: every open pause of the thread answered ``cancel_all`` through the graph, which
        decides what to undo; ``reply.rollback`` says whether the graph ended (complete) or waits again."""
        self.redrive(user)
        open_now = self._sync(user)[0]
        run = self.storage.get_run(_run_id(user))
        if run is None:
            raise NotFound("this thread has no graph run to roll back")
        with self._holding(run) as hold:
            asked = self._asked(user)
            cancelled = {
                _interrupt_of(p.id): resumed(asked.get(_interrupt_of(p.id)), p.kind, ROLLBACK, None, {})
                for p in open_now
                if _cancellable(p) and self._claimed_for_rollback(p, run)
            }
            after = self._invoke(_command(cancelled), user, "while rolling back") if cancelled else None
            ending = self._ending(hold.run, session, after, hold=hold)
        reply = self._told(ending, hold.written)
        report: RollbackReport = {
            "reason": "operator",
            "status": "waiting" if reply.waiting else "complete",
            "undone": [],
            "not_undone": [],
        }
        return replace(reply, rollback=report)

    def events(self, user: str, after: int = 0, limit: int = 200) -> list[tuple[int, dict[str, JSON]]]:
        return self.storage.events(user, after, limit)

    def results(self, user: str, run: str) -> dict[str, CallOutcome]:
        """None kept here: the graph's checkpointer holds its tools' results, so a reply over the response budget gives
        their size and nowhere to read them."""
        return {}

    def inbox(
        self,
        principal: Principal,
        *,
        kind: str | None = None,
        tool: str | None = None,
        cursor: str | None = None,
        limit: int = 50,
    ) -> Inbox:
        """Every open pause of the principal's own threads, across them, newest first."""
        return read_inbox(
            self.storage,
            lambda pause, who, owner, agent: self.may_answer(pause, who, owner),
            principal,
            kind=kind,
            tool=tool,
            cursor=cursor,
            limit=limit,
            shown=_open,
        )

    def interrupts(self, thread: str) -> list[Pause]:
        """What waits in ``thread``, for an application that calls the door from Python (as its anonymous owner)."""
        return self.waiting_for(Admission(thread, ANONYMOUS, owner_of(self.storage, thread)))

    def resume(
        self,
        thread: str,
        interrupt_id: str,
        decision: str,
        token: str,
        value: JSON = None,
        *,
        edits: Mapping[str, JSON] | None = None,
    ) -> Reply:
        """Answer a pause from Python, as its thread's anonymous owner, with the token it was shown; ``edits``, with
        ``approve``, changes the arguments the interrupt names editable."""
        admitted = Admission(thread, ANONYMOUS, owner_of(self.storage, thread))
        answer = Answer(decision, value, token, channel="langgraph", edits=edits or None)
        return self.answer(admitted, answer, interrupt_id)

    def redrive(self, thread: str) -> set[str]:
        """Give the graph again each kept answer a node declared safe to re-run failed to take; their ids.

        Only a write calls this; nothing is resumed while another request holds the thread, which runs the graph now.
        """
        run = self.storage.get_run(_run_id(thread)) if self.rerun else None
        if run is None:
            return set()
        kept = {
            p.id: p for p in self.storage.run_pauses(run.id) if p.answer is not None and p.kind != "outcome_unknown"
        }
        due = kept.keys() & self._pending_in(thread, rerun=True)
        if not due:
            return set()
        try:
            with self._holding(run):
                due = kept.keys() & self._pending_in(thread, rerun=True)
                if due:
                    asked = self._asked(thread)
                    self._invoke(_command({i: _taken(kept[i], asked.get(i)) for i in due}), thread, _KEPT)
                return due
        except RunBusy:
            return set()

    def _redriven(
        self, thread: str, stored: PauseRecord, decision: str, value: JSON, edits: Mapping[str, JSON]
    ) -> bool:
        """Whether the same answer, sent again to a pause whose node may re-run and failed to take it, was given
        to the graph again now."""
        return _same(stored.answer, decision, value, edits) and stored.id in self.redrive(thread)

    def _judged(self, pause: Pause, answer: Answer, pending: list[Any]) -> dict[str, JSON]:
        """The changes an approval makes to the call, judged (``interrupts.judged``); a signed link changes nothing.
        ``pending``: the interrupts the request read pending, the one asked among them."""
        if not answer.edits:
            return {}
        if answer.channel == "link":
            raise BadRequest("edits: a signed link approves a call as it was asked; open the conversation to change it")
        if answer.decision != "approve":
            raise BadRequest(f"edits: only an approval changes a call, not {answer.decision!r}")
        return judged(pause, self._schemas_of(pause, pending), answer.edits)

    def _schemas_of(self, pause: Pause, pending: list[Any] | None = None) -> Schemas:
        """The schemas of the arguments ``pause`` lets a person change, as its interrupt gave them; read from the
        checkpoint (unless the request read the ``pending`` interrupts already) once per interrupt (its value never
        changes; none once it was taken)."""
        if not pause.editable:
            return {}
        interrupt = _interrupt_of(pause.id)
        kept = self._schemas.get(interrupt)
        if kept is None:
            asked = self._asked(pause.thread) if pending is None else {i.id: i.value for i in pending}
            kept = schemas_of(asked.get(interrupt))
            with self._schemas_lock:
                while len(self._schemas) >= SCHEMAS_KEPT:
                    self._schemas.pop(next(iter(self._schemas)))
                self._schemas[interrupt] = kept
        return kept

    def _asked(self, thread: str) -> dict[str, Any]:
        """The value of each interrupt LangGraph's checkpoint shows pending, by its id."""
        return {i.id: i.value for i in _interrupts_of(self.graph.get_state(_config(thread)))}

    def _take(self, thread: str, pause: Pause, value: JSON) -> _After | None:
        """Resume the graph with an answer, and the state it left; where it raises with the interrupt still pending,
        ask a person whether the node's write happened (None: the state is read afresh), unless the team declared
        the node safe to re-run."""
        try:
            return self._run_graph(_command({_interrupt_of(pause.id): value}), thread)
        except Exception as exc:
            log.exception("the graph of thread %s raised while taking an answer", thread)
            node = self._nodes(thread).get(_interrupt_of(pause.id))
            if node is None:
                raise GraphFailed(f"the graph raised {type(exc).__name__} after it took the answer") from exc
            if node in self.rerun:
                raise GraphFailed(f"the graph raised {type(exc).__name__} {_KEPT}") from exc
            cause = f"the graph raised {type(exc).__name__} after it took the answer"
            self._ask_whether_it_happened(thread, pause, cause, [])
            return None

    def _settle(self, thread: str, unknown: Pause, decision: str) -> _After | None:
        """A person's word on a write nobody knew the outcome of: ``happened`` carries the graph on past the node,
        which never runs again; ``did_not_happen`` runs it again with the answer it was given.  The state the graph
        was left in, where it ran."""
        interrupt = _interrupt_of(unknown.id)
        if decision == "happened":
            node = self._nodes(thread).get(interrupt)
            if node is None:
                return None
            config = _config(thread)
            self.graph.update_state(config, self.settled(self.graph.get_state(config).values), as_node=node)
            return self._invoke(None, thread, "after a person said the call happened")
        given = next(p for p in self.storage.run_pauses(_run_id(thread)) if p.id == interrupt)
        return self._take(thread, unknown, _taken(given, self._asked(thread).get(interrupt)))

    def _ask_whether_it_happened(self, thread: str, pause: Pause, cause: str, missed: list[NotNotified]) -> None:
        run = self._run(thread)
        interrupt = _interrupt_of(pause.id)
        asked = sum(1 for p in self.storage.run_pauses(run.id) if _interrupt_of(p.id) == interrupt)
        self._open(unknown_of(pause, f"{interrupt}{UNKNOWN}{asked}", cause, self.clock()), missed)

    def _orphaned(
        self, run: RunRecord, known: Mapping[str, PauseRecord], live: set[str], missed: list[NotNotified], held: bool
    ) -> bool:
        """Answers a worker claimed and then died giving (it held the thread, and its hold ran out): the node may
        have made its write, so a person is asked whether it happened, as a node that raised is.  Decided under a
        hold of this request's own (taken here unless ``held``), so a worker still running the graph is never taken
        for a dead one."""
        due = {i for i in live & known.keys() if not any(_open_for(p, i) for p in known.values())}
        if not due:
            return False
        if held:
            return self._ask_about(run, due, missed)
        if run.lease_owner is not None and (run.lease_until or 0) > self.clock():
            return False
        try:
            with self._holding(run):
                return self._ask_about(run, due, missed)
        except RunBusy:
            return False

    def _ask_about(self, run: RunRecord, due: set[str], missed: list[NotNotified]) -> bool:
        """Under this request's hold: ask about each interrupt of ``due`` still pending, not safe to re-run, and with
        nothing open for it; whether any was asked about."""
        kept = self.storage.run_pauses(run.id)
        asked = False
        for interrupt in due & self._pending_in(run.thread, rerun=False):
            if any(_open_for(p, interrupt) for p in kept):
                continue
            last = max((p for p in kept if _interrupt_of(p.id) == interrupt), key=lambda p: p.created_at)
            cause = "the worker giving the graph the answer stopped before the node finished"
            self._ask_whether_it_happened(run.thread, Pause.from_record(last), cause, missed)
            asked = True
        return asked

    def _nodes(self, thread: str) -> dict[str, str]:
        """Each pending interrupt's node, by interrupt id: an interrupt absent here was taken by the graph."""
        tasks = getattr(self.graph.get_state(_config(thread)), "tasks", ()) or ()
        return {i.id: t.name for t in tasks for i in t.interrupts or ()}

    def _pending_in(self, thread: str, *, rerun: bool) -> set[str]:
        """The pending interrupts of nodes declared safe to re-run (``rerun``), or of all the others."""
        return {i for i, node in self._nodes(thread).items() if (node in self.rerun) is rerun}

    def _claimed_for_rollback(self, pause: Pause, run: RunRecord) -> bool:
        """Claim an open pause for the operator's rollback, recorded as their decision in the same commit."""
        operator = Answer(ROLLBACK, channel="operator")
        now = self.clock()
        answered = _answered(run, pause, operator, {}, now)
        try:
            self.storage.commit(Changes(claim=(pause.id, operator.stored(None, now)), events=[answered]))
        except PauseClosed:
            return False
        return True

    def _reply(self, run: RunRecord, session: str | None) -> Reply:
        """The service's answer to a request that did not run the graph itself: what the graph's state says now."""
        return self._told(self._ending(run, session, None), written=False)

    def _ending(
        self,
        run: RunRecord,
        session: str | None,
        after: _After | None,
        approved: tuple[Pause, list[ArgumentDict]] | None = None,
        *,
        hold: _Hold | None = None,
    ) -> _Ending:
        """The service's answer after the graph ran: its words, its calls, and what now waits, from the state the run
        left (``after``; read from the checkpoint where the run did not say it); kept as shown to ``session`` (a
        digest), so that session alone may rate it.  ``approved`` is a call a person changed before approving, and
        its arguments as approved, which its step shows.

        Read while the request still ``hold``s the thread, the pauses of the graph's new interrupts (each with its
        token) and the reply as shown are staged on the hold, to be kept in the commit that lets it go: one commit
        where a pause registered on its own, then the hold let go, then the reply shown, made three.
        """
        state = self.graph.get_state(_config(run.thread)) if after is None else after
        pending, values = _interrupts_of(state), state.values
        steps = _as_approved(tool_steps(values), *approved) if approved else tool_steps(values)
        reply = Reply(run.thread, run.id, "done", self.words(values), steps)
        shown = ShownMessage(reply.id, session or "", run.thread, reply.text, self.clock())
        ending = _Ending(reply, pending, [], [], Changes(shown=[shown] if session and reply.text else []))
        if hold is not None:
            ending = self._with_new_pauses(ending, run) if pending else ending
            hold.stage(ending.staged)
        return ending

    def _with_new_pauses(self, ending: _Ending, run: RunRecord) -> _Ending:
        """``ending`` with a pause, and its token, for each pending interrupt none stands for yet, staged with its
        event; and, under this request's hold, with answers a dead worker left asked about."""
        now = self.clock()
        known = {p.id: p for p in self.storage.run_pauses(run.id)}
        missed: list[NotNotified] = []
        live = {interrupt.id for interrupt in ending.pending}
        if self._orphaned(run, known, live, missed, True):
            known = {p.id: p for p in self.storage.run_pauses(run.id)}
        traceparent = telemetry.current().traceparent()
        new = [replace(pause_of(run, i, now), traceparent=traceparent) for i in ending.pending if i.id not in known]
        opened = [opening(pause, now) for pause in new]
        known.update((record.id, record) for record, _ in opened)
        waiting = self._shown(run, known, live)
        reply = replace(ending.reply, status="waiting" if waiting else "done", waiting=waiting)
        staged = replace(ending.staged, pauses=[record for record, _ in opened], events=[event for _, event in opened])
        return _Ending(reply, ending.pending, new, missed, staged)

    def _told(self, ending: _Ending, written: bool) -> Reply:
        """The reply, once the hold is let go: the new pauses announced where the release kept them (``written``);
        else (the hold ran out, or a reader registered a pause first) registered and shown as a read does."""
        reply = ending.reply
        if written:
            missed = list(ending.missed)
            for pause in ending.opened:
                self._announced(pause, missed)
            return replace(reply, not_notified=missed)
        waiting, missed = self._sync(reply.thread, ending.pending)
        if ending.staged.shown:
            self.storage.commit(Changes(shown=ending.staged.shown))
        return replace(reply, status="waiting" if waiting else "done", waiting=waiting, not_notified=missed)

    def _invoke(self, given: Any, thread: str, what: str) -> _After | None:
        try:
            return self._run_graph(given, thread)
        except Exception as exc:
            log.exception("the graph of thread %s raised %s", thread, what)
            raise GraphFailed(f"the graph raised {type(exc).__name__} {what}") from exc

    def _run_graph(self, given: Any, thread: str) -> _After | None:
        """Run the graph on ``given``; the state it left, as its ``invoke`` returned it (so the checkpoint it has
        just written need not be read back), or None where the output does not say it whole."""
        return _left(self.graph.invoke(given, _config(thread), output_keys=self.graph.stream_channels_asis))

    def _pending(self, thread: str) -> set[str]:
        """The ids of the interrupts LangGraph's checkpoint shows pending."""
        return {interrupt.id for interrupt in _interrupts_of(self.graph.get_state(_config(thread)))}

    def _sync(
        self, thread: str, pending: list[Any] | None = None, *, held: bool = False
    ) -> tuple[list[Pause], list[NotNotified]]:
        """Register the graph's pending interrupts (read now, unless given) as pauses (first writer wins) and
        announce the new ones, and ask about answers a dead worker left (``held``: this request holds the thread);
        the open pauses of pending interrupts, and those whose announcement failed.  Nothing pending, nothing is
        read: nothing waits, and no answer can have been left."""
        pending = _interrupts_of(self.graph.get_state(_config(thread))) if pending is None else pending
        if not pending:
            return [], []
        run, known, missed = self._registered(thread, pending, held=held)
        return self._shown(run, known, {interrupt.id for interrupt in pending}) if run else [], missed

    def _registered(
        self, thread: str, pending: list[Any], *, held: bool = False
    ) -> tuple[RunRecord | None, dict[str, PauseRecord], list[NotNotified]]:
        """``_sync``'s registering: the thread's run (None where it has none and nothing is pending), and its
        pauses by id once the pending interrupts are registered and left answers asked about."""
        run = self._run(thread) if pending else self.storage.get_run(_run_id(thread))
        if run is None:
            return None, {}, []
        known = {p.id: p for p in self.storage.run_pauses(run.id)}
        missed: list[NotNotified] = []
        for interrupt in pending:
            if interrupt.id not in known:
                known[interrupt.id] = self._open(pause_of(run, interrupt, self.clock()), missed)
        live = {interrupt.id for interrupt in pending}
        if self._orphaned(run, known, live, missed, held):
            known = {p.id: p for p in self.storage.run_pauses(run.id)}
        return run, known, missed

    def _shown(self, run: RunRecord, known: Mapping[str, PauseRecord], live: set[str]) -> list[Pause]:
        """The open pauses of the ``live`` interrupts, oldest first, as shown."""
        shown = [p for p in known.values() if p.status == "open" and _interrupt_of(p.id) in live]
        asker = run.state.get("asker")
        return [Pause.from_record(p).asked(asker) for p in sorted(shown, key=lambda p: p.created_at)]

    def _entered(self, thread: str, owner: str) -> str:
        """The thread the id names for ``owner`` (``approvals/admission.py``): theirs, or one nobody owns yet, which
        becomes theirs in the commit that begins its run (``_begun_held``), as a Desk's turn does; NotFound for
        another's.  A thread whose run began outside the door, and that nobody owns, becomes theirs now."""
        found = resolve(self.storage, thread, owner, start=True)
        if found.owner is None and self.storage.get_run(_run_id(found.thread)) is not None:
            return enter(self.storage, thread, owner, start=True)
        if found.owner is not None and not same_key(found.owner, owner):
            raise NotFound("no such thread")
        return found.thread

    def _begun_held(self, thread: str, owner: str, asker: str | None) -> RunRecord:
        """The thread's run held by this request: where the thread has none, begun held, and owned by ``owner``, in
        one commit; RunBusy while another request holds it."""
        run = self.storage.get_run(_run_id(thread))
        if run is None:
            now = self.clock()
            try:
                begun = self.storage.commit(Changes(begin=self._held(self._new_run(thread, asker), now), owner=owner))
            except (ThreadBusy, VersionConflict):
                run = self.storage.get_run(_run_id(thread))
                if run is None:
                    raise RunBusy("this thread already has a run that is not LangGraph's") from None
            else:
                assert begun.run is not None, "a begun run is saved"
                return begun.run
        return self._hold(run)

    def _new_run(self, thread: str, asker: str | None) -> RunRecord:
        """The thread's one run in the store; it keeps who began the thread, in words."""
        state = {"asker": asker} if asker else {}
        return RunRecord(_run_id(thread), thread, self.name, "waiting", state=state, created_at=self.clock())

    def _run(self, thread: str, asker: str | None = None) -> RunRecord:
        """The thread's one run in the store, begun where it has none."""
        run = self.storage.get_run(_run_id(thread))
        if run is not None:
            return run
        try:
            committed = self.storage.commit(Changes(begin=self._new_run(thread, asker))).run
        except (ThreadBusy, VersionConflict):
            committed = self.storage.get_run(_run_id(thread))
            if committed is None:
                raise RunBusy("this thread already has a run that is not LangGraph's") from None
        assert committed is not None, "a begun run is saved"
        return committed

    def _open(self, pause: Pause, missed: list[NotNotified]) -> PauseRecord:
        """Keep a new pause (another request may have kept it first), with the trace it opened in, and announce it."""
        pause = replace(pause, traceparent=telemetry.current().traceparent())
        record, event = opening(pause, self.clock())
        try:
            self.storage.commit(Changes(pauses=[record], events=[event]))
        except PauseExists as exc:
            current: PauseRecord = exc.current
            return current
        self._announced(pause, missed)
        return next(p for p in self.storage.run_pauses(pause.run) if p.id == pause.id)

    def _announced(self, pause: Pause, missed: list[NotNotified]) -> None:
        """Tell ``on_interrupt`` of a pause just kept; where that fails, it joins ``missed``."""
        telemetry.current().pause_opened(pause)
        if self.on_interrupt is not None:
            failed = announce(self.storage, self.on_interrupt, pause)
            missed.extend([failed] if failed else [])

    def _held(self, run: RunRecord, now: float) -> RunRecord:
        """``run`` held by this request until ``hold_seconds`` from now; RunBusy while another request holds it."""
        if run.lease_owner is not None and (run.lease_until or 0) > now:
            raise RunBusy("another request is running this thread's graph; try again in a moment")
        return run.replace(lease_owner=new_token(), lease_until=now + self.hold_seconds, updated_at=now)

    def _hold(self, run: RunRecord) -> RunRecord:
        """Hold the thread, over the version ``run`` was read at: its graph runs for one request at a time."""
        try:
            held = self.storage.commit(Changes(run=self._held(run, self.clock()), version=run.version)).run
        except VersionConflict:
            raise RunBusy("another request is running this thread's graph; try again in a moment") from None
        assert held is not None, "a saved run is returned"
        return held

    @contextmanager
    def _holding(self, run: RunRecord) -> Iterator[_Hold]:
        """Hold the thread for the block (``_hold``)."""
        with self._released(self._hold(run)) as hold:
            yield hold

    @contextmanager
    def _released(self, held: RunRecord) -> Iterator[_Hold]:
        """Keep the hold while the block runs the graph, however long it takes, then let it go."""
        hold = _Hold(self.storage, held, self.hold_seconds, self.clock)
        RENEWER.add(hold)
        try:
            yield hold
        finally:
            RENEWER.remove(hold)
            hold.release()


InterruptServer = GraphDoor
"""The door's name before it became a door of the one HTTP layer; kept so applications written for it still run."""


class _Hold:
    """A request's hold on a thread while its graph runs, renewed every third of its length by the process's
    renewer: a graph slower than ``hold_seconds`` must not let another request take (and resume) it meanwhile."""

    def __init__(self, store: Storage, held: RunRecord, seconds: float, clock: Callable[[], float]) -> None:
        self._store, self._run, self._seconds, self._clock = store, held, seconds, clock
        self._lock, self._released = threading.Lock(), False
        self._staged = Changes()
        self.period = seconds / 3
        self.written = False
        """Whether the writes staged were kept with the release."""

    @property
    def run(self) -> RunRecord:
        """The run as this request holds it now."""
        return self._run

    def stage(self, changes: Changes) -> None:
        """Writes to keep in the commit that lets the hold go, under its condition and their own."""
        self._staged = changes

    def renew(self) -> bool:
        with self._lock:
            if self._released:
                return False
            saved = extended(self._store, self._run, self._run.version, self._clock() + self._seconds)
            if saved is None:
                return False
            self._run = saved
            return True

    def release(self) -> None:
        with self._lock:
            self._released = True
            freed = self._run.replace(lease_owner=None, lease_until=None, updated_at=self._clock())
            self.written = not self._staged
            if not self.written:
                with suppress(VersionConflict, PauseExists):
                    self._store.commit(replace(self._staged, run=freed, version=self._run.version))
                    self.written = True
                    return
            try:
                self._store.commit(Changes(run=freed, version=self._run.version))
            except VersionConflict:
                log.warning("the hold on thread %s ran out before its graph ended", self._run.thread)


@dataclass(frozen=True)
class _After:
    """The state a run of the graph left: what a ``StateSnapshot`` says of it that the door reads."""

    values: dict[str, Any]
    interrupts: list[Any]


def _left(output: object) -> _After | None:
    """The state behind ``invoke``'s output, asked for with every channel the state has (``stream_channels_asis``,
    the keys of ``get_state().values``): the values, and the interrupts under ``__interrupt__``.  None where the
    output is not a mapping of values, or has nothing but interrupts (then the run emitted no values, or its state
    is not a mapping, and the checkpoint says what it is)."""
    if not isinstance(output, dict):
        return None
    values = {key: value for key, value in output.items() if key != INTERRUPT}
    interrupts = list({interrupt.id: interrupt for interrupt in output.get(INTERRUPT, ())}.values())
    return _After(values, interrupts) if values or not interrupts else None


@dataclass(frozen=True)
class _Ending:
    """A request's reply, read before it let its hold go; ``pending`` the interrupts then pending, ``opened`` the
    pauses it registered for them and ``missed`` those whose announcement failed, ``staged`` its writes."""

    reply: Reply
    pending: list[Any]
    opened: list[Pause]
    missed: list[NotNotified]
    staged: Changes


_KEPT = "while taking an answer; the answer is kept and is given again on the next request that writes to this thread"


def _open(entry: InboxEntry) -> Pause | None:
    """An inbox entry of a graph's thread as shown: every open pause (a graph's run has no moves to reach them)."""
    return Pause.from_record(entry.pause) if entry.pause.status == "open" else None


def _open_for(pause: PauseRecord, interrupt: str) -> bool:
    return pause.status == "open" and _interrupt_of(pause.id) == interrupt


def _interrupt_of(pause_id: str) -> str:
    """The LangGraph interrupt a pause stands for: its own id, or the one an ``outcome_unknown`` pause asks about."""
    return pause_id.split(UNKNOWN, 1)[0]


def _interrupts_of(state: Any) -> list[Any]:
    return list(getattr(state, "interrupts", ()) or ())


def _same(stored: dict[str, Any] | None, decision: str, value: JSON, edits: Mapping[str, JSON]) -> bool:
    if stored is None:
        return False
    return (stored.get("decision"), stored.get("value"), stored.get("edits") or {}) == (decision, value, edits)


def _taken(stored: PauseRecord, asked: object) -> JSON:
    """What ``interrupt()`` returns for the answer a pause keeps, to the interrupt whose value was ``asked``."""
    answer = stored.answer or {}
    decision, edits = str(answer.get("decision")), answer.get("edits") or {}
    return resumed(asked, stored.kind, decision, answer.get("value"), edits)


def _cancellable(pause: Pause) -> bool:
    """Whether a rollback answers ``pause``: every pause but a confirmation that may not be declined (a review of
    LangChain's middleware that allows no rejection), which stays open."""
    return pause.kind != "confirm" or ROLLBACK in pause.answers


def _answered(run: RunRecord, pause: Pause, answer: Answer, edits: Mapping[str, JSON], at: float) -> Event:
    """The thread log's line of an answer taken, in the commit that claims its pause: with the changes a person
    made, as asked and as approved; and the decision record's entry of it (a graph's pause is its owner's)."""
    body = {"type": "answer", "run": run.id, "pause": pause.id, "title": pause.title, **answer.audited(pause)}
    changes = edit_in(pause, edits, answer.editor).audited() if edits else {}
    answered = {**body, **changes, "outcome": "taken", "at": iso(at)}
    return Event(pause.thread, answered, decided(answered, pause, rules=(), approvals=None))


def _as_approved(steps: list[CallOutcome], pause: Pause, approved: list[ArgumentDict]) -> list[CallOutcome]:
    """``steps`` with the call ``pause`` asked about showing the arguments a person approved: the step of its tool
    whose arguments are those asked (the graph's messages keep the model's) or those approved."""
    values = [{a["name"]: a["value"] for a in arguments} for arguments in (pause.arguments, approved)]
    return [
        replace(step, arguments=approved)
        if step.tool == pause.tool and {a["name"]: a["value"] for a in step.arguments} in values
        else step
        for step in steps
    ]


def _command(resume: Mapping[str, JSON]) -> Any:
    from langgraph.types import Command

    return Command(resume=resume)


def _run_id(thread: str) -> str:
    return f"r_lg.{thread}"


def _config(thread: str) -> dict[str, dict[str, str]]:
    return {"configurable": {"thread_id": thread}}


def langgraph_app(
    graph: Any,
    *,
    storage: Storage | str,
    on_interrupt: Notify | None = None,
    turn: TurnInput = said,
    reply: ReplyWords = last_words,
    rerun: Collection[str] = (),
    settled: Happened = happened,
    hold_seconds: float = HOLD_SECONDS,
    **service: Unpack[Service],
) -> FastAPI:
    """An ASGI application with the service's routes over ``graph``; mount it anywhere.

    ``turn``, ``reply``, ``rerun``, ``settled`` and ``hold_seconds`` are ``GraphDoor``'s; everything else
    (``secret``, ``operator_token``, ``auth``, ``allowed_hosts``, ``allowed_origins``, ``public_url``,
    ``link_hours``, ``links_alone``, ``stream_mode``, ``routes``) is ``make_app``'s, and means the same: this is
    the same router over another door.
    """
    from ..http.app import door_app

    door = GraphDoor(
        graph,
        storage=storage,
        on_interrupt=on_interrupt,
        turn=turn,
        reply=reply,
        rerun=rerun,
        settled=settled,
        hold_seconds=hold_seconds,
    )
    return door_app(door, title="stalwart-agents for LangGraph", **service)
