"""The spans: their names and attributes, as the OpenTelemetry semantic conventions name them where they have a
name (HTTP, databases, GenAI tool execution), ``stalwart.*`` for the rest.

What a span may carry is chosen here: ids, names, kinds, decisions and counts, never a token, a secret, a path
with a capability in it, nor an argument's or a result's value unless the team opts in
(``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import Link, Span, SpanKind, Status, StatusCode, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from ..vocabulary import JSON
from .off import ToolCall

if TYPE_CHECKING:
    from ..engine.pause import Pause

TURN = "stalwart.turn"
APPROVAL = "stalwart.approval"
EXECUTE_TOOL = "execute_tool"
DB_SYSTEMS = {"sqlite": "sqlite", "postgres": "postgresql", "postgresql": "postgresql", "dynamodb": "aws.dynamodb"}
"""A store URL's scheme, as ``db.system.name`` says it; any other (``memory``) is named as it is."""
W3C = TraceContextTextMapPropagator()
"""What a pause keeps of its trace: the W3C ``traceparent``, whatever else the process propagates."""


def db_system(store_url: str) -> str:
    scheme = store_url.partition(":")[0]
    return DB_SYSTEMS.get(scheme, scheme)


def kept_context() -> str | None:
    """The current span's W3C ``traceparent``, for a pause to keep; None outside any recorded span."""
    carrier: dict[str, str] = {}
    W3C.inject(carrier)
    return carrier.get("traceparent")


def restored(traceparent: str | None) -> Context | None:
    """The context a pause kept, to parent its approval and deliveries; None where it kept none."""
    return W3C.extract({"traceparent": traceparent}) if traceparent else None


def outgoing() -> dict[str, str]:
    """The headers that carry the current context to a receiver, as the process propagates it."""
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier


@contextmanager
def quiet_span(tracer: Tracer, name: str, **options: Any) -> Iterator[Span]:
    """A current span that an exception ends as an error named by its type (or our error's code) alone: an
    exception's message may quote a turn's words, an argument or a request's query, which no span carries."""
    with tracer.start_as_current_span(name, record_exception=False, set_status_on_exception=False, **options) as span:
        try:
            yield span
        except BaseException as exc:
            span.set_attribute("error.type", error_type(exc))
            span.set_status(Status(StatusCode.ERROR))
            raise


def error_type(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    return code if isinstance(code, str) else type(exc).__name__


def content(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


class Spans:
    """What the service's spans say; ``capture`` whether arguments and results go into them."""

    def __init__(self, tracer: Tracer, *, capture: bool) -> None:
        self.tracer, self.capture = tracer, capture

    @contextmanager
    def turn(self, thread: str, agent: str) -> Iterator[None]:
        with quiet_span(self.tracer, TURN, attributes={"stalwart.agent": agent}):
            yield

    @contextmanager
    def tool_call(self, tool: str, call_id: str, kind: str, arguments: Mapping[str, JSON]) -> Iterator[ToolCall]:
        attributes = {
            "gen_ai.operation.name": EXECUTE_TOOL,
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": kind,
        }
        if self.capture:
            attributes["gen_ai.tool.call.arguments"] = content(arguments)
        with quiet_span(self.tracer, f"{EXECUTE_TOOL} {tool}", attributes=attributes) as span:
            yield _EndedCall(span, self.capture)

    @contextmanager
    def commit(self, store_url: str) -> Iterator[None]:
        system = db_system(store_url)
        attributes = {"db.system.name": system, "db.operation.name": "commit"}
        with quiet_span(self.tracer, f"commit {system}", kind=SpanKind.CLIENT, attributes=attributes):
            yield

    @contextmanager
    def delivery(self, channel: str, pause: Pause) -> Iterator[Span]:
        """The span of one announcement, under the trace the pause kept (a redelivery's, a fan-out's too), linked to
        the one current where that is another."""
        attributes: dict[str, str | int] = {"stalwart.channel": channel, **_about(pause)}
        if pause.woken:
            attributes["stalwart.delivery.reminder"] = pause.woken
        parent, links = _under_pause(pause)
        with self.tracer.start_as_current_span(
            f"deliver {channel}",
            context=parent,
            kind=SpanKind.PRODUCER,
            links=links,
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                yield span
            except Exception as exc:
                span.set_attributes({"stalwart.delivery.outcome": "failed", "error.type": type(exc).__name__})
                span.set_status(Status(StatusCode.ERROR))
                raise
            span.set_attribute("stalwart.delivery.outcome", "delivered")

    def approval(
        self,
        pause: Pause,
        decision: str,
        channel: str,
        approver: str | None,
        rules: Sequence[str],
        given: int,
        *,
        start: int,
        end: int,
    ) -> None:
        """The wait for ``pause``'s answer, from ``start`` (its opening) to ``end`` (nanoseconds since the epoch),
        under the trace it kept when it opened."""
        attributes: dict[str, str | int | Sequence[str]] = {
            **_about(pause),
            "stalwart.decision": decision,
            "stalwart.channel": channel,
        }
        if rules:
            attributes["stalwart.rule"] = list(rules)
        if pause.approvals is not None:
            attributes |= {"stalwart.approvals.given": given, "stalwart.approvals.needed": pause.approvals["needed"]}
        if approver is not None:
            attributes["stalwart.approver"] = approver
        if self.capture:
            attributes["gen_ai.tool.call.arguments"] = content({a["name"]: a["value"] for a in pause.arguments})
        parent, links = _under_pause(pause)
        span = self.tracer.start_span(APPROVAL, context=parent, links=links, start_time=start, attributes=attributes)
        span.end(end_time=end)


class _EndedCall(ToolCall):
    def __init__(self, span: Span, capture: bool) -> None:
        self._span, self._capture = span, capture

    def ended(self, status: str, result: JSON, error: str | None) -> None:
        self._span.set_attribute("stalwart.call.status", status)
        if status != "done":
            self._span.set_attribute("error.type", (error or status).partition(":")[0])
            self._span.set_status(Status(StatusCode.ERROR))
        elif self._capture:
            self._span.set_attribute("gen_ai.tool.call.result", content(result))


def _about(pause: Pause) -> dict[str, str]:
    """What every span of a pause says of it: which, of what kind, about which tool."""
    about = {"stalwart.pause.id": pause.id, "stalwart.pause.kind": pause.kind, "stalwart.run.id": pause.run}
    return about | ({"gen_ai.tool.name": pause.tool} if pause.tool else {})


def _under_pause(pause: Pause) -> tuple[Context | None, list[Link]]:
    """The parent a pause's span takes (the context it kept, else the current one), and a link to the current span
    where that is in another trace."""
    parent = restored(pause.traceparent)
    here = trace.get_current_span(otel_context.get_current()).get_span_context()
    if parent is None or not here.is_valid:
        return parent, []
    kept = trace.get_current_span(parent).get_span_context()
    return parent, [] if kept.trace_id == here.trace_id else [Link(here)]


def opened_ns(pause: Pause) -> int:
    """When the pause opened, in nanoseconds since the epoch, from its ``created_at`` (kept to the millisecond)."""
    return round(datetime.fromisoformat(pause.created_at.replace("Z", "+00:00")).timestamp() * 1000) * 1_000_000
