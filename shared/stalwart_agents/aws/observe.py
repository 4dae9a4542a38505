"""What the on-call engineer sees of each invocation: a log line, a trace, the metrics.

Powertools for AWS Lambda does the work where the stack turns it on (template.yaml
sets ``POWERTOOLS_SERVICE_NAME``); elsewhere nothing of it is imported, so a laptop
or a test pays nothing.  Each line the function logs, its own and the service's
(the ``stalwart_agents`` logger), is JSON carrying the request id and the thread.
What carries a capability is never logged or traced: no query string (a stream's
ticket), no body (a resume's token), no response (a ticket header), no webhook URL
(httpx is not patched for X-Ray, since its spans carry the URL); only DynamoDB
calls are traced, and X-Ray records their operation and table, not their items.

Tracing is on unless ``POWERTOOLS_TRACE_DISABLED`` says otherwise (the stack's
``Tracing`` parameter sets it): where it is off the Tracer is never built, since
building one imports the X-Ray SDK and patches botocore, about 180 ms of a cold start.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import telemetry
from .metrics import Meter, NoMeter, meter_from_environ

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger, Tracer

__all__ = ["Handler", "Observer", "observer_from_environ", "tracing"]

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]
"""A Lambda entry point: (event, context) -> response."""


@dataclass
class Observer:
    """One function's logger, tracer and meter, made once at cold start; None where Powertools is off."""

    meter: Meter = field(default_factory=NoMeter)
    logger: Logger | None = None
    tracer: Tracer | None = None
    cold: bool = True

    def route(self, route: str, answer: Handler) -> Handler:
        """``answer`` logged, traced and, for the resume route, its refusals counted."""

        def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
            started = time.perf_counter()
            with self.invocation(event, context):
                response = answer(event, context)
                status = int(response.get("statusCode", 0))
                if route == "resume" and 400 <= status < 500:
                    self.meter.answer_refused(_error_code(response))
                self.info(
                    "answered",
                    route=route,
                    method=event.get("requestContext", {}).get("http", {}).get("method"),
                    status=status,
                    ms=round((time.perf_counter() - started) * 1000, 1),
                )
            return response

        return self.traced(handle)

    @contextmanager
    def invocation(self, event: Mapping[str, Any], context: Any) -> Iterator[None]:
        """The keys every line of this invocation carries: request id, thread, whether it is a cold start.  At its
        end, the spans and figures of OpenTelemetry this process configured are sent (``telemetry``): a frozen
        Lambda sends nothing until its next invocation, which may never come."""
        keys = {
            "request_id": getattr(context, "aws_request_id", None),
            "thread": (event.get("pathParameters") or {}).get("id"),
            "cold_start": self.cold,
        }
        self.cold = False
        try:
            if self.logger is None:
                yield
                return
            with self.logger.append_context_keys(**{k: v for k, v in keys.items() if v is not None}):
                yield
        finally:
            telemetry.current().flush()

    def info(self, message: str, **fields: Any) -> None:
        if self.logger is not None:
            self.logger.info(message, extra=fields, stacklevel=2)

    def traced(self, handle: Handler) -> Handler:
        if self.tracer is None:
            return handle
        return self.tracer.capture_lambda_handler(handle, capture_response=False)


def _error_code(response: Mapping[str, Any]) -> str:
    """The ``error`` code of a JSON error answer as Mangum returns it; "unknown" for any other body."""
    body = response.get("body") or ""
    try:
        text = base64.b64decode(body).decode() if response.get("isBase64Encoded") else body
        code = json.loads(text).get("error")
    except (ValueError, AttributeError):
        return "unknown"
    return code if isinstance(code, str) else "unknown"


def observer_from_environ(environ: Mapping[str, str]) -> Observer:
    """Powertools' logger, tracer and meter where the stack names a service; an observer that does nothing elsewhere."""
    if not environ.get("POWERTOOLS_SERVICE_NAME"):
        return Observer()
    from aws_lambda_powertools import Logger, Tracer
    from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers

    logger = Logger()
    copy_config_to_registered_loggers(source_logger=logger, include={"stalwart_agents"})
    tracer = Tracer(patch_modules=("botocore",)) if tracing(environ) else None
    return Observer(meter_from_environ(environ), logger, tracer)


TRUE = frozenset({"1", "true", "yes", "on", "y", "t"})
"""The values Powertools reads as true in its own variables."""


def tracing(environ: Mapping[str, str]) -> bool:
    """Whether X-Ray traces are sent: Powertools' own switch, read as Powertools reads it."""
    return environ.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower() not in TRUE
