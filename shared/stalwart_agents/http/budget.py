"""A byte budget for the answers that grow with what a run did: a reply's results, a page of the stream.

Lambda refuses a response over 6 MB, after the function has run: a turn whose
calls all ran would reach the person as an error.  So a reply over the budget
has its largest results summarised, largest first, until it fits: each such
step's ``result`` becomes null and it gains ``truncated``, the result's size as
JSON and where to read it whole (``GET /threads/{id}/results/{run}/{key}``,
from the run's journal, which keeps every result as it ran).  A page of the
stream stops before the event that would overflow, and the browser reads on
from its cursor (``stream.once``).

Sizes are measured as Lambda carries the body: as a JSON string inside its
response, where each quote and backslash is escaped and each character past
ASCII may take six bytes or twelve.  A body of ``n`` bytes in UTF-8 takes at
most ``6n`` there, so a body well under the budget is never measured twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from ..storage import text

RESPONSE_BUDGET = 5 * 1024 * 1024
"""What an answer may take as Lambda carries it: Lambda's 6 MB, less room for the headers and the envelope."""
MIN_BUDGET = 16 * 1024
"""The least a budget may be: room for an event's summary, its marker and the stream's hints."""


def budget_of(value: int | None) -> int | None:
    """A budget as given to ``door_app``, checked: None is no budget; anything under MIN_BUDGET is refused."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < MIN_BUDGET):
        raise ValueError(f"response_budget is {value!r}: it takes bytes, at least {MIN_BUDGET}, or None for no budget")
    return value


def carried(data: bytes) -> int:
    """Bytes of ``data`` (UTF-8) as Lambda carries it, a JSON string inside its response, without the quotes."""
    return len(json.dumps(data.decode("utf-8"))) - 2


def fits(data: bytes, budget: int | None) -> bool:
    return budget is None or 6 * len(data) <= budget or carried(data) <= budget


def result_path(thread: str, run: str, key: str) -> str:
    """Where a call's whole result is read: its thread, its run, its key in the run's journal (``3``, ``3.2``)."""
    return f"/threads/{quote(thread, safe='')}/results/{quote(run, safe='')}/{key}"


def step_key(step: Mapping[str, Any]) -> str:
    """A reply's step's key in its run's journal: ``3`` for a call, ``3.2`` for a team's second call at step 3."""
    return f"{step['step']}" if step.get("call") is None else f"{step['step']}.{step['call']}"


def truncated(value: Any, read: str | None) -> dict[str, Any]:
    """The marker that stands beside a value left out: how large it was as JSON, and where to read it whole."""
    return {"bytes": len(text(value).encode()), "read": read}


Read = Callable[[dict[str, Any]], str | None]
"""Where a reply's step's result is read whole; None where nowhere (asked only of steps over the budget)."""


def within(body: Any, budget: int | None, steps: list[dict[str, Any]], read: Read) -> bytes:
    """``body`` as JSON, within ``budget``: where it is over, the largest results of ``steps`` (dicts within
    ``body``) summarised in place, largest first, those ``read`` knows nowhere to read last, until it fits."""
    encoded = text(body).encode()
    if fits(encoded, budget):
        return encoded
    assert budget is not None
    over = carried(encoded) - budget
    kept = [(step, carried(text(step["result"]).encode()), read(step)) for step in steps if step["result"] is not None]
    for step, size, at in sorted(kept, key=lambda s: (s[2] is None, -s[1])):
        marker = truncated(step["result"], at)
        step["result"], step["truncated"] = None, marker
        over -= size - len("null") - carried(text({"truncated": marker}).encode())
        if over <= 0 and fits(encoded := text(body).encode(), budget):
            return encoded
    return text(body).encode()


def summarised_event(thread: str, body: dict[str, Any]) -> dict[str, Any]:
    """An event too large for a page alone, without its values (a step's arguments and result): what it was, how
    large, and where a step's result is read whole."""
    read = None
    if body.get("type") == "step" and isinstance(body.get("run"), str) and isinstance(body.get("key"), str):
        read = result_path(thread, body["run"], body["key"])
    kept = {name: value for name, value in body.items() if name not in ("arguments", "result", "text")}
    return {**kept, "truncated": truncated(body, read)}
