"""What ``stalwart serve`` says it did: one line per request, per failed tool, per pause opened, per failed delivery.

Every line is a message and named fields, written as ``key=value`` text or as one JSON object (for machines).
Only values the service chose go into a field: a route's template, never the path a person sent (a link's path
is a capability), and never a query string, a header, a token or a secret.  The thread is logged, since it is an
id and not a credential; a pause's token never is.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Literal, get_args

from .approvals.announce import Notify, not_notified
from .config import AgentConfig
from .engine.pause import Pause
from .engine.reply import Reply

LEVELS = ("debug", "info", "warning", "error")
Format = Literal["text", "json"]
FORMATS = get_args(Format)
FIELDS = "fields"
"""The attribute of a log record that holds its named fields."""
MAX_VALUE = 200
"""The most characters a field keeps: a thread id is at most this long; anything longer is cut."""
NO_MODEL = "delegate pauses will offer the assistant, but none is set: give the agent a model: section"

log = logging.getLogger("stalwart_agents")
log.addHandler(logging.NullHandler())  # a library: silent until the application (or stalwart serve) configures logging


def configure(level: str = "warning", form: Format = "text") -> None:
    """Send the package's log (and uvicorn's warnings) to stderr as ``form`` lines, from ``level`` up."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines() if form == "json" else TextLines())
    chosen = logging.getLevelName(level.upper())
    for name, floor in (("stalwart_agents", chosen), ("uvicorn", max(chosen, logging.WARNING))):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(floor)
        logger.propagate = False


def event(level: int, message: str, **fields: object) -> None:
    """One line with named fields; a field of None is left out."""
    log.log(level, message, extra={FIELDS: {k: v for k, v in fields.items() if v is not None}})


class _Lines(logging.Formatter):
    def parts(self, record: logging.LogRecord) -> dict[str, object]:
        """Time, level, message and fields: what every line says, in that order."""
        at = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        parts: dict[str, object] = {"time": at, "level": record.levelname.lower(), "message": record.getMessage()}
        parts.update({k: _capped(v) for k, v in getattr(record, FIELDS, {}).items()})
        if record.name != log.name:
            parts["logger"] = record.name
        if record.exc_info:
            parts["exception"] = self.formatException(record.exc_info)
        return parts


class TextLines(_Lines):
    """``time level message key=value ...``: a value with spaces, quotes or control characters is quoted as JSON."""

    def format(self, record: logging.LogRecord) -> str:
        parts = self.parts(record)
        exception = parts.pop("exception", None)
        message = str(parts.pop("message")).replace("\r", "\\r").replace("\n", "\\n")  # one record, one line
        head = f"{parts.pop('time')} {str(parts.pop('level')).upper()} {message}"
        line = " ".join([head, *(f"{key}={_shown(value)}" for key, value in parts.items())])
        return f"{line}\n{exception}" if exception else line


class JsonLines(_Lines):
    """One JSON object per line; a traceback is one field, so a line is always one record."""

    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(self.parts(record), ensure_ascii=False, default=str)


def _capped(value: object) -> object:
    return value[:MAX_VALUE] if isinstance(value, str) else value


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    if text and all(c.isprintable() and c not in ' "=' for c in text):
        return text
    return json.dumps(text)  # ASCII: a U+2028 in a thread id would otherwise split the line for some readers


def outcome(reply: Reply) -> None:
    """What a turn, an answer or a rollback did that an operator watches: tools that failed, pauses opened,
    announcements that did not arrive."""
    for step in reply.steps:
        if step.status == "failed":
            event(logging.WARNING, "tool failed", tool=step.tool, thread=reply.thread, step=step.step, error=step.error)
    for pause in reply.opened:
        event(logging.INFO, "pause opened", kind=pause.kind, tool=pause.tool, thread=reply.thread, pause=pause.id)
    for missed in reply.not_notified:
        delivery_failed(reply.thread, missed["interrupt"], missed["error"])


def delivery_failed(thread: str, pause: str, error: str) -> None:
    event(logging.WARNING, "delivery failed", thread=thread, pause=pause, error=error)


def logging_deliveries(notify: Notify) -> Notify:
    """``notify``, with each delivery it fails logged (in the words a reply would use) before the failure goes on."""

    def delivering(thread: str, pause: Pause) -> object:
        try:
            return notify(thread, pause)
        except Exception as exc:
            delivery_failed(thread, pause.id, not_notified(pause.id, exc)["error"])
            raise

    return delivering


def missing_models(agents: Iterable[AgentConfig]) -> None:
    """Warn of each agent whose unread turns a person may pass to an assistant the agent does not have."""
    for agent in agents:
        if agent.on_unread != "refuse" and agent.model is None:
            event(logging.WARNING, NO_MODEL, agent=agent.name)
