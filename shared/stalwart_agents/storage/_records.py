"""What every backend shares of a record: one row layout, with its JSON fields as compact text.

A record becomes a row of plain values with its JSON fields as compact text, so
each backend hands back exactly what JSON would, and callers never hold a
reference into the store.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .base import (
    ENCODED,
    JOURNAL_STATUSES,
    JSON_FIELDS,
    PAUSE_STATUSES,
    RUN_STATUSES,
    Changes,
    Feedback,
    JournalEntry,
    PauseRecord,
    RunRecord,
    ShownMessage,
    parsed,
    text,
    utf8_size,
)

Record = TypeVar("Record")
Row = dict[str, Any]

KINDS: tuple[type[RunRecord | PauseRecord | JournalEntry | ShownMessage | Feedback], ...] = (
    RunRecord,
    PauseRecord,
    JournalEntry,
    ShownMessage,
    Feedback,
)
FIELDS: dict[type, tuple[dataclasses.Field[Any], ...]] = {kind: dataclasses.fields(kind) for kind in KINDS}
COLUMNS: dict[type, tuple[str, ...]] = {kind: tuple(spec.name for spec in fields) for kind, fields in FIELDS.items()}
KEYS: dict[type, tuple[str, ...]] = {RunRecord: ("id",), PauseRecord: ("id",), JournalEntry: ("run", "key")}
STATUSES: dict[type, tuple[str, ...]] = {
    RunRecord: RUN_STATUSES,
    PauseRecord: PAUSE_STATUSES,
    JournalEntry: JOURNAL_STATUSES,
}


def columns(kind: type) -> tuple[str, ...]:
    return COLUMNS[kind]


def dump(value: Any) -> str | None:
    return None if value is None else text(value)


def load(text: str | None) -> Any:
    return None if text is None else parsed(text)


def to_row(record: RunRecord | PauseRecord | JournalEntry) -> Row:
    """The record as column values; raises ValueError for a status its kind does not have.

    A record is encoded once (``base.ENCODED``), whether the engine measured it first or a store writes it first.
    """
    return dict(_encoded(record))


def _encoded(record: RunRecord | PauseRecord | JournalEntry) -> Row:
    """The record's own row (``base.ENCODED``), made whole where it is not yet: never to be changed."""
    kind = type(record)
    if record.status not in STATUSES[kind]:
        raise ValueError(f"a {kind.__name__} status is one of {', '.join(STATUSES[kind])}, not {record.status!r}")
    row: Row | None = record.__dict__.get(ENCODED)
    if row is None or len(row) < len(COLUMNS[kind]):
        row = record.__dict__[ENCODED] = _row(record, row or {})
    return row


def _row(record: RunRecord | PauseRecord | JournalEntry, made: Row) -> Row:
    """The record's row, taking each column ``made`` holds from it and encoding the rest."""
    kind = type(record)
    json_fields = JSON_FIELDS[kind]
    fields = record.__dict__
    return {
        name: made[name] if name in made else dump(fields[name]) if name in json_fields else fields[name]
        for name in columns(kind)
    }


def stored_bytes(record: RunRecord | PauseRecord | JournalEntry | ShownMessage) -> int:
    """About what a store writes of ``record``: its text as encoded (JSON fields included), 8 bytes a number."""
    values = vars(record).values() if isinstance(record, ShownMessage) else _encoded(record).values()
    texts = [value for value in values if isinstance(value, str)]
    return utf8_size("".join(texts)) + 8 * (len(values) - len(texts))


def from_row(kind: type[Record], row: Mapping[str, Any], loaded: Mapping[str, Any] | None = None) -> Record:
    """The record a row holds; a run, pause or journal entry keeps the row as its encoding (``base.ENCODED``), so
    saving it again, or a copy that changes none of its JSON, encodes nothing.

    ``loaded``: JSON fields a backend has read from a form of its own (``_packed``), which the row does not hold as
    this module encodes them: the record has these values, and is encoded where it is first written or measured.
    """
    json_fields = JSON_FIELDS.get(kind)
    if json_fields is None:
        return kind(**{name: row[name] for name in columns(kind)})
    kept = {name: row[name] for name in columns(kind)}
    given = loaded or {}
    values = {
        name: given[name] if name in given else load(value) if name in json_fields else value
        for name, value in kept.items()
    }
    record = kind(**values)
    if loaded is None:
        record.__dict__[ENCODED] = kept
    return record


def record(kind: type[Record], row: Mapping[str, Any] | None) -> Record | None:
    return None if row is None else from_row(kind, row)


def key_of(kind: type, row: Mapping[str, Any]) -> tuple[str, ...]:
    """The values a record of ``kind`` is stored under (its id, or its run and key)."""
    return tuple(row[name] for name in KEYS[kind])


@dataclass(frozen=True)
class Rows:
    """Every row a commit writes, encoded before anything is touched, so a value JSON cannot hold changes nothing.

    ``run`` is the saved run at the version after ``version``, the one it is saved over.
    """

    begin: Row | None
    claim: str | None
    run: Row | None
    version: int
    pauses: list[Row]
    starts: list[Row]
    updates: list[Row]
    events: list[tuple[str, str]]
    closes: list[str]

    def committed_run(self, thread: str | None) -> RunRecord | None:
        """The run as a commit stored it: saved (on ``thread``, where it is kept), else begun, else None; its values
        as JSON returns them, with the encoding just written as its own."""
        if self.run is not None:
            return from_row(RunRecord, self.run | {"thread": thread})
        return record(RunRecord, self.begin)


def encoded(changes: Changes) -> Rows:
    saved = None if changes.run is None else changes.run.replace(version=_version(changes) + 1)
    return Rows(
        begin=None if changes.begin is None else to_row(changes.begin),
        claim=None if changes.claim is None else text(changes.claim[1]),
        run=None if saved is None else to_row(saved),
        version=changes.version or 0,
        pauses=[to_row(p) for p in changes.pauses],
        starts=[to_row(e) for e in changes.starts],
        updates=[to_row(e) for e, _, _ in changes.updates],
        events=[(e.thread, e.text) for e in changes.events],
        closes=[pause.id for pause in changes.closes],
    )


def _version(changes: Changes) -> int:
    if changes.version is None:
        raise ValueError("a run is saved over the version it was read at: set Changes.version")
    return changes.version


def check_limit(limit: int) -> int:
    if limit < 0:
        raise ValueError(f"a limit is 0 or more, not {limit}")
    return limit
