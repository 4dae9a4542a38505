"""The door for a LangGraph graph: its turns, its ``interrupt()`` pauses and an operator's rollback, served as
``stalwart serve`` serves ours.

The graph keeps its own state in the team's own checkpointer; this server keeps,
in a stalwart run store, what LangGraph does not: a token per pause, a claim so
that two answers at once give one resume and one ``interrupt_stale``, a hold on
the thread while its graph runs, and who was told of each pause.  Pause ids are
LangGraph's own interrupt ids.

    from stalwart_agents.langchain.server import Webhook, langgraph_app

    app.mount("/agent", langgraph_app(graph, storage="sqlite:///runs.db",
                                      on_interrupt=Webhook(url, secret)))

An answer is claimed in the store before the graph is resumed with it.  Where the
graph then raises, the answer stays claimed and LangGraph still shows the
interrupt pending: the next request for the thread (or the same answer sent
again) resumes the graph with the stored answer, until LangGraph's checkpoint no
longer shows that interrupt, which is how the door knows the graph took it.  A
resume runs only while its request holds the thread, so it never runs twice.
The interrupts are described in ``interrupts.py``; docs/langgraph.md has the rest.
"""

from __future__ import annotations

import hmac
import logging
import threading
import time
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from fastapi import FastAPI, Request, Response
from starlette.concurrency import run_in_threadpool

from ..approvals.announce import Notify, announce
from ..approvals.inbox import not_notified
from ..approvals.signature import verify_signature
from ..approvals.webhook import Webhook
from ..engine.answer import Answer
from ..engine.lease import RENEWER, extended
from ..engine.ledger import claiming, opening
from ..engine.pause import Pause, new_token
from ..engine.reply import NotNotified, Reply, RollbackReport
from ..errors import (
    InterruptStale,
    NotFound,
    PauseClosed,
    PauseExists,
    RunBusy,
    RunWaiting,
    StalwartError,
    ThreadBusy,
    VersionConflict,
)
from ..http import stream
from ..http.app import PUBLIC, _handle_errors, _operator, _origins
from ..http.body import parsed, raw
from ..http.boundary import LOOPBACK_HOSTS, Boundary
from ..http.schemas import ReplyOut, Resume, Thread, Turn, WaitingOut, answers, body_of
from ..storage import Changes, PauseRecord, RunRecord, Storage, open_storage
from ..vocabulary import JSON, RunStatus
from .graph_state import ReplyWords, TurnInput, last_words, said, tool_steps
from .interrupts import pause_of

__all__ = ["GraphFailed", "InterruptServer", "Webhook", "langgraph_app"]

CLAIM_ATTEMPTS = 8
HOLD_SECONDS = 300.0
"""How long a request holds a thread while its graph runs; a worker that dies holding it frees it after this."""
ROLLBACK = "cancel_all"
log = logging.getLogger("stalwart_agents")


class GraphFailed(StalwartError):
    """The graph raised while it ran a turn or took an answer; an answer it was taking stays kept."""

    code = "graph_failed"
    status = 503


class InterruptServer:
    """A graph's turns and pauses, each pause with a token and a claim kept in ``storage``.

    ``turn(text)`` is the graph's input for a person's text (``{"messages": [("user", text)]}`` by
    default); ``reply(values)`` the words of the reply, from the graph's state values (the last
    message's text by default).
    """

    def __init__(
        self,
        graph: Any,
        *,
        storage: Storage | str,
        on_interrupt: Notify | None = None,
        turn: TurnInput = said,
        reply: ReplyWords = last_words,
        hold_seconds: float = HOLD_SECONDS,
    ) -> None:
        """``graph`` is a compiled LangGraph graph, typed loosely so that importing this never imports LangGraph."""
        self.graph = graph
        self.store = open_storage(storage) if isinstance(storage, str) else storage
        self.on_interrupt = on_interrupt
        self.turn, self.words, self.hold_seconds = turn, reply, hold_seconds

    def interrupts(self, thread: str) -> list[Pause]:
        """What waits in the thread, each by LangGraph's interrupt id; new ones are registered (and announced) first."""
        self.redrive(thread)
        return self._sync(thread)[0]

    def send(self, thread: str, text: str) -> Reply:
        """A person's turn: the graph invoked on ``turn(text)``; refused (run_waiting) while an interrupt waits."""
        self.redrive(thread)
        with self._holding(self._run(thread)) as run:
            if self._pending(thread):
                waiting = self._sync(thread)[0]
                if not waiting:
                    raise RunBusy("an answer in this thread is being taken; try again in a moment")
                raise RunWaiting("this thread's graph waits for a decision; answer it before a new turn", waiting)
            self._invoke(self.turn(text), thread, "on this turn")
        return self._reply(run)

    def resume(self, thread: str, interrupt_id: str, decision: str, token: str, value: JSON = None) -> Reply:
        """Claim the pause, then resume the graph with the answer.  The same answer sent again, after the graph
        failed to take it, resumes the graph again; any other answer to a pause already answered is stale."""
        redriven = self.redrive(thread)
        for _ in range(CLAIM_ATTEMPTS):
            run, stored = self._stored(thread, interrupt_id)
            pause, answer = Pause.from_record(stored), Answer(decision, value, token, channel="langgraph")
            taken = answer.checked(pause)
            if not hmac.compare_digest(token.encode(), pause.token.encode()):
                raise InterruptStale("this answer carries a token other than the one shown; read what waits again")
            if stored.status != "open":
                if pause.id in redriven and _same(stored.answer, decision, taken):
                    return self._reply(run)
                raise InterruptStale("this pause was already answered")
            now = time.time()
            held = self._held(run, now)
            try:
                claimed = self.store.commit(claiming(pause.id, answer.stored(taken, now), held, now)).run
            except PauseClosed as exc:
                raise InterruptStale("this pause was already answered") from exc
            except VersionConflict:
                continue
            assert claimed is not None, "a claim saves its run"
            with self._released(claimed):
                self._invoke(_command({pause.id: _resumed(pause.kind, decision, taken)}), thread, _KEPT)
            return self._reply(run)
        raise RunBusy("the thread kept changing while this answer was taken; try again")

    def rollback(self, thread: str) -> Reply:
        """An operator's rollback: every open pause of the thread answered ``cancel_all`` through the graph, which
        decides what to undo; ``reply.rollback`` says whether the graph ended (complete) or waits again."""
        self.redrive(thread)
        run = self.store.get_run(_run_id(thread))
        if run is None:
            raise NotFound("this thread has no graph run to roll back")
        open_ids = [pause.id for pause in self._sync(thread)[0]]
        with self._holding(run):
            cancelled = {pause_id: ROLLBACK for pause_id in open_ids if self._claimed_for_rollback(pause_id)}
            if cancelled:
                self._invoke(_command(cancelled), thread, _KEPT)
        reply = self._reply(run)
        report: RollbackReport = {
            "reason": "operator",
            "status": "waiting" if reply.waiting else "complete",
            "undone": [],
            "not_undone": [],
        }
        return replace(reply, rollback=report)

    def redrive(self, thread: str) -> set[str]:
        """Resume the graph with each stored answer it has not taken (its interrupt still pending); their ids.

        Nothing is resumed while another request holds the thread: that one is running the graph now.
        """
        run = self.store.get_run(_run_id(thread))
        answers = {p.id: p for p in self.store.run_pauses(run.id) if p.answer is not None} if run else {}
        if run is None or not answers.keys() & self._pending(thread):
            return set()
        try:
            with self._holding(run):
                due = answers.keys() & self._pending(thread)
                if due:
                    self._invoke(_command({i: _taken(answers[i]) for i in due}), thread, _KEPT)
                return due
        except RunBusy:
            return set()

    def _claimed_for_rollback(self, pause_id: str) -> bool:
        answer = Answer(ROLLBACK, channel="operator").stored(None, time.time())
        try:
            self.store.commit(Changes(claim=(pause_id, answer)))
        except PauseClosed:
            return False
        return True

    def _reply(self, run: RunRecord) -> Reply:
        """The service's answer after the graph ran: its words, its calls, and what now waits."""
        state = self.graph.get_state(_config(run.thread))
        waiting, missed = self._sync(run.thread, _interrupts_of(state))
        values = state.values
        status: RunStatus = "waiting" if waiting else "done"
        return Reply(run.thread, run.id, status, self.words(values), tool_steps(values), waiting, not_notified=missed)

    def _invoke(self, given: Any, thread: str, what: str) -> None:
        try:
            self.graph.invoke(given, _config(thread))
        except Exception as exc:
            log.exception("the graph of thread %s raised %s", thread, what)
            raise GraphFailed(f"the graph raised {type(exc).__name__} {what}") from exc

    def _pending(self, thread: str) -> set[str]:
        """The ids of the interrupts LangGraph's checkpoint shows pending: answers it has not taken."""
        return {interrupt.id for interrupt in self._interrupts(thread)}

    def _interrupts(self, thread: str) -> list[Any]:
        return _interrupts_of(self.graph.get_state(_config(thread)))

    def _stored(self, thread: str, interrupt_id: str) -> tuple[RunRecord, PauseRecord]:
        self._sync(thread)
        run = self.store.get_run(_run_id(thread))
        stored = next((p for p in self.store.run_pauses(run.id) if p.id == interrupt_id), None) if run else None
        if run is None or stored is None:
            raise NotFound(f"nothing in this thread waits with the id {interrupt_id!r}")
        return run, stored

    def _sync(self, thread: str, pending: list[Any] | None = None) -> tuple[list[Pause], list[NotNotified]]:
        """Register the graph's pending interrupts (read now, unless given) as pauses (first writer wins) and announce
        the new ones; the open ones, and those whose announcement failed."""
        pending = self._interrupts(thread) if pending is None else pending
        run = self._run(thread) if pending else self.store.get_run(_run_id(thread))
        if run is None:
            return [], []
        known = {p.id: p for p in self.store.run_pauses(run.id)}
        missed: list[NotNotified] = []
        for interrupt in pending:
            if interrupt.id not in known:
                known[interrupt.id] = self._opened(run, interrupt, missed)
        open_ids = {interrupt.id for interrupt in pending}
        return [Pause.from_record(known[i]) for i in known if i in open_ids and known[i].status == "open"], missed

    def _run(self, thread: str) -> RunRecord:
        run = self.store.get_run(_run_id(thread))
        if run is not None:
            return run
        begun = RunRecord(_run_id(thread), thread, agent="langgraph", status="waiting", created_at=time.time())
        try:
            committed = self.store.commit(Changes(begin=begun)).run
        except (ThreadBusy, VersionConflict):
            committed = self.store.get_run(_run_id(thread))
            if committed is None:
                raise RunBusy("this thread already has a run that is not LangGraph's") from None
        assert committed is not None, "a begun run is saved"
        return committed

    def _opened(self, run: RunRecord, interrupt: Any, missed: list[NotNotified]) -> PauseRecord:
        pause = pause_of(run, interrupt)
        record, event = opening(pause, time.time())
        try:
            self.store.commit(Changes(pauses=[record], events=[event]))
        except PauseExists as exc:
            current: PauseRecord = exc.current
            return current
        if self.on_interrupt is not None:
            failed = announce(self.store, self.on_interrupt, pause)
            missed.extend([failed] if failed else [])
        return next(p for p in self.store.run_pauses(run.id) if p.id == pause.id)

    def _held(self, run: RunRecord, now: float) -> RunRecord:
        """``run`` held by this request until ``hold_seconds`` from now; RunBusy while another request holds it."""
        if run.lease_owner is not None and (run.lease_until or 0) > now:
            raise RunBusy("another request is running this thread's graph; try again in a moment")
        return run.replace(lease_owner=new_token(), lease_until=now + self.hold_seconds, updated_at=now)

    @contextmanager
    def _holding(self, run: RunRecord) -> Iterator[RunRecord]:
        """Hold the thread for the block: its graph runs for one request at a time."""
        now = time.time()
        try:
            held = self.store.commit(Changes(run=self._held(run, now), version=run.version)).run
        except VersionConflict:
            raise RunBusy("another request is running this thread's graph; try again in a moment") from None
        assert held is not None, "a saved run is returned"
        with self._released(held):
            yield held

    @contextmanager
    def _released(self, held: RunRecord) -> Iterator[None]:
        """Keep the hold while the block runs the graph, however long it takes, then let it go."""
        hold = _Hold(self.store, held, self.hold_seconds)
        RENEWER.add(hold)
        try:
            yield
        finally:
            RENEWER.remove(hold)
            hold.release()


class _Hold:
    """A request's hold on a thread while its graph runs, renewed every third of its length by the process's
    renewer: a graph slower than ``hold_seconds`` must not let another request take (and resume) it meanwhile."""

    def __init__(self, store: Storage, held: RunRecord, seconds: float) -> None:
        self._store, self._run, self._seconds = store, held, seconds
        self._lock, self._released = threading.Lock(), False
        self.period = seconds / 3

    def renew(self) -> bool:
        with self._lock:
            if self._released:
                return False
            saved = extended(self._store, self._run, self._run.version, time.time() + self._seconds)
            if saved is None:
                return False
            self._run = saved
            return True

    def release(self) -> None:
        with self._lock:
            self._released = True
            freed = self._run.replace(lease_owner=None, lease_until=None, updated_at=time.time())
            try:
                self._store.commit(Changes(run=freed, version=self._run.version))
            except VersionConflict:
                log.warning("the hold on thread %s ran out before its graph ended", self._run.thread)


_KEPT = "while taking an answer; the answer is kept and is given again on the next request for this thread"


def _interrupts_of(state: Any) -> list[Any]:
    return list(getattr(state, "interrupts", ()) or ())


def _same(stored: dict[str, Any] | None, decision: str, value: JSON) -> bool:
    return stored is not None and stored.get("decision") == decision and stored.get("value") == value


def _resumed(kind: str, decision: str, value: JSON) -> JSON:
    """What ``interrupt()`` returns to the graph: the decision, or an ask's value where it was answered."""
    return value if kind == "ask" and decision == "answer" else decision


def _taken(stored: PauseRecord) -> JSON:
    """What ``interrupt()`` returns for the answer a pause keeps."""
    answer = stored.answer or {}
    return _resumed(stored.kind, str(answer.get("decision")), answer.get("value"))


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
    secret: str | None = None,
    operator_token: str | None = None,
    turn: TurnInput = said,
    reply: ReplyWords = last_words,
    allowed_hosts: Collection[str] | None = None,
    allowed_origins: Collection[str] = (),
) -> FastAPI:
    """An ASGI application with the service's thread routes over ``graph``; mount it anywhere.

    ``secret`` makes a resume carry a valid ``Stalwart-Signature``; ``operator_token`` turns the rollback route
    on (without it the route answers 403, as ``stalwart serve``'s does); ``turn`` and ``reply`` are
    ``InterruptServer``'s.  It sits behind the same browser boundary as ``make_app`` (allowed hosts and origins,
    JSON bodies only).
    """
    server = InterruptServer(graph, storage=storage, on_interrupt=on_interrupt, turn=turn, reply=reply)
    app = FastAPI(title="stalwart-agents for LangGraph", docs_url=None, redoc_url=None)
    hosts = LOOPBACK_HOSTS if allowed_hosts is None else allowed_hosts
    app.add_middleware(Boundary, hosts=hosts, origins=_origins(allowed_origins), public=PUBLIC)
    _handle_errors(app)

    @app.post(
        "/threads/{thread}/messages",
        name="messages",
        openapi_extra=body_of(Turn),
        response_model=None,
        responses=answers(ReplyOut, 400, 409, 413, 415, 503),
    )
    async def messages(thread: Thread, request: Request) -> dict[str, object]:
        body = parsed(Turn, await raw(request))
        return (await run_in_threadpool(server.send, thread, body.text)).to_dict()

    @app.get(
        "/threads/{thread}/interrupts",
        name="interrupts",
        response_model=None,
        responses=answers(WaitingOut, 400, 503),
    )
    async def interrupts(thread: Thread) -> dict[str, object]:
        waiting = await run_in_threadpool(server.interrupts, thread)
        return {"thread": thread, "waiting": [p.to_dict() for p in waiting], "not_notified": not_notified(waiting)}

    @app.post(
        "/threads/{thread}/resume",
        name="resume",
        openapi_extra=body_of(Resume),
        response_model=None,
        responses=answers(ReplyOut, 400, 401, 404, 409, 413, 415, 503),
    )
    async def resume(thread: Thread, request: Request) -> dict[str, object]:
        given = await raw(request)
        if secret is not None:
            verify_signature(secret, request.headers.get("stalwart-signature"), given)
        body = parsed(Resume, given)
        answered = (thread, body.interrupt_id, body.decision, body.token, body.value)
        return (await run_in_threadpool(server.resume, *answered)).to_dict()

    @app.post(
        "/threads/{thread}/rollback",
        name="rollback",
        response_model=None,
        responses=answers(ReplyOut, 400, 403, 404, 409, 503),
    )
    async def rollback(thread: Thread, request: Request) -> dict[str, object]:
        _operator(request, operator_token)
        return (await run_in_threadpool(server.rollback, thread)).to_dict()

    @app.get("/threads/{thread}/stream", name="stream", responses={200: {"content": {"text/event-stream": {}}}})
    async def steps(thread: Thread, request: Request) -> Response:
        """The pauses registered in the thread (and their answers) as server-sent events, resumable by Last-Event-ID."""
        from sse_starlette import EventSourceResponse

        read = lambda after, limit: server.store.events(thread, after, limit)  # noqa: E731
        events = stream.live(read, stream.cursor(request))
        return EventSourceResponse(events, ping=15, headers={"Cache-Control": "no-store"})

    app.state.server = server
    return app
