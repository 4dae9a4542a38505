"""What every backend shares: one row layout per record, and the errors a lost race raises.

A record becomes a row of plain values with its JSON fields as compact text, so
each backend hands back exactly what JSON would, and callers never hold a
reference into the store.  The error helpers keep the backends' words the same.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from functools import cache
from typing import Any, TypeVar

from ..errors import JournalConflict, JournalExists, PauseClosed, PauseExists, ThreadBusy, VersionConflict
from .base import JOURNAL_STATUSES, PAUSE_STATUSES, RUN_STATUSES, Changes, JournalEntry, PauseRecord, RunRecord

Record = TypeVar("Record", RunRecord, PauseRecord, JournalEntry)

JSON_FIELDS: dict[type, frozenset[str]] = {
    RunRecord: frozenset({"state"}),
    PauseRecord: frozenset({"payload", "answer", "delivery"}),
    JournalEntry: frozenset({"arguments", "result"}),
}
STATUSES: dict[type, tuple[str, ...]] = {
    RunRecord: RUN_STATUSES,
    PauseRecord: PAUSE_STATUSES,
    JournalEntry: JOURNAL_STATUSES,
}


@cache
def columns(kind: type) -> tuple[str, ...]:
    return tuple(spec.name for spec in dataclasses.fields(kind))


def dump(value: Any) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def to_row(record: RunRecord | PauseRecord | JournalEntry) -> dict[str, Any]:
    """The record as column values; raises ValueError for a status its kind does not have."""
    kind = type(record)
    if record.status not in STATUSES[kind]:
        raise ValueError(f"a {kind.__name__} status is one of {', '.join(STATUSES[kind])}, not {record.status!r}")
    json_fields = JSON_FIELDS[kind]
    values = {name: getattr(record, name) for name in columns(kind)}
    return {name: dump(value) if name in json_fields else value for name, value in values.items()}


def from_row(kind: type[Record], row: Mapping[str, Any]) -> Record:
    json_fields = JSON_FIELDS[kind]
    return kind(**{name: load(row[name]) if name in json_fields else row[name] for name in columns(kind)})


def encoded(changes: Changes) -> dict[str, Any]:
    """Every row a commit writes, encoded before anything is touched, so a value JSON cannot hold changes nothing."""
    return {
        "begin": None if changes.begin is None else to_row(changes.begin),
        "claim": None if changes.claim is None else dump(changes.claim[1]),
        "run": None if changes.run is None else saved_run_row(changes.run, _version(changes)),
        "pauses": [to_row(p) for p in changes.pauses],
        "starts": [to_row(e) for e in changes.starts],
        "updates": [to_row(e) for e, _, _ in changes.updates],
        "events": [(e.thread, dump(e.body)) for e in changes.events],
    }


def _version(changes: Changes) -> int:
    if changes.version is None:
        raise ValueError("a run is saved over the version it was read at: set Changes.version")
    return changes.version


def committed_run(rows: dict[str, Any]) -> RunRecord | None:
    row = rows["run"] or rows["begin"]
    return None if row is None else from_row(RunRecord, row)


def saved_run_row(run: RunRecord, expected_version: int) -> dict[str, Any]:
    return to_row(run.replace(version=expected_version + 1))


def check_limit(limit: int) -> int:
    if limit < 0:
        raise ValueError(f"an events limit is 0 or more, not {limit}")
    return limit


def thread_busy(thread: str, active_run: str) -> ThreadBusy:
    return ThreadBusy(f"thread {thread} already has an active run, {active_run}", active_run=active_run)


def run_exists(current: RunRecord) -> VersionConflict:
    return VersionConflict(f"run {current.id} already exists", current)


def version_conflict(run_id: str, expected_version: int, current: RunRecord | None) -> VersionConflict:
    if current is None:
        return VersionConflict(f"run {run_id} does not exist", None)
    return VersionConflict(f"run {run_id} is at version {current.version}, not {expected_version}", current)


def pause_exists(current: PauseRecord) -> PauseExists:
    return PauseExists(f"pause {current.id} already exists", current)


def pause_closed(pause_id: str, current: PauseRecord | None) -> PauseClosed:
    if current is None:
        return PauseClosed(f"pause {pause_id} does not exist", None)
    return PauseClosed(f"pause {pause_id} is already {current.status}", current)


def as_expected(stored: Mapping[str, Any] | None, status: str, attempt: int | None) -> bool:
    return stored is not None and stored["status"] == status and attempt in (None, stored["attempt"])


def journal_exists(current: JournalEntry) -> JournalExists:
    return JournalExists(f"run {current.run} already has a journal entry {current.key!r}", current)


def journal_conflict(entry: JournalEntry, expected_status: str, current: JournalEntry | None) -> JournalConflict:
    if current is None:
        return JournalConflict(f"run {entry.run} has no journal entry {entry.key!r}", None)
    return JournalConflict(
        f"journal entry {entry.key!r} of run {entry.run} is {current.status}, not {expected_status}", current
    )
