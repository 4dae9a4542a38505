"""The run store in this process's memory, for unit tests and trying things out."""

from __future__ import annotations

import threading
from typing import Any

from . import _records as records
from .base import FINISHED, Changes, Committed, Feedback, JournalEntry, PauseRecord, RunRecord, ShownMessage, Snapshot, Writes

Row = dict[str, Any]


class MemoryStorage(Writes):
    """Holds everything in dicts behind one lock, so unit tests get SQLite's semantics without a file.

    Records are kept as rows of plain values and JSON text, so what comes back is
    always a fresh copy shaped exactly as a database would return it.  A commit
    checks every condition before it changes anything.
    """

    url = "memory://"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, Row] = {}
        self._active: dict[str, str] = {}
        self._last: dict[str, str] = {}
        self._pauses: dict[str, Row] = {}
        self._journal: dict[tuple[str, str], Row] = {}
        self._events: dict[str, list[tuple[int, str | None]]] = {}
        self._event_ids = 0
        self._secrets: dict[str, str] = {}
        self._owners: dict[str, str] = {}
        self._shown: dict[str, ShownMessage] = {}
        self._feedback: dict[str, Feedback] = {}

    def setup(self) -> None:
        pass

    def close(self) -> None:
        pass

    def commit(self, changes: Changes) -> Committed:
        rows = records.encoded(changes)
        with self._lock:
            self._check(changes)
            return self._apply(changes, rows)

    def _check(self, changes: Changes) -> None:
        if changes.begin is not None:
            run = changes.begin
            if run.thread in self._active:
                raise records.thread_busy(run.thread, self._active[run.thread])
            if run.id in self._runs:
                raise records.run_exists(self._run(run.id))
        if changes.claim is not None:
            pause = self._pauses.get(changes.claim[0])
            if pause is None or pause["status"] != "open":
                raise records.pause_closed(changes.claim[0], self._pause(changes.claim[0]))
        if changes.run is not None:
            current = self._runs.get(changes.run.id)
            if current is None or current["version"] != changes.version:
                raise records.version_conflict(changes.run.id, changes.version or 0, self._run(changes.run.id))
        for pause in changes.pauses:
            if pause.id in self._pauses:
                raise records.pause_exists(self._pause(pause.id))
        for entry in changes.starts:
            if (entry.run, entry.key) in self._journal:
                raise records.journal_exists(_record(JournalEntry, self._journal[entry.run, entry.key]))
        for entry, status, attempt in changes.updates:
            stored = self._journal.get((entry.run, entry.key))
            if not records.as_expected(stored, status, attempt):
                raise records.journal_conflict(entry, status, _record(JournalEntry, stored))

    def _apply(self, changes: Changes, rows: dict[str, Any]) -> Committed:
        if rows["begin"] is not None:
            self._store_run(rows["begin"])
            self._last[rows["begin"]["thread"]] = rows["begin"]["id"]
        if changes.claim is not None:
            self._pauses[changes.claim[0]] |= {"status": "answered", "answer": rows["claim"]}
        if rows["run"] is not None:
            rows["run"]["thread"] = self._runs[rows["run"]["id"]]["thread"]
            self._store_run(rows["run"])
        self._pauses.update((row["id"], row) for row in rows["pauses"])
        self._journal.update(((row["run"], row["key"]), row) for row in rows["starts"] + rows["updates"])
        event_ids = [self._append_one(thread, body) for thread, body in rows["events"]]
        for message in changes.shown:
            self._shown.setdefault(message.id, message)
        return Committed(records.committed_run(rows), event_ids)

    def _store_run(self, row: Row) -> None:
        self._runs[row["id"]] = row
        if row["status"] not in FINISHED:
            self._active[row["thread"]] = row["id"]
        elif self._active.get(row["thread"]) == row["id"]:
            del self._active[row["thread"]]

    def snapshot(self, run_id: str) -> Snapshot | None:
        run = self.get_run(run_id)
        return None if run is None else Snapshot(run, self.run_pauses(run_id), self.journal(run_id))

    def get_run(self, run_id: str) -> RunRecord | None:
        with self._lock:
            return self._run(run_id)

    def active_run(self, thread: str) -> RunRecord | None:
        with self._lock:
            return self._run(self._active.get(thread))

    def last_run(self, thread: str) -> RunRecord | None:
        with self._lock:
            return self._run(self._last.get(thread))

    def get_pause(self, pause_id: str) -> PauseRecord | None:
        with self._lock:
            return self._pause(pause_id)

    def run_pauses(self, run_id: str) -> list[PauseRecord]:
        with self._lock:
            rows = [row for row in self._pauses.values() if row["run"] == run_id]
        rows.sort(key=lambda row: (row["step"], row["created_at"]))
        return [records.from_row(PauseRecord, row) for row in rows]

    def journal(self, run_id: str) -> list[JournalEntry]:
        with self._lock:
            rows = [row for (run, _), row in self._journal.items() if run == run_id]
        return [records.from_row(JournalEntry, row) for row in rows]

    def events(self, thread: str, after: int = 0, limit: int = 1000) -> list[tuple[int, dict[str, Any]]]:
        records.check_limit(limit)
        with self._lock:
            page = [(event_id, body) for event_id, body in self._events.get(thread, ()) if event_id > after][:limit]
        return [(event_id, records.load(body)) for event_id, body in page]

    def secret(self, name: str, candidate: str) -> str:
        with self._lock:
            return self._secrets.setdefault(name, candidate)

    def owner(self, thread: str) -> str | None:
        with self._lock:
            return self._owners.get(thread)

    def own(self, thread: str, owner: str) -> str:
        with self._lock:
            return self._owners.setdefault(thread, owner)

    def shown_message(self, message_id: str) -> ShownMessage | None:
        with self._lock:
            return self._shown.get(message_id)

    def rate_message(self, feedback: Feedback) -> None:
        with self._lock:
            self._feedback[feedback.message] = feedback

    def feedback(self, message_id: str) -> Feedback | None:
        with self._lock:
            return self._feedback.get(message_id)

    def note_delivery(self, run_id: str, pause_id: str, outcome: dict[str, Any]) -> None:
        text = records.dump(outcome)
        with self._lock:
            if pause_id in self._pauses and self._pauses[pause_id]["run"] == run_id:
                self._pauses[pause_id]["delivery"] = text

    def _append_one(self, thread: str, body: str | None) -> int:
        self._event_ids += 1
        self._events.setdefault(thread, []).append((self._event_ids, body))
        return self._event_ids

    def _run(self, run_id: str | None) -> RunRecord | None:
        return _record(RunRecord, self._runs.get(run_id) if run_id is not None else None)

    def _pause(self, pause_id: str) -> PauseRecord | None:
        return _record(PauseRecord, self._pauses.get(pause_id))


def _record(kind: type[records.Record], row: Row | None) -> records.Record | None:
    return None if row is None else records.from_row(kind, row)
