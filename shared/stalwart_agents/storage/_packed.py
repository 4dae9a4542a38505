"""How SQLite and Postgres keep a row in fewer bytes than the shared row form (``_records``), and read it back as that.

A packed row does not write again inside its JSON what its own columns hold:

- an event keeps its body's first two members, ``type`` and ``run``, and its last, ``at`` (ISO 8601 to the
  millisecond, UTC), in columns of their own, the time as milliseconds since the epoch;
- a pause keeps its payload without its first member ``tool`` (the row's ``tool``) and its last ``created_at``
  (the row's ``created_at``, to the millisecond), its arguments packed;
- a journal entry keeps no idempotency key where it is ``<run>:<key>``, its arguments packed;
- arguments, ``[{"name": n, "value": v, "origin": o, ...}]``, are kept as ``{n: [v, o]}`` (``[v, o, {...}]`` with
  any further members).

A row is packed only where it reads back exactly as it was, member order included; ``packed`` (``type`` for an
event) says which form a row is in.  Any other row, and every row an earlier version wrote, is kept and read as
the shared form has it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from . import _records as records
from ._records import Row
from .base import JournalEntry, PauseRecord, parsed, pause_tool, text

PACKED = 1
"""``packed`` of a pause or journal entry kept packed; NULL for one kept as the shared form has it."""
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
NAIVE_EPOCH = datetime(1970, 1, 1)
"""The epoch as ``fromisoformat`` reads a time without an offset, which an event's ``at`` is in UTC."""
MILLISECOND = timedelta(milliseconds=1)
EVENT_HEAD = re.compile(r'\{"type":("(?:[^"\\]|\\.)*"),"run":("(?:[^"\\]|\\.)*"),')
EVENT_TAIL = re.compile(r',"at":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z"\}')
TAIL = len(',"at":"2026-01-01T00:00:00.000Z"}')
"""An event body's last member, ``at``, as the one encoding writes it: always this long."""


def event(body: str) -> dict[str, Any]:
    """The columns an event's body is kept in: packed where it begins with ``type`` and ``run`` and ends with
    ``at``, all text, and has some member between (read from the encoding itself, which writes a quote in a string
    escaped, so the first and last members are the body's own).  A type or run with a NUL is left in the body,
    where JSON escapes it: Postgres keeps no NUL in a column of text."""
    head, tail = EVENT_HEAD.match(body), EVENT_TAIL.fullmatch(body, max(len(body) - TAIL, 0))
    at_ms = None if tail is None else _milliseconds(tail[1])
    if head is None or at_ms is None or head.end() >= len(body) - TAIL or "\\u0000" in head[0]:
        return {"body": body, "type": None, "run": None, "at_ms": None}
    rest = "{" + body[head.end() : -TAIL] + "}"
    return {"body": rest, "type": _string(head[1]), "run": _string(head[2]), "at_ms": at_ms}


def _string(encoded: str) -> str:
    """The text a JSON string holds; read by hand where it escapes nothing, as an id or an event's type does."""
    value: str = json.loads(encoded) if "\\" in encoded else encoded[1:-1]
    return value


def event_body(row: Mapping[str, Any]) -> dict[str, Any]:
    """The body an event's row keeps, as it was written."""
    body: dict[str, Any] = parsed(row["body"])
    if row["type"] is None:
        return body
    return {"type": row["type"], "run": row["run"], **body, "at": _iso_of_milliseconds(row["at_ms"])}


def pause(row: Row, payload: dict[str, Any]) -> Row:
    """The pause's row as SQL keeps it: with its tool (``pause_tool``), packed where it can be.  ``payload`` is the
    value ``row`` holds as JSON: the packed form is made from it, and read back as the JSON would be."""
    tool, members = pause_tool(payload), list(payload)
    stored = row | {"tool": tool, "packed": None}
    if tool is None or members[0] != "tool" or members[-1] != "created_at":
        return stored
    created_at = _iso_of_seconds(row["created_at"])
    if created_at is None or payload["created_at"] != created_at:
        return stored
    rest = {name: payload[name] for name in members[1:-1]}
    if "arguments" in rest:
        arguments = _packed_arguments(rest["arguments"])
        if arguments is None:
            return stored
        rest["arguments"] = arguments
    return stored | {"payload": text(rest), "packed": PACKED}


def pause_record(row: Mapping[str, Any]) -> PauseRecord:
    """The pause a SQL row keeps, in either form."""
    if row["packed"] is None:
        return records.from_row(PauseRecord, row)
    rest = parsed(row["payload"])
    if "arguments" in rest:
        rest["arguments"] = _arguments(rest["arguments"])
    payload = {"tool": row["tool"], **rest, "created_at": _iso_of_seconds(row["created_at"])}
    return records.from_row(PauseRecord, row, loaded={"payload": payload})


def entry(row: Row, arguments: Any) -> Row:
    """The journal entry's row as SQL keeps it, packed where it can be; ``arguments`` as for ``pause``."""
    packed = _packed_arguments(arguments)
    if packed is None or row["idempotency_key"] != _idempotency_key(row):
        return row | {"packed": None}
    return row | {"arguments": text(packed), "idempotency_key": "", "packed": PACKED}


def entry_record(row: Mapping[str, Any]) -> JournalEntry:
    """The journal entry a SQL row keeps, in either form."""
    if row["packed"] is None:
        return records.from_row(JournalEntry, row)
    arguments = _arguments(parsed(row["arguments"]))
    unpacked = {**row, "idempotency_key": _idempotency_key(row)}
    return records.from_row(JournalEntry, unpacked, loaded={"arguments": arguments})


def _idempotency_key(row: Mapping[str, Any]) -> str:
    return f"{row['run']}:{row['key']}"


def _packed_arguments(arguments: Any) -> dict[str, list[Any]] | None:
    """``arguments`` packed, or None where they are not a list of arguments each named apart, name, value and origin
    its first members."""
    if not isinstance(arguments, list):
        return None
    packed: dict[str, list[Any]] = {}
    for argument in arguments:
        if not isinstance(argument, dict) or list(argument)[:3] != ["name", "value", "origin"]:
            return None
        (_, name), (_, value), (_, origin), *further = argument.items()
        if not isinstance(name, str) or name in packed:
            return None
        packed[name] = [value, origin, dict(further)] if further else [value, origin]
    return packed


def _arguments(packed: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """The arguments ``_packed_arguments`` packed, as they were."""
    return [
        {"name": name, "value": kept[0], "origin": kept[1], **(kept[2] if len(kept) > 2 else {})}
        for name, kept in packed.items()
    ]


def _iso_of_seconds(seconds: float) -> str | None:
    """``seconds`` since the epoch as the engine writes a time (ISO 8601 to the millisecond, UTC); None where no
    date has it."""
    try:
        moment = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return _iso(moment)


def _iso_of_milliseconds(milliseconds: int) -> str:
    return _iso(EPOCH + milliseconds * MILLISECOND)


def _milliseconds(iso: str) -> int | None:
    """The milliseconds since the epoch that ``iso`` (``YYYY-MM-DDTHH:MM:SS.mmm``, UTC) names, None where no date
    is named; ``_iso_of_milliseconds`` writes them as ``iso`` again, with its ``Z``."""
    try:
        return (datetime.fromisoformat(iso) - NAIVE_EPOCH) // MILLISECOND
    except ValueError:
        return None


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
