"""The thread routes, declared once over a door: a turn, what waits, an answer, the stream, a rollback, a thumb,
and the inbox across threads.

Every route asks who the caller is (``auth.py``) and admits them to the thread
once (``Door.admit``): an id names the caller's own thread (``approvals/admission.py``),
and another person's thread answers 404, as one that does not exist, unless a pause
there is the caller's to answer.  Bodies are strict JSON within a size limit (``body.py``).  Whichever door
stands behind (the Desk, the LangGraph door), the routes, statuses and JSON are
these.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, cast

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..approvals import record
from ..approvals.admission import STORED_THREAD_MAX, Admission
from ..approvals.batch import BatchAnswer, answer_many
from ..approvals.card import card_of
from ..approvals.cursor import CURSOR_PATTERN
from ..approvals.inbox import MAX_LIMIT, TOOL_PATTERN, Inbox, not_notified
from ..approvals.principal import Principal
from ..door import Door, seen_by
from ..engine.answer import Answer
from ..engine.pause import Pause
from ..engine.reply import CallOutcome, Reply
from ..errors import NotFound, RunWaiting, Unauthorized
from ..vocabulary import PauseKind
from . import feedback, stream
from .auth import Auth
from .body import parsed, raw, strict_json, validated
from .budget import RESPONSE_BUDGET, result_path, step_key, within
from .declare import Declare
from .edge import check_operator, is_operator, session_of, signed_resume
from .json_answer import JsonAnswer
from .schemas import (
    NO_CONTROL,
    Answers,
    AnswersOut,
    CallKey,
    DecisionsOut,
    FeedbackOut,
    InboxOut,
    ReplyOut,
    ResultOut,
    Resume,
    RunId,
    Thread,
    Thumb,
    Turn,
    TurnThread,
    WaitingOut,
    answers,
    errors,
)
from .ticket import HEADER as TICKET_HEADER
from .ticket import Tickets

AUDIT_PAGE = 1000
"""Entries a page of the audit route holds: well within what Lambda carries back."""
AUDIT_TYPES = {"jsonl": "application/jsonl", "csv": "text/csv; charset=utf-8"}
NEXT_HEADER = "Stalwart-Next"


def decided_by(reader: Principal, entry: dict[str, Any]) -> bool:
    """Whether ``reader`` gave the decision an entry records: its verified issuer and subject are theirs."""
    by = entry.get("by") or {}
    return reader.verified and by.get("issuer") == reader.issuer and by.get("subject") == reader.subject


@dataclass(frozen=True)
class Threads:
    """What the thread routes need besides the door: who callers are, and the service's own settings."""

    door: Door
    auth: Auth
    tickets: Tickets
    secret: str | None = None
    operator_token: str | None = None
    stream_mode: Literal["live", "once"] = "live"
    budget: int | None = RESPONSE_BUDGET

    def admit(self, request: Request, thread: str, pause: str | None = None) -> Admission:
        """Who calls, let in to read what waits and answer it: the owner, or someone the approver rules allow."""
        return self.door.admit(thread, self.auth.principal(request), pause=pause)

    def enter(self, request: Request, thread: str) -> str:
        """Who calls, let into the thread the id names only if it is theirs: its stored id."""
        return self.door.enter(thread, self.auth.principal(request).key)

    def enter_stream(self, request: Request, thread: str) -> str:
        """The stream takes a ticket minted for this id and person, or a token like every other route; the stored
        thread the id names for them."""
        ticket = request.query_params.get("ticket")
        if ticket is None:
            return self.enter(request, thread)
        owner = self.tickets.owner(ticket, thread, time.time())
        if owner is None:
            raise Unauthorized(
                "this stream ticket is not valid for this thread, or has expired; read what waits again for a new one"
            )
        return self.door.enter(thread, owner)

    def ticketed(self, body: dict[str, Any] | bytes, thread: str, who: Principal) -> JSONResponse:
        """An answer on a thread, with a ticket to open its stream (an EventSource cannot send a token): minted for
        the id the request named, which names the same thread for the same person on every request."""
        return JsonAnswer(body, headers={TICKET_HEADER: self.tickets.mint(thread, who.key, time.time())})

    def fitted(self, reply: Reply, reader: Admission, named: str) -> bytes:
        """A reply's JSON within the response budget (``budget.py``): its largest results summarised where it is over,
        each pointing to the route that reads it whole (under the id the request named), which only the thread's
        owner may."""
        body = self.replied(reply, reader, named)
        steps = cast("list[dict[str, Any]]", body["steps"])
        kept = cache(lambda: self.door.results(reply.thread, reply.run) if reader.speaks_for_owner else {})
        return within(body, self.budget, steps, lambda step: self.read_at(named, reply.run, step, kept()))

    @staticmethod
    def read_at(thread: str, run: str, step: dict[str, Any], kept: dict[str, CallOutcome]) -> str | None:
        """Where a step's result is read whole: None where the run's journal does not keep it (a team's own step)."""
        key = step_key(step)
        return result_path(thread, run, key) if key in kept else None

    def result(self, request: Request, thread: str, run: str, key: str) -> JsonAnswer:
        """One call's whole result, for its thread's owner: what a reply too large to send whole points to."""
        stored = self.enter(request, thread)
        outcome = self.door.results(stored, run).get(key)
        if outcome is None:
            raise NotFound("no such call in this thread's runs")
        return JsonAnswer({"thread": thread, "run": run, "key": key, **outcome.to_dict()})

    def send(self, request: Request, thread: str, body: bytes) -> JSONResponse:
        who = self.auth.principal(request)
        turn = parsed(Turn, body)
        reader = Admission(thread, who, who.key)  # whose turn it is reads its cards, whichever thread it names
        try:
            reply = self.door.send(thread, turn.text, owner=who.key, session=session_of(request), asker=who.called)
        except RunWaiting as waits:
            waits.shown = self.cards(waits.waiting, reader)
            raise
        return self.ticketed(self.fitted(reply, reader, thread), thread, who)

    def waiting(self, request: Request, thread: str) -> JSONResponse:
        admitted = self.admit(request, thread)
        waiting = self.door.waiting_for(admitted)
        cards = self.cards(waiting, admitted)
        shown = {"thread": thread, "waiting": cards, "not_notified": not_notified(waiting)}
        return self.ticketed(shown, thread, admitted.principal)

    def cards(self, pauses: list[Pause], reader: Admission) -> list[dict[str, object]]:
        return [self.carded(pause, reader) for pause in pauses]

    def carded(self, pause: Pause, reader: Admission) -> dict[str, object]:
        """A pause's JSON, with the card ``reader`` sees of it."""
        return {**pause.to_dict(), "card": card_of(pause, self.door.verdict(pause, reader), reader)}

    def replied(self, reply: Reply, reader: Admission, named: str) -> dict[str, object]:
        """A reply's JSON, each pause in it with the card ``reader`` sees of it.  Its ``thread`` is the id the request
        named (``named``), as it always was; each pause shows the id its thread is stored under, which reaches it
        for anyone let in (``approvals/admission.py``)."""
        return {**reply.to_dict(waiting=self.cards(reply.waiting, reader)), "thread": named}

    def answer(self, request: Request, thread: str, body: bytes) -> JSONResponse:
        """An answer, let in as ``admit`` does; also from someone who may answer the pause they name though another
        answered it first, who is then told so (409), not that the thread does not exist."""
        given = parsed(Resume, body)
        admitted = self.admit(request, thread, given.interrupt_id)
        signed = signed_resume(self.secret, admitted.principal, request.headers.get("stalwart-signature"), body)
        channel = "signed" if signed else "http"
        answer = Answer.of(given.decision, given.value, given.token, channel, admitted, edits=given.edits)
        reply = self.door.answer(admitted, answer, given.interrupt_id, session=session_of(request))
        if not admitted.speaks_for_owner:  # an approver's: no ticket, since the thread's stream is its owner's
            return JsonAnswer(self.fitted(seen_by(self.door, reply, admitted), admitted, thread))
        return self.ticketed(self.fitted(reply, admitted, thread), thread, admitted.principal)

    def answer_many(self, request: Request, body: bytes) -> JSONResponse:
        """Several answers across threads, each admitted and claimed as if it came alone (``approvals/batch.py``);
        a bare list is taken as ``{"answers": [...]}``.  Signed as a resume must be, where the service has a resume
        secret and nobody is signed in."""
        who = self.auth.principal(request)
        data = strict_json(body)
        given = validated(Answers, {"answers": data} if isinstance(data, list) else data)
        signed = signed_resume(self.secret, who, request.headers.get("stalwart-signature"), body)
        items = [BatchAnswer(a.interrupt_id, a.token, a.decision, a.value, a.edits) for a in given.answers]
        channel = "signed" if signed else "http"
        outcomes = answer_many(self.door, who, items, channel=channel, session=session_of(request))
        pauses = {id(step): outcome["interrupt_id"] for outcome in outcomes for step in outcome.get("steps") or ()}
        steps = cast("list[dict[str, Any]]", [step for outcome in outcomes for step in outcome.get("steps") or ()])
        runs = cache(lambda pause: self.answered_in(who, pause))

        def read(step: dict[str, Any]) -> str | None:
            found = runs(pauses[id(step)])
            return None if found is None else self.read_at(found[0], found[1], step, found[2])

        return JsonAnswer(within({"answers": outcomes}, self.budget, steps, read))

    def answered_in(self, who: Principal, pause: str) -> tuple[str, str, dict[str, CallOutcome]] | None:
        """The thread and run a batch's answer moved, with the results kept of it, where ``who`` owns that thread
        (only its owner reads them whole); None elsewhere."""
        record = self.door.storage.get_pause(pause)
        if record is None:
            return None
        try:
            entered = self.door.enter(record.thread, who.key)
        except NotFound:
            return None
        if entered != record.thread:  # their own thread of that id, begun by them: not the one the pause is in
            return None
        return record.thread, record.run, self.door.results(record.thread, record.run)

    def inbox(self, request: Request, **filters: Any) -> JSONResponse:
        who = self.auth.principal(request)
        found: Inbox = self.door.inbox(who, **filters)
        readers = {p.id: Admission(p.thread, who, found.owners.get(p.id)) for p in found.waiting}
        cards = [
            {**p.to_dict(), "card": card_of(p, self.door.verdict(p, readers[p.id]), readers[p.id])}
            for p in found.waiting
        ]
        return JsonAnswer({**found.to_dict(), "waiting": cards})

    def rollback(self, request: Request, thread: str) -> JSONResponse:
        """An operator's rollback of the thread the id names for them where it is their own, else of the stored
        thread of that id (as a pause, the log or a webhook shows it)."""
        who = self.auth.principal(request)
        check_operator(request, self.operator_token)
        stored = thread
        with contextlib.suppress(NotFound):
            stored = self.door.enter(thread, who.key)
        body = {**self.door.rollback(stored, session=session_of(request)).to_dict(), "thread": thread}
        steps = cast("list[dict[str, Any]]", body["steps"])
        return JsonAnswer(within(body, self.budget, steps, lambda step: None))

    def decisions(self, request: Request, thread: str) -> JsonAnswer:
        """The thread's decision record, for its owner or an operator (who names the stored id), with whether its
        chain is intact and, on each entry, whether the reader decided it (``mine``)."""
        if is_operator(request, self.operator_token):
            stored, reader = thread, None
        else:
            reader = self.auth.principal(request)
            stored = self.door.enter(thread, reader.key)
        kept, intact = record.thread_intact(self.door.storage, stored)
        if not kept and reader is not None and self.door.storage.last_run(stored) is None:
            raise NotFound("no such thread")
        shown = [{**entry, "mine": reader is not None and decided_by(reader, entry)} for entry in kept]
        return JsonAnswer({"thread": thread, "intact": intact, "decisions": shown})

    def audit(self, request: Request, since: str | None, thread: str | None, form: str, after: str | None) -> Response:
        """A page of the whole decision record (or one thread's), for an operator, as JSON lines or CSV; the
        ``Stalwart-Next`` header carries where the next page starts, on every page but the last."""
        check_operator(request, self.operator_token, "audit", "reading the decision record")
        moment = record.since_of(since) if since else 0.0
        page, next_after = record.page(self.door.storage, since=moment, thread=thread, after=after, limit=AUDIT_PAGE)
        lines = record.csv_rows(page) if form == "csv" else record.jsonl(page)
        headers = {"Cache-Control": "no-store"} | ({NEXT_HEADER: next_after} if next_after else {})
        return Response("".join(lines), media_type=AUDIT_TYPES[form], headers=headers)

    async def stream(self, request: Request, thread: str) -> Response:
        stored = await run_in_threadpool(self.enter_stream, request, thread)
        read: stream.Read = lambda after, limit: self.door.events(stored, after=after, limit=limit)  # noqa: E731
        after = stream.cursor(request)
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        if self.stream_mode == "once":
            body = await run_in_threadpool(lambda: stream.once(read, after, thread=thread, budget=self.budget))
            return Response(body, media_type="text/event-stream", headers=headers)
        from sse_starlette import EventSourceResponse

        return EventSourceResponse(stream.live(read, after), ping=15, headers=headers)

    def rate(self, request: Request, thread: str, body: bytes) -> dict[str, str]:
        """A thumb on a reply of ``thread``, the stored thread ``enter`` let the caller into."""
        thumb = parsed(Thumb, body)
        kept = feedback.rate(
            self.door.storage, thread, thumb.message, thumb.thumb, session_of(request), self.door.clock()
        )
        return {"message": kept.message, "thumb": kept.thumb}


def declare_threads(route: Declare, threads: Threads) -> None:
    """The thread routes and the inbox, each in a worker thread: a door's calls block on its store."""

    @route(
        "messages",
        "POST",
        "/threads/{thread}/messages",
        lean=True,
        body=Turn,
        response_model=None,
        responses=answers(ReplyOut, 400, 401, 404, 409, 413, 415, 503),
    )
    async def messages(thread: TurnThread, request: Request) -> JSONResponse:
        return await run_in_threadpool(threads.send, request, thread, await raw(request))

    @route(
        "interrupts",
        "GET",
        "/threads/{thread}/interrupts",
        lean=True,
        response_model=None,
        responses=answers(WaitingOut, 400, 401, 404, 503),
    )
    async def interrupts(thread: Thread, request: Request) -> JSONResponse:
        return await run_in_threadpool(threads.waiting, request, thread)

    if route.serves("interrupts"):
        _declare_inbox(route, threads)

    @route(
        "resume",
        "POST",
        "/threads/{thread}/resume",
        lean=True,
        body=Resume,
        response_model=None,
        responses=answers(ReplyOut, 400, 401, 404, 409, 410, 413, 415, 503),
    )
    async def resume(thread: Thread, request: Request) -> JSONResponse:
        return await run_in_threadpool(threads.answer, request, thread, await raw(request))

    @route(
        "resume",
        "POST",
        "/interrupts/answers",
        lean=True,
        body=Answers,
        named="answers",
        response_model=None,
        responses=answers(AnswersOut, 400, 401, 413, 415, 503),
    )
    async def answer_many(request: Request) -> JSONResponse:
        """Several answers in one request, each claimed on its own: the outcome of each, in order."""
        return await run_in_threadpool(threads.answer_many, request, await raw(request))

    @route(
        "stream",
        "GET",
        "/threads/{thread}/stream",
        lean=True,
        responses={200: {"content": {"text/event-stream": {}}}, **errors(400, 401, 404, 503)},
    )
    async def steps(thread: Thread, request: Request) -> Response:
        return await threads.stream(request, thread)

    @route(
        "stream",
        "GET",
        "/threads/{thread}/results/{run}/{key}",
        lean=True,
        named="results",
        response_model=None,
        responses=answers(ResultOut, 400, 401, 404, 503),
    )
    async def result(thread: Thread, run: RunId, key: CallKey, request: Request) -> JSONResponse:
        """One call's whole result, for the thread's owner: where a step's ``truncated.read`` points."""
        return await run_in_threadpool(threads.result, request, thread, run, key)

    @route(
        "rollback",
        "GET",
        "/threads/{thread}/decisions",
        lean=True,
        response_model=None,
        responses=answers(DecisionsOut, 400, 401, 404, 503),
    )
    async def decisions(thread: Thread, request: Request) -> JSONResponse:
        """The thread's decisions, oldest first, as its decision record keeps them: for its owner, or an operator."""
        return await run_in_threadpool(threads.decisions, request, thread)

    if route.serves("rollback"):
        _declare_audit(route, threads)

    @route(
        "rollback",
        "POST",
        "/threads/{thread}/rollback",
        lean=True,
        response_model=None,
        responses=answers(ReplyOut, 400, 401, 403, 404, 409, 415, 503),
    )
    async def rollback(thread: Thread, request: Request) -> JSONResponse:
        return await run_in_threadpool(threads.rollback, request, thread)

    @route(
        "feedback",
        "POST",
        "/threads/{thread}/feedback",
        lean=True,
        body=Thumb,
        response_model=None,
        responses=answers(FeedbackOut, 400, 401, 403, 404, 413, 415, 503),
    )
    async def thumb(thread: Thread, request: Request) -> JSONResponse:
        stored = await run_in_threadpool(threads.enter, request, thread)
        return JsonAnswer(await run_in_threadpool(threads.rate, request, stored, await raw(request)))


def _declare_inbox(route: Declare, threads: Threads) -> None:
    """The inbox, whose query FastAPI checks: declared, and FastAPI imported, only where it is served."""
    from fastapi import Query

    @route("interrupts", "GET", "/interrupts", response_model=None, responses=answers(InboxOut, 400, 401, 503))
    async def inbox(
        request: Request,
        kind: PauseKind | None = None,
        tool: str | None = Query(None, pattern=TOOL_PATTERN, description="only pauses about this tool"),
        cursor: str | None = Query(None, pattern=CURSOR_PATTERN, description="the `next` of the page before"),
        limit: int = Query(50, ge=1, le=MAX_LIMIT),
    ) -> JSONResponse:
        """Every open pause the caller may answer, across threads, newest first; ``next`` reads on."""
        filters = {"kind": kind, "tool": tool, "cursor": cursor, "limit": limit}
        return await run_in_threadpool(lambda: threads.inbox(request, **filters))


def _declare_audit(route: Declare, threads: Threads) -> None:
    """The decision record's pages, whose query FastAPI checks: declared, and FastAPI imported, only where served."""
    from fastapi import Query

    @route(
        "rollback",
        "GET",
        "/audit",
        named="audit",
        response_model=None,
        responses={
            200: {"content": {media: {} for media in AUDIT_TYPES.values()}},
            **errors(400, 401, 403, 503),
        },
    )
    async def audit(
        request: Request,
        since: str | None = Query(
            None, max_length=40, description="decisions at or after: 2026-12-01, or epoch seconds"
        ),
        thread: str | None = Query(
            None, max_length=STORED_THREAD_MAX, pattern=NO_CONTROL, description="one thread's record (its stored id)"
        ),
        format: Literal["jsonl", "csv"] = Query("jsonl", description="JSON lines (exact) or CSV"),
        after: str | None = Query(None, max_length=400, description="the `Stalwart-Next` of the page before"),
    ) -> Response:
        """The decision record, oldest first, a page at a time: for an operator (the operator token)."""
        return await run_in_threadpool(threads.audit, request, since, thread, format, after)
