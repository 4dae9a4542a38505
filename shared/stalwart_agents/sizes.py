"""How large a value a run keeps may be: a call's arguments, its result, an event, measured as a store keeps it.

A store keeps each value whole, and a DynamoDB item holds 400 KB, so what is
over ``settings.max_value_bytes`` is refused where it meets the run (the tool
boundary), by a sentence that names the call, the size and the limit, before
anything of it is stored.  A value over the limit is never copied into an
event either: an event field that would take it over is replaced by a marker
that says how large it was.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ValueTooLarge
from .storage import Event
from .vocabulary import JSON

SETTING = "settings.max_value_bytes in agent.yaml"


def json_size(value: object) -> int:
    """Bytes of ``value`` as the stores keep it: compact JSON in UTF-8, other scripts as they are."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str).encode())


def marker(size: int, limit: int) -> dict[str, JSON]:
    """What is kept in place of a value too large to keep: how large it was, and the limit."""
    return {"too_large": {"bytes": size, "limit": limit}}


@dataclass(frozen=True)
class Oversize:
    """A value over the limit: ``what`` it is, naming its call (``the result of fetch (step 1)``)."""

    what: str
    size: int
    limit: int

    @property
    def sentence(self) -> str:
        verb = "are" if self.what.startswith("the arguments") else "is"
        return f"{self.what} {verb} {self.size:,} bytes as JSON, over the limit of {self.limit:,} ({SETTING})"

    @property
    def marker(self) -> dict[str, JSON]:
        return marker(self.size, self.limit)


def oversize(what: str, value: object, limit: int) -> Oversize | None:
    """``value`` measured, if it is over ``limit``; None when a store may keep it."""
    size = json_size(value)
    return Oversize(what, size, limit) if size > limit else None


def refuse(what: str, value: object, limit: int) -> None:
    """Raise ValueTooLarge (413) for ``value`` over ``limit``, before anything of it is stored."""
    over = oversize(what, value, limit)
    if over is not None:
        raise ValueTooLarge(f"{over.sentence}; nothing was run or kept")


def call_named(tool: str, key: str) -> str:
    """A call as a person finds it in the reply: ``fetch (step 2)``, ``fetch (step 2, call 1)``, an undo's step."""
    step, _, rest = key.partition(".")
    if rest == "undo" or rest.endswith(".undo"):
        return f"{tool} (undoing step {step})"
    return f"{tool} (step {step}, call {rest})" if rest else f"{tool} (step {step})"


def bounded(event: Event, limit: int) -> Event:
    """``event`` as the log keeps it: within ``limit``, its largest fields replaced by markers where it was not."""
    if json_size(event.body) <= limit:
        return event
    return Event(event.thread, _within(event.body, limit))


def _within(body: Mapping[str, Any], limit: int) -> dict[str, Any]:
    """``body`` with its fields shrunk, largest first, until it fits: a nested object field by field, else whole."""
    kept = dict(body)
    for name in sorted(kept, key=lambda field: json_size(kept[field]), reverse=True):
        excess = json_size(kept) - limit
        if excess <= 0:
            break
        value = kept[name]
        size = json_size(value)
        room = size - excess
        smaller = _within(value, room) if isinstance(value, dict) else value
        kept[name] = smaller if json_size(smaller) <= room else marker(size, limit)
    return kept
