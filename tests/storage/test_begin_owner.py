"""A begin names the owner its thread must have (``Changes.owner``): the first to begin a thread owns it, in the
begin's own commit, and another's begin there is refused as a thread that does not exist, with nothing written.
Each test runs once per backend."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from stalwart_agents.errors import NotFound, StorageError, ThreadBusy
from stalwart_agents.storage import Changes, Event, RunRecord, Storage

from ..conftest import present
from .writes import save_run


def a_run(id: str, thread: str = "t", status: str = "waiting") -> RunRecord:
    return RunRecord(id=id, thread=thread, agent="helper", status=status, created_at=1.5, updated_at=1.5)


def begin(store: Storage, run: RunRecord, owner: str | None) -> RunRecord | None:
    return store.commit(Changes(begin=run, owner=owner, events=[Event(run.thread, {"run": run.id})])).run


def stored(store: Storage, thread: str = "t") -> tuple[Any, ...]:
    """All a refused begin must leave as it was."""
    last = store.last_run(thread)
    return store.owner(thread), last and last.id, store.active_run(thread), store.events(thread)


def test_the_first_to_begin_a_thread_owns_it_and_may_begin_there_again(store: Storage) -> None:
    assert store.owner("t") is None
    first = begin(store, a_run("run-1", status="done"), "ana")
    assert first is not None and store.owner("t") == "ana" and store.last_run("t") == first
    assert begin(store, a_run("run-2"), "ana") == store.active_run("t")
    assert store.owner("t") == "ana"


def test_anothers_begin_is_refused_as_no_such_thread_and_writes_nothing(store: Storage) -> None:
    begin(store, a_run("run-1", status="done"), "ana")
    before = stored(store)
    with pytest.raises(NotFound, match="no such thread"):
        begin(store, a_run("run-2"), "bo")
    assert stored(store) == before and store.get_run("run-2") is None


def test_a_stranger_meets_no_such_thread_before_a_busy_one(store: Storage) -> None:
    """Told ThreadBusy, a stranger would learn that the thread exists."""
    begin(store, a_run("run-1"), "ana")
    with pytest.raises(NotFound):
        begin(store, a_run("run-2"), "bo")
    with pytest.raises(ThreadBusy):
        begin(store, a_run("run-3"), "ana")


def test_a_thread_owned_on_its_own_is_its_owners_to_begin_and_a_begin_without_owner_asks_nothing(
    store: Storage,
) -> None:
    store.own("t", "ana")
    with pytest.raises(NotFound):
        begin(store, a_run("run-1", status="done"), "bo")
    assert begin(store, a_run("run-1", status="done"), None) is not None
    assert begin(store, a_run("run-2", status="done"), "ana") is not None
    assert store.owner("t") == "ana"


def test_a_refused_begin_does_not_give_the_thread_an_owner(store: Storage) -> None:
    """The owner is written with the run or not at all: a begin refused for its run's id owns nothing."""
    begin(store, a_run("run-1", thread="other", status="done"), None)
    with pytest.raises(StorageError):
        begin(store, a_run("run-1"), "ana")
    assert store.owner("t") is None and store.last_run("t") is None


def test_of_people_racing_to_begin_one_new_thread_exactly_one_owns_it(store: Storage) -> None:
    people = [f"principal-{n}" for n in range(6)]
    barrier = threading.Barrier(len(people))

    def contender(person: str) -> str:
        barrier.wait(timeout=10)
        try:
            begin(store, a_run(f"run-{person}"), person)
        except (NotFound, StorageError) as exc:
            return type(exc).__name__
        return "won"

    with ThreadPoolExecutor(len(people)) as pool:
        outcomes = dict(zip(people, pool.map(contender, people), strict=True))
    [winner] = [person for person, outcome in outcomes.items() if outcome == "won"]
    assert {outcome for person, outcome in outcomes.items() if person != winner} == {"NotFound"}
    assert store.owner("t") == winner and present(store.active_run("t")).id == f"run-{winner}"
    assert [body for _, body in store.events("t")] == [{"run": f"run-{winner}"}]
    assert all(store.get_run(f"run-{person}") is None for person in people if person != winner)


def test_a_begin_is_its_threads_activity_so_a_prune_keeps_what_it_owns(store: Storage) -> None:
    """The owner is written with the thread's activity: a prune that would have found the thread idle keeps both."""
    now, retention = store.clock(), store.retention
    store.clock = lambda: now - 0.6 * retention
    begin(store, a_run("run-1", status="done"), "ana")
    store.clock = lambda: now
    run = begin(store, a_run("run-2", status="done"), "ana")
    store.prune(now + 0.5 * retention)
    assert store.owner("t") == "ana" and store.last_run("t") == run


def test_a_finished_run_saved_is_its_threads_activity(store: Storage) -> None:
    """Freeing a thread notes its activity in the same write: a prune that would have found it idle keeps it."""
    now, retention = store.clock(), store.retention
    store.clock = lambda: now - 0.6 * retention
    run = begin(store, a_run("run-1", status="waiting"), "ana")
    assert run is not None
    store.clock = lambda: now
    save_run(store, run.replace(status="done"), expected_version=run.version)
    store.prune(now + 0.5 * retention)
    assert store.owner("t") == "ana" and store.last_run("t") is not None
