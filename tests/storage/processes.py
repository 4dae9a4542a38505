"""Races between processes for the SQLite and Postgres tests: two spawned workers meet at a barrier each round."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any

from stalwart_agents.errors import NotFound, StorageError
from stalwart_agents.storage import Changes, Event, PauseRecord, RunRecord, Storage, open_storage

from .writes import begin_run, claim, open_pause

SPAWN = multiprocessing.get_context("spawn")


def waiting_run(store: Storage, n: int) -> RunRecord:
    run = begin_run(store, RunRecord(id=f"run-{n}", thread=f"thread-{n}", agent="helper", status="waiting"))
    open_pause(store, PauseRecord(f"pause-{n}", run.id, run.thread, "approve", 1, "secret", {"n": n}))
    return run


def in_two_processes(target: Callable[..., None], rounds: int, *args: Any) -> list[tuple[int, str, str]]:
    """Run ``target`` in two spawned processes that meet at a barrier each round; gather one result per round each."""
    barrier, results = SPAWN.Barrier(2), SPAWN.Queue()
    workers = [SPAWN.Process(target=target, args=(name, barrier, results, *args)) for name in ("left", "right")]
    for worker in workers:
        worker.start()
    gathered = [results.get(timeout=60) for _ in range(2 * rounds)]
    for worker in workers:
        worker.join(timeout=30)
        assert worker.exitcode == 0
    return gathered


def claim_each_round(name: str, barrier: Any, results: Any, url: str, rounds: int) -> None:
    """Claim pause-<n> of run-<n> (see ``waiting_run``) each round, at the same moment as the other worker."""
    store = open_storage(url)
    try:
        for n in range(rounds):
            run = store.get_run(f"run-{n}")
            assert run is not None
            barrier.wait(timeout=30)
            try:
                claim(store, f"pause-{n}", {"by": name}, run.replace(status="running"), expected_version=0)
                results.put((n, name, "won"))
            except StorageError as exc:
                results.put((n, name, type(exc).__name__))
    except BaseException:
        barrier.abort()
        raise
    finally:
        store.close()


def set_up_each_round(name: str, barrier: Any, results: Any, urls: list[str]) -> None:
    """Open (and so set up) a fresh store each round, at the same moment as the other worker."""
    for n, url in enumerate(urls):
        barrier.wait(timeout=30)
        try:
            open_storage(url).close()
            results.put((n, name, "ok"))
        except Exception as exc:
            results.put((n, name, repr(exc)))


def assert_one_winner_each_round(results: list[tuple[int, str, str]], store: Storage, rounds: int) -> None:
    for n in range(rounds):
        outcomes = {name: outcome for number, name, outcome in results if number == n}
        [winner] = [name for name, outcome in outcomes.items() if outcome == "won"]
        assert set(outcomes.values()) - {"won"} <= {"PauseClosed", "VersionConflict"}
        assert len(outcomes) == 2
        pause, run = store.get_pause(f"pause-{n}"), store.get_run(f"run-{n}")
        assert pause is not None and pause.answer == {"by": winner}
        assert run is not None and run.version == 1


def begin_owned_each_round(name: str, barrier: Any, results: Any, url: str, rounds: int) -> None:
    """Begin a run in the new thread ``new-<n>`` as the owner ``name`` each round, at the same moment as the other
    worker; put "won", or the error's name."""
    store = open_storage(url)
    try:
        for n in range(rounds):
            run = RunRecord(id=f"run-{n}-{name}", thread=f"new-{n}", agent="helper", status="waiting")
            changes = Changes(begin=run, owner=name, events=[Event(run.thread, {"by": name})])
            barrier.wait(timeout=30)
            try:
                store.commit(changes)
                results.put((n, name, "won"))
            except (StorageError, NotFound) as exc:
                results.put((n, name, type(exc).__name__))
    except BaseException:
        barrier.abort()
        raise
    finally:
        store.close()


def assert_one_owner_each_round(results: list[tuple[int, str, str]], store: Storage, rounds: int) -> None:
    """Each round's thread is its winner's, and nothing of the loser's (its run, its event) was stored."""
    for n in range(rounds):
        outcomes = {name: outcome for number, name, outcome in results if number == n}
        [winner] = [name for name, outcome in outcomes.items() if outcome == "won"]
        [loser] = [name for name in outcomes if name != winner]
        assert outcomes[loser] == "NotFound"
        last = store.last_run(f"new-{n}")
        assert store.owner(f"new-{n}") == winner and last is not None and last.id == f"run-{n}-{winner}"
        assert store.get_run(f"run-{n}-{loser}") is None
        assert [body for _, body in store.events(f"new-{n}")] == [{"by": winner}]
