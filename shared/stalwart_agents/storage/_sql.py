"""The commit both SQL backends share: one transaction, every change conditional, each checked by its row count.

A backend gives its dialect's statements and a few primitives (a transaction,
beginning and saving a run, reading a record back, appending events); the order
of the conditions, and what is raised when one fails, live here once.
"""

from __future__ import annotations

from abc import abstractmethod
from contextlib import AbstractContextManager
from dataclasses import astuple, dataclass
from typing import Any

from . import _records as records
from .base import Changes, Committed, JournalEntry, PauseRecord, Writes


@dataclass(frozen=True)
class Statements:
    answer_pause: str
    insert_pause: str
    start_entry: str
    update_entry: str
    insert_shown: str


class SqlCommit(Writes):
    """``commit`` over ``statements`` and the backend's ``_transaction``, ``_begin``, ``_save``, ``_stored``, ``_append``."""

    statements: Statements

    def commit(self, changes: Changes) -> Committed:
        sql, rows = self.statements, records.encoded(changes)
        with self._transaction() as db:
            if changes.begin is not None:
                self._begin(db, rows["begin"])
            if changes.claim is not None and db.execute(sql.answer_pause, (rows["claim"], changes.claim[0])).rowcount == 0:
                raise records.pause_closed(changes.claim[0], self._stored(db, PauseRecord, changes.claim[0]))
            if rows["run"] is not None:
                rows["run"]["thread"] = self._save(db, rows["run"], changes.version or 0)
            for row in rows["pauses"]:
                if db.execute(sql.insert_pause, row).rowcount == 0:
                    raise records.pause_exists(self._stored(db, PauseRecord, row["id"]))
            for row in rows["starts"]:
                if db.execute(sql.start_entry, row).rowcount == 0:
                    raise records.journal_exists(self._stored(db, JournalEntry, row["run"], row["key"]))
            for row, (entry, status, attempt) in zip(rows["updates"], changes.updates):
                if db.execute(sql.update_entry, row | {"expected_status": status, "expected_attempt": attempt}).rowcount == 0:
                    raise records.journal_conflict(entry, status, self._stored(db, JournalEntry, entry.run, entry.key))
            event_ids = self._append(db, rows["events"])
            for message in changes.shown:
                db.execute(sql.insert_shown, astuple(message))
        return Committed(records.committed_run(rows), event_ids)

    @abstractmethod
    def _transaction(self) -> AbstractContextManager[Any]:
        """A connection inside one write transaction, committed on exit, rolled back on an error."""

    @abstractmethod
    def _begin(self, db: Any, row: dict[str, Any]) -> None:
        """Insert a new run and make it its thread's active run, or raise ThreadBusy / VersionConflict."""

    @abstractmethod
    def _save(self, db: Any, row: dict[str, Any], expected_version: int) -> str:
        """Save a run over ``expected_version`` (or raise VersionConflict); the run's thread."""

    @abstractmethod
    def _stored(self, db: Any, kind: type, *key: str) -> Any:
        """The record of ``kind`` stored under ``key``, read in the same transaction."""

    @abstractmethod
    def _append(self, db: Any, events: list[tuple[str, str]]) -> list[int]:
        """Append ``(thread, body)`` events; their ids, rising within each thread."""
