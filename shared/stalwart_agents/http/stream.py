"""A thread's steps as server-sent events, resumable by Last-Event-ID.

Browsers stop reconnecting for good after a non-200 answer, and a fresh
EventSource (after a reload) sends no Last-Event-ID; so the stream answers 200
with whatever it has, even nothing, takes its cursor from the header or the
``last_event_id`` query, and says with ``retry:`` how soon to come back.  The
live mode polls the store and ends after a while (the browser reconnects where
it left off); the once mode sends what is there and closes, for API Gateway,
which buffers whole responses, a page within the response budget (``budget.py``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from .budget import carried, fits, summarised_event

if TYPE_CHECKING:
    from sse_starlette import ServerSentEvent

RETRY_MS = 3000
PAGE = 200
ONCE_PAGES = 25
MORE_MS = 100
"""The ``retry:`` a page that stopped before the end closes with: there is more, come back at once."""

Read = Callable[[int, int], list[tuple[int, dict[str, Any]]]]


def cursor(request: Request) -> int:
    """The last event the client has: header first, then the query a reloaded page sends."""
    given = request.headers.get("last-event-id") or request.query_params.get("last_event_id") or "0"
    return int(given) if given.isascii() and given.isdigit() and len(given) < 19 else 0


def _sse() -> type[ServerSentEvent]:
    """sse-starlette imports uvicorn; a Lambda that never streams live should not pay for it at cold start."""
    from sse_starlette import ServerSentEvent

    return ServerSentEvent


def event(event_id: int, body: dict[str, Any]) -> ServerSentEvent:
    ServerSentEvent = _sse()
    data = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return ServerSentEvent(data=data, id=str(event_id), event=str(body.get("type", "step")))


async def live(read: Read, after: int, *, poll: float = 0.5, lifetime: float = 300.0) -> AsyncIterator[ServerSentEvent]:
    yield _sse()(retry=RETRY_MS)
    deadline = anyio.current_time() + lifetime
    while anyio.current_time() < deadline:
        page = await run_in_threadpool(read, after, PAGE)
        for event_id, body in page:
            yield event(event_id, body)
            after = event_id
        if len(page) < PAGE:
            await anyio.sleep(poll)


def once(read: Read, after: int, *, thread: str, budget: int | None = None) -> bytes:
    """What is there after ``after``, and close: at most ``ONCE_PAGES`` pages, and within ``budget`` as Lambda
    carries it.  A page stops before the event that would overflow it, and then ends with a short ``retry:`` so the
    browser reads on from its cursor at once; an event over the budget alone is sent summarised, never skipped."""
    chunks, more = [_sse()(retry=RETRY_MS).encode()], _sse()(retry=MORE_MS).encode()
    room = None if budget is None else budget - carried(chunks[0]) - carried(more)
    for _ in range(ONCE_PAGES):
        page = read(after, PAGE)
        for event_id, body in page:
            chunk = event(event_id, body).encode()
            if room is not None and not fits(chunk, room):
                if len(chunks) > 1:
                    return b"".join([*chunks, more])
                chunk = event(event_id, summarised_event(thread, body)).encode()
            chunks.append(chunk)
            if room is not None:
                room -= carried(chunk)
            after = event_id
        if len(page) < PAGE:
            return b"".join(chunks)
    return b"".join([*chunks, more])
