"""What only the SQLite store promises: processes share one file safely, and the schema migrates in place."""

from __future__ import annotations

import gc
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stalwart_agents.errors import StorageUnavailable
from stalwart_agents.storage import open_storage, sql_schema
from stalwart_agents.storage.sql_schema import MIGRATIONS
from stalwart_agents.storage.sqlite import SqliteStorage

from ..conftest import present
from .processes import (
    assert_one_owner_each_round,
    assert_one_winner_each_round,
    begin_owned_each_round,
    claim_each_round,
    in_two_processes,
    set_up_each_round,
    waiting_run,
)
from .writes import append_event

ROUNDS = 20


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "runs.db"


@pytest.fixture
def store(path: Path) -> Iterator[SqliteStorage]:
    opened = SqliteStorage(path)
    opened.setup()
    yield opened
    opened.close()


def pragma(path: Path, name: str) -> Any:
    with sqlite3.connect(path) as connection:
        return connection.execute(f"PRAGMA {name}").fetchone()[0]


def tables(path: Path) -> list[str]:
    with sqlite3.connect(path) as connection:
        return [row[0] for row in connection.execute("SELECT name FROM sqlite_master ORDER BY name")]


def test_two_processes_racing_a_claim_on_one_file_have_exactly_one_winner(path: Path, store: SqliteStorage) -> None:
    for n in range(ROUNDS):
        waiting_run(store, n)
    results = in_two_processes(claim_each_round, ROUNDS, f"sqlite:///{path}", ROUNDS)
    assert_one_winner_each_round(results, store, ROUNDS)


def test_two_processes_setting_up_one_fresh_file_both_succeed(tmp_path: Path) -> None:
    paths = [tmp_path / f"fresh-{n}.db" for n in range(8)]
    results = in_two_processes(set_up_each_round, len(paths), [f"sqlite:///{path}" for path in paths])
    assert {outcome for _, _, outcome in results} == {"ok"}
    for path in paths:
        assert pragma(path, "user_version") == len(MIGRATIONS)
        assert pragma(path, "journal_mode") == "wal"


def test_setup_counts_the_migrations_in_user_version(path: Path, store: SqliteStorage) -> None:
    assert pragma(path, "user_version") == len(MIGRATIONS)
    assert {"threads", "runs", "pauses", "journal", "events"} <= set(tables(path))


def test_setup_twice_is_a_no_op(path: Path, store: SqliteStorage) -> None:
    run = waiting_run(store, 1)
    schema = tables(path)
    store.setup()
    assert tables(path) == schema
    assert pragma(path, "user_version") == len(MIGRATIONS)
    assert store.get_run(run.id) == run


def test_the_file_is_in_wal_mode(path: Path, store: SqliteStorage) -> None:
    assert pragma(path, "journal_mode") == "wal"


def test_a_new_migration_applies_once_and_keeps_paused_runs(
    path: Path, store: SqliteStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = waiting_run(store, 1)
    monkeypatch.setattr(sql_schema, "MIGRATIONS", [*MIGRATIONS, "ALTER TABLE runs ADD COLUMN note TEXT;"])
    store.setup()
    store.setup()
    assert pragma(path, "user_version") == len(MIGRATIONS) + 1
    assert store.get_run(run.id) == run
    assert present(store.get_pause("pause-1")).status == "open"


def test_a_failing_migration_changes_nothing(path: Path, store: SqliteStorage, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = "CREATE TABLE half_done (x TEXT); ALTER TABLE no_such_table ADD COLUMN y TEXT;"
    monkeypatch.setattr(sql_schema, "MIGRATIONS", [*MIGRATIONS, broken])
    with pytest.raises(sqlite3.OperationalError):
        store.setup()
    assert "half_done" not in tables(path)
    assert pragma(path, "user_version") == len(MIGRATIONS)


def test_a_file_from_a_newer_version_is_refused(path: Path, store: SqliteStorage) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(StorageUnavailable, match="newer"):
        store.setup()


def test_the_url_names_the_file_and_opens_it_again(path: Path, store: SqliteStorage) -> None:
    run = waiting_run(store, 1)
    assert store.url == f"sqlite:///{path}"
    again = open_storage(store.url)
    try:
        assert again.get_run(run.id) == run
    finally:
        again.close()


def test_an_unopenable_path_is_unavailable_and_named(tmp_path: Path) -> None:
    with pytest.raises(StorageUnavailable) as refused:
        SqliteStorage(tmp_path).setup()
    assert str(tmp_path) in str(refused.value)
    assert isinstance(refused.value.__cause__, sqlite3.OperationalError)


def test_a_missing_folder_is_unavailable_and_named(tmp_path: Path) -> None:
    folder = tmp_path / "no-such-folder"
    with pytest.raises(StorageUnavailable, match="folder") as refused:
        SqliteStorage(folder / "runs.db").setup()
    assert str(folder) in str(refused.value)
    assert not folder.exists()


def test_a_file_that_is_not_a_database_is_unavailable(path: Path) -> None:
    path.write_bytes(b"not a database at all " * 100)
    with pytest.raises(StorageUnavailable, match="not a SQLite database"):
        SqliteStorage(path).setup()


def test_a_lock_held_past_the_busy_timeout_is_unavailable_without_sql_in_the_message(path: Path) -> None:
    store = SqliteStorage(path, busy_timeout=0.05)
    store.setup()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StorageUnavailable, match="locked") as refused:
            append_event(store, "thread-a", {"n": 1})
        assert str(path) in str(refused.value)
        assert "INSERT" not in str(refused.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert append_event(store, "thread-a", {"n": 2}) > 0
    store.close()


def test_close_closes_the_connection_of_every_thread(path: Path) -> None:
    store = SqliteStorage(path)
    store.setup()
    workers = [threading.Thread(target=append_event, args=(store, "thread-a", {"n": n})) for n in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert path.with_name("runs.db-wal").exists()
    store.close()
    assert not path.with_name("runs.db-wal").exists()


def test_the_connection_of_a_thread_that_ended_is_closed(path: Path) -> None:
    store = SqliteStorage(path)

    def set_up_and_write() -> None:
        store.setup()
        append_event(store, "thread-a", {"n": 1})

    worker = threading.Thread(target=set_up_and_write)
    worker.start()
    worker.join()
    gc.collect()
    assert not path.with_name("runs.db-wal").exists()
    assert store.events("thread-a")[0][1] == {"n": 1}
    store.close()


def test_two_processes_beginning_one_new_thread_as_two_people_leave_it_to_one(path: Path, store: SqliteStorage) -> None:
    results = in_two_processes(begin_owned_each_round, ROUNDS, f"sqlite:///{path}", ROUNDS)
    assert_one_owner_each_round(results, store, ROUNDS)
