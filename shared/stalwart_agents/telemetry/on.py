"""Telemetry switched on: every hook of ``Off``, emitting spans (``spans.py``) and figures (``metrics.py``)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider
from starlette.applications import Starlette

from ..vocabulary import JSON
from . import spans
from .metrics import Instruments
from .off import Off, ToolCall
from .setup import providers

if TYPE_CHECKING:
    from ..engine.pause import Pause

SCOPE = "stalwart_agents"
CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The standard opt-in for the values of tool calls' arguments and results in spans."""


class On(Off):
    """Spans from ``tracer_provider``, figures from ``meter_provider``; ``owned`` where this process made them (then
    ``flush`` sends what they hold); ``capture`` puts arguments and results into spans."""

    enabled = True

    def __init__(
        self,
        tracer_provider: TracerProvider,
        meter_provider: MeterProvider,
        *,
        owned: bool = False,
        capture: bool = False,
    ) -> None:
        self.tracer_provider, self.meter_provider, self.owned = tracer_provider, meter_provider, owned
        self.spans = spans.Spans(tracer_provider.get_tracer(SCOPE), capture=capture)
        self.instruments = Instruments(meter_provider.get_meter(SCOPE))

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> On:
        made = providers(environ)
        capture = environ.get(CAPTURE, "").strip().lower() == "true"
        return cls(made.tracer, made.meter, owned=made.owned, capture=capture)

    def turn(self, thread: str, agent: str) -> AbstractContextManager[None]:
        return self.spans.turn(thread, agent)

    def tool_call(
        self, tool: str, call_id: str, kind: str, arguments: Mapping[str, JSON]
    ) -> AbstractContextManager[ToolCall]:
        return self.spans.tool_call(tool, call_id, kind, arguments)

    def commit(self, store_url: str) -> AbstractContextManager[None]:
        return self.spans.commit(store_url)

    @contextmanager
    def delivery(self, channel: str, pause: Pause) -> Iterator[None]:
        try:
            with self.spans.delivery(channel, pause):
                yield
        except Exception:
            self.instruments.deliveries_failed.add(1, {"stalwart.channel": channel})
            raise

    def outgoing(self) -> dict[str, str]:
        return spans.outgoing()

    def traceparent(self) -> str | None:
        return spans.kept_context()

    def pause_opened(self, pause: Pause) -> None:
        self.instruments.pauses_open.add(1, {"stalwart.pause.kind": pause.kind})

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
        kind: dict[str, str] = {"stalwart.pause.kind": pause.kind}
        self.instruments.answers.add(1, {"stalwart.decision": decision, "stalwart.channel": channel} | kind)
        if not final:
            return
        opened, now = spans.opened_ns(pause), time.time_ns()
        self.spans.approval(pause, decision, channel, approver, rules, given, start=opened, end=now)
        tool = {"gen_ai.tool.name": pause.tool} if pause.tool else {}
        self.instruments.approval_duration.record(max(0, now - opened) / 1e9, kind | tool)
        self.instruments.pauses_open.add(-1, kind)
        if decision == "expired":
            self.instruments.pauses_expired.add(1, kind)

    def answer_refused(self, code: str) -> None:
        self.instruments.answers_refused.add(1, {"error.type": code})

    def trace_requests(self, app: Starlette) -> None:
        from .asgi import TracedRequests

        app.add_middleware(TracedRequests, tracer=self.spans.tracer, routes=lambda: app.router.routes)

    def flush(self) -> None:
        if not self.owned:
            return
        for provider in (self.tracer_provider, self.meter_provider):
            force_flush = getattr(provider, "force_flush", None)
            if force_flush is not None:
                force_flush()
