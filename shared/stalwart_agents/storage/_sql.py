"""One SQL backend for SQLite and Postgres: the statements, the reads and the commit's primitives.

Every statement is written once, with ``:name`` placeholders and ``{word}``s for
what the two databases spell differently (the migrations in ``sql_schema`` too);
``Dialect.render`` gives it in one database's spelling.  A backend module adds
its dialect, its connections (a read, a read whose statements see one moment, a
write transaction), where it keeps its schema version, and the translation of
its driver's errors.
"""

from __future__ import annotations

import itertools
import re
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from functools import cache, partial
from typing import Any, Generic, Protocol, TypeVar

from ..errors import StorageUnavailable
from . import _packed as packed
from . import _records as records
from . import sql_schema
from ._conditions import EntryAt, EntryNew, Locked, PauseNew, PauseOpen, RunAt, RunNew, Taken, Transactional
from .base import (
    ANYONE,
    UNANNOUNCED,
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
    failed_delivery_due,
    text,
)
from .chain import Head, decided_at

PLACEHOLDER = re.compile(r":(\w+)")
TABLES = {RunRecord: "runs", PauseRecord: "pauses", JournalEntry: "journal"}
COLUMNS: dict[type, tuple[str, ...]] = {
    RunRecord: records.columns(RunRecord),
    PauseRecord: (*records.columns(PauseRecord), "tool", "packed"),
    JournalEntry: (*records.columns(JournalEntry), "packed"),
}
"""The columns a record's row is kept in: its fields', and how ``_packed`` keeps it."""


@dataclass(frozen=True)
class Dialect:
    """How one database spells what the statements and MIGRATIONS leave open.

    ``words`` fill the ``{word}``s; ``placeholder`` writes a ``:name`` placeholder
    (``{}`` standing for the name), or is None where ``:name`` is the driver's own.
    """

    words: Mapping[str, str]
    placeholder: str | None = None
    holds_nul: bool = True
    """False where text holds no NUL (Postgres, which refuses such a parameter outright): no row has a key with one."""
    _rendered: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def render(self, text: str) -> str:
        """``text`` with this database's words and placeholders."""
        if text not in self._rendered:
            spelled, placeholder = text.format_map(self.words), self.placeholder
            if placeholder is not None:
                spelled = PLACEHOLDER.sub(lambda found: placeholder.format(found[1]), spelled)
            self._rendered[text] = spelled
        return self._rendered[text]


def _select(kind: type, condition: str) -> str:
    return f"SELECT {', '.join(COLUMNS[kind])} FROM {TABLES[kind]} WHERE {condition}"


def _insert(kind: type, **computed: str) -> str:
    names = [*COLUMNS[kind], *computed]
    values = [*(f":{name}" for name in COLUMNS[kind]), *computed.values()]
    return f"INSERT INTO {TABLES[kind]} ({', '.join(names)}) VALUES ({', '.join(values)}) ON CONFLICT DO NOTHING"


def _update(kind: type, condition: str, *, keep: tuple[str, ...]) -> str:
    assignments = ", ".join(f"{name} = :{name}" for name in COLUMNS[kind] if name not in keep)
    return f"UPDATE {TABLES[kind]} SET {assignments} WHERE {condition}"


STORED = {kind: _select(kind, " AND ".join(f"{name} = :{name}" for name in records.KEYS[kind])) for kind in TABLES}
ACTIVE_RUN = _select(RunRecord, "id = (SELECT active_run FROM threads WHERE thread = :thread)")
LAST_RUN = _select(RunRecord, "id = (SELECT COALESCE(last_run, active_run) FROM threads WHERE thread = :thread)")
RUN_PAUSES = _select(PauseRecord, "run = :run ORDER BY step, created_at, {arrival}")
JOURNAL = _select(JournalEntry, "run = :run ORDER BY started_order")
EVENTS = "SELECT id, body, type, run, at_ms FROM events WHERE thread = :thread AND id > :after ORDER BY id LIMIT :limit"

# Taking the thread's row (and noting its activity) locks it, so of two begins on one thread the second sees the
# first's run; its owner is read in the same statement.  A new thread's row holds '' as its active run until the
# begin points it at its run, later in the same transaction (a begin refused is rolled back), so the row is never
# written into the index of idle threads only to be taken out again.
LOCK_THREAD = (
    "INSERT INTO threads (thread, touched_at, active_run) VALUES (:thread, :at, '')"
    " ON CONFLICT (thread) DO UPDATE SET touched_at = excluded.touched_at"
    " RETURNING NULLIF(active_run, '') AS active_run,"
    " (SELECT owner FROM owners WHERE owners.thread = :thread) AS owner"
)
INSERT_RUN = _insert(RunRecord)
# A thread's last run is kept only where it is not its active run (while a run is active, its id is kept once).
POINT_THREAD = "UPDATE threads SET active_run = :active_run, last_run = NULLIF(:id, :active_run) WHERE thread = :thread"
ANSWER_PAUSE = (
    "UPDATE pauses SET status = 'answered', answer = :answer, wake_at = NULL WHERE id = :id AND status = 'open'"
)
CLOSE_PAUSE = "UPDATE pauses SET status = 'closed', wake_at = NULL WHERE id = :id AND status = 'open'"
CLAIM_WAKE = (
    "UPDATE pauses SET wake_at = :until"
    " WHERE id = :id AND run = :run AND status = 'open' AND woken = :woken AND wake_at <= :now"
)
SET_WAKE = (
    "UPDATE pauses SET woken = :next, wake_at = :wake_at WHERE id = :id AND run = :run AND status = 'open'"
    " AND woken = :woken"
)
SAVE_RUN = _update(RunRecord, "id = :id AND version = :expected_version", keep=("id", "thread")) + " RETURNING thread"
FREE_THREAD = (
    "INSERT INTO threads (thread, touched_at) VALUES (:thread, :at)"
    " ON CONFLICT (thread) DO UPDATE SET touched_at = excluded.touched_at,"
    " last_run = COALESCE(threads.last_run, threads.active_run), active_run = NULLIF(threads.active_run, :id)"
)
INSERT = {
    PauseRecord: _insert(PauseRecord),
    JournalEntry: _insert(JournalEntry, started_order="{next_started_order}"),
}
UPDATE_ENTRY = _update(
    JournalEntry,
    "run = :run AND key = :key AND status = :expected_status AND attempt = COALESCE(:expected_attempt, attempt)",
    keep=("run", "key"),
)

EVENT_COLUMNS = ("body", "type", "run", "at_ms")
"""An event's columns besides its id and thread (``_packed.event``)."""


@cache
def append_events(count: int) -> str:
    """One statement that appends ``count`` events, each row's ``:threadN`` and its ``EVENT_COLUMNS`` as
    ``:bodyN`` and so on: ids are given in the order of the rows (the order staged), whichever order the database
    returns them in."""
    rows = ", ".join(f"(:thread{n}, {', '.join(f':{name}{n}' for name in EVENT_COLUMNS)})" for n in range(count))
    return f"INSERT INTO events (thread, {', '.join(EVENT_COLUMNS)}) VALUES {rows} RETURNING id"


RECORD = "SELECT thread, seq, body FROM decisions WHERE thread = :thread AND seq > :after ORDER BY seq LIMIT :limit"
RECORDED = (
    "SELECT thread, seq, body FROM decisions WHERE at >= :since AND (at, thread, seq) > (:at, :thread, :seq)"
    " ORDER BY at, thread, seq LIMIT :limit"
)
HEAD = "SELECT seq, digest FROM decision_heads WHERE thread = :thread"
HEADS = "SELECT thread, seq, digest FROM decision_heads WHERE thread > :after ORDER BY thread LIMIT :limit"
APPEND_DECISION = "INSERT INTO decisions (thread, seq, at, body) VALUES (:thread, :seq, :at, :body)"
MOVE_HEAD = (
    "INSERT INTO decision_heads (thread, seq, digest) VALUES (:thread, :seq, :digest)"
    " ON CONFLICT (thread) DO UPDATE SET seq = excluded.seq, digest = excluded.digest"
)
SHOW = (
    "INSERT INTO shown (id, session, thread, text, shown_at) VALUES (:id, :session, :thread, :text, :shown_at)"
    " ON CONFLICT DO NOTHING"
)
SHOWN = "SELECT id, session, thread, text, shown_at FROM shown WHERE id = :id"
RATE = (
    "INSERT INTO feedback (message, text, thumb, rated_at) VALUES (:message, :text, :thumb, :rated_at)"
    " ON CONFLICT (message) DO UPDATE SET text = excluded.text, thumb = excluded.thumb, rated_at = excluded.rated_at"
)
FEEDBACK = "SELECT message, text, thumb, rated_at FROM feedback WHERE message = :message"
NOTE_DELIVERY = "UPDATE pauses SET delivery = :delivery, due_at = :due_at WHERE id = :id AND run = :run"
CLAIM_DELIVERY = (
    "UPDATE pauses SET claimed_at = :now WHERE id = :id AND run = :run AND NOT {delivered}"
    " AND (claimed_at IS NULL OR claimed_at <= :now - :hold)"
)

TOUCH_GRAIN = 0.5
"""Seconds within which a thread touched again keeps its stored touch: the commits of one quick exchange write
its row once.  ``prune`` counts a thread idle this much longer, so none goes before it has been idle its retention."""
# A touch that writes nothing still locks the thread's row (Postgres locks the row of every conflict of an ON
# CONFLICT DO UPDATE, whether its WHERE lets it update or not), so events are appended one commit at a time.
TOUCH = (
    "INSERT INTO threads (thread, touched_at) VALUES (:thread, :at)"
    " ON CONFLICT (thread) DO UPDATE SET touched_at = excluded.touched_at"
    f" WHERE threads.touched_at < excluded.touched_at - {TOUCH_GRAIN}"
)
STALE_RUNS = _select(
    RunRecord, "status = 'running' AND COALESCE(lease_until, 0) < :now ORDER BY lease_until LIMIT :limit"
)
DUE_FAILED = _select(
    PauseRecord, "status = 'open' AND due_at IS NOT NULL AND due_at <= :now ORDER BY due_at LIMIT :limit"
)
DUE_PAUSES = _select(
    PauseRecord, "status = 'open' AND wake_at IS NOT NULL AND wake_at <= :now ORDER BY wake_at LIMIT :limit"
)
DUE_UNANNOUNCED = _select(
    PauseRecord, "status = 'open' AND delivery IS NULL AND created_at <= :opened ORDER BY created_at LIMIT :limit"
)


def _inbox(before: bool, kind: bool, tool: bool) -> str:
    """Open pauses newest first, with their runs and owners; each filter a condition an index's key leads with."""
    conditions = ["p.status = 'open'"]
    conditions += ["(p.created_at, p.id) < (:at, :id)"] if before else []
    conditions += ["p.kind = :kind"] if kind else []
    conditions += ["p.tool = :tool"] if tool else []
    return (
        f"SELECT {INBOX_COLUMNS} FROM pauses p JOIN runs r ON r.id = p.run LEFT JOIN owners o ON o.thread = p.thread"
        f" WHERE {' AND '.join(conditions)} ORDER BY p.created_at DESC, p.id DESC LIMIT :limit"
    )


INBOX_COLUMNS = ", ".join(
    [
        *(f"p.{name} AS p_{name}" for name in COLUMNS[PauseRecord]),
        *(f"r.{name} AS r_{name}" for name in COLUMNS[RunRecord]),
        "o.owner AS owner",
    ]
)
INBOX = {flags: _inbox(*flags) for flags in itertools.product((False, True), repeat=3)}
"""The inbox's statement for each combination of (before, kind, tool) given."""

IDLE = "active_run IS NULL AND touched_at < :idle_before"
IDLE_THREADS = f"SELECT thread FROM threads WHERE {IDLE} ORDER BY touched_at LIMIT :batch{{lock_skipping}}"
FORGET_THREAD = (
    "DELETE FROM journal WHERE run IN (SELECT id FROM runs WHERE thread = :thread)",
    "DELETE FROM pauses WHERE run IN (SELECT id FROM runs WHERE thread = :thread)",
    "DELETE FROM runs WHERE thread = :thread",
    "DELETE FROM events WHERE thread = :thread",
    "DELETE FROM shown WHERE thread = :thread",
    "DELETE FROM owners WHERE thread = :thread",
    "DELETE FROM threads WHERE thread = :thread",
)
OLD = (
    "DELETE FROM shown WHERE id IN (SELECT id FROM shown WHERE shown_at < :cutoff LIMIT :batch)",
    "DELETE FROM feedback WHERE message IN (SELECT message FROM feedback WHERE rated_at < :cutoff LIMIT :batch)",
)
COUNT_IDLE = f"SELECT COUNT(*) AS n FROM threads WHERE {IDLE}"
COUNT_OLD = (
    "SELECT (SELECT COUNT(*) FROM shown WHERE shown_at < :cutoff"
    f" AND thread NOT IN (SELECT thread FROM threads WHERE {IDLE}))"
    " + (SELECT COUNT(*) FROM feedback WHERE rated_at < :cutoff) AS n"
)
PRUNE_BATCH = 100
"""Threads (or, on their own, records) removed per transaction, so a big prune never holds the store for long."""


@dataclass(frozen=True)
class FirstWins:
    """A table of one value per key, where the first value written is kept."""

    table: str
    key: str
    value: str

    @property
    def insert(self) -> str:
        return f"INSERT INTO {self.table} ({self.key}, {self.value}) VALUES (:key, :value) ON CONFLICT DO NOTHING"

    @property
    def select(self) -> str:
        return f"SELECT {self.value} AS value FROM {self.table} WHERE {self.key} = :key"


SECRETS = FirstWins("secrets", "name", "value")
OWNERS = FirstWins("owners", "thread", "owner")


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    def execute(self, query: str, params: Mapping[str, Any], /) -> Cursor: ...


Db = TypeVar("Db", bound=Connection)


class SqlStorage(Transactional[Db], Generic[Db]):
    """A run store in a SQL database; a subclass gives the dialect, the connections and the schema version."""

    dialect: Dialect
    name: str  # "the SQLite store PATH", for messages
    retention: float

    def setup(self) -> None:
        with self._transaction() as db:
            version = self._schema_version(db)
            migrations = sql_schema.MIGRATIONS
            if version > len(migrations):
                raise StorageUnavailable(
                    f"{self.name} has schema version {version}, newer than the {len(migrations)} "
                    "this stalwart-agents knows; upgrade stalwart-agents"
                )
            for script in migrations[version:]:
                self._migrate(db, script.format_map(self.dialect.words))
            if version < len(migrations):
                self._set_schema_version(db, len(migrations))

    def snapshot(self, run_id: str) -> Snapshot | None:
        """The run, its pauses and its journal, asked for at once and read once the snapshot has ended: where the
        backend sends statements together (Postgres's pipeline), their rows come with its COMMIT's result, and an
        answer's read is one round trip."""
        if self._unheld(run_id):
            return None
        with self._reading_together() as db:
            asked = [self._execute(db, STORED[RunRecord], {"id": run_id})]
            asked += [self._execute(db, query, {"run": run_id}) for query in (RUN_PAUSES, JOURNAL)]
            later = [self._rows_later(db, cursor) for cursor in asked]
        runs, pauses, journal = (rows() for rows in later)
        if not runs:
            return None
        return Snapshot(_read(RunRecord, runs)[0], _read(PauseRecord, pauses), _read(JournalEntry, journal))

    def get_run(self, run_id: str) -> RunRecord | None:
        with self._reading() as db:
            return self._stored(db, RunRecord, {"id": run_id})

    def active_run(self, thread: str) -> RunRecord | None:
        with self._reading() as db:
            return self._first(db, RunRecord, ACTIVE_RUN, {"thread": thread})

    def last_run(self, thread: str) -> RunRecord | None:
        with self._reading() as db:
            return self._first(db, RunRecord, LAST_RUN, {"thread": thread})

    def get_pause(self, pause_id: str) -> PauseRecord | None:
        with self._reading() as db:
            return self._stored(db, PauseRecord, {"id": pause_id})

    def run_pauses(self, run_id: str) -> list[PauseRecord]:
        with self._reading() as db:
            return self._all(db, PauseRecord, RUN_PAUSES, {"run": run_id})

    def journal(self, run_id: str) -> list[JournalEntry]:
        with self._reading() as db:
            return self._all(db, JournalEntry, JOURNAL, {"run": run_id})

    def events(self, thread: str, after: int = 0, limit: int = 1000) -> list[tuple[int, dict[str, Any]]]:
        page = {"thread": thread, "after": after, "limit": records.check_limit(limit)}
        with self._reading() as db:
            rows = self._execute(db, EVENTS, page).fetchall()
        return [(int(row["id"]), packed.event_body(row)) for row in rows]

    def record(self, thread: str, after: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        if self._unheld(thread):
            return []
        with self._reading() as db:
            params = {"thread": thread, "after": after, "limit": records.check_limit(limit)}
            return [_entry(row) for row in self._execute(db, RECORD, params).fetchall()]

    def recorded(
        self, since: float = 0.0, after: RecordPosition | None = None, limit: int = 1000
    ) -> list[dict[str, Any]]:
        at, thread, seq = after if after is not None else (since, "", 0)
        params = {"since": since, "at": at, "thread": thread, "seq": seq, "limit": records.check_limit(limit)}
        with self._reading() as db:
            return [_entry(row) for row in self._execute(db, RECORDED, params).fetchall()]

    def record_head(self, thread: str) -> Head | None:
        with self._reading() as db:
            return self._head(db, thread)()

    def record_heads(self, after: str = "", limit: int = 1000) -> list[tuple[str, Head]]:
        params = {"after": after, "limit": records.check_limit(limit)}
        with self._reading() as db:
            rows = self._execute(db, HEADS, params).fetchall()
        return [(str(row["thread"]), Head(int(row["seq"]), str(row["digest"]))) for row in rows]

    def secret(self, name: str, candidate: str) -> str:
        return self._first_wins(SECRETS, name, candidate)

    def owner(self, thread: str) -> str | None:
        with self._reading() as db:
            row = self._execute(db, OWNERS.select, {"key": thread}).fetchone()
        return None if row is None else str(row["value"])

    def own(self, thread: str, owner: str) -> str:
        with self._transaction() as db:
            self._touch(db, thread, self.clock())
            return self._first_wins_in(db, OWNERS, thread, owner)()

    def shown_message(self, message_id: str) -> ShownMessage | None:
        if self._unheld(message_id):
            return None
        with self._reading() as db:
            row = self._execute(db, SHOWN, {"id": message_id}).fetchone()
        return None if row is None else ShownMessage(**row)

    def rate_message(self, feedback: Feedback) -> None:
        with self._transaction() as db:
            self._execute(db, RATE, asdict(feedback))

    def feedback(self, message_id: str) -> Feedback | None:
        if self._unheld(message_id):
            return None
        with self._reading() as db:
            row = self._execute(db, FEEDBACK, {"message": message_id}).fetchone()
        return None if row is None else Feedback(**row)

    def note_delivery(self, run_id: str, pause_id: str, outcome: dict[str, Any]) -> None:
        with self._transaction() as db:
            due_at = failed_delivery_due(outcome)
            params = {"delivery": records.dump(outcome), "due_at": due_at, "id": pause_id, "run": run_id}
            self._execute(db, NOTE_DELIVERY, params)

    def claim_delivery(self, run_id: str, pause_id: str, now: float, hold: float) -> bool:
        with self._transaction() as db:
            return bool(self._changed(db, CLAIM_DELIVERY, {"id": pause_id, "run": run_id, "now": now, "hold": hold}))

    def stale_runs(self, now: float, limit: int = 100) -> list[RunRecord]:
        with self._reading() as db:
            return self._all(db, RunRecord, STALE_RUNS, {"now": now, "limit": records.check_limit(limit)})

    def inbox(
        self,
        *,
        before: Position | None = None,
        limit: int = 50,
        kind: str | None = None,
        tool: str | None = None,
        parties: Sequence[str] = (ANYONE,),
    ) -> list[InboxEntry]:
        """Every open pause, whatever ``parties`` (the protocol asks for at least those listed under them): read by
        the partial index of open pauses by creation, whose writes spread over the database's pages, not one key."""
        at, pause_id = before if before is not None else (None, None)
        params = {"at": at, "id": pause_id, "kind": kind, "tool": tool, "limit": records.check_limit(limit)}
        statement = INBOX[(before is not None, kind is not None, tool is not None)]
        with self._reading() as db:
            return [_inbox_entry(row) for row in self._execute(db, statement, params).fetchall()]

    def claim_wake(self, run_id: str, pause_id: str, woken: int, now: float, until: float) -> bool:
        params = {"id": pause_id, "run": run_id, "woken": woken, "now": now, "until": until}
        with self._transaction() as db:
            return bool(self._changed(db, CLAIM_WAKE, params))

    def set_wake(self, run_id: str, pause_id: str, woken: int, then: tuple[int, float | None]) -> bool:
        params = {"id": pause_id, "run": run_id, "woken": woken, "next": then[0], "wake_at": then[1]}
        with self._transaction() as db:
            return bool(self._changed(db, SET_WAKE, params))

    def due_pauses(self, now: float, limit: int = 100) -> list[PauseRecord]:
        with self._reading() as db:
            return self._all(db, PauseRecord, DUE_PAUSES, {"now": now, "limit": records.check_limit(limit)})

    def due_deliveries(self, now: float, limit: int = 100) -> list[PauseRecord]:
        params = {"now": now, "opened": now - UNANNOUNCED, "limit": records.check_limit(limit)}
        with self._reading_together() as db:
            due = [
                pause for query in (DUE_FAILED, DUE_UNANNOUNCED) for pause in self._all(db, PauseRecord, query, params)
            ]
        return sorted(due, key=lambda pause: delivery_due(pause) or 0.0)[:limit]

    def prune(self, now: float, *, dry_run: bool = False) -> Pruned:
        cutoff = {
            "cutoff": now - self.retention,
            "idle_before": now - self.retention - TOUCH_GRAIN,
            "batch": PRUNE_BATCH,
        }
        if dry_run:
            with self._reading_together() as db:
                threads, old = (self._execute(db, count, cutoff).fetchone()["n"] for count in (COUNT_IDLE, COUNT_OLD))
            return Pruned(threads=int(threads), records=int(old))
        threads = self._in_batches(partial(self._forget_idle_threads, cutoff=cutoff))
        old = sum(self._in_batches(partial(self._delete, statement=aged, params=cutoff)) for aged in OLD)
        return Pruned(threads=threads, records=old)

    def _forget_idle_threads(self, tx: Db, cutoff: Mapping[str, Any]) -> int:
        """Remove a batch of idle threads, each with all it holds; how many."""
        idle = [row["thread"] for row in self._execute(tx, IDLE_THREADS, cutoff).fetchall()]
        for thread in idle:
            for statement in FORGET_THREAD:
                self._execute(tx, statement, {"thread": thread})
        return len(idle)

    def _delete(self, tx: Db, statement: str, params: Mapping[str, Any]) -> int:
        return self._execute(tx, statement, params).rowcount

    def _in_batches(self, batch: Callable[[Db], int]) -> int:
        """Run ``batch`` in one transaction after another until one does less than a whole batch; the total."""
        total = 0
        while True:
            with self._transaction() as tx:
                done = batch(tx)
            total += done
            if done < PRUNE_BATCH:
                return total

    def _lock_thread(self, tx: Db, thread: str, at: float) -> Callable[[], Locked]:
        rows = self._rows_later(tx, self._execute(tx, LOCK_THREAD, {"thread": thread, "at": at}))
        return lambda: Locked((row := rows()[0])["active_run"], row["owner"])

    def _own(self, tx: Db, thread: str, owner: str) -> Callable[[], str]:
        return self._first_wins_in(tx, OWNERS, thread, owner)

    def _insert_run(self, tx: Db, check: RunNew) -> Taken:
        # The thread is pointed at the run whether or not it was inserted: where it was not, the commit is refused
        # and rolled back, and asking first would cost a round trip where statements are sent together.
        inserted = self._changed(tx, INSERT_RUN, check.run)
        self._execute(tx, POINT_THREAD, check.run | {"active_run": check.run["id"] if check.active else None})
        return inserted

    def _answer_pause(self, tx: Db, check: PauseOpen) -> Taken:
        if self._unheld(check.pause_id):
            return False
        return self._changed(tx, ANSWER_PAUSE, {"answer": check.answer, "id": check.pause_id})

    def _close(self, tx: Db, pauses: list[str]) -> None:
        for pause in pauses:
            self._execute(tx, CLOSE_PAUSE, {"id": pause})

    def _save_run(self, tx: Db, check: RunAt) -> Callable[[], str | None]:
        saved = self._rows_later(tx, self._execute(tx, SAVE_RUN, check.run | {"expected_version": check.version}))
        return lambda: str(found[0]["thread"]) if (found := saved()) else None

    def _free_thread(self, tx: Db, thread: str, run: str, at: float) -> None:
        self._execute(tx, FREE_THREAD, {"thread": thread, "id": run, "at": at})

    def _insert(self, tx: Db, check: PauseNew | EntryNew) -> Taken:
        if isinstance(check, PauseNew):
            return self._changed(tx, INSERT[PauseRecord], packed.pause(check.pause, check.record.payload))
        return self._changed(tx, INSERT[JournalEntry], packed.entry(check.entry, check.record.arguments))

    def _update_entry(self, tx: Db, check: EntryAt) -> Taken:
        expected = {"expected_status": check.status, "expected_attempt": check.attempt}
        return self._changed(tx, UPDATE_ENTRY, packed.entry(check.entry, check.record.arguments) | expected)

    def _stored(self, tx: Db, kind: type[records.Record], key: Mapping[str, Any]) -> records.Record | None:
        if any(isinstance(part, str) and self._unheld(part) for part in key.values()):
            return None
        return self._first(tx, kind, STORED[kind], key)

    def _append(self, tx: Db, events: list[tuple[str, str]]) -> Callable[[], list[int]]:
        if not events:
            return list
        values: dict[str, Any] = {}
        for n, (thread, body) in enumerate(events):
            values[f"thread{n}"] = thread
            values.update((f"{name}{n}", value) for name, value in packed.event(body).items())
        appended = self._rows_later(tx, self._execute(tx, append_events(len(events)), values))
        return lambda: sorted(int(row["id"]) for row in appended())

    def _rows_later(self, db: Db, cursor: Cursor) -> Callable[[], list[Any]]:
        """A statement's rows, for a caller that needs them only later in the commit, or once it has ended: read now,
        unless the backend sends statements together (``postgres.py``)."""
        rows = cursor.fetchall()
        return lambda: rows

    def _head(self, tx: Db, thread: str) -> Callable[[], Head | None]:
        if self._unheld(thread):
            return lambda: None
        rows = self._rows_later(tx, self._execute(tx, HEAD, {"thread": thread}))
        return lambda: Head(int(found[0]["seq"]), str(found[0]["digest"])) if (found := rows()) else None

    def _append_decision(self, tx: Db, entry: dict[str, Any]) -> None:
        row = {"thread": entry["thread"], "seq": entry["seq"], "at": decided_at(entry), "body": text(entry)}
        self._execute(tx, APPEND_DECISION, row)
        self._execute(tx, MOVE_HEAD, {"thread": entry["thread"], "seq": entry["seq"], "digest": entry["digest"]})

    def _show(self, tx: Db, messages: list[ShownMessage]) -> None:
        for message in messages:
            self._execute(tx, SHOW, asdict(message))

    def _touch(self, tx: Db, thread: str, at: float) -> None:
        self._execute(tx, TOUCH, {"thread": thread, "at": at})

    def _first_wins(self, table: FirstWins, key: str, value: str) -> str:
        with self._transaction() as db:
            return self._first_wins_in(db, table, key, value)()

    def _first_wins_in(self, tx: Db, table: FirstWins, key: str, value: str) -> Callable[[], str]:
        """Write ``value`` under ``key`` unless a value is there; what gives the value kept, once asked: ``value``
        where it was written, else the one there (read then, where statements are sent together)."""
        inserted = self._changed(tx, table.insert, {"key": key, "value": value})
        return lambda: value if inserted else str(self._execute(tx, table.select, {"key": key}).fetchone()["value"])

    def _first(
        self, db: Db, kind: type[records.Record], query: str, params: Mapping[str, Any]
    ) -> records.Record | None:
        found = self._all(db, kind, query, params)
        return found[0] if found else None

    def _all(self, db: Db, kind: type[records.Record], query: str, params: Mapping[str, Any]) -> list[records.Record]:
        return _read(kind, self._execute(db, query, params).fetchall())

    def _changed(self, db: Db, statement: str, params: Mapping[str, Any]) -> Taken:
        return self._execute(db, statement, params).rowcount > 0

    def _unheld(self, key: str) -> bool:
        """Whether no row can have ``key``: one asked for from outside (a pause or message id) is found nowhere,
        rather than failing the statement."""
        return not self.dialect.holds_nul and "\x00" in key

    def _execute(self, db: Db, statement: str, params: Mapping[str, Any]) -> Cursor:
        return db.execute(self.dialect.render(statement), params)

    @abstractmethod
    def _reading(self) -> AbstractContextManager[Db]:
        """A connection for reads, each statement seeing what is committed when it runs."""

    @abstractmethod
    def _reading_together(self) -> AbstractContextManager[Db]:
        """A connection whose reads all see the store as it was at one moment."""

    @abstractmethod
    def _schema_version(self, db: Db) -> int:
        """How many MIGRATIONS the store has applied; a concurrent setup waits until ``db``'s transaction ends."""

    @abstractmethod
    def _set_schema_version(self, db: Db, version: int) -> None: ...

    @abstractmethod
    def _migrate(self, db: Db, script: str) -> None:
        """Run one migration's statements inside ``db``'s transaction."""


def _entry(row: Mapping[str, Any]) -> dict[str, Any]:
    """A decision as stored: its body, under the thread and seq of its row."""
    entry: dict[str, Any] = records.load(row["body"])
    return entry | {"thread": row["thread"], "seq": int(row["seq"])}


def _inbox_entry(row: Mapping[str, Any]) -> InboxEntry:
    pause = {name: row[f"p_{name}"] for name in COLUMNS[PauseRecord]}
    run = {name: row[f"r_{name}"] for name in COLUMNS[RunRecord]}
    return InboxEntry(READ[PauseRecord](pause), READ[RunRecord](run), row["owner"])


READ: dict[type, Callable[[Mapping[str, Any]], Any]] = {
    RunRecord: partial(records.from_row, RunRecord),
    PauseRecord: packed.pause_record,
    JournalEntry: packed.entry_record,
}
"""The record a row of each kind keeps, read from the form ``_packed`` kept it in."""


def _read(kind: type[records.Record], rows: list[Any]) -> list[records.Record]:
    read = READ[kind]
    return [read(row) for row in rows]
