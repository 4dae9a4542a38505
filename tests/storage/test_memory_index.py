"""memory:// reads a thread's and a run's rows by the indexes its commits keep, never by a walk over every row.

Every dict the store keeps is swapped for one that counts the entries read from it (one per lookup, one per entry
a walk yields): a cycle of a turn, an answer and the readings then reads as many entries in a store crowded with
threads as in a nearly empty one. The indexes also stay right when a commit is refused and when a thread is pruned.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from stalwart_agents import Desk
from stalwart_agents.approvals.principal import ANONYMOUS
from stalwart_agents.errors import PauseExists
from stalwart_agents.storage import Changes, JournalEntry, PauseRecord, RunRecord
from stalwart_agents.storage.memory import MemoryStorage

from ..conftest import SHOP
from .test_hot_path_plans import a_turn_an_answer_and_the_readings, crowd
from .writes import begin_run, save_run

READ = Counter[str]()


def counting(base: type[dict[Any, Any]]) -> type[dict[Any, Any]]:
    """``base`` with every entry read from it counted in READ."""

    class Counted(base):  # type: ignore[valid-type, misc]
        def __getitem__(self, key: Any) -> Any:
            READ["entries"] += 1
            return super().__getitem__(key)

        def get(self, key: Any, default: Any = None) -> Any:
            READ["entries"] += 1
            return super().get(key, default)

        def __contains__(self, key: Any) -> bool:
            READ["entries"] += 1
            return super().__contains__(key)

        def __iter__(self) -> Iterator[Any]:
            return self._walked(super().keys())

        def keys(self) -> Any:
            return self._walked(super().keys())

        def values(self) -> Any:
            return self._walked(super().values())

        def items(self) -> Any:
            return self._walked(super().items())

        def _walked(self, entries: Any) -> Iterator[Any]:
            for entry in list(entries):
                READ["entries"] += 1
                yield entry

    return Counted


def count_reads_of(holder: Any) -> None:
    """Make every dict ``holder`` keeps (and those of the objects it keeps, as the store's tables and indexes) count
    what is read from it."""
    for name, value in vars(holder).items():
        if isinstance(value, dict) and type(value) is dict:
            setattr(holder, name, counting(dict)(value))
        elif isinstance(value, dict):
            value.__class__ = counting(type(value))
        elif type(value).__module__ == MemoryStorage.__module__:
            count_reads_of(value)


def entries_read(move: Callable[[], None]) -> int:
    READ.clear()
    move()
    return READ["entries"]


def test_a_cycle_reads_as_many_entries_in_a_store_of_many_threads_as_in_one_of_a_few(ledger):
    """Both stores hold more open pauses than a page of the inbox, which the cycle reads once."""
    store = MemoryStorage()
    count_reads_of(store)
    with Desk.from_file(SHOP, storage=store) as desk:
        crowd(desk, 120, prefix="few", owner=ANONYMOUS.key)
        among_few = entries_read(lambda: a_turn_an_answer_and_the_readings(desk, "t-1"))
        crowd(desk, 1200, prefix="many", owner=ANONYMOUS.key)
        among_many = entries_read(lambda: a_turn_an_answer_and_the_readings(desk, "t-2"))
    assert among_few == among_many > 0


def a_run(n: int, thread: str = "thread-1") -> RunRecord:
    return RunRecord(f"run-{n}", thread, "helper", "waiting")


def a_pause(n: int, run: RunRecord) -> PauseRecord:
    return PauseRecord(f"pause-{n}", run.id, run.thread, "confirm", n, "tok", {"tool": "charge_card"}, created_at=n)


def an_entry(key: str, run: RunRecord) -> JournalEntry:
    return JournalEntry(run.id, key, "charge_card", {"amount": 40}, "started")


def test_a_refused_commit_leaves_the_indexes_as_they_were():
    store = MemoryStorage()
    taken = a_pause(0, begin_run(store, a_run(0, "thread-0")))
    store.commit(Changes(pauses=[taken]))
    run = a_run(1)
    refused = Changes(begin=run, pauses=[a_pause(1, run), taken], starts=[an_entry("call-1", run)])
    with pytest.raises(PauseExists):
        store.commit(refused)
    assert store.snapshot(run.id) is None and [entry.pause.id for entry in store.inbox()] == [taken.id]
    store.commit(Changes(begin=run, pauses=[a_pause(1, run)], starts=[an_entry("call-1", run)]))
    snapshot = store.snapshot(run.id)
    assert snapshot is not None
    assert [p.id for p in snapshot.pauses] == ["pause-1"] and [e.key for e in snapshot.journal] == ["call-1"]
    assert [entry.pause.id for entry in store.inbox()] == ["pause-1", taken.id]


def test_prune_takes_a_thread_s_runs_and_rows_out_of_the_indexes_and_leaves_the_others():
    """A run begun after prune under a pruned run's id, with its pause's and entry's keys, holds its own rows once."""
    store = MemoryStorage(retention=10.0)
    store.clock = lambda: 0.0
    for n, thread in enumerate(("thread-1", "thread-1", "thread-2")):
        run = begin_run(store, a_run(n, thread))
        store.commit(Changes(pauses=[a_pause(n, run)], starts=[an_entry("call", run)]))
        save_run(store, run.replace(status="done"), expected_version=run.version)
    assert store.prune(100.0).threads == 2
    assert store.inbox() == [] and store.snapshot("run-1") is None
    store.clock = lambda: 200.0
    again = begin_run(store, a_run(0, "thread-3"))
    store.commit(Changes(pauses=[a_pause(0, again)], starts=[an_entry("call", again)]))
    snapshot = store.snapshot(again.id)
    assert snapshot is not None
    assert [p.id for p in snapshot.pauses] == ["pause-0"] and [e.key for e in snapshot.journal] == ["call"]
    assert [entry.pause.id for entry in store.inbox()] == ["pause-0"]
    save_run(store, again.replace(status="done"), expected_version=again.version)
    assert store.prune(300.0).threads == 1 and store.snapshot(again.id) is None and store.inbox() == []
