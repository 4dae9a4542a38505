"""OpenTelemetry traces and metrics of what the service does, switched on by the standard ``OTEL_*`` variables.

Off (no variable asks for it) nothing of OpenTelemetry's SDK is imported and every hook is
``Off``'s: a call that does nothing.  On, ``On`` traces each request, turn, tool call, commit
and delivery, spans each pause's wait for its answer across processes, and counts what an
operator alarms on.  ``switch.py`` decides once; ``setup.py`` builds the providers;
``spans.py`` and ``metrics.py`` are what ``On`` emits; ``asgi.py`` traces each request.
"""

from __future__ import annotations

from .off import NO_CALL, Off, ToolCall
from .switch import current, start, use, wanted

__all__ = ["NO_CALL", "Off", "ToolCall", "current", "start", "use", "wanted"]
