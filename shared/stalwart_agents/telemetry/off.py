"""The hooks the service calls where something worth tracing happens, as they are while telemetry is off: each does
nothing and returns at once, so a service without telemetry pays a call per hook and nothing more.  ``On``
(``on.py``) overrides every one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from ..vocabulary import JSON

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from ..engine.pause import Pause

NOTHING: AbstractContextManager[None] = nullcontext()
"""One context that does nothing, entered again and again: nullcontext keeps no state."""


class ToolCall:
    """What a tool call's span is told when the call is over: its status, and its result or error."""

    def ended(self, status: str, result: JSON, error: str | None) -> None:
        return None


NO_CALL = ToolCall()
NO_CALL_SPAN: AbstractContextManager[ToolCall] = nullcontext(NO_CALL)


class Off:
    """Telemetry switched off."""

    enabled = False

    def turn(self, thread: str, agent: str) -> AbstractContextManager[None]:
        """The span of one turn, from reading it to the reply."""
        return NOTHING

    def tool_call(
        self, tool: str, call_id: str, kind: str, arguments: Mapping[str, JSON]
    ) -> AbstractContextManager[ToolCall]:
        """The span of one tool call (``execute_tool {tool}``)."""
        return NO_CALL_SPAN

    def commit(self, store_url: str) -> AbstractContextManager[None]:
        """The span of one storage commit, named by the store's kind."""
        return NOTHING

    def delivery(self, channel: str, pause: Pause) -> AbstractContextManager[None]:
        """The span of one announcement of ``pause`` on ``channel``, under the pause's own trace; a failure that
        leaves it is counted."""
        return NOTHING

    def outgoing(self) -> dict[str, str]:
        """The headers that carry the current trace to a receiver (``traceparent``); none while off."""
        return {}

    def traceparent(self) -> str | None:
        """The current trace context, W3C ``traceparent``, for a new pause to keep; None while off."""
        return None

    def pause_opened(self, pause: Pause) -> None:
        """A pause was opened and announced."""
        return None

    def pause_decided(
        self,
        pause: Pause,
        decision: str,
        channel: str,
        approver: str | None,
        rules: Sequence[str],
        given: int,
        *,
        final: bool = True,
    ) -> None:
        """An answer was taken: ``final`` where it ended the wait (a counted approval of several does not).
        ``approver`` is the reference of who answered (``storage.keys.approver_reference``), where a verified
        person did."""
        return None

    def answer_refused(self, code: str) -> None:
        """An answer was refused with the error ``code``."""
        return None

    def trace_requests(self, app: Starlette) -> None:
        """Trace each HTTP request ``app`` serves, as its outermost middleware; nothing while off."""
        return None

    def flush(self) -> None:
        """Send what is held, where this process made the providers (a Lambda invocation's end calls it)."""
        return None
