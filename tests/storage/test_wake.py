"""Deadlines in the store, on every backend: the clock's index of open pauses, its claims, and closing a run's
pauses in the commit that moves past them."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from stalwart_agents.errors import VersionConflict
from stalwart_agents.storage import Changes, Storage

from .test_conformance import a_pause, a_run
from .writes import begin_run, claim, open_pause


def a_run_waiting_on(store: Storage, n: int, *pauses: dict[str, Any]) -> str:
    run = begin_run(store, a_run(f"run-{n}", f"thread-{n}", status="waiting"))
    for index, fields in enumerate(pauses):
        open_pause(store, a_pause(f"pause-{n}-{index}", run=run.id, thread=run.thread, **fields))
    return run.id


def due(store: Storage, now: float, limit: int = 100) -> list[str]:
    return [pause.id for pause in store.due_pauses(now, limit)]


def test_due_pauses_are_the_open_ones_whose_wake_has_come_soonest_first(store: Storage) -> None:
    a_run_waiting_on(store, 1, {"wake_at": 30.0}, {"wake_at": None}, {"wake_at": 10.0})
    a_run_waiting_on(store, 2, {"wake_at": 20.0}, {"wake_at": 50.0})
    assert due(store, 5.0) == []
    assert due(store, 30.0) == ["pause-1-2", "pause-2-0", "pause-1-0"]
    assert due(store, 30.0, limit=2) == ["pause-1-2", "pause-2-0"]
    stored = store.get_pause("pause-1-2")
    assert stored is not None and (stored.wake_at, stored.woken) == (10.0, 0)


def test_an_answered_pause_is_never_due(store: Storage) -> None:
    run = a_run_waiting_on(store, 1, {"wake_at": 10.0})
    waiting = store.get_run(run)
    assert waiting is not None
    claim(store, "pause-1-0", {"decision": "approve"}, waiting, expected_version=waiting.version)
    assert due(store, 100.0) == []
    assert store.claim_wake(run, "pause-1-0", 0, 100.0, 130.0) is False


def test_one_claim_of_a_wake_wins_and_it_is_due_again_once_its_hold_runs_out(store: Storage) -> None:
    run = a_run_waiting_on(store, 1, {"wake_at": 10.0})
    assert store.claim_wake(run, "pause-1-0", 0, 5.0, 35.0) is False  # not due yet
    assert store.claim_wake(run, "pause-1-0", 0, 12.0, 42.0) is True
    assert store.claim_wake(run, "pause-1-0", 0, 13.0, 43.0) is False  # held by the first
    assert due(store, 41.0) == [] and due(store, 42.0) == ["pause-1-0"]
    assert store.claim_wake(run, "pause-1-0", 1, 50.0, 80.0) is False  # another event than the one it is at
    assert store.claim_wake("run-9", "pause-1-0", 0, 50.0, 80.0) is False  # another run's
    assert store.claim_wake(run, "pause-1-0", 0, 50.0, 80.0) is True  # the first worker died: taken over


def test_a_wake_moves_on_only_from_the_event_it_is_at(store: Storage) -> None:
    run = a_run_waiting_on(store, 1, {"wake_at": 10.0})
    assert store.set_wake(run, "pause-1-0", 1, (2, 20.0)) is False
    assert store.set_wake(run, "pause-1-0", 0, (1, 20.0)) is True
    assert store.set_wake(run, "pause-1-0", 0, (1, 25.0)) is False  # a second worker done with the same event
    stored = store.get_pause("pause-1-0")
    assert stored is not None and (stored.wake_at, stored.woken) == (20.0, 1)
    assert store.set_wake(run, "pause-1-0", 1, (2, None)) is True
    assert due(store, 1e12) == []


def test_claims_of_one_wake_from_many_threads_let_one_through(store: Storage) -> None:
    run = a_run_waiting_on(store, 1, {"wake_at": 10.0})
    won: list[bool] = []
    start = threading.Barrier(6)

    def take() -> None:
        start.wait()
        won.append(store.claim_wake(run, "pause-1-0", 0, 11.0, 41.0))

    takers = [threading.Thread(target=take) for _ in range(6)]
    for taker in takers:
        taker.start()
    for taker in takers:
        taker.join()
    assert sorted(won) == [False] * 5 + [True]


def test_a_commit_closes_the_pauses_its_run_moved_past_and_nothing_lists_them(store: Storage) -> None:
    run_id = a_run_waiting_on(store, 1, {"wake_at": 10.0}, {"wake_at": 20.0, "created_at": 3.0})
    run = store.get_run(run_id)
    assert run is not None
    open_ones = store.run_pauses(run_id)
    done = run.replace(status="cancelled")
    store.commit(Changes(run=done, version=run.version, closes=open_ones))
    assert [p.status for p in store.run_pauses(run_id)] == ["closed", "closed"]
    assert due(store, 1e12) == []
    assert store.inbox() == []
    assert store.due_deliveries(1e12) == []
    assert store.claim_wake(run_id, "pause-1-0", 0, 50.0, 80.0) is False


def test_closing_leaves_an_answered_pause_answered(store: Storage) -> None:
    run_id = a_run_waiting_on(store, 1, {}, {"created_at": 3.0})
    waiting = store.get_run(run_id)
    assert waiting is not None
    claimed = claim(store, "pause-1-0", {"decision": "skip"}, waiting, expected_version=waiting.version)
    store.commit(Changes(run=claimed.replace(status="done"), version=claimed.version, closes=store.run_pauses(run_id)))
    assert [(p.id, p.status) for p in store.run_pauses(run_id)] == [("pause-1-0", "answered"), ("pause-1-1", "closed")]


def test_closes_are_refused_with_the_rest_of_their_commit(store: Storage) -> None:
    run_id = a_run_waiting_on(store, 1, {})
    run = store.get_run(run_id)
    assert run is not None
    stale = Changes(run=run.replace(status="done"), version=run.version + 5, closes=store.run_pauses(run_id))
    with pytest.raises(VersionConflict):
        store.commit(stale)
    assert [p.status for p in store.run_pauses(run_id)] == ["open"]
