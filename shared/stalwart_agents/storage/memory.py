"""The run store in this process's memory, for unit tests and trying things out."""

from __future__ import annotations

import bisect
import itertools
import threading
import time
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from . import _records as records
from ._conditions import EntryAt, EntryNew, Locked, PauseNew, PauseOpen, RunAt, RunNew, Transactional
from ._records import Row
from .base import (
    ANYONE,
    DEFAULT_RETENTION,
    Feedback,
    InboxEntry,
    JournalEntry,
    PauseRecord,
    Position,
    Pruned,
    RecordPosition,
    RunRecord,
    ShownMessage,
    Snapshot,
    delivery_due,
    pause_tool,
    record_position,
    text,
)
from .chain import Head, decided_at, head_after

Key = tuple[str, ...]


_MISSING = object()


class _Table(dict[Any, Any]):
    """A dict that, inside a commit, notes what each write replaced, so a refused commit is undone.

    Reads stay a plain dict's; only writes pay, and only while a commit is open.
    """

    def __init__(self) -> None:
        super().__init__()
        self.undo: list[tuple[Any, Any]] | None = None

    def __setitem__(self, key: Any, value: Any) -> None:
        if self.undo is not None:
            self.undo.append((key, self.get(key, _MISSING)))
        super().__setitem__(key, value)

    def roll_back(self) -> None:
        for key, old in reversed(self.undo or ()):
            if old is _MISSING:
                del self[key]
            else:
                super().__setitem__(key, old)

    def added(self) -> list[Any]:
        """The keys this commit wrote that were not there before, in the order written."""
        return [key for key, old in self.undo or () if old is _MISSING]

    def written(self) -> set[Any]:
        """The keys this commit wrote."""
        return {key for key, _ in self.undo or ()}


class _OpenPauses:
    """The open pauses in (created_at, id) order, all of them, by kind and by tool: what the inbox reads.

    Each commit that opens or answers a pause, and each pause prune removes, updates it, so the inbox
    finds a page by bisection and never looks at an answered pause.
    """

    def __init__(self) -> None:
        self._orders: dict[tuple[str, str | None], list[Position]] = {}
        self._held: dict[str, tuple[Position, list[tuple[str, str | None]]]] = {}

    def sync(self, pause_id: str, row: Row | None) -> None:
        """Make the index agree with the pause as it is now stored (None: no longer stored)."""
        self._drop(pause_id)
        if row is not None and row["status"] == "open":
            self._add(row)

    def newest(self, before: Position | None, kind: str | None, tool: str | None) -> Iterator[str]:
        """Ids of open pauses newest first, strictly before ``before``, of ``kind`` and ``tool`` where given."""
        order = self._orders.get(_order_of(kind, tool), [])
        end = len(order) if before is None else bisect.bisect_left(order, before)
        for index in range(end - 1, -1, -1):
            pause_id = order[index][1]
            if kind is None or tool is None or ("kind", kind) in self._held[pause_id][1]:
                yield pause_id

    def _add(self, row: Row) -> None:
        position = (row["created_at"], row["id"])
        names = [("all", None), ("kind", row["kind"])]
        tool = pause_tool(records.load(row["payload"]))
        names += [("tool", tool)] if tool is not None else []
        for name in names:
            bisect.insort(self._orders.setdefault(name, []), position)
        self._held[row["id"]] = (position, names)

    def _drop(self, pause_id: str) -> None:
        held = self._held.pop(pause_id, None)
        if held is None:
            return
        position, names = held
        for name in names:
            order = self._orders[name]
            del order[bisect.bisect_left(order, position)]
            if not order:
                del self._orders[name]


def _order_of(kind: str | None, tool: str | None) -> tuple[str, str | None]:
    """The narrowest order a filter reads: a tool's (its pauses are mostly of one kind), else a kind's, else all."""
    if tool is not None:
        return "tool", tool
    return ("kind", kind) if kind is not None else ("all", None)


@dataclass
class _Tables:
    """The tables a commit may change, records under ``records.key_of``."""

    runs: _Table = field(default_factory=_Table)
    pauses: _Table = field(default_factory=_Table)
    journal: _Table = field(default_factory=_Table)
    active: _Table = field(default_factory=_Table)
    last: _Table = field(default_factory=_Table)
    touched: _Table = field(default_factory=_Table)
    owners: _Table = field(default_factory=_Table)

    def of(self, kind: type) -> MutableMapping[Key, Row]:
        return {RunRecord: self.runs, PauseRecord: self.pauses, JournalEntry: self.journal}[kind]

    @contextmanager
    def transaction(self, indexes: _Indexes) -> Iterator[_Tables]:
        """Writes made in the block stay if it ends normally, and are undone if it raises.

        The indexes learn of the writes only once they stay, so a refused commit leaves them as they were.
        """
        tables = (self.runs, self.pauses, self.journal, self.active, self.last, self.touched, self.owners)
        for table in tables:
            table.undo = []
        try:
            yield self
        except BaseException:
            for table in tables:
                table.roll_back()
            raise
        else:
            indexes.kept(self)
        finally:
            for table in tables:
                table.undo = None


@dataclass
class _Indexes:
    """Where a thread's runs, and a run's pauses and journal entries, are kept (in the order written), and the open
    pauses: so a turn, an answer or a listing reads only the rows it is about, however many the store holds.

    A kept commit adds to them, and prune's forgetting a thread removes from them; nothing else changes them.
    """

    runs_of_thread: dict[str, list[Key]] = field(default_factory=dict)
    rows_of_run: dict[str, list[Key]] = field(default_factory=dict)
    open_pauses: _OpenPauses = field(default_factory=_OpenPauses)

    def kept(self, tables: _Tables) -> None:
        """Index what a commit that stays wrote."""
        for key in tables.runs.added():
            self.runs_of_thread.setdefault(tables.runs[key]["thread"], []).append(key)
        for table in (tables.pauses, tables.journal):
            for key in table.added():
                self.rows_of_run.setdefault(table[key]["run"], []).append(key)
        for key in tables.pauses.written():
            self.open_pauses.sync(key[0], tables.pauses.get(key))


class MemoryStorage(Transactional[_Tables]):
    """Holds everything in dicts behind one lock, so unit tests get SQLite's semantics without a file.

    Records are kept as rows of plain values and JSON text, so what comes back is
    always a fresh copy shaped exactly as a database would return it.  A commit
    writes into the tables, and is undone unless every condition held.
    """

    url = "memory://"

    def __init__(self, *, retention: float = DEFAULT_RETENTION) -> None:
        self.retention, self.clock = retention, time.time
        self._lock = threading.Lock()
        self._tables = _Tables()
        self._indexes = _Indexes()
        self._events: dict[str, list[tuple[int, str]]] = {}
        self._event_ids = 0
        self._decisions: dict[str, list[str]] = {}
        self._heads: dict[str, Head] = {}
        self._secrets: dict[str, str] = {}
        self._shown: dict[str, ShownMessage] = {}
        self._feedback: dict[str, Feedback] = {}
        self._claims: dict[str, float] = {}

    def setup(self) -> None:
        pass

    def close(self) -> None:
        pass

    def snapshot(self, run_id: str) -> Snapshot | None:
        with self._lock:
            run = self._run(run_id)
            return None if run is None else Snapshot(run, self._run_pauses(run_id), self._journal(run_id))

    def get_run(self, run_id: str) -> RunRecord | None:
        with self._lock:
            return self._run(run_id)

    def active_run(self, thread: str) -> RunRecord | None:
        with self._lock:
            return self._run(self._tables.active.get(thread))

    def last_run(self, thread: str) -> RunRecord | None:
        with self._lock:
            return self._run(self._tables.last.get(thread))

    def get_pause(self, pause_id: str) -> PauseRecord | None:
        with self._lock:
            return records.record(PauseRecord, self._tables.pauses.get((pause_id,)))

    def run_pauses(self, run_id: str) -> list[PauseRecord]:
        with self._lock:
            return self._run_pauses(run_id)

    def journal(self, run_id: str) -> list[JournalEntry]:
        with self._lock:
            return self._journal(run_id)

    def events(self, thread: str, after: int = 0, limit: int = 1000) -> list[tuple[int, dict[str, Any]]]:
        records.check_limit(limit)
        with self._lock:
            log = self._events.get(thread, [])
            start = bisect.bisect_right(log, after, key=lambda event: event[0])
            page = log[start : start + limit]
        return [(event_id, records.load(body)) for event_id, body in page]

    def record(self, thread: str, after: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        records.check_limit(limit)
        with self._lock:
            kept = self._decisions.get(thread, [])
        entries = [records.load(body) | {"thread": thread} for body in kept]
        return [entry for entry in entries if entry["seq"] > after][:limit]

    def recorded(
        self, since: float = 0.0, after: RecordPosition | None = None, limit: int = 1000
    ) -> list[dict[str, Any]]:
        records.check_limit(limit)
        with self._lock:
            kept = [(thread, body) for thread, bodies in self._decisions.items() for body in bodies]
        entries = sorted((records.load(body) | {"thread": thread} for thread, body in kept), key=record_position)
        start = after or (since, "", 0)
        return [entry for entry in entries if decided_at(entry) >= since and record_position(entry) > start][:limit]

    def record_head(self, thread: str) -> Head | None:
        with self._lock:
            return self._heads.get(thread)

    def record_heads(self, after: str = "", limit: int = 1000) -> list[tuple[str, Head]]:
        records.check_limit(limit)
        with self._lock:
            heads = sorted(self._heads.items())
        return [(thread, head) for thread, head in heads if thread > after][:limit]

    def secret(self, name: str, candidate: str) -> str:
        with self._lock:
            return self._secrets.setdefault(name, candidate)

    def owner(self, thread: str) -> str | None:
        with self._lock:
            owner: str | None = self._tables.owners.get(thread)
            return owner

    def own(self, thread: str, owner: str) -> str:
        with self._transaction() as tx:
            tx.touched[thread] = self.clock()
            return self._own(tx, thread, owner)()

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
            pause = self._tables.pauses.get((pause_id,))
            if pause is not None and pause["run"] == run_id:
                self._tables.pauses[(pause_id,)] = pause | {"delivery": text}

    def claim_delivery(self, run_id: str, pause_id: str, now: float, hold: float) -> bool:
        with self._lock:
            pause = self._tables.pauses.get((pause_id,))
            if pause is None or pause["run"] != run_id or (records.load(pause["delivery"]) or {}).get("delivered"):
                return False
            if self._claims.get(pause_id, now - hold) > now - hold:
                return False
            self._claims[pause_id] = now
            return True

    def claim_wake(self, run_id: str, pause_id: str, woken: int, now: float, until: float) -> bool:
        return self._rewake(run_id, pause_id, woken, (woken, until), due_by=now)

    def set_wake(self, run_id: str, pause_id: str, woken: int, then: tuple[int, float | None]) -> bool:
        return self._rewake(run_id, pause_id, woken, then)

    def _rewake(
        self, run_id: str, pause_id: str, woken: int, then: tuple[int, float | None], due_by: float | None = None
    ) -> bool:
        with self._transaction() as tx:
            pause = tx.pauses.get((pause_id,))
            if pause is None or pause["run"] != run_id or pause["status"] != "open" or pause["woken"] != woken:
                return False
            if due_by is not None and (pause["wake_at"] is None or pause["wake_at"] > due_by):
                return False
            tx.pauses[(pause_id,)] = pause | {"woken": then[0], "wake_at": then[1]}
            return True

    def due_pauses(self, now: float, limit: int = 100) -> list[PauseRecord]:
        records.check_limit(limit)
        with self._lock:
            rows = [row for row in self._tables.pauses.values() if row["status"] == "open"]
        due = sorted((row for row in rows if row["wake_at"] is not None and row["wake_at"] <= now), key=_waking)
        return [records.from_row(PauseRecord, row) for row in due[:limit]]

    def due_deliveries(self, now: float, limit: int = 100) -> list[PauseRecord]:
        records.check_limit(limit)
        with self._lock:
            pauses = [records.from_row(PauseRecord, row) for row in self._tables.pauses.values()]
        due = [(at, pause) for pause in pauses if (at := delivery_due(pause)) is not None and at <= now]
        return [pause for _, pause in sorted(due, key=lambda pair: pair[0])][:limit]

    def inbox(
        self,
        *,
        before: Position | None = None,
        limit: int = 50,
        kind: str | None = None,
        tool: str | None = None,
        parties: Sequence[str] = (ANYONE,),
    ) -> list[InboxEntry]:
        """Every open pause, whatever ``parties`` (the protocol asks for at least those listed under them): one
        process's pauses are few, and reading them costs no partition anything."""
        records.check_limit(limit)
        with self._lock:
            newest = self._indexes.open_pauses.newest(before, kind, tool)
            rows = (self._tables.pauses[(pause_id,)] for pause_id in newest)
            listed = ((row, self._run(row["run"])) for row in rows)
            entries = (
                InboxEntry(records.from_row(PauseRecord, row), run, self._tables.owners.get(row["thread"]))
                for row, run in listed
                if run is not None
            )
            return list(itertools.islice(entries, limit))

    def stale_runs(self, now: float, limit: int = 100) -> list[RunRecord]:
        records.check_limit(limit)
        with self._lock:
            running = [row for row in self._tables.runs.values() if row["status"] == "running"]
        stale = sorted(
            (row for row in running if (row["lease_until"] or 0) < now), key=lambda row: row["lease_until"] or 0
        )
        return [records.from_row(RunRecord, row) for row in stale[:limit]]

    def prune(self, now: float, *, dry_run: bool = False) -> Pruned:
        cutoff = now - self.retention
        with self._lock:
            touched, active = self._tables.touched, self._tables.active
            idle = {thread for thread, at in touched.items() if at < cutoff and active.get(thread) is None}
            shown_in_idle = [m.id for m in self._shown.values() if m.thread in idle]
            shown = [m.id for m in self._shown.values() if m.shown_at < cutoff and m.thread not in idle]
            rated = [f.message for f in self._feedback.values() if f.rated_at < cutoff]
            if not dry_run:
                for thread in idle:
                    self._forget(thread)
                for message in shown_in_idle + shown:
                    del self._shown[message]
                for message in rated:
                    del self._feedback[message]
        return Pruned(threads=len(idle), records=len(shown) + len(rated))

    def _forget(self, thread: str) -> None:
        """Remove the thread with its runs and all they hold, found by the indexes (its shown replies: the caller)."""
        tables, indexes = self._tables, self._indexes
        for run in indexes.runs_of_thread.pop(thread, ()):
            for key in indexes.rows_of_run.pop(run[0], ()):
                if tables.pauses.pop(key, None) is not None:
                    self._claims.pop(key[0], None)
                    indexes.open_pauses.sync(key[0], None)
                tables.journal.pop(key, None)
            del tables.runs[run]
        for table in (tables.active, tables.last, tables.touched, tables.owners, self._events):
            table.pop(thread, None)

    @contextmanager
    def _transaction(self) -> Iterator[_Tables]:
        with self._lock, self._tables.transaction(self._indexes) as tables:
            yield tables

    def _lock_thread(self, tx: _Tables, thread: str, at: float) -> Callable[[], Locked]:
        tx.touched[thread] = at
        locked = Locked(tx.active.get(thread), tx.owners.get(thread))
        return lambda: locked

    def _own(self, tx: _Tables, thread: str, owner: str) -> Callable[[], str]:
        if thread not in tx.owners:
            tx.owners[thread] = owner
        stored: str = tx.owners[thread]
        return lambda: stored

    def _insert_run(self, tx: _Tables, check: RunNew) -> bool:
        run = check.run
        if not self._put(tx, RunRecord, run):
            return False
        tx.last[run["thread"]] = run["id"]
        tx.active[run["thread"]] = run["id"] if check.active else None
        return True

    def _answer_pause(self, tx: _Tables, check: PauseOpen) -> bool:
        pause = tx.pauses.get((check.pause_id,))
        if pause is None or pause["status"] != "open":
            return False
        tx.pauses[(check.pause_id,)] = pause | {"status": "answered", "answer": check.answer, "wake_at": None}
        return True

    def _close(self, tx: _Tables, pauses: list[str]) -> None:
        for pause_id in pauses:
            pause = tx.pauses.get((pause_id,))
            if pause is not None and pause["status"] == "open":
                tx.pauses[(pause_id,)] = pause | {"status": "closed", "wake_at": None}

    def _save_run(self, tx: _Tables, check: RunAt) -> Callable[[], str | None]:
        stored = tx.runs.get((check.run["id"],))
        if stored is None or stored["version"] != check.version:
            return lambda: None
        thread: str = stored["thread"]
        tx.runs[(stored["id"],)] = check.run | {"thread": thread}
        return lambda: thread

    def _free_thread(self, tx: _Tables, thread: str, run: str, at: float) -> None:
        tx.touched[thread] = at
        if tx.active.get(thread) == run:
            tx.active[thread] = None

    def _insert(self, tx: _Tables, check: PauseNew | EntryNew) -> bool:
        if isinstance(check, PauseNew):
            return self._put(tx, PauseRecord, check.pause)
        return self._put(tx, JournalEntry, check.entry)

    def _put(self, tx: _Tables, kind: type, row: Row) -> bool:
        table, key = tx.of(kind), records.key_of(kind, row)
        if key in table:
            return False
        table[key] = row
        return True

    def _update_entry(self, tx: _Tables, check: EntryAt) -> bool:
        key = records.key_of(JournalEntry, check.entry)
        if not check.holds_for(tx.journal.get(key)):
            return False
        tx.journal[key] = check.entry
        return True

    def _stored(self, tx: _Tables, kind: type[records.Record], key: Mapping[str, Any]) -> records.Record | None:
        return records.record(kind, tx.of(kind).get(records.key_of(kind, key)))

    def _append(self, tx: _Tables, events: list[tuple[str, str]]) -> Callable[[], list[int]]:
        ids = []
        for thread, body in events:
            self._event_ids += 1
            self._events.setdefault(thread, []).append((self._event_ids, body))
            ids.append(self._event_ids)
        return lambda: ids

    def _head(self, tx: _Tables, thread: str) -> Callable[[], Head | None]:
        return lambda: self._heads.get(thread)

    def _append_decision(self, tx: _Tables, entry: dict[str, Any]) -> None:
        self._decisions.setdefault(entry["thread"], []).append(text(entry))
        self._heads[entry["thread"]] = head_after(entry)

    def _show(self, tx: _Tables, messages: list[ShownMessage]) -> None:
        for message in messages:
            self._shown.setdefault(message.id, message)

    def _touch(self, tx: _Tables, thread: str, at: float) -> None:
        tx.touched[thread] = at

    def _run(self, run_id: str | None) -> RunRecord | None:
        return None if run_id is None else records.record(RunRecord, self._tables.runs.get((run_id,)))

    def _run_pauses(self, run_id: str) -> list[PauseRecord]:
        rows = self._rows_of(run_id, self._tables.pauses)
        rows.sort(key=lambda row: (row["step"], row["created_at"]))
        return [records.from_row(PauseRecord, row) for row in rows]

    def _journal(self, run_id: str) -> list[JournalEntry]:
        return [records.from_row(JournalEntry, row) for row in self._rows_of(run_id, self._tables.journal)]

    def _rows_of(self, run_id: str, table: Mapping[Key, Row]) -> list[Row]:
        """A run's rows of ``table`` in the order they were written, by the index commits keep: no scan."""
        return [table[key] for key in self._indexes.rows_of_run.get(run_id, ()) if key in table]


def _waking(row: Row) -> float:
    return float(row["wake_at"])
