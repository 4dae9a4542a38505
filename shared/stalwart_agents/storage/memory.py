"""The run store in this process's memory, for unit tests and trying things out."""

from __future__ import annotations

import threading
from typing import Any

from . import _records as records
from .base import FINISHED, Events, Feedback, JournalEntry, PauseRecord, RunRecord, ShownMessage

Row = dict[str, Any]


class MemoryStorage:
    """Holds everything in dicts behind one lock, so unit tests get SQLite's semantics without a file.

    Records are kept as rows of plain values and JSON text, so what comes back is
    always a fresh copy shaped exactly as a database would return it.
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
        self._shown: dict[str, ShownMessage] = {}
        self._feedback: dict[str, Feedback] = {}

    def setup(self) -> None:
        pass

    def close(self) -> None:
        pass

    def begin_run(self, run: RunRecord, *, events: Events = ()) -> RunRecord:
        row = records.new_run_row(run)
        with self._lock:
            if run.thread in self._active:
                raise records.thread_busy(run.thread, self._active[run.thread])
            if run.id in self._runs:
                raise records.run_exists(records.from_row(RunRecord, self._runs[run.id]))
            self._runs[run.id] = row
            self._active[run.thread] = self._last[run.thread] = run.id
            self._append(events)
            return records.from_row(RunRecord, row)

    def get_run(self, run_id: str) -> RunRecord | None:
        with self._lock:
            return self._run(run_id)

    def active_run(self, thread: str) -> RunRecord | None:
        with self._lock:
            return self._run(self._active.get(thread))

    def last_run(self, thread: str) -> RunRecord | None:
        with self._lock:
            return self._run(self._last.get(thread))

    def save_run(self, run: RunRecord, *, expected_version: int, events: Events = ()) -> RunRecord:
        row = records.saved_run_row(run, expected_version)
        with self._lock:
            saved = self._save(row, expected_version)
            self._append(events)
            return saved

    def open_pause(self, pause: PauseRecord, *, events: Events = ()) -> PauseRecord:
        row = records.to_row(pause)
        with self._lock:
            stored = self._pauses.setdefault(pause.id, row)
            if stored is row:
                self._append(events)
        return records.from_row(PauseRecord, stored)

    def get_pause(self, pause_id: str) -> PauseRecord | None:
        with self._lock:
            return self._pause(pause_id)

    def run_pauses(self, run_id: str) -> list[PauseRecord]:
        with self._lock:
            rows = [row for row in self._pauses.values() if row["run"] == run_id]
        rows.sort(key=lambda row: (row["step"], row["created_at"]))
        return [records.from_row(PauseRecord, row) for row in rows]

    def claim(
        self, pause_id: str, answer: dict[str, Any], run: RunRecord, *, expected_version: int, events: Events = ()
    ) -> RunRecord:
        answer_text = records.dump(answer)
        row = records.saved_run_row(run, expected_version)
        with self._lock:
            pause = self._pauses.get(pause_id)
            if pause is None or pause["status"] != "open":
                raise records.pause_closed(pause_id, self._pause(pause_id))
            saved = self._save(row, expected_version)
            self._pauses[pause_id] = pause | {"status": "answered", "answer": answer_text}
            self._append(events)
            return saved

    def journal_start(self, entry: JournalEntry, *, events: Events = ()) -> JournalEntry:
        row = records.to_row(entry)
        with self._lock:
            stored = self._journal.setdefault((entry.run, entry.key), row)
            if stored is row:
                self._append(events)
        if stored is not row:
            raise records.journal_exists(records.from_row(JournalEntry, stored))
        return records.from_row(JournalEntry, row)

    def journal_update(
        self, entry: JournalEntry, *, expected_status: str, expected_attempt: int | None = None, events: Events = ()
    ) -> JournalEntry:
        row = records.to_row(entry)
        with self._lock:
            stored = self._journal.get((entry.run, entry.key))
            if not records.as_expected(stored, expected_status, expected_attempt):
                raise records.journal_conflict(entry, expected_status, _record(JournalEntry, stored))
            self._journal[entry.run, entry.key] = row
            self._append(events)
        return records.from_row(JournalEntry, row)

    def journal(self, run_id: str) -> list[JournalEntry]:
        with self._lock:
            rows = [row for (run, _), row in self._journal.items() if run == run_id]
        return [records.from_row(JournalEntry, row) for row in rows]

    def append_event(self, thread: str, event: dict[str, Any]) -> int:
        body = records.dump(event)
        with self._lock:
            return self._append_one(thread, body)

    def events(self, thread: str, after: int = 0, limit: int = 1000) -> list[tuple[int, dict[str, Any]]]:
        records.check_limit(limit)
        with self._lock:
            page = [(event_id, body) for event_id, body in self._events.get(thread, ()) if event_id > after][:limit]
        return [(event_id, records.load(body)) for event_id, body in page]

    def secret(self, name: str, candidate: str) -> str:
        with self._lock:
            return self._secrets.setdefault(name, candidate)

    def show_message(self, message: ShownMessage) -> None:
        with self._lock:
            self._shown.setdefault(message.id, message)

    def shown_message(self, message_id: str) -> ShownMessage | None:
        with self._lock:
            return self._shown.get(message_id)

    def rate_message(self, feedback: Feedback) -> None:
        with self._lock:
            self._feedback[feedback.message] = feedback

    def feedback(self, message_id: str) -> Feedback | None:
        with self._lock:
            return self._feedback.get(message_id)

    def _append(self, events: Events) -> None:
        for event in events:
            self._append_one(event.thread, records.dump(event.body))

    def _append_one(self, thread: str, body: str | None) -> int:
        self._event_ids += 1
        self._events.setdefault(thread, []).append((self._event_ids, body))
        return self._event_ids

    def _run(self, run_id: str | None) -> RunRecord | None:
        return _record(RunRecord, self._runs.get(run_id) if run_id is not None else None)

    def _pause(self, pause_id: str) -> PauseRecord | None:
        return _record(PauseRecord, self._pauses.get(pause_id))

    def _save(self, row: Row, expected_version: int) -> RunRecord:
        current = self._runs.get(row["id"])
        if current is None or current["version"] != expected_version:
            raise records.version_conflict(row["id"], expected_version, self._run(row["id"]))
        self._runs[row["id"]] = row = row | {"thread": current["thread"]}
        if row["status"] in FINISHED and self._active.get(row["thread"]) == row["id"]:
            del self._active[row["thread"]]
        return records.from_row(RunRecord, row)


def _record(kind: type[records.Record], row: Row | None) -> records.Record | None:
    return None if row is None else records.from_row(kind, row)
