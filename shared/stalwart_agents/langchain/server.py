"""The resume server for a LangGraph graph: its ``interrupt()`` pauses, served as ``stalwart serve`` serves ours.

The graph keeps its own state in the team's own checkpointer; this server keeps,
in a stalwart run store, what LangGraph does not: a token per pause, a claim so
that two answers at once give one resume and one ``interrupt_stale``, and who
was told of each pause.  Pause ids are LangGraph's own interrupt ids.

    from stalwart_agents import Webhook
    from stalwart_agents.langchain.server import langgraph_app

    app.mount("/agent", langgraph_app(graph, storage="sqlite:///runs.db",
                                      on_interrupt=Webhook(url, secret)))

An interrupt whose value is a mapping with a ``tool`` is a confirmation
(approve / skip / cancel_all; its ``arguments``, ``question``, ``reasons`` and
``irreversible`` are shown as given); any other is an ``ask``, answered with a
value.  The graph's ``interrupt()`` returns the decision (``"approve"``...), or
the value for an ask.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Collection, Mapping
from typing import Any, Literal

from fastapi import FastAPI, Request, Response
from starlette.concurrency import run_in_threadpool

from .. import stream
from ..announce import Notify, announce
from ..answer import Answer
from ..arguments import ArgumentDict
from ..body import parsed, raw
from ..boundary import LOOPBACK_HOSTS, Boundary
from ..errors import InterruptStale, NotFound, PauseClosed, PauseExists, RunBusy, ThreadBusy, VersionConflict
from ..ledger import claiming, opening
from ..pause import ANSWERS, Pause, iso, new_token
from ..schemas import Resume, body_of, errors
from ..serve import PUBLIC, _handle_errors, _origins
from ..signature import verify_signature
from ..storage import Changes, PauseRecord, RunRecord, Storage, open_storage
from ..vocabulary import JSON

CLAIM_ATTEMPTS = 8


class InterruptServer:
    """Pauses of a LangGraph graph, each with a token and a claim kept in ``storage``."""

    def __init__(self, graph: Any, *, storage: Storage | str, on_interrupt: Notify | None = None) -> None:
        """``graph`` is a compiled LangGraph graph, typed loosely so that importing this never imports LangGraph."""
        self.graph = graph
        self.store = open_storage(storage) if isinstance(storage, str) else storage
        self.on_interrupt = on_interrupt

    def interrupts(self, thread: str) -> list[Pause]:
        """What waits in the thread, each by LangGraph's interrupt id; new ones are registered (and announced) first."""
        return self._sync(thread)

    def resume(self, thread: str, interrupt_id: str, decision: str, token: str, value: JSON = None) -> list[Pause]:
        """Claim the pause, then resume the graph with the answer; what waits afterwards."""
        for _ in range(CLAIM_ATTEMPTS):
            self._sync(thread)
            run = self.store.get_run(_run_id(thread))
            stored = next((p for p in self.store.run_pauses(run.id) if p.id == interrupt_id), None) if run else None
            if run is None or stored is None:
                raise NotFound(f"nothing in this thread waits with the id {interrupt_id!r}")
            pause, answer = Pause.from_record(stored), Answer(decision, value, token, channel="langgraph")
            answer.checked(pause)
            if stored.status != "open" or not hmac.compare_digest(token.encode(), pause.token.encode()):
                raise InterruptStale("this pause is no longer open, or the token is not the one shown")
            now = time.time()
            try:
                self.store.commit(claiming(pause.id, answer.stored(value, now), run, now))
            except PauseClosed as exc:
                raise InterruptStale("this pause was already answered") from exc
            except VersionConflict:
                continue
            from langgraph.types import Command

            resumed = value if pause.kind == "ask" else decision
            self.graph.invoke(Command(resume={interrupt_id: resumed}), _config(thread))
            return self._sync(thread)
        raise RunBusy("the thread kept changing while this answer was taken; try again")

    def _sync(self, thread: str) -> list[Pause]:
        """Register the graph's pending interrupts as pauses (first writer wins) and announce the new ones."""
        state = self.graph.get_state(_config(thread))
        pending = list(getattr(state, "interrupts", ()) or ())
        run = self._run(thread) if pending else self.store.get_run(_run_id(thread))
        if run is None:
            return []
        known = {p.id: p for p in self.store.run_pauses(run.id)}
        for interrupt in pending:
            if interrupt.id not in known:
                known[interrupt.id] = self._opened(run, interrupt)
        open_ids = {interrupt.id for interrupt in pending}
        return [Pause.from_record(known[i]) for i in known if i in open_ids and known[i].status == "open"]

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

    def _opened(self, run: RunRecord, interrupt: Any) -> PauseRecord:
        pause = _pause(run, interrupt)
        record, event = opening(pause, time.time())
        try:
            self.store.commit(Changes(pauses=[record], events=[event]))
        except PauseExists as exc:
            current: PauseRecord = exc.current
            return current
        if self.on_interrupt is not None:
            announce(self.store, self.on_interrupt, pause)
        return next(p for p in self.store.run_pauses(run.id) if p.id == pause.id)


def _run_id(thread: str) -> str:
    return f"r_lg.{thread}"


def _config(thread: str) -> dict[str, dict[str, str]]:
    return {"configurable": {"thread_id": thread}}


def _pause(run: RunRecord, interrupt: Any) -> Pause:
    """An interrupt as a pause: a confirmation where its value is a mapping with a ``tool``, otherwise an ask."""
    value = interrupt.value
    if isinstance(value, Mapping) and "tool" in value:
        return _confirmation(run, interrupt.id, value)
    prompt = value.get("prompt", str(value)) if isinstance(value, Mapping) else str(value)
    return _new(run, interrupt.id, "ask", tool="", question="", arguments=[], reasons=[], prompt=prompt)


def _confirmation(run: RunRecord, pause_id: str, call: Mapping[str, Any]) -> Pause:
    origins, given = call.get("origins") or {}, call.get("arguments") or {}
    arguments: list[ArgumentDict] = sorted(
        ({"name": k, "value": v, "origin": origins.get(k, "computed")} for k, v in given.items()),
        key=lambda argument: argument["name"],
    )
    question = str(call.get("question") or f"Run {call['tool']}?")
    reasons, irreversible = list(call.get("reasons") or ["write"]), bool(call.get("irreversible"))
    return _new(
        run,
        pause_id,
        "confirm",
        tool=str(call["tool"]),
        question=question,
        arguments=arguments,
        reasons=reasons,
        irreversible=irreversible,
    )


def _new(
    run: RunRecord,
    pause_id: str,
    kind: Literal["confirm", "ask"],
    *,
    tool: str,
    question: str,
    arguments: list[ArgumentDict],
    reasons: list[str],
    irreversible: bool = False,
    prompt: str | None = None,
) -> Pause:
    return Pause(
        id=pause_id,
        kind=kind,
        thread=run.thread,
        run=run.id,
        step=0,
        tool=tool,
        question=question,
        arguments=arguments,
        reasons=reasons,
        irreversible=irreversible,
        answers=list(ANSWERS[kind]),
        token=new_token(),
        created_at=iso(time.time()),
        prompt=prompt,
    )


def langgraph_app(
    graph: Any,
    *,
    storage: Storage | str,
    on_interrupt: Notify | None = None,
    secret: str | None = None,
    allowed_hosts: Collection[str] | None = None,
    allowed_origins: Collection[str] = (),
) -> FastAPI:
    """An ASGI application with the interrupts and resume routes over ``graph``; mount it anywhere.

    It sits behind the same browser boundary as ``make_app`` (allowed hosts and origins, JSON bodies only).
    """
    server = InterruptServer(graph, storage=storage, on_interrupt=on_interrupt)
    app = FastAPI(title="stalwart-agents for LangGraph")
    hosts = LOOPBACK_HOSTS if allowed_hosts is None else allowed_hosts
    app.add_middleware(Boundary, hosts=hosts, origins=_origins(allowed_origins), public=PUBLIC)
    _handle_errors(app)

    @app.get("/threads/{thread}/interrupts", name="interrupts", responses=errors(400, 503))
    async def interrupts(thread: str) -> dict[str, Any]:
        waiting = await run_in_threadpool(server.interrupts, thread)
        return {"thread": thread, "waiting": [p.to_dict() for p in waiting]}

    @app.post(
        "/threads/{thread}/resume",
        name="resume",
        openapi_extra=body_of(Resume),
        responses=errors(400, 401, 404, 409, 413, 503),
    )
    async def resume(thread: str, request: Request) -> dict[str, Any]:
        given = await raw(request)
        if secret is not None:
            verify_signature(secret, request.headers.get("stalwart-signature"), given)
        body = parsed(Resume, given)
        answered = (thread, body.interrupt_id, body.decision, body.token, body.value)
        waiting = await run_in_threadpool(server.resume, *answered)
        return {"thread": thread, "waiting": [p.to_dict() for p in waiting]}

    @app.get("/threads/{thread}/stream", name="stream", responses={200: {"content": {"text/event-stream": {}}}})
    async def steps(thread: str, request: Request) -> Response:
        """The pauses registered in the thread (and their answers) as server-sent events, resumable by Last-Event-ID."""
        from sse_starlette import EventSourceResponse

        read = lambda after, limit: server.store.events(thread, after, limit)  # noqa: E731
        events = stream.live(read, stream.cursor(request))
        return EventSourceResponse(events, ping=15, headers={"Cache-Control": "no-store"})

    app.state.server = server
    return app
