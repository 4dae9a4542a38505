"""The connection to one MCP server, called synchronously: the engine's calls are plain function calls.

The official SDK is async; each server's client lives on one background event
loop shared by the process, held open by a task of its own, and the engine's
thread waits on what it is asked.  A connection that breaks (the server killed,
restarted, or unreachable) is dropped, and the next request opens a new one, so
a server that comes back is used again without restarting the agent.

What failed is told apart because a write depends on it: ``ServerDown`` (the
server could not be reached or went away), ``TimeoutError`` (no answer in
time), ``ToolFailed`` (the server answered with an error).  Messages name the
server and its address, never a header's value; a URL's user and password are
left out.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Future
from contextlib import AsyncExitStack
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, CallToolResult, RequestParamsMeta
from mcp_types import Tool as McpToolDefinition

T = TypeVar("T")
GRACE = 5.0
"""Seconds the engine's thread waits beyond a request's own timeout before giving up on the loop itself."""
STARTUP = 30.0
"""Seconds a server may take to start and answer the handshake: a stdio child is a new process, often Python."""


class ServerDown(Exception):
    """The server could not be reached, or the connection broke before it answered."""


class ToolFailed(Exception):
    """The server answered, and the answer is an error: the call did not do what it was asked."""


@dataclass(frozen=True)
class Stdio:
    """A server the agent starts as a child process and speaks to over its stdin and stdout."""

    command: Sequence[str]
    env: Mapping[str, str]
    cwd: Path

    @property
    def address(self) -> str:
        return " ".join(self.command)

    @property
    def secrets(self) -> list[str]:
        """The values taken from the environment, never to be written anywhere."""
        return [value for value in self.env.values() if value]


@dataclass(frozen=True)
class Http:
    """A server reached over streamable HTTP at ``url``, with ``headers`` on every request."""

    url: str
    headers: Mapping[str, str]

    @property
    def secrets(self) -> list[str]:
        """The values taken from the environment, never to be written anywhere."""
        return [value for value in self.headers.values() if value]

    @property
    def address(self) -> str:
        parts = urlsplit(self.url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{host}{port}{parts.path}"


class McpServer:
    """One MCP server of an agent: its tools listed and called, each request within ``timeout`` seconds."""

    def __init__(self, name: str, target: Stdio | Http, timeout: float) -> None:
        self.name, self.target, self.timeout = name, target, timeout
        self._client: _Held | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"McpServer({self.name!r}, {self.target.address!r})"

    def tools(self) -> list[McpToolDefinition]:
        """The server's tools as it lists them now (every page), never a cached listing.

        Listing changes nothing, so a connection found broken (a server restarted since) is opened
        again and asked once more before the server is taken for down.
        """
        try:
            return self._sync(self._listed)
        except ServerDown:
            return self._sync(self._listed)

    def call(self, tool: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None = None) -> CallToolResult:
        """One call of ``tool``; ServerDown, TimeoutError or ToolFailed where it could not be made or answered."""
        return self._sync(lambda client: self._called(client, tool, arguments, meta))

    def close(self) -> None:
        """Close the connection (a child process ends); a later request opens a new one."""
        with self._lock:
            held, self._client = self._client, None
        _OPEN.discard(self)
        if held is not None:
            asyncio.run_coroutine_threadsafe(held.closed(), _loop()).result(GRACE)

    def _sync(self, request: Callable[[Client], Awaitable[T]]) -> T:
        held = self._connected()
        future: Future[T] = asyncio.run_coroutine_threadsafe(self._within(held, request), _loop())
        try:
            return future.result(self.timeout + GRACE)
        except ServerDown:
            self._drop(held)
            raise

    async def _within(self, held: _Held, request: Callable[[Client], Awaitable[T]]) -> T:
        client = held.client
        if client is None:
            raise ServerDown(f"the connection to the MCP server {self.name} ({self.target.address}) was closed")
        late = TimeoutError(f"the MCP server {self.name} did not answer within {self.timeout:g} s")
        try:
            async with asyncio.timeout(self.timeout):
                return await request(client)
        except TimeoutError:
            raise late from None
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise late from None
            if exc.code == CONNECTION_CLOSED:
                raise ServerDown(f"the MCP server {self.name} ({self.target.address}) closed the connection") from None
            raise ToolFailed(f"the MCP server {self.name} answered with an error: {exc.message}") from None
        except ToolFailed:
            raise
        except Exception as exc:
            raise ServerDown(
                f"the MCP server {self.name} ({self.target.address}) {_failure(exc, self.target.secrets)}"
            ) from None

    async def _listed(self, client: Client) -> list[McpToolDefinition]:
        found: list[McpToolDefinition] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            found += page.tools
            cursor = page.next_cursor
            if cursor is None:
                return found

    async def _called(
        self, client: Client, tool: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None
    ) -> CallToolResult:
        return await client.call_tool(tool, dict(arguments), meta=cast(RequestParamsMeta, dict(meta)) if meta else None)

    def _connected(self) -> _Held:
        with self._lock:
            if self._client is None or self._client.broken:
                _OPEN.add(self)
                future = asyncio.run_coroutine_threadsafe(self._opened(), _loop())
                self._client = future.result(STARTUP + GRACE)
            return self._client

    def _drop(self, held: _Held) -> None:
        """Forget a connection that failed, so the next request opens a new one."""
        with self._lock:
            if self._client is held:
                self._client = None
        _loop().call_soon_threadsafe(held.closing.set)

    async def _opened(self) -> _Held:
        held = _Held()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        held.task = asyncio.create_task(self._hold(held, ready))
        try:
            await asyncio.wait_for(asyncio.shield(ready), STARTUP)
        except TimeoutError:
            held.closing.set()
            raise ServerDown(
                f"the MCP server {self.name} ({self.target.address}) did not start within {STARTUP:g} s"
            ) from None
        return held

    async def _hold(self, held: _Held, ready: asyncio.Future[None]) -> None:
        """Open the client, keep it open until closed, and note when it breaks."""
        try:
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(self._client_for(stack))
                held.client = client
                ready.set_result(None)
                await held.closing.wait()
        except BaseException as exc:  # the SDK's task groups raise groups, and cancel this task when the link dies
            if not ready.done():
                down = ServerDown(
                    f"the MCP server {self.name} ({self.target.address}) {_failure(exc, self.target.secrets)}"
                )
                ready.set_exception(down)
        finally:
            held.client = None
            held.broken = True

    def _client_for(self, stack: AsyncExitStack) -> Client:
        target = self.target
        if isinstance(target, Stdio):
            command, *args = target.command
            parameters = StdioServerParameters(command=command, args=args, env=dict(target.env), cwd=target.cwd)
            return Client(parameters, cache=None)
        http = create_mcp_http_client(headers=dict(target.headers))
        stack.push_async_exit(http.__aexit__)
        return Client(streamable_http_client(target.url, http_client=http), cache=None)


class _Held:
    """An open client and the task that holds it; ``closing`` set ends it, ``broken`` once it has ended."""

    def __init__(self) -> None:
        self.client: Client | None = None
        self.closing = asyncio.Event()
        self.broken = False
        self.task: asyncio.Task[None] | None = None

    async def closed(self) -> None:
        """Close the client and wait until it has (a stdio server's child has ended)."""
        self.closing.set()
        if self.task is not None:
            await asyncio.wait([self.task], timeout=GRACE)


def _failure(exc: BaseException, secrets: Sequence[str]) -> str:
    """What went wrong, in a phrase: the innermost cause of an exception group, by its type and words, with every
    value taken from the environment blotted out (an HTTP library quotes a header it refuses)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED:
        return "closed the connection"
    if isinstance(exc, FileNotFoundError):
        return f"could not be started: no program {exc.filename or ''} was found".rstrip()
    said = str(exc)
    for secret in secrets:
        said = said.replace(secret, "[hidden]").replace(repr(secret.encode())[2:-1], "[hidden]")
    return f"could not be reached ({type(exc).__name__}{': ' + said if said else ''})"


_OPEN: set[McpServer] = set()


@cache
def _loop() -> asyncio.AbstractEventLoop:
    """The process's one loop for MCP clients, on a daemon thread; its connections are closed at exit."""
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="stalwart-mcp", daemon=True).start()
    atexit.register(close_all)
    return loop


def close_all() -> None:
    """Close every MCP connection this process opened (each stdio server's child ends)."""
    for server in list(_OPEN):
        server.close()
