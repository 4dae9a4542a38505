"""A thread's steps as server-sent events, resumable by Last-Event-ID.

Browsers stop reconnecting for good after a non-200 answer, and a fresh
EventSource (after a reload) sends no Last-Event-ID; so the stream answers 200
with whatever it has, even nothing, takes its cursor from the header or the
``last_event_id`` query, and says with ``retry:`` how soon to come back.  The
live mode polls the store and ends after a while (the browser reconnects where
it left off); the once mode sends what is there and closes, for API Gateway,
which buffers whole responses.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

if TYPE_CHECKING:
    from sse_starlette import ServerSentEvent

RETRY_MS = 3000
PAGE = 200
ONCE_PAGES = 25

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


def once(read: Read, after: int) -> bytes:
    chunks = [_sse()(retry=RETRY_MS).encode()]
    for _ in range(ONCE_PAGES):
        page = read(after, PAGE)
        chunks += [event(event_id, body).encode() for event_id, body in page]
        if len(page) < PAGE:
            break
        after = page[-1][0]
    return b"".join(chunks)
