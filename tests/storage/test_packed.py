"""Whatever form a store keeps a row in, it reads back exactly as it was written, member order included.

SQLite and Postgres keep the rows the engine writes packed (``storage._packed``: what a row's own columns hold is
not written again in its JSON) and every other row as before; a row an earlier version wrote reads as it did.
Each test below writes both kinds, shapes the engine writes and shapes that only look like them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stalwart_agents.storage import Changes, Event, JournalEntry, PauseRecord, RunRecord, Storage, open_storage
from stalwart_agents.storage.base import text

from ..conftest import present
from .stores_before import postgres_at, sqlite_at
from .writes import begin_run, journal_start, journal_update, save_run

CREATED = 1_796_204_975.7189283
"""A pause's time, ``2026-12-02T09:49:35.718Z`` to the millisecond, as the engine writes it in the payload."""
OPENED = "2026-12-02T09:49:35.718Z"
CHARGE = {"name": "amount", "value": 40, "origin": "typed"}
ORDER = {"name": "order_id", "value": "4411", "origin": "said", "label": "Order", "source": {"tool": "look_up"}}
AWKWARD = 'naïve "quoted" \\ back\nslash 🚀'

PAYLOADS: list[dict[str, Any]] = [
    # as the engine writes them
    {
        "tool": "charge_card",
        "title": "Charge 40",
        "arguments": [CHARGE, ORDER],
        "reasons": ["write"],
        "created_at": OPENED,
    },
    {"tool": "ask_human", "question": AWKWARD, "arguments": [], "created_at": OPENED},
    {"tool": "charge_card", "created_at": OPENED},
    # as only a writer other than the engine would
    {"tool": "charge_card", "title": "late", "created_at": "2026-12-02T09:49:35.719Z"},
    {"title": "tool not first", "tool": "charge_card", "created_at": OPENED},
    {"tool": 7, "created_at": OPENED},
    {"tool": "charge_card", "title": "no time"},
    {"tool": "charge_card", "created_at": OPENED, "title": "time not last"},
    {"tool": "charge_card", "arguments": {"amount": [40, "typed"]}, "created_at": OPENED},
    {"tool": "charge_card", "arguments": [CHARGE, CHARGE], "created_at": OPENED},
    {"tool": "charge_card", "arguments": [{"value": 40, "name": "amount", "origin": "typed"}], "created_at": OPENED},
    {"tool": "charge_card", "arguments": [{"name": 7, "value": 40, "origin": "typed"}], "created_at": OPENED},
    {"tool": "charge_card", "arguments": ["amount"], "created_at": OPENED},
    {"question": "send?"},
    {},
]

STEP = {"type": "step", "run": "run-1", "key": "1", "tool": "look_up", "arguments": [ORDER], "at": OPENED}
BODIES: list[dict[str, Any]] = [
    # as the engine writes them
    STEP,
    {"type": "turn", "run": "run-1", "text": AWKWARD, "at": "1969-12-31T23:59:59.999Z"},
    {"type": "pause", "run": "run-1", "pause": {"id": "p-1", "at": OPENED}, "at": "0001-01-01T00:00:00.000Z"},
    {
        "type": 'say "hi"',
        "run": "rün\\1",
        "note": ',"at":"2026-12-02T09:49:35.718Z"}',
        "at": "9999-12-31T23:59:59.999Z",
    },
    # as only a writer other than the engine would
    {"type": "turn", "run": "run-1", "at": OPENED},
    {"type": "turn", "run": "run-\u0000", "text": "a NUL", "at": OPENED},
    {"type": "turn", "run": "run-1", "text": "a day that is not", "at": "2026-02-30T09:49:35.718Z"},
    {"type": "turn", "run": "run-1", "text": "no milliseconds", "at": "2026-12-02T09:49:35Z"},
    {"type": "turn", "run": "run-1", "text": "an offset", "at": "2026-12-02T09:49:35.718+00:00"},
    {"type": "turn", "run": "run-1", "at": OPENED, "text": "time not last"},
    {"run": "run-1", "type": "turn", "text": "run first", "at": OPENED},
    {"type": "turn", "run": 1, "text": "a run that is a number", "at": OPENED},
    {"type": "turn", "run": "run-1", "text": "a time that is a number", "at": 1.5},
    {"type": "turn", "text": "no run", "at": OPENED},
    {"what": "paused"},
]


def written(value: Any) -> str:
    """``value`` as JSON, members in order: two values that write alike are the same, member order included."""
    return text(value)


def test_every_pause_reads_back_exactly_as_written(store: Storage) -> None:
    run = begin_run(store, RunRecord("run-1", "thread-1", "helper", "waiting", created_at=1.5, updated_at=1.5))
    pauses = [
        PauseRecord(f"pause-{n}", run.id, run.thread, "confirm", n, "tok", payload, created_at=CREATED)
        for n, payload in enumerate(PAYLOADS)
    ]
    store.commit(Changes(pauses=pauses))
    expected, read = [written(payload) for payload in PAYLOADS], store.run_pauses(run.id)
    assert read == pauses and [written(p.payload) for p in read] == expected
    assert [written(present(store.get_pause(p.id)).payload) for p in pauses] == expected
    listed = {entry.pause.id: entry.pause for entry in store.inbox(limit=len(pauses))}
    assert [written(listed[p.id].payload) for p in pauses] == expected
    charges = [p.id for p in pauses if p.payload.get("tool") == "charge_card"]
    assert [entry.pause.id for entry in store.inbox(tool="charge_card", limit=50)] == sorted(charges, reverse=True)


def entries(run: str) -> list[JournalEntry]:
    """Journal entries the engine writes (their idempotency key ``<run>:<key>``), and others."""
    shapes: list[tuple[str, Any]] = [
        (f"{run}:1", [ORDER]),
        (f"{run}:2", []),
        (f"{run}:3", [CHARGE, ORDER, CHARGE]),
        (f"{run}:4", {"to": "ana"}),
        (f"{run}:5", ["amount"]),
        (f"{run}:5", [ORDER]),
        ("", [ORDER]),
        (":", [ORDER]),
        (f"{run}/7", [ORDER]),
    ]
    return [
        JournalEntry(run, str(n), "look_up", arguments, "started", idempotency_key=key, started_at=3.5)
        for n, (key, arguments) in enumerate(shapes, start=1)
    ]


def test_every_journal_entry_reads_back_exactly_as_written_and_updated(store: Storage) -> None:
    run = begin_run(store, RunRecord("run-1", "thread-1", "helper", "running", created_at=1.5, updated_at=1.5))
    started = [journal_start(store, entry) for entry in entries(run.id)]
    assert started == entries(run.id)
    assert [written(e.arguments) for e in store.journal(run.id)] == [written(e.arguments) for e in entries(run.id)]
    done = [e.replace(status="done", result={"ok": AWKWARD}, finished_at=4.5) for e in started]
    assert [journal_update(store, e, expected_status="started") for e in done] == done
    renamed = journal_update(store, done[0].replace(idempotency_key="another"), expected_status="done")
    assert renamed.idempotency_key == "another" and store.journal(run.id) == [renamed, *done[1:]]
    assert present(store.snapshot(run.id)).journal == [renamed, *done[1:]]


def test_every_event_reads_back_exactly_as_written(store: Storage) -> None:
    store.commit(Changes(events=[Event("thread-1", body) for body in BODIES]))
    assert [written(body) for _, body in store.events("thread-1")] == [written(body) for body in BODIES]
    [(_, after)] = store.events("thread-1", after=store.events("thread-1")[0][0], limit=1)
    assert written(after) == written(BODIES[1])


def test_a_threads_last_run_is_its_run_while_active_and_after_it_finishes(store: Storage) -> None:
    run = begin_run(store, RunRecord("run-1", "thread-1", "helper", "waiting", created_at=1.5, updated_at=1.5))
    assert store.last_run("thread-1") == run == store.active_run("thread-1")
    done = save_run(store, run.replace(status="done"), expected_version=0)
    assert store.last_run("thread-1") == done and store.active_run("thread-1") is None
    later = begin_run(store, RunRecord("run-2", "thread-1", "helper", "done", created_at=2.5, updated_at=2.5))
    assert store.last_run("thread-1") == later and store.active_run("thread-1") is None


BEFORE_PACKING = 9
"""The schema version before migration 10 let rows be packed."""


def as_before(execute: Callable[..., Any], mark: str) -> None:
    """A paused run's rows as the version before packing wrote them, the engine's shapes all: its thread naming it
    both active and last, its pause, a journal entry, and its events."""

    def insert(table: str, row: dict[str, Any]) -> None:
        execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join([mark] * len(row))})", tuple(row.values()))

    insert("threads", {"thread": "thread-1", "active_run": "run-1", "last_run": "run-1", "touched_at": 1.5})
    state = {"id": "run-1", "thread": "thread-1", "agent": "helper", "status": "waiting", "version": 0}
    insert("runs", state | {"state": "{}", "created_at": 1.5, "updated_at": 1.5})
    pause = {"id": "pause-1", "run": "run-1", "thread": "thread-1", "kind": "confirm", "step": 1, "token": "tok"}
    payload = {"payload": text(PAYLOADS[0]), "status": "open", "created_at": CREATED, "tool": "charge_card"}
    insert("pauses", pause | payload)
    entry = {"run": "run-1", "key": "1", "tool": "look_up", "arguments": text([ORDER]), "status": "done"}
    insert("journal", entry | {"idempotency_key": "run-1:1", "attempt": 1, "started_at": 3.5, "started_order": 1})
    for body in (STEP, BODIES[1]):
        insert("events", {"thread": "thread-1", "body": text(body)})


def assert_read_as_before_and_written_anew_alike(url: str) -> None:
    store = open_storage(url)
    try:
        snapshot = present(store.snapshot("run-1"))
        [pause], [entry] = snapshot.pauses, snapshot.journal
        assert written(pause.payload) == written(PAYLOADS[0]) and pause.created_at == CREATED
        assert (entry.idempotency_key, written(entry.arguments)) == ("run-1:1", written([ORDER]))
        assert [written(body) for _, body in store.events("thread-1")] == [written(STEP), written(BODIES[1])]
        assert store.last_run("thread-1") == snapshot.run == store.active_run("thread-1")
        again = Changes(
            pauses=[pause.replace(id="pause-2")], starts=[entry.replace(key="2", idempotency_key="run-1:2")]
        )
        store.commit(again)
        [_, anew] = store.run_pauses("run-1")
        assert written(anew.payload) == written(PAYLOADS[0])
        assert store.journal("run-1")[1].idempotency_key == "run-1:2"
    finally:
        store.close()


def test_a_sqlite_store_from_before_packing_reads_its_rows_as_they_were(tmp_path: Path) -> None:
    assert_read_as_before_and_written_anew_alike(sqlite_at(tmp_path / "runs.db", BEFORE_PACKING, as_before))


def test_a_postgres_store_from_before_packing_reads_its_rows_as_they_were(postgres_url: str) -> None:
    assert_read_as_before_and_written_anew_alike(postgres_at(postgres_url, BEFORE_PACKING, as_before))


def test_sqlite_keeps_no_member_of_a_paused_runs_json_that_its_columns_hold(tmp_path: Path) -> None:
    """What the bytes of a paused run (``bench/langgraph_compare.py``) count on: the engine's rows are packed."""
    store = open_storage(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        run = begin_run(store, RunRecord("run-1", "thread-1", "helper", "waiting", created_at=1.5, updated_at=1.5))
        pause = PauseRecord("pause-1", run.id, run.thread, "confirm", 1, "tok", PAYLOADS[0], created_at=CREATED)
        entry = entries(run.id)[0]
        store.commit(Changes(pauses=[pause], starts=[entry], events=[Event("thread-1", STEP)]))
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "runs.db") as db:
        kept = db.execute("SELECT payload FROM pauses UNION ALL SELECT arguments || idempotency_key FROM journal")
        [payload, arguments] = [row[0] for row in kept]
        [(body, threads)] = db.execute("SELECT body, (SELECT COUNT(last_run) FROM threads) FROM events").fetchall()
    assert "charge_card" not in payload and OPENED not in payload and '"name"' not in payload
    assert "run-1" not in arguments and '"name"' not in arguments
    assert '"step"' not in body and "run-1" not in body and OPENED not in body
    assert threads == 0
