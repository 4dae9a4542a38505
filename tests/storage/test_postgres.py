"""What only the Postgres store promises: safe races between processes, one migration, and a lost server said plainly.

Each test gets its own database on the session's cluster (see tests/conftest.py);
the tests that stop the server get a cluster of their own.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("psycopg")

import psycopg
from psycopg_pool import ConnectionPool

from stalwart_agents import Desk
from stalwart_agents.errors import ConfigError, StorageUnavailable
from stalwart_agents.storage import check_url, open_storage
from stalwart_agents.storage.postgres import PostgresStorage, masked
from stalwart_agents.storage.sql_schema import MIGRATIONS

from ..conftest import SHOP
from ..postgres import Cluster, Turns, throwaway_cluster
from .processes import (
    assert_one_owner_each_round,
    assert_one_winner_each_round,
    begin_owned_each_round,
    claim_each_round,
    in_two_processes,
    set_up_each_round,
    waiting_run,
)
from .writes import append_event, claim

ROUNDS = 10
PASSWORD = "s3cret-Pa55"


@pytest.fixture
def url(postgres_url: str) -> str:
    return postgres_url


@pytest.fixture
def store(url: str) -> Iterator[PostgresStorage]:
    opened = PostgresStorage(url)
    opened.setup()
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def own_cluster() -> Iterator[Cluster]:
    """A cluster these tests may stop and start without disturbing the session's."""
    with throwaway_cluster() as cluster:
        yield cluster


def versions(url: str) -> list[int]:
    with psycopg.connect(url) as db:
        return [row[0] for row in db.execute("SELECT version FROM schema_version")]


def test_two_processes_racing_a_claim_have_exactly_one_winner(url: str, store: PostgresStorage) -> None:
    for n in range(ROUNDS):
        waiting_run(store, n)
    results = in_two_processes(claim_each_round, ROUNDS, url, ROUNDS)
    assert_one_winner_each_round(results, store, ROUNDS)


def test_setup_applies_the_migrations_once_and_again_is_harmless(url: str, store: PostgresStorage) -> None:
    waiting_run(store, 1)
    store.setup()
    store.setup()
    assert versions(url) == [len(MIGRATIONS)]
    assert store.get_run("run-1") is not None


def test_two_processes_setting_up_one_fresh_database_both_succeed(postgres_cluster: Cluster) -> None:
    urls = [postgres_cluster.create_database(f"t_{uuid.uuid4().hex}") for _ in range(4)]
    results = in_two_processes(set_up_each_round, len(urls), urls)
    assert {outcome for _, _, outcome in results} == {"ok"}
    for url in urls:
        assert versions(url) == [len(MIGRATIONS)]


def test_a_schema_newer_than_this_code_is_refused(url: str, store: PostgresStorage) -> None:
    with psycopg.connect(url) as db:
        db.execute("UPDATE schema_version SET version = %s", (len(MIGRATIONS) + 1,))
    with pytest.raises(StorageUnavailable, match="newer than"):
        store.setup()


def test_the_url_attribute_hides_the_password(postgres_cluster: Cluster) -> None:
    url = postgres_cluster.create_database(f"t_{uuid.uuid4().hex}").replace("stalwart@", f"stalwart:{PASSWORD}@")
    store = open_storage(url)
    try:
        assert PASSWORD not in store.url and store.url.startswith("postgresql://stalwart:***@127.0.0.1:")
        assert store.get_run("nope") is None
    finally:
        store.close()
    assert (
        masked(f"postgres://h/db?user=u&password={PASSWORD}&sslmode=disable")
        == "postgres://h/db?user=u&password=***&sslmode=disable"
    )
    assert masked("postgres://u@h:5/db") == "postgres://u@h:5/db"


@pytest.mark.parametrize(
    "bad", ["postgres://", "postgres://host", "postgres://host/", "postgres://host:port/db", "postgres://h/a/b"]
)
def test_a_postgres_url_names_a_host_and_a_database(bad: str) -> None:
    with pytest.raises(ValueError, match="postgres://USER:PASSWORD@HOST:PORT/DATABASE"):
        check_url(bad)
    with pytest.raises(ConfigError):
        open_storage(bad)


def test_a_stopped_server_is_unavailable_quickly_and_a_restart_brings_the_store_back(own_cluster: Cluster) -> None:
    url = own_cluster.create_database(f"t_{uuid.uuid4().hex}").replace("stalwart@", f"stalwart:{PASSWORD}@")
    store = PostgresStorage(url, timeout=2)
    try:
        store.setup()
        run = waiting_run(store, 1)
        own_cluster.stop()
        try:
            started = time.monotonic()
            with pytest.raises(StorageUnavailable) as refused:
                store.get_run(run.id)
            assert time.monotonic() - started < 5
            message = str(refused.value)
            assert f"127.0.0.1:{own_cluster.port}/" in message and PASSWORD not in message and "SELECT" not in message
            with pytest.raises(StorageUnavailable):
                claim(store, "pause-1", {"ok": True}, run, expected_version=0)
        finally:
            own_cluster.start()
        assert store.get_run(run.id) == run
        assert claim(store, "pause-1", {"ok": True}, run.replace(status="running"), expected_version=0).version == 1
    finally:
        store.close()


def test_opening_a_store_on_a_stopped_server_fails_quickly(own_cluster: Cluster) -> None:
    url = own_cluster.create_database(f"t_{uuid.uuid4().hex}").replace("stalwart@", f"stalwart:{PASSWORD}@")
    own_cluster.stop()
    try:
        started = time.monotonic()
        with pytest.raises(StorageUnavailable) as refused:
            open_storage(url)
        assert time.monotonic() - started < 10 and PASSWORD not in str(refused.value)
    finally:
        own_cluster.start()


def test_a_missing_database_is_named_in_the_error(postgres_cluster: Cluster) -> None:
    store = PostgresStorage(postgres_cluster.url("no_such_db", password=PASSWORD), timeout=1)
    try:
        with pytest.raises(StorageUnavailable, match='database "no_such_db" does not exist') as refused:
            store.setup()
        assert PASSWORD not in str(refused.value)
    finally:
        store.close()


def test_two_processes_beginning_one_new_thread_as_two_people_leave_it_to_one(url: str, store: PostgresStorage) -> None:
    results = in_two_processes(begin_owned_each_round, ROUNDS, url, ROUNDS)
    assert_one_owner_each_round(results, store, ROUNDS)


def test_a_restart_between_two_requests_costs_no_request(own_cluster: Cluster) -> None:
    """A connection returned a moment ago is handed out unchecked, unless the server has said something on it since:
    a restarted server closes every connection, so the next request gets a new one instead of failing."""
    url = own_cluster.create_database(f"t_{uuid.uuid4().hex}").replace("stalwart@", f"stalwart:{PASSWORD}@")
    store = PostgresStorage(url, timeout=5, check_idle=3600)
    try:
        store.setup()
        run = waiting_run(store, 1)
        own_cluster.stop()
        own_cluster.start()
        assert store.get_run(run.id) == run
        assert claim(store, "pause-1", {"ok": True}, run.replace(status="running"), expected_version=0).version == 1
    finally:
        store.close()


def test_a_connection_used_a_moment_ago_costs_no_round_trip_to_check(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # One connection: a pool of more may open another while the first is still being made (on a busy machine),
    # and a new connection is rightly checked the first time it is handed out.
    store = PostgresStorage(url, max_connections=1)
    store.setup()
    checked: list[object] = []
    check = ConnectionPool.check_connection
    monkeypatch.setattr(ConnectionPool, "check_connection", lambda connection: checked.append(check(connection)))
    waiting_run(store, 1)
    checked.clear()
    for _ in range(5):
        assert store.get_run("run-1") is not None
    assert checked == []
    store.close()


def test_a_touch_that_writes_nothing_still_waits_for_the_threads_row(url: str, store: PostgresStorage) -> None:
    """A thread touched a moment ago keeps its stored touch, yet a commit's touch still locks its row: a second
    commit's events wait for the first's, so a thread's event ids rise in commit order."""
    store.clock = lambda: 1000.0
    append_event(store, "thread-1", {"n": 1})
    with psycopg.connect(url) as holder:
        holder.execute("SELECT * FROM threads WHERE thread = 'thread-1' FOR UPDATE")
        appending = threading.Thread(target=append_event, args=(store, "thread-1", {"n": 2}))
        appending.start()
        appending.join(0.5)
        assert appending.is_alive()
        holder.commit()
    appending.join(5)
    assert not appending.is_alive() and [body["n"] for _, body in store.events("thread-1")] == [1, 2]
    with psycopg.connect(url) as db:
        assert db.execute("SELECT touched_at FROM threads WHERE thread = 'thread-1'").fetchone() == (1000.0,)


def test_a_turn_and_its_approval_wait_on_few_round_trips(url: str, ledger: Any) -> None:
    """Where Postgres is across a network, a cycle's time is its round trips.  A turn that pauses: the thread's
    active run read, then its commit in two (the thread held with the run's writes, whether each took effect asked
    with them; then its events and COMMIT).  The approval that runs the charge: the run, its pauses and its journal
    read in one, then two commits of two each: the claim with the charge's start (its writes, the thread held and
    its decision record's head asked for), then its outcome."""
    port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
    turns = Turns(port)
    store = PostgresStorage(turns.url(url), max_connections=1)
    store.setup()
    desk = Desk.from_file(SHOP, storage=store)
    counted: list[tuple[int, int]] = []
    try:
        for n in range(3):
            before = turns.count
            pause = desk.send(f"trips-{n}", "charge 40 to order 4411").waiting[0]
            sent = turns.count
            assert desk.confirm(f"trips-{n}", "approve", waiting=pause.id, token=pause.token).status == "done"
            counted.append((sent - before, turns.count - sent))
    finally:
        store.close()
        turns.close()
    assert counted[1:] == [(3, 5), (3, 5)]
    assert len(ledger("charge")) == 3
